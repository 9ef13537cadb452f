"""Generic catalogs: a CSV, JSONL or Parquet file plus a TOML mapping onto the canonical fields.

See ``docs/catalog.md`` for the mapping format and a worked example.
"""

from __future__ import annotations

import codecs
import difflib
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from fashionrq.catalog.clean import RowCleaner, check_item_id
from fashionrq.catalog.prices import CURRENCY_MARKS, DECIMAL_SEPARATORS, DEFAULT_PRICE_FORMAT, RANGE_CHOICES, PriceFormat
from fashionrq.catalog.files import check_header, csv_table, read_bytes, read_text
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.schema import (
    FIELDS,
    REQUIRED_FIELDS,
    STRING_FIELDS,
    clean_string,
    normalise_age_group,
    normalise_gender,
    strip_html,
    to_text,
)
from fashionrq.errors import InputError

SUPPORTED_FORMATS = ("csv", "jsonl", "parquet")
#: Every key a mapping file may hold at its top level.
MAPPING_KEYS = ("format", "encoding", "list_separator", "columns", "attributes", "values", "constants", "price", "clean")
PRICE_KEYS = ("currency", "decimal_separator", "range", "placeholder_max")
CLEAN_KEYS = ("remove", "refuse", "words")
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


def _names(path: Path, section: str, table: dict) -> dict[str, str]:
    """A section's ``name = "column"`` entries, refusing values that are not column names."""
    for name, column in table.items():
        if not isinstance(column, str) or not column.strip():
            raise InputError(f"mapping file {path} sets {name} = {column!r} in [{section}]; give the source column name as a non-empty string, e.g. {name} = \"{name}\".")
    return {str(k): v for k, v in table.items()}


def _value_maps(path: Path, spec: dict) -> dict[str, dict[str, str]]:
    """``[values.<field>]`` tables: canonical string fields only, each mapping spelling -> canonical value."""
    out = {}
    for name, table in _table(path, spec, "values").items():
        if not isinstance(table, dict):
            raise InputError(f"mapping file {path} sets {name} = {table!r} under [values]; value maps are sections: write [values.{name}] and one \"raw\" = \"canonical\" line per spelling.")
        if name not in STRING_FIELDS:
            raise InputError(f"mapping file {path} has a value map [values.{name}] for no text field; {_suggest(name, sorted(STRING_FIELDS))}")
        for raw, canonical in table.items():
            if not isinstance(canonical, str):
                raise InputError(f"mapping file {path} maps {raw!r} to {canonical!r} in [values.{name}]; the canonical value must be a string, e.g. {raw!r} = \"{raw}\".")
        out[name] = {str(raw).strip().lower(): canonical for raw, canonical in table.items()}
    return out


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
    """``[price]``: the catalog's currency, decimal separator, which end of a range to keep, and the placeholder limit."""
    table = _table(path, spec, "price")
    for key in table:
        if key not in PRICE_KEYS:
            raise InputError(f"mapping file {path} has an unknown key {key!r} in [price]; {_suggest(key, PRICE_KEYS)}")
    currency = table.get("currency", DEFAULT_PRICE_FORMAT.currency)
    codes = sorted({code for codes in CURRENCY_MARKS.values() for code in codes})
    if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
        raise InputError(f"mapping file {path} sets currency = {currency!r} in [price]; give an ISO 4217 code such as \"USD\", \"EUR\" or \"INR\".")
    if currency not in codes:
        raise InputError(f"mapping file {path} sets currency = {currency!r} in [price], which fashionrq cannot recognise in price cells; use one of {', '.join(codes)}.")
    choices = {"decimal_separator": DECIMAL_SEPARATORS, "range": RANGE_CHOICES}
    for key, valid in choices.items():
        if key in table and table[key] not in valid:
            raise InputError(f"mapping file {path} sets {key} = {table[key]!r} in [price]; use one of {', '.join(map(repr, valid))}.")
    limit = table.get("placeholder_max")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int | float) or limit < 0):
        raise InputError(f"mapping file {path} sets placeholder_max = {limit!r} in [price]; give a number >= 0 (prices at or below it become null).")
    return PriceFormat(currency=currency, decimal_separator=table.get("decimal_separator", "auto"), range=table.get("range", "low"),
                       placeholder_max=None if limit is None else float(limit))


