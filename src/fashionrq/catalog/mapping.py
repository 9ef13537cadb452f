"""The TOML mapping of a generic catalog (CSV, TSV, JSON lines, JSON, Parquet, an XML feed or an Excel workbook) onto the canonical fields, read and
checked key by key; :mod:`fashionrq.catalog.generic` applies it.

See ``docs/catalog.md`` for the mapping format and a worked example.
"""

from __future__ import annotations

import codecs
import difflib
import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fashionrq.catalog.files import read_text
from fashionrq.catalog.prices import DECIMAL_SEPARATORS, DEFAULT_PRICE_FORMAT, ISO_4217, RANGE_CHOICES, PriceFormat
from fashionrq.catalog.records import FORMATS, SAVE_AS_CSV, SPREADSHEETS
from fashionrq.catalog.schema import FIELDS, STRING_FIELDS, without_leading_badge
from fashionrq.errors import InputError

#: Every key a mapping file may hold at its top level.
MAPPING_KEYS = ("format", "encoding", "delimiter", "header_row", "sheet", "record", "list_separator", "columns", "attributes", "values", "constants", "price",
                "clean", "variants", "skip", "photos")
PRICE_KEYS = ("currency", "decimal_separator", "range", "placeholder_max", "scale")
PHOTO_KEYS = ("folder", "index", "id", "path")
VARIANT_KEYS = ("key", "fill", "take", "parent", "parent_id", "children", "variant_id")
#: Fields a ``[constants]`` entry may set (text fields; the id and the photo path differ per item).
CONSTANT_FIELDS = tuple(sorted(STRING_FIELDS - {"item_id", "image_path"}))
#: Fields a ``[clean.<field>]`` section may clean: the text fields and the colour list.
CLEAN_FIELDS = tuple(sorted((STRING_FIELDS - {"item_id", "image_path"}) | {"colours"}))
IDENTITY = "<identity mapping>"


def _suggest(name: str, valid: tuple[str, ...] | list[str]) -> str:
    """``did you mean 'x'?`` for the closest valid name, else the list of valid names."""
    close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else f"valid names are {', '.join(valid)}."


def _table(path: Path, spec: dict, key: str) -> dict:
    value = spec.get(key, {})
    if not isinstance(value, dict):
        raise InputError(f"mapping file {path} sets {key} = {value!r}, but {key} must be a section: write [{key}] and one name = \"column\" line per entry.")
    return value


def _is_reference(value: object) -> bool:
    """A column name or path, or a non-empty list of them (read in turn, the first value present)."""
    if isinstance(value, list):
        return bool(value) and all(isinstance(v, str) and v.strip() for v in value)
    return isinstance(value, str) and bool(value.strip())


def _names(path: Path, section: str, table: dict) -> dict[str, str | list[str]]:
    """A section's ``name = "column"`` (or ``name = ["column", "fallback column"]``) entries, refusing values that
    are not column names."""
    for name, column in table.items():
        if not _is_reference(column):
            raise InputError(f"mapping file {path} sets {name} = {column!r} in [{section}]; give the source column name as a non-empty string, "
                             f"e.g. {name} = \"{name}\", or a list of columns to read in turn, e.g. {name} = [\"sale_{name}\", \"{name}\"].")
    return {str(k): v for k, v in table.items()}


def _fields_and_attributes(path: Path, spec: dict, section: str, what: str, valid: tuple[str, ...] | list[str],
                           read: Callable[[Path, str, object], object]) -> tuple[dict, dict]:
    """A section's ``[<section>.<field>]`` tables by field (``valid`` ones only) and its
    ``[<section>.attributes.<key>]`` ones by attribute key, each read by ``read(path, name, table)``."""
    fields, attributes = {}, {}
    for name, table in _table(path, spec, section).items():
        if name == "attributes" and isinstance(table, dict) and table and all(isinstance(t, dict) for t in table.values()):
            attributes = {key: read(path, f"attributes.{key}", t) for key, t in table.items()}
        elif name not in valid:
            raise InputError(f"mapping file {path} has {what} [{section}.{name}] for no text field; {_suggest(name, valid)} "
                             f"(an attribute's values: [{section}.attributes.<key>])")
        else:
            fields[name] = read(path, name, table)
    return fields, attributes