@dataclass(frozen=True)
class FieldCleanup:
    """``[clean.<field>]``: patterns removed from every value of a field, patterns whose values are refused, and
    ``words``: a code such as ``TRACK_PANTS`` read as the words ``Track Pants``."""

    remove: tuple[re.Pattern, ...] = ()
    refuse: tuple[re.Pattern, ...] = ()
    words: bool = False

    def apply(self, text: str) -> tuple[str | None, bool]:
        """``(value, changed)``: the text with every ``remove`` match cut out, underscores read as spaces when
        ``words`` (a one-case code then capitalised word by word) and spaces squeezed; ``None`` when that leaves
        nothing or the result matches a ``refuse`` pattern whole."""
        cleaned = text
        for pattern in self.remove:
            cleaned = pattern.sub(" ", cleaned)
        if self.words:
            cleaned = cleaned.replace("_", " ")
            if cleaned.isupper() or cleaned.islower():
                cleaned = cleaned.title()
        cleaned = " ".join(cleaned.split()).strip(" ,;/-")
        if not cleaned or any(p.fullmatch(cleaned) for p in self.refuse):
            return None, True
        return cleaned, cleaned != text.strip()


def _cleanups(path: Path, spec: dict) -> dict[str, FieldCleanup]:
    out = {}
    for name, table in _table(path, spec, "clean").items():
        if name not in CLEAN_FIELDS:
            raise InputError(f"mapping file {path} has a clean-up [clean.{name}] for no text field; {_suggest(name, CLEAN_FIELDS)}")
        if not isinstance(table, dict):
            raise InputError(f"mapping file {path} sets {name} = {table!r} under [clean]; write [clean.{name}] with remove = [...] and refuse = [...] lists of patterns.")
        patterns: dict = {}
        for key, value in table.items():
            if key not in CLEAN_KEYS:
                raise InputError(f"mapping file {path} has an unknown key {key!r} in [clean.{name}]; {_suggest(key, CLEAN_KEYS)}")
            if key == "words":
                if not isinstance(value, bool):
                    raise InputError(f"mapping file {path} sets words = {value!r} in [clean.{name}]; write words = true or words = false.")
                patterns[key] = value
                continue
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise InputError(f"mapping file {path} sets {key} = {value!r} in [clean.{name}]; give a list of regular expressions, e.g. {key} = ['\\d+'].")
            try:
                patterns[key] = tuple(re.compile(v, re.IGNORECASE) for v in value)
            except re.error as err:
                raise InputError(f"mapping file {path}: pattern {err.pattern!r} in [clean.{name}] {key} is no regular expression ({err}); fix it.") from None
        out[name] = FieldCleanup(**patterns)
    return out


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
    if fmt is not None and fmt not in SUPPORTED_FORMATS:
        raise InputError(f"mapping file {path} sets format = {fmt!r}; use one of {', '.join(SUPPORTED_FORMATS)}.")


@dataclass
class Mapping:
    """How one catalog's columns map onto the canonical item fields."""

    columns: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)
    values: dict[str, dict[str, str]] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)
    prices: PriceFormat = DEFAULT_PRICE_FORMAT
    cleanups: dict[str, FieldCleanup] = field(default_factory=dict)
    list_separator: str = "|"
    encoding: str = "utf-8"
    format: str | None = None
    source: str = IDENTITY

    @classmethod
    def load(cls, path: Path) -> Mapping:
        """Read and validate a TOML mapping file; every mistake is refused with one sentence."""
        if not path.exists():
            raise InputError(f"mapping file {path} does not exist; pass the path of a TOML mapping (see docs/catalog.md).")
        try:
            spec = tomllib.loads(read_text(path))
        except tomllib.TOMLDecodeError as err:
            raise InputError(f"mapping file {path} is not valid TOML ({err}); fix the syntax.") from None
        _check_spec(path, spec)
        columns = _names(path, "columns", _table(path, spec, "columns"))
        return cls(
            columns=columns,
            attributes=_names(path, "attributes", _table(path, spec, "attributes")),
            values=_value_maps(path, spec),
            constants=_constants(path, spec, columns),
            prices=_price_format(path, spec),
            cleanups=_cleanups(path, spec),
            list_separator=_setting(path, spec, "list_separator", "|"),
            encoding=_setting(path, spec, "encoding", "utf-8"),
            format=spec.get("format"),
            source=str(path),
        )

    def source_column(self, canonical: str) -> str:
        return self.columns.get(canonical, canonical)


def _detect_format(path: Path, mapping: Mapping) -> str:
    if mapping.format:
        return mapping.format
    name = path.name.lower().removesuffix(".gz")
    for fmt in SUPPORTED_FORMATS:
        if name.endswith("." + fmt) or (fmt == "jsonl" and name.endswith(".ndjson")):
            return fmt
    raise InputError(f"cannot tell the format of {path} from its name; rename it to .csv, .jsonl or .parquet, or set format in the mapping file.")


#: ``(where, record)``: where a record came from (``file:line`` or ``file row n``) and its raw values by column.
Records = list[tuple[str, dict]]