def _value_maps(path: Path, spec: dict) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """``[values.<field>]`` tables (canonical string fields and the colour list) and ``[values.attributes.<key>]``
    ones (by attribute key), each mapping spelling (in lower case) -> canonical value. A colour map, written
    ``[values.base_colour]`` or ``[values.colours]``, reads the base colour and every colour of the list alike (a
    Musinsa scrape's ``블랙 | black``: ``"블랙" = "Black"``)."""
    fields, attributes = _fields_and_attributes(path, spec, "values", "a value map", sorted(STRING_FIELDS | {"colours"}), _value_map)
    colours = {**fields.get("base_colour", {}), **fields.get("colours", {})}
    if colours:
        fields["base_colour"] = fields["colours"] = colours
    return fields, attributes


def _value_map(path: Path, name: str, table: object) -> dict[str, str]:
    if not isinstance(table, dict):
        raise InputError(f"mapping file {path} sets {name} = {table!r} under [values]; value maps are sections: write [values.{name}] and one \"raw\" = \"canonical\" line per spelling.")
    for raw, canonical in table.items():
        if not isinstance(canonical, str):
            raise InputError(f"mapping file {path} maps {raw!r} to {canonical!r} in [values.{name}]; the canonical value must be a string, e.g. {raw!r} = \"{raw}\".")
    return {str(raw).strip().lower(): canonical for raw, canonical in table.items()}


def _constants(path: Path, spec: dict, columns: dict[str, str]) -> dict[str, str]:
    """``[constants]``: one value every item has in a field the catalog has no column for (``gender = "Women"``)."""
    out = {}
    for name, value in _table(path, spec, "constants").items():
        if name not in CONSTANT_FIELDS:
            raise InputError(f"mapping file {path} sets the constant {name!r}, which is no text field; {_suggest(name, CONSTANT_FIELDS)}")
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"mapping file {path} sets {name} = {value!r} in [constants]; give the value every item has as a non-empty string, e.g. {name} = \"Women\".")
        if name in columns:
            raise InputError(f"mapping file {path} maps {name} both to column {columns[name]!r} and to the constant {value!r}; keep one of them.")
        out[name] = value.strip()
    return out


def _price_format(path: Path, spec: dict) -> PriceFormat:
    """``[price]``: the catalog's currency, decimal separator, which end of a range to keep, the placeholder limit and
    the scale of the written amounts."""
    table = _table(path, spec, "price")
    for key in table:
        if key not in PRICE_KEYS:
            raise InputError(f"mapping file {path} has an unknown key {key!r} in [price]; {_suggest(key, PRICE_KEYS)}")
    currency = table.get("currency", DEFAULT_PRICE_FORMAT.currency)
    if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
        raise InputError(f"mapping file {path} sets currency = {currency!r} in [price]; give an ISO 4217 code such as \"USD\", \"EUR\" or \"INR\".")
    if currency not in ISO_4217:
        raise InputError(f"mapping file {path} sets currency = {currency!r} in [price], which is no ISO 4217 currency code; give the "
                         "catalog's, such as \"USD\", \"EUR\", \"TRY\" or \"INR\".")
    choices = {"decimal_separator": DECIMAL_SEPARATORS, "range": RANGE_CHOICES}
    for key, valid in choices.items():
        if key in table and table[key] not in valid:
            raise InputError(f"mapping file {path} sets {key} = {table[key]!r} in [price]; use one of {', '.join(map(repr, valid))}.")
    limit = table.get("placeholder_max")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int | float) or limit < 0):
        raise InputError(f"mapping file {path} sets placeholder_max = {limit!r} in [price]; give a number >= 0 (prices at or below it become null).")
    scale = table.get("scale", 1)
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not 0 < scale < float("inf"):
        raise InputError(f"mapping file {path} sets scale = {scale!r} in [price]; give the number each written amount is multiplied "
                         "by, e.g. scale = 0.01 for prices written in cents.")
    return PriceFormat(currency=currency, decimal_separator=table.get("decimal_separator", "auto"), range=table.get("range", "low"),
                       placeholder_max=None if limit is None else float(limit), scale=float(scale))