def _parquet_records(path: Path, report: IngestReport) -> tuple[Records, list[str]]:
    import pyarrow as pa

    try:
        parquet = pq.ParquetFile(pa.BufferReader(read_bytes(path)))
        check_header(path, parquet.schema_arrow.names)
        table = parquet.read()
    except (pa.ArrowException, OSError) as err:
        raise InputError(f"{path} is not a readable Parquet file ({err}); re-export it.") from None
    if table.num_rows == 0:
        raise InputError(f"{path} is empty; pass a catalog with at least one product.")
    try:
        rows = table.to_pylist(maps_as_pydicts="strict")
    except KeyError as err:
        raise InputError(f"{path} has a map value that repeats a key ({err.args[0]}); keep each key once per map.") from None
    report.rows_read = table.num_rows
    return [(f"{path.name} row {i}", row) for i, row in enumerate(rows, start=1)], table.column_names


def _csv_records(path: Path, text: str, report: IngestReport) -> tuple[Records, list[str]]:
    columns, rows = csv_table(path, text)
    records = []
    for line_no, fields in rows:
        if not fields:  # a blank line
            continue
        report.rows_read += 1
        if len(fields) > len(columns):
            report.reject(f"{path.name}:{line_no}", f"{len(fields)} fields for {len(columns)} columns")
            continue
        records.append((f"{path.name}:{line_no}", dict(zip(columns, fields))))
    if not records and not report.rejected:
        raise InputError(f"{path} has a header but no products; add at least one row.")
    return records, columns


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    keys = [k for k, _ in pairs]
    repeated = next((k for k in keys if keys.count(k) > 1), None)
    if repeated is not None:
        raise ValueError(f"the key {repeated!r} appears twice")
    return dict(pairs)


def _jsonl_records(path: Path, text: str, report: IngestReport) -> tuple[Records, list[str]]:
    records, columns = [], {}
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        report.rows_read += 1
        try:
            record = json.loads(line, object_pairs_hook=_unique_keys)
        except ValueError as err:
            report.reject(f"{path.name}:{line_no}", f"malformed JSON ({getattr(err, 'msg', err)})")
            continue
        if not isinstance(record, dict):
            report.reject(f"{path.name}:{line_no}", "a JSON line must be an object")
            continue
        columns.update(dict.fromkeys(record))
        records.append((f"{path.name}:{line_no}", record))
    return records, list(columns)


def _read_records(path: Path, mapping: Mapping, report: IngestReport) -> tuple[Records, list[str]]:
    fmt = _detect_format(path, mapping)
    if fmt == "parquet":
        return _parquet_records(path, report)
    text = read_text(path, mapping.encoding)
    if not text.strip():
        raise InputError(f"{path} is empty; pass a catalog with a header row and at least one product.")
    return _csv_records(path, text, report) if fmt == "csv" else _jsonl_records(path, text, report)


def _check_columns(path: Path, mapping: Mapping, columns: list[str]) -> None:
    available = set(columns)
    mapped = [(f"maps {c}", col) for c, col in sorted(mapping.columns.items())]
    mapped += [(f"maps attribute {k!r}", col) for k, col in sorted(mapping.attributes.items())]
    for what, column in mapped:
        if column not in available:
            raise InputError(
                f"{mapping.source} {what} to column {column!r}, which {path.name} does not have "
                f"(columns: {', '.join(columns)}); fix the column name in the mapping."
            )
    for canonical in REQUIRED_FIELDS:
        if canonical not in mapping.constants and mapping.source_column(canonical) not in available:
            raise InputError(
                f"{path} is missing the required column {mapping.source_column(canonical)!r} for field {canonical}; "
                f"add it, or map another column to {canonical} under [columns] in a mapping file."
            )


def _raw_values(record: dict, mapping: Mapping, report: IngestReport, item_id: str) -> dict:
    """The record's value for every canonical field: the mapping's constants, then its clean-ups (counted in
    ``report``), then its value maps."""
    raw = {name: mapping.constants.get(name, record.get(mapping.source_column(name))) for name in FIELDS}
    for name, cleanup in mapping.cleanups.items():
        raw[name] = _cleaned(raw[name], cleanup, name, mapping.list_separator, report, item_id)
    for name, table in mapping.values.items():
        text = to_text(raw[name])
        if text is not None:
            raw[name] = table.get(text.strip().lower(), raw[name])
    return raw


def _cleaned(value: object, cleanup: FieldCleanup, name: str, separator: str, report: IngestReport, item_id: str):
    """``value`` (one text, a list, or a ``separator``-joined list) through ``cleanup``; each changed value is
    counted under ``repaired.cleaned_<name>`` and each refused one under ``values_nulled.refused_<name>``."""
    if isinstance(value, list | tuple):
        entries, joined = [to_text(v) for v in value], False
    else:
        text = to_text(value)
        if text is None:
            return value
        entries, joined = (text.split(separator) if name == "colours" else [text]), True
    out = []
    for entry in entries:
        if entry is None or not entry.strip():
            continue
        cleaned, changed = cleanup.apply(entry)
        if cleaned is None:
            report.null_value(f"refused_{name}", item_id)
        elif changed:
            report.repair(f"cleaned_{name}", item_id)
        if cleaned is not None:
            out.append(cleaned)
    if not joined:
        return out
    return separator.join(out) if out else None


def _mapped_item(where: str, record: dict, mapping: Mapping, report: IngestReport, required: tuple[str, ...]) -> dict | None:
    """One canonical item, or ``None`` when the row is rejected for an empty ``required`` field (recorded in ``report``)."""
    item_id = clean_string(record.get(mapping.source_column("item_id")))
    if item_id is None:
        report.reject(where, f"empty id in column {mapping.source_column('item_id')!r}")
        return None
    check_item_id(item_id, where)
    raw = _raw_values(record, mapping, report, item_id)
    missing_required = [f for f in required if clean_string(raw[f]) is None]
    if missing_required:
        report.reject(f"{where} (id {item_id})", f"empty required field(s) {', '.join(missing_required)}")
        return None
    clean = RowCleaner(report, item_id, mapping.prices)
    attributes = clean.attributes(raw["attributes"])
    for key, column in mapping.attributes.items():
        text = clean.text(f"attributes.{key}", record.get(column))
        if text is not None:
            attributes[key] = text
    colours = clean.values("colours", raw["colours"], mapping.list_separator)
    base = clean.text("base_colour", raw["base_colour"]) or (colours[0] if colours else None)
    item = {name: clean.text(name, raw[name]) for name in ("name", "brand", "master_category", "sub_category",
                                                           "article_type", "season", "usage", "image_path")}
    return item | {
        "item_id": item_id,
        "gender": normalise_gender(clean.text("gender", raw["gender"])),
        "age_group": normalise_age_group(clean.text("age_group", raw["age_group"])),
        "base_colour": base,
        "colours": _distinct(([base] if base else []) + colours),
        "year": clean.year(raw["year"]),
        "price": clean.price("price", raw["price"]),
        "discounted_price": clean.price("discounted_price", raw["discounted_price"]),
        "description": clean.text("description", strip_html(raw["description"])),
        "attributes": attributes,
    }


def _distinct(values: list[str]) -> list[str]:
    """``values`` without repeats, compared case-insensitively ("Black" and "black" are one colour)."""
    seen, out = set(), []
    for value in values:
        if value.lower() not in seen:
            seen.add(value.lower())
            out.append(value)
    return out


def read_generic(path: Path, mapping: Mapping, report: IngestReport) -> list[dict]:
    """Read a generic catalog file through ``mapping`` into canonical item dicts."""
    records, columns = _read_records(path, mapping, report)
    _check_columns(path, mapping, columns)
    if mapping.prices != DEFAULT_PRICE_FORMAT:
        fmt = mapping.prices
        report.notes.append(f"prices read as {fmt.currency} (decimal separator {fmt.decimal_separator}, the {fmt.range} end of a "
                            f"range; at or below {fmt.placeholder_limit:g} a placeholder), as [price] in {mapping.source} says")
    for name, value in sorted(mapping.constants.items()):
        report.notes.append(f"{name} is {value!r} for every item ([constants] in {mapping.source})")
    # An items table written by `fashionrq ingest` was accepted once: its rows are only rejected for an empty id.
    required = ("item_id",) if mapping.source == IDENTITY and set(FIELDS) <= set(columns) else REQUIRED_FIELDS
    items = ((where, _mapped_item(where, record, mapping, report, required)) for where, record in records)
    return [_photo_inside(path.parent, where, item) for where, item in items if item is not None]


def _photo_inside(folder: Path, where: str, item: dict) -> dict:
    """``item`` with its ``image_path`` resolved against the catalog's ``folder`` (links followed); a path that
    leaves the folder is refused, so that a release never publishes (or hard-links) a file from elsewhere."""
    if item["image_path"] is None:
        return item
    root = folder.resolve()
    photo = (root / item["image_path"]).resolve()
    if root not in photo.parents:
        raise InputError(f"{where} (id {item['item_id'][:80]}): image_path {item['image_path'][:80]!r} lies outside the "
                         f"catalog's folder {str(root)[:200]}; keep the photos in or below that folder.")
    return {**item, "image_path": str(photo)}