@dataclass(frozen=True)
class FieldCleanup:
    """``[clean.<field>]``: ``split`` and ``part``: one part of a path such as ``Women > Tops > Blouses`` (``part``
    counts from 0, or from the end when negative; default -1, the last); patterns removed from every value of a
    field; patterns whose values are refused; and ``words``: a code such as ``TRACK_PANTS`` read as the words
    ``Track Pants``. ``extract``: the first match of a pattern (its first group, if it has one), as the gender in a
    title ``Women's Casual Top`` with ``extract = '\b(women|men|girls|boys)\b'``; a text without a match is null.
    ``strip_brand``: the item's brand cut out of the text first (``Red Tape Men Brown Sandals``: ``Men Brown
    Sandals``), so that a colour or gender word inside a brand's name is not read as the item's. ``source`` (``from``
    in the mapping): the one reference, of those a field reads in turn, whose values the clean-up is for (the type
    read from the title where the category list is empty); values read from the others are left as they are.
    ``starts_with``: the one of these texts the value starts with, the longest, in any case and as a whole word, as
    listed (the brand a title starts with, ``Red Tape Olive Skinny Fit Jeans``: ``Red Tape``); a text that starts with
    none is null."""

    source: str | None = None
    starts_with: tuple[str, ...] = ()
    strip_brand: bool = False
    split: str | None = None
    part: int = -1
    extract: re.Pattern | None = None
    remove: tuple[re.Pattern, ...] = ()
    refuse: tuple[re.Pattern, ...] = ()
    words: bool | None = None  # None: not said (ingest reads a field of codes as words all the same)
    #: ``starts_with`` by length, the longest first, each length's texts by their casefolded form (the first listed of
    #: those that fold alike): a value's start is looked up once per length, not compared with every text.
    _starts_by_length: tuple[tuple[int, dict[str, str]], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_length: dict[int, dict[str, str]] = {}
        for start in self.starts_with:
            by_length.setdefault(len(start), {}).setdefault(start.casefold(), start)
        object.__setattr__(self, "_starts_by_length", tuple(sorted(by_length.items(), reverse=True)))

    def apply(self, text: str, brand: str | None = None) -> tuple[str | None, bool]:
        """``(value, changed)``: the text without ``brand`` (with ``strip_brand``), the ``part`` of it split at
        ``split``, what ``extract`` finds in it, with every
        ``remove`` match cut out, underscores read as spaces when ``words`` (a one-case code then capitalised word
        by word, the hyphens of one joined by hyphens alone as spaces but after a first word of one letter, an
        ``s`` of its own as a possessive: ``levi_s`` is ``Levi's``, ``casual-shoes`` ``Casual Shoes``,
        ``t-shirts`` ``T-Shirts``) and spaces squeezed; ``None`` when that leaves nothing (a path without that
        part, a text without a match) or the result matches a ``refuse`` pattern whole."""
        cleaned = text
        if self.starts_with:
            cleaned = self._start_of(cleaned)
        if self.strip_brand and brand and brand.strip():
            cleaned = re.sub(rf"(?<!\w){re.escape(brand.strip())}(?!\w)", " ", cleaned, count=1, flags=re.IGNORECASE)
        if self.split is not None:
            parts = cleaned.split(self.split)
            cleaned = parts[self.part] if -len(parts) <= self.part < len(parts) else ""
        if self.extract is not None:
            found = self.extract.search(cleaned)
            cleaned = "" if found is None else found.group(1) if found.re.groups else found.group(0)
        for pattern in self.remove:
            cleaned = pattern.sub(" ", cleaned)
        if self.words:
            one_case = cleaned.isupper() or cleaned.islower()
            if one_case and "_" not in cleaned:  # a slug joined by hyphens: sneakers-and-converses (but t-shirts)
                cleaned = _FIRST_LETTER.sub(r"\1-", cleaned.replace("-", " "))
            cleaned = _POSSESSIVE_CODE.sub("'s", cleaned).replace("_", " ")  # levi_s: Levi's
            if one_case:
                cleaned = _TITLED_POSSESSIVE.sub("'s", cleaned.title())
        cleaned = " ".join(cleaned.split()).strip(" ,;/-")
        if not cleaned or any(p.fullmatch(cleaned) for p in self.refuse):
            return None, True
        return cleaned, cleaned != text.strip()

    def _start_of(self, text: str) -> str:
        """The longest of ``starts_with`` that ``text`` starts with, in any case, as whole words (``Only Pink Top``
        with ``Only``, not ``Onlyness``), past a shop's badges (``[SALE 50%] - Áo Thun``); ``""`` if none."""
        text = without_leading_badge(text)
        for length, starts in self._starts_by_length:
            start = starts.get(text[:length].casefold())
            if start is not None and not text[length:length + 1].isalnum():
                return start
        return ""


#: A code's possessive: an ``s`` of its own after a word (``levi_s``, ``men_s_shoes``), and as ``str.title`` writes it.
_POSSESSIVE_CODE = re.compile(r"(?<=[A-Za-z])_[sS](?=_|$)")
_TITLED_POSSESSIVE = re.compile(r"'S\b")
#: A slug's first word of one letter, whose hyphen is the word's own (``t-shirts``, ``a-line-dresses``, ``v-neck``).
_FIRST_LETTER = re.compile(r"^([^\W\d_]) (?=\w)")


def _pattern_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


#: Each ``[clean.<field>]`` key: whether its value is well formed, and the fix a refusal names.
CLEAN_VALUES = {
    "split": (lambda v: isinstance(v, str) and bool(v.strip()), 'give the text between the parts of a path, e.g. split = ">"'),
    "part": (lambda v: isinstance(v, int) and not isinstance(v, bool), 'give a whole number (0 the first part, -1 the last) beside split = ">"'),
    "extract": (lambda v: isinstance(v, str) and bool(v), "give one regular expression, e.g. extract = '\\b(women|men)\\b'"),
    "remove": (_pattern_list, "give a list of regular expressions, e.g. remove = ['\\d+']"),
    "refuse": (_pattern_list, "give a list of regular expressions, e.g. refuse = ['\\d+']"),
    "words": (lambda v: isinstance(v, bool), "write words = true or words = false"),
    "strip_brand": (lambda v: isinstance(v, bool), "write strip_brand = true or strip_brand = false"),
    "starts_with": (lambda v: isinstance(v, list) and bool(v) and all(isinstance(e, str) and e.strip() for e in v),
                    'give a list of the texts a value may start with, e.g. starts_with = ["Red Tape", "Only"]'),
    "from": (lambda v: isinstance(v, str) and bool(v), 'give one of the references the field reads in turn, e.g. from = "title"'),
}
CLEAN_KEYS = tuple(CLEAN_VALUES)


def _compiled(path: Path, where: str, pattern: str) -> re.Pattern:
    """``pattern`` compiled to match in any case; one that is no regular expression is refused, naming ``where`` it
    stands (``[clean.colours] remove``)."""
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as err:
        raise InputError(f"mapping file {path}: pattern {pattern!r} in {where} is no regular expression ({err}); fix it.") from None


def _cleanups(path: Path, spec: dict) -> tuple[dict[str, FieldCleanup], dict[str, FieldCleanup]]:
    """The ``[clean.<field>]`` sections by field, the brand's first (``strip_brand`` in the others cuts out the brand it
    gives: the brand a title starts with is no colour of the title's), and the ``[clean.attributes.<key>]`` ones by
    attribute key."""
    fields, attributes = _fields_and_attributes(path, spec, "clean", "a clean-up", CLEAN_FIELDS, _cleanup)
    return dict(sorted(fields.items(), key=lambda pair: pair[0] != "brand")), attributes


def _cleanup(path: Path, name: str, table: object) -> FieldCleanup:
    """The checked ``[clean.<name>]`` section ``table``."""
    if not isinstance(table, dict):
        raise InputError(f"mapping file {path} sets {name} = {table!r} under [clean]; write [clean.{name}] with remove = [...] and refuse = [...] lists of patterns.")
    for key, value in table.items():
        if key not in CLEAN_VALUES:
            raise InputError(f"mapping file {path} has an unknown key {key!r} in [clean.{name}]; {_suggest(key, CLEAN_KEYS)}")
        well_formed, fix = CLEAN_VALUES[key]
        if not well_formed(value) or (key == "part" and "split" not in table):
            raise InputError(f"mapping file {path} sets {key} = {value!r} in [clean.{name}]; {fix}.")
    settings = {("source" if key == "from" else key): value for key, value in table.items()}
    if "extract" in table:
        settings["extract"] = _compiled(path, f"[clean.{name}] extract", table["extract"])
    if "starts_with" in table:  # the longest first: "Red Tape" before "Red"
        settings["starts_with"] = tuple(sorted((e.strip() for e in table["starts_with"]), key=lambda e: (-len(e), e)))
    for key in ("remove", "refuse"):
        if key in table:
            settings[key] = tuple(_compiled(path, f"[clean.{name}] {key}", pattern) for pattern in table[key])
    return FieldCleanup(**settings)


def _check_sources(path: Path, cleanups: dict[str, FieldCleanup], columns: dict[str, str | list[str]]) -> None:
    """Refuse a ``from`` that names none of the references its field reads in turn."""
    for name, cleanup in cleanups.items():
        if cleanup.source is None:
            continue
        read = columns.get(name, name)
        read = read if isinstance(read, list) else [read]
        if cleanup.source not in read:
            raise InputError(f"mapping file {path} sets from = {cleanup.source!r} in [clean.{name}], which is not one of the references "
                             f"{name} reads ({', '.join(map(repr, read))}); name one of them, or list it under [columns] {name}.")


def _setting(path: Path, spec: dict, key: str, default: str) -> str:
    value = spec.get(key, default)
    if not isinstance(value, str) or not value:
        raise InputError(f"mapping file {path} sets {key} = {value!r}; it must be a non-empty string such as {default!r}.")
    return value


def _check_spec(path: Path, spec: dict) -> None:
    """Refuse unknown top-level keys or sections, naming the closest valid one."""
    for key, value in spec.items():
        if key not in MAPPING_KEYS:
            kind = f"section [{key}]" if isinstance(value, dict) else f"key {key!r}"
            raise InputError(f"mapping file {path} has an unknown {kind}; {_suggest(key, MAPPING_KEYS)}")
    unknown = sorted(set(_table(path, spec, "columns")) - set(FIELDS))
    if unknown:
        raise InputError(f"mapping file {path} maps the unknown field {unknown[0]!r} in [columns]; {_suggest(unknown[0], FIELDS)}")
    encoding = _setting(path, spec, "encoding", "utf-8")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InputError(f"mapping file {path} names an unknown text encoding {encoding!r}; use one Python knows, e.g. \"utf-8\" or \"latin-1\".") from None
    fmt = spec.get("format")
    if fmt is not None and fmt not in FORMATS:
        spreadsheet = f" (for a .{fmt} spreadsheet, save it as an Excel workbook (.xlsx), or {SAVE_AS_CSV})" if f".{fmt}" in SPREADSHEETS else ""
        raise InputError(f"mapping file {path} sets format = {fmt!r}; use one of {', '.join(FORMATS)}{spreadsheet}.")


def _delimiter(path: Path, spec: dict) -> str | None:
    """``delimiter``: the one character between a CSV file's fields (``"tab"`` for a tab); ``None``: the format's."""
    value = spec.get("delimiter")
    if value is None:
        return None
    value = "\t" if value == "tab" else value
    if not isinstance(value, str) or len(value) != 1 or value in "\"\r\n":
        raise InputError(f"mapping file {path} sets delimiter = {value!r}; give the one character between fields, "
                         "e.g. delimiter = \";\" or delimiter = \"tab\".")
    return value


@dataclass(frozen=True)
class Variants:
    """``[variants]``: ``key``, the columns whose values together name one product (rows repeating them are
    variants); ``parent``, the column in which a variant row names its parent row, by one of the ``parent_id``
    columns, or ``children``, the column in which a parent row lists its variant rows, by one of the ``variant_id``
    columns (either way the parent rows are left out); ``fill``, the columns a row leaves empty (or the keys a column
    of key/value pairs lacks) and takes from its parent row, else from the first row of its product; ``take``, the
    columns it takes from there whatever it holds (Magento's variant names ``Tee-XS-Black``)."""

    key: tuple[str, ...] = ()
    fill: tuple[str, ...] = ()
    parent: str | None = None
    parent_id: tuple[str, ...] = ()
    children: str | None = None
    take: tuple[str, ...] = ()
    variant_id: tuple[str, ...] = ()


def _columns_list(path: Path, table: dict, key: str, example: str, what: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(c, str) and c.strip() for c in value):
        raise InputError(f"mapping file {path} sets {key} = {value!r} in [variants]; give {what}, e.g. {key} = {example}.")
    return tuple(value)


def _skips(path: Path, spec: dict) -> dict[str, tuple[re.Pattern, ...]]:
    """``[skip]``: ``column = ["pattern", ...]``, the rows whose value in that column (or path) matches a pattern
    whole, in any case, are left out (a draft product, a category the benchmark is not about)."""
    out = {}
    for column, patterns in _table(path, spec, "skip").items():
        if not _pattern_list(patterns):
            raise InputError(f"mapping file {path} sets {column} = {patterns!r} in [skip]; give a list of the values (regular expressions, "
                             f"matched whole, in any case) whose rows to leave out, e.g. {column} = [\"draft\", \"archived\"].")
        out[column] = tuple(_compiled(path, f"[skip] {column}", pattern) for pattern in patterns)
    return out


def _header_row(path: Path, spec: dict) -> int:
    """``header_row``: the line of a CSV file (or the row of a workbook's sheet) that names its columns (Amazon's flat
    files have two lines above it)."""
    value = spec.get("header_row", 1)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
        raise InputError(f"mapping file {path} sets header_row = {value!r}; give the line number of the header, e.g. header_row = 3.")
    if value != 1 and spec.get("format") in ("jsonl", "json", "parquet", "xml"):
        raise InputError(f"mapping file {path} sets header_row with format = {spec['format']!r}; only CSV and TSV files and Excel sheets have a header row.")
    return value


def _sheet(path: Path, spec: dict) -> str | None:
    """``sheet``: the sheet of an Excel workbook to read (default: the one with the most filled rows)."""
    value = spec.get("sheet")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"mapping file {path} sets sheet = {value!r}; give the name of the workbook's sheet to read, e.g. sheet = \"Products\".")
    if spec.get("format", "xlsx") != "xlsx":
        raise InputError(f"mapping file {path} sets sheet with format = {spec['format']!r}; only Excel workbooks have sheets.")
    return value


def _record(path: Path, spec: dict) -> str | None:
    """``record``: the local name of an XML feed's product element (``product``), when the feed does not say it."""
    value = spec.get("record")
    if value is None:
        return None
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z_][\w.-]*", value):
        raise InputError(f"mapping file {path} sets record = {value!r}; give the name of the element that holds one product, "
                         "without a namespace prefix or brackets, e.g. record = \"product\".")
    if spec.get("format", "xml") != "xml":
        raise InputError(f"mapping file {path} sets record with format = {spec['format']!r}; only an XML feed has a record element.")
    return value


def _variants(path: Path, spec: dict) -> Variants:
    table = _table(path, spec, "variants")
    for key in table:
        if key not in VARIANT_KEYS:
            raise InputError(f"mapping file {path} has an unknown key {key!r} in [variants]; {_suggest(key, VARIANT_KEYS)}")
    key = _columns_list(path, table, "key", '["item_group_id", "color"]', "the columns that name one product")
    fill = _columns_list(path, table, "fill", '["Title", "Vendor"]', "the columns a variant row takes from its parent or first row")
    take = _columns_list(path, table, "take", '["name"]', "the columns a variant row takes from its parent or first row even "
                                                           "when it has its own value")
    parent_id = _columns_list(path, table, "parent_id", '["SKU", "id:{ID}"]', "the columns that name the row a variant's parent cell names")
    variant_id = _columns_list(path, table, "variant_id", '["sku"]', "the columns that name a row a parent's children cell lists")
    parent = _link_column(path, table, "parent", "the one column in which a variant names its parent row, e.g. parent = \"Parent\"")
    children = _link_column(path, table, "children", "the one column (or path) in which a parent row lists its variant rows, "
                                                      "e.g. children = \"configurable_variations[*].sku\"")
    for link, ids, example in (("parent", "parent_id", 'parent = "Parent" (where a variant names its parent) and parent_id = '
                                                       '["SKU", "id:{ID}"] (the columns that name a row there)'),
                               ("children", "variant_id", 'children = "configurable_variations[*].sku" (where a parent lists its '
                                                          'variants) and variant_id = ["sku"] (the columns that name a row there)')):
        if (table.get(link) is None) != (not table.get(ids)):
            raise InputError(f"mapping file {path} sets {link if table.get(link) is not None else ids} without "
                             f"{ids if table.get(link) is not None else link} in [variants]; give both: {example}.")
    if parent is not None and children is not None:
        raise InputError(f"mapping file {path} sets both parent and children in [variants]; a catalog links a variant to its "
                         "parent one way: keep parent where variants name their parent, children where a parent lists its variants.")
    if table and not key and parent is None and children is None:
        raise InputError(f"mapping file {path} sets [variants] without key; give the columns that name one product, "
                         "e.g. key = [\"item_group_id\", \"color\"].")
    return Variants(key=key, fill=fill, take=take, parent=parent, parent_id=parent_id, children=children, variant_id=variant_id)


def _link_column(path: Path, table: dict, key: str, what: str) -> str | None:
    value = table.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise InputError(f"mapping file {path} sets {key} = {value!r} in [variants]; give {what}.")
    return value


@dataclass(frozen=True)
class PhotoSource:
    """Where a mapped catalog's photos are (``[photos]``): ``folder`` holds them (``None``: the catalog's folder);
    ``index``, a table whose ``id_column`` holds the image ids the catalog names and whose ``path_column`` each one's
    file in ``folder`` (``None``: the catalog names the files itself). Both paths as the mapping file's folder reads
    them."""

    folder: Path | None = None
    index: Path | None = None
    id_column: str = "image_id"
    path_column: str = "path"


def _photo_source(path: Path, spec: dict) -> PhotoSource:
    """``[photos]``: its folder and index, relative to the mapping file, each checked to be there."""
    table = _table(path, spec, "photos")
    for key, value in table.items():
        if key not in PHOTO_KEYS:
            raise InputError(f"mapping file {path} has the unknown key {key!r} in [photos]; {_suggest(key, PHOTO_KEYS)}")
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"mapping file {path} sets {key} = {value!r} in [photos]; give a text, e.g. folder = \"images\".")
    if ("id" in table or "path" in table) and "index" not in table:
        raise InputError(f"mapping file {path} names the columns of a photo index in [photos] but no index; add "
                         "index = \"images/metadata/images.csv.gz\" (the table of image ids and paths), or remove id and path.")
    found = {}
    for key, kind, there in (("folder", "folder", Path.is_dir), ("index", "file", Path.is_file)):
        if key in table:
            found[key] = (path.parent / table[key]).resolve()
            if not there(found[key]):
                raise InputError(f"mapping file {path} sets {key} = {table[key]!r} in [photos], but {found[key]} is no {kind}; "
                                 "give its path from the mapping file's folder.")
    return PhotoSource(found.get("folder"), found.get("index"), table.get("id", "image_id"), table.get("path", "path"))


def _toml_fix(text: str, error: str) -> str:
    """The fix for a TOML syntax error: quotes for a key that TOML does not allow bare (letters outside A-Z, a space:
    ``블랙 = "Black"``, ``Original Price = "Price"``), else the syntax."""
    found = re.search(r"at line (\d+)", error)
    lines = text.splitlines()
    line = lines[int(found.group(1)) - 1] if found and 0 < int(found.group(1)) <= len(lines) else ""
    key = line.split("=", 1)[0].strip() if "=" in line else ""
    if key and not re.fullmatch(r"[A-Za-z0-9_.-]+|[\"'].*|#.*", key):
        return (f"write the key {key!r} in quotes ({json.dumps(key, ensure_ascii=False)} = ...): a key with letters outside "
                "A-Z, a space or another mark is written in quotes.")
    return "fix the syntax."


@dataclass
class Mapping:
    """How one catalog's columns map onto the canonical item fields."""

    columns: dict[str, str | list[str]] = field(default_factory=dict)
    attributes: dict[str, str | list[str]] = field(default_factory=dict)
    values: dict[str, dict[str, str]] = field(default_factory=dict)
    attribute_values: dict[str, dict[str, str]] = field(default_factory=dict)  # [values.attributes.<key>]
    constants: dict[str, str] = field(default_factory=dict)
    prices: PriceFormat = DEFAULT_PRICE_FORMAT
    cleanups: dict[str, FieldCleanup] = field(default_factory=dict)  # the brand's first (_cleanups)
    attribute_cleanups: dict[str, FieldCleanup] = field(default_factory=dict)  # [clean.attributes.<key>]
    skips: dict[str, tuple[re.Pattern, ...]] = field(default_factory=dict)
    list_separator: str | None = None  # none set: "|" where a text holds one, else a comma (split_list)
    encoding: str = "utf-8"
    format: str | None = None
    delimiter: str | None = None
    header_row: int = 1
    sheet: str | None = None
    record: str | None = None
    variants: Variants = Variants()
    photos: PhotoSource = PhotoSource()
    source: str = IDENTITY

    @classmethod
    def load(cls, path: Path) -> Mapping:
        """Read and validate a TOML mapping file; every mistake is refused with one sentence."""
        if not path.exists():
            raise InputError(f"mapping file {path} does not exist; pass the path of a TOML mapping (see docs/catalog.md).")
        text = read_text(path)
        try:
            spec = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise InputError(f"mapping file {path} is not valid TOML ({err}); {_toml_fix(text, str(err))}") from None
        _check_spec(path, spec)
        columns = _names(path, "columns", _table(path, spec, "columns"))
        cleanups, attribute_cleanups = _cleanups(path, spec)
        values, attribute_values = _value_maps(path, spec)
        _check_sources(path, cleanups, columns)
        return cls(
            columns=columns,
            attributes=_names(path, "attributes", _table(path, spec, "attributes")),
            values=values,
            attribute_values=attribute_values,
            constants=_constants(path, spec, columns),
            prices=_price_format(path, spec),
            cleanups=cleanups,
            attribute_cleanups=attribute_cleanups,
            skips=_skips(path, spec),
            list_separator=_setting(path, spec, "list_separator", "|") if "list_separator" in spec else None,
            encoding=_setting(path, spec, "encoding", "utf-8"),
            format=spec.get("format"),
            delimiter=_delimiter(path, spec),
            header_row=_header_row(path, spec),
            sheet=_sheet(path, spec),
            record=_record(path, spec),
            variants=_variants(path, spec),
            photos=_photo_source(path, spec),
            source=str(path),
        )

    def source_column(self, canonical: str) -> str | list[str]:
        return self.columns.get(canonical, canonical)
