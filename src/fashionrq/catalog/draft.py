"""A first mapping for a catalog fashionrq has never seen, guessed from its file name, header and first records
(``fashionrq draft-mapping``): the format and delimiter, a column for each canonical field (by name, then checked
against the values), paths into nested values, category paths, list separators, the price currency, gender codes,
size variants and attribute columns. Every guess is a commented TOML line the user can read and correct; the lines
that need a decision say CHECK."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from fashionrq.catalog.fieldpath import parse_reference
from fashionrq.catalog.clean import keyed_feature
from fashionrq.catalog.files import read_bytes
from fashionrq.catalog.mapping import FieldCleanup
from fashionrq.catalog.prices import CURRENCY_MARKS
from fashionrq.catalog.records import DEFAULT_DELIMITERS, DELIMITER_NAMES, detect_format, read_records
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.schema import GENDER_SYNONYMS, is_placeholder, json_text, to_text

#: Records whose values the guesses look at.
SAMPLE = 1000

#: Column names (lower case, letters and digits only) that usually hold each canonical field, best first.
FIELD_NAMES: dict[str, tuple[str, ...]] = {
    "item_id": ("id", "itemid", "sku", "variantsku", "asin", "articleid", "productid", "styleid", "variantid", "uniqid", "uid",
                "productcode", "articlenumber", "code"),
    "name": ("title", "name", "productname", "productdisplayname", "itemname", "producttitle", "prodname"),
    "brand": ("brand", "brandname", "vendor", "manufacturer", "designer", "maker"),
    "gender": ("gender", "sex", "targetgender", "googleshoppinggender", "department", "indexgroupname", "indexname"),
    "age_group": ("agegroup", "agesegment", "targetage", "agerange", "googleshoppingagegroup"),
    "article_type": ("articletype", "producttype", "producttypename", "itemtype", "type", "productcategory", "category",
                     "categoryname"),
    "master_category": ("mastercategory", "maincategory", "topcategory", "categorylevel1", "garmentgroupname", "division",
                        "category"),
    "sub_category": ("subcategory", "productgroupname", "productgroup", "categorylevel2", "subclass"),
    "base_colour": ("basecolour", "basecolor", "colour", "color", "colourname", "colorname", "colourgroupname", "maincolor"),
    "colours": ("colours", "colors", "colournames", "colornames", "colourlist", "colorlist"),
    "season": ("season", "seasonname"),
    "year": ("year", "modelyear", "releaseyear", "launchyear"),
    "usage": ("usage", "occasion"),
    "price": ("price", "listprice", "retailprice", "mrp", "originalprice", "regularprice", "variantprice"),
    "discounted_price": ("discountedprice", "saleprice", "salesprice", "discountprice", "offerprice", "specialprice"),
    "description": ("description", "bodyhtml", "productdescription", "longdescription", "detaildesc", "desc", "bulletpoint",
                    "bulletpoints"),
    "image_path": ("imagepath", "image", "imagelink", "imageurl", "imagesrc", "img", "imagefile", "mainimage", "photo",
                   "picture"),
    "attributes": ("attributes", "articleattributes", "details", "specs", "specifications"),
}
#: Attribute columns worth keeping, by the attribute name relevance and queries know.
ATTRIBUTE_NAMES: dict[str, tuple[str, ...]] = {
    "Fabric": ("fabric", "material", "materials"), "Pattern": ("pattern", "graphicalappearancename", "print"),
    "Sleeve Length": ("sleevelength", "sleeve", "sleevetype"), "Neck": ("neck", "neckline", "necktype", "collar"),
    "Fit": ("fit", "fittype"), "Occasion": ("occasion",),
}
#: Columns that group the rows of one product.
GROUP_NAMES = ("itemgroupid", "groupid", "parentasin", "parentid", "parentsku", "productgroupid", "modelid", "styleno",
               "handle")
#: The price before a sale, beside a column of the price paid (Shopify's "Variant Compare At Price").
COMPARE_AT_NAMES = ("variantcompareatprice", "compareatprice")
#: The name column of numbered option pairs ("Option1 Name" beside "Option1 Value", "Attribute 1 name").
_OPTION_NAME = re.compile(r"(?P<head>.*?)(?P<n>\d+)(?P<tail>\s*)name", re.IGNORECASE)
_COLOUR_OPTION = {"color", "colour"}
_URL = re.compile(r"^(?:https?:)?//", re.IGNORECASE)
_NOT_A_COLOUR = re.compile(r"\d|\bsize\b", re.IGNORECASE)
#: Noise inside colour values, each with the text that shows it.
_COLOUR_NOISE = ((r"\b\d+\b", re.compile(r"\b\d+\b")), (r"\bsize\s+\w+", re.compile(r"\bsize\s+\w+", re.IGNORECASE)),
                 (r"/", re.compile(r"\s/\s")), (r"\bor\b.*$", re.compile(r"\bor\b", re.IGNORECASE)))
_GENDER_WORD = re.compile(r"\b(women|woman|ladies|men|man|girls|girl|boys|boy|unisex)(?:'s|s')?\b", re.IGNORECASE)
_CODE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+|[A-Z0-9]+(?:_[A-Z0-9]+)*")
_YEAR_SUFFIX = re.compile(r"_\d{4}(?:_\w+)?$")


def _norm(column: str) -> str:
    return re.sub(r"[^a-z0-9]", "", column.lower())


def _norms(column: str) -> tuple[str, ...]:
    """The names ``column`` is known by: all of it, then without a note in brackets (``Color
    (product.metafields.shopify.color-pattern)``, ``Price (EUR)``)."""
    short = re.sub(r"\s*\([^()]*\)\s*$", "", column)
    return (_norm(column), _norm(short)) if short and short != column else (_norm(column),)


@dataclass
class Draft:
    """The guessed mapping, as TOML lines with comments, and what the user must check."""

    catalog: Path
    top: list[str] = field(default_factory=list)  # top-level keys, before the first section
    lines: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    missing_required: list[str] = field(default_factory=list)

    def text(self) -> str:
        head = [f"# Draft mapping for {self.catalog.name}, guessed by `fashionrq draft-mapping` from its header and first "
                f"{SAMPLE:,} records.",
                "# Read every line, fix what is wrong (lines marked CHECK need a decision), then build:",
                f"#   fashionrq build --catalog {self.catalog.name} --mapping THIS_FILE --out BENCH",
                "# The keys are explained in docs/catalog.md (\"Any other catalog: a mapping file\")."]
        return "\n".join(head + [""] + self.top + ([""] if self.top else []) + self.lines).rstrip() + "\n"


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _literal(pattern: str) -> str:
    """A regular expression as a TOML literal string (backslashes as they are), or a basic string (JSON's escapes,
    which TOML shares) when it holds a single quote."""
    return json.dumps(pattern) if "'" in pattern else f"'{pattern}'"


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else '"' + key.replace('"', '\\"') + '"'


def _sniff_delimiter(first_line: str) -> str:
    counts = {d: first_line.count(d) for d in DELIMITER_NAMES}
    return max(counts, key=lambda d: (counts[d], d == ","))


def _texts(values: list[object]) -> list[str]:
    return [t for t in (to_text(v) for v in values) if t]


class _Guesser:
    """Picks a column (or a path into one) for each field from the sampled records."""

    def __init__(self, records: list[dict], columns: list[str]) -> None:
        self.records = records
        self.columns = columns
        self.used: set[str] = set()

    def values(self, reference: str | list[str]) -> list[object]:
        """The present values ``reference`` (a column, a path into one, numbered columns, or a list of these) names
        in the sampled records."""
        ref = parse_reference(reference, self.columns, "draft")
        return [v for v in map(ref.get, self.records) if v is not None and not is_placeholder(v)]

    def column(self, names: tuple[str, ...]) -> str | None:
        by_norm = {norm: c for index in (1, 0) for c in self.columns for norm in _norms(c)[index:index + 1]}
        for name in names:
            column = by_norm.get(name)
            if column is not None and column not in self.used and self.values(column):
                self.used.add(column)
                return column
        return None

    def constant(self, reference: str) -> bool:
        """Whether ``reference`` holds one value in every sampled record (and is present in most of them)."""
        values = [json.dumps(v, sort_keys=True, default=str) for v in self.values(reference)]
        return len(values) > len(self.records) / 2 and len(set(values)) == 1 and len(self.records) > 1

    def keyed_features(self) -> str | None:
        """An unused column of lists of texts, a quarter or more of which hold a ``"Key: Value"`` one (``["Fabric: Cotton",
        "Machine wash"]``), or ``None``."""
        for column in self.columns:
            if column in self.used:
                continue
            lists = [v for v in map(json_text, self.values(column)) if isinstance(v, list) and v]
            entries = [e for v in lists for e in v]
            if not lists or not all(isinstance(e, str) for e in entries):
                continue
            if sum(any(keyed_feature(e) for e in v) for v in lists) >= len(lists) / 4:
                self.used.add(column)
                return column
        return None

    def key_inside(self, names: tuple[str, ...]) -> tuple[str, str] | None:
        """``(column.key, why)`` for the first object column (``style``, ``details``) one of whose keys is named like
        a field (``{"Color:": " Black", "Size:": " M"}``), or ``None``."""
        for column in self.columns:
            objects = [v for v in map(json_text, self.values(column)) if isinstance(v, dict)]
            keys = Counter(k for v in objects for k in v if isinstance(k, str) and not re.search(r"[.\[\]]", k))
            key = next((k for k, _ in keys.most_common() if _norm(k) in names), None)
            if key is not None and keys[key] >= len(objects) / 2:
                self.used.add(column)
                return f"{column}.{key}", f"the {key!r} of the {column!r} objects"
        return None

    def reference(self, column: str, many: bool = False, last: bool = False) -> tuple[str, str]:
        """``(reference, why)``: the column itself, or a path to its text inside nested values; ``last``: of a list
        of texts (a category list such as ``["Women", "Clothing", "Tops"]``), the last."""
        values = [json_text(v) for v in self.values(column)]
        first = values[0] if values else None
        if last and isinstance(first, list) and first and all(isinstance(v, str) for v in first):
            return f"{column}[-1]", "a list of categories: the last, the most specific"
        if isinstance(first, dict):
            key = next((k for k in ("value", "name", "en", "text") if k in first), None)
            return (f"{column}.{key}", f"objects: their {key!r}") if key else (column, "")
        if not isinstance(first, list) or not first or not isinstance(first[0], dict):
            return column, ""
        tags = Counter(str(v.get("language_tag")) for value in values if isinstance(value, list) for v in value
                       if isinstance(v, dict) and "language_tag" in v)
        if tags:
            tag = "en_US" if "en_US" in tags else next((t for t, _ in tags.most_common() if t.startswith("en")), tags.most_common(1)[0][0])
            return f"{column}[language_tag={tag}].value", f"language-tagged values: the {tag} one"
        key = next((k for k in ("value", "name", "text") if k in first[0]), None)
        if key is None:
            return column, ""
        return (f"{column}[*].{key}", f"a list of objects: every {key!r}") if many else (f"{column}[0].{key}", f"a list of objects: the first {key!r}")


def draft_mapping(catalog: str | Path) -> Draft:
    """Guess a mapping for ``catalog`` (a CSV, TSV, JSON-lines, JSON or Parquet file) from its first records."""
    path = Path(catalog)
    fmt = detect_format(path, None)
    draft = Draft(path)
    encoding, delimiter = "utf-8", None
    if fmt != "parquet":
        raw = read_bytes(path)
        if not _is_utf8(raw):
            encoding = "cp1252"
            draft.top.append('encoding = "cp1252"   # CHECK: the file is not UTF-8; cp1252 (Windows, Excel) is the usual other one')
            draft.checks.append("the file is not UTF-8: the draft reads it as cp1252")
    if fmt in DEFAULT_DELIMITERS:
        delimiter = _sniff_delimiter(raw.split(b"\n", 1)[0].decode(encoding, errors="replace").removeprefix("\ufeff"))
        if delimiter != DEFAULT_DELIMITERS[fmt]:
            draft.top.append(f'delimiter = "{"tab" if delimiter == chr(9) else delimiter}"   # the header is separated by '
                             f"{DELIMITER_NAMES[delimiter]}")
    records, columns = read_records(path, fmt, IngestReport(source=str(path), layout="draft"), encoding, delimiter)
    records = [record for _, record in records[:SAMPLE]]
    guesser = _Guesser(records, columns)
    sections = _columns(draft, guesser)
    draft.lines += sections
    unmapped = [c for c in columns if c not in guesser.used]
    if unmapped:
        draft.lines += ["", f"# Not mapped: {', '.join(unmapped)}."]
    return draft


def _columns(draft: Draft, guesser: _Guesser) -> list[str]:
    found: dict[str, tuple[str, str]] = {}
    for name, names in FIELD_NAMES.items():
        column = guesser.column(names)
        if column is None:
            continue
        if name == "base_colour" and any(isinstance(v, list) and len(v) > 1 for v in guesser.values(column)):
            name = "colours"  # a list of several colours: the colours, the first of them the base colour
        found.setdefault(name, guesser.reference(column, many=name == "colours", last=name == "article_type"))
    for name in ("base_colour", "gender", "brand"):
        if name not in found and (inside := guesser.key_inside(FIELD_NAMES[name])) is not None:
            found[name] = inside
    constant = found.pop("attributes")[0] if "attributes" in found and guesser.constant(found["attributes"][0]) else None
    if "attributes" not in found and (features := guesser.keyed_features()) is not None:
        found["attributes"] = (features, '"Key: Value" texts, read as attributes')
    _options_and_sales(guesser, found)
    lines, extra = ["[columns]"], []
    for name, (reference, why) in found.items():
        lines.append(f"{name} = {_toml_reference(reference)}" + (f"   # {why}" if why else ""))
    if constant is not None:  # the same in every record: it tells no item from another
        lines.append(f'# attributes = "{constant}"   # left out: the same value in every record of the sample')
    for name in ("item_id", "name", "article_type"):
        if name not in found:
            lines.append(f'# {name} = "?"   # CHECK: required, and no column looks like it; name the column')
            draft.missing_required.append(name)
    extra += _category_path(guesser, found, lines)
    extra += _taxonomy(guesser, found, lines)
    draft.top += _colour_lists(guesser, found, lines)
    extra += _cleanups(guesser, found)
    extra += _genders(draft, guesser, found, lines)
    extra += _prices(draft, guesser, found)
    extra += _photos(guesser, found)
    attributes = [(key, guesser.column(names)) for key, names in ATTRIBUTE_NAMES.items()]
    attributes = [(key, column) for key, column in attributes if column is not None]
    extra += _variants(guesser, found)
    if attributes:
        extra += ["", "[attributes]"]
        for key, column in attributes:
            reference, why = guesser.reference(column)
            extra.append(f'{_toml_key(key)} = "{reference}"' + (f"   # {why}" if why else ""))
    return lines + extra


def _category_path(guesser: _Guesser, found: dict, lines: list[str]) -> list[str]:
    """An article type written as a path (``Women > Apparel > Tops``): its last part, and the parts above it for
    the categories the catalog has no column for."""
    if "article_type" not in found:
        return []
    if found["article_type"][0].endswith("[-1]"):
        _category_list(guesser, found, lines)
        return []
    texts = _texts(guesser.values(found["article_type"][0]))
    separator = next((s for s in (">", "/", "|") if texts and sum(s in t for t in texts) >= len(texts) / 2), None)
    if separator is None:
        return []
    depth = Counter(len(t.split(separator)) for t in texts).most_common(1)[0][0]
    out = ["", "[clean.article_type]   # a category path: its last part", f'split = "{separator}"']
    for name, part in (("sub_category", -2), ("master_category", -3)):
        if name not in found and depth >= -part:
            found[name] = (found["article_type"][0], "")
            lines.append(f'{name} = "{found["article_type"][0]}"   # a part of the category path')
            out += ["", f"[clean.{name}]", f'split = "{separator}"', f"part = {part}"]
    return out


def _category_list(guesser: _Guesser, found: dict, lines: list[str]) -> None:
    """An article type taken from a list of categories (``["Clothing, Shoes & Jewelry", "Women", "Clothing", "Tops, Tees
    & Blouses"]``): the entries above it for the categories the catalog has no column for, and the gender from the
    position that names one in most lists."""
    column = found["article_type"][0].removesuffix("[-1]")
    lists = [v for v in map(json_text, guesser.values(column)) if isinstance(v, list)]
    depth = Counter(map(len, lists)).most_common(1)[0][0]
    for name, index in (("sub_category", -2), ("master_category", -3)):
        if name not in found and depth >= -index:
            found[name] = (f"{column}[{index}]", "")
            lines.append(f'{name} = "{column}[{index}]"   # an entry of the category list')
    if "gender" not in found:
        named = Counter(i for v in lists for i, entry in enumerate(v[:depth]) if str(entry).lower() in GENDER_SYNONYMS)
        index, count = named.most_common(1)[0] if named else (None, 0)
        if count >= 0.6 * len(lists):
            found["gender"] = (f"{column}[{index}]", "")
            lines.append(f'gender = "{column}[{index}]"   # the entry of the category list that names a gender')


def _colour_lists(guesser: _Guesser, found: dict, lines: list[str]) -> list[str]:
    """Colours written as one text with several colours (``Black/White``, ``Red|Blue``)."""
    source = "colours" if "colours" in found else "base_colour" if "base_colour" in found else None
    if source is None:
        return []
    values = guesser.values(found[source][0])
    if any(isinstance(v, list) for v in values):  # already a list
        return []
    texts = _texts(values)
    separator = next((s for s in ("|", "/", ",", ";") if _lists_colours(texts, s)), None)
    if separator is None:
        return []
    if source == "base_colour":  # several colours in one text: they are the colours list, the first one the base
        index = lines.index(next(line for line in lines if line.startswith("base_colour = ")))
        lines[index] = f'colours = "{found["base_colour"][0]}"   # several colours in one text; the first is the base colour'
    return [f'list_separator = "{separator}"   # between the colours of one text (e.g. "Black{separator}White")']


def _lists_colours(texts: list[str], separator: str) -> bool:
    """True when a tenth of the texts or more hold ``separator``, and nearly all of those split into colour names
    (no digits, no sizes, at most three words), as ``Black/White`` does and ``Navy / Size M`` does not."""
    joined = [t for t in texts if separator in t]
    if not texts or len(joined) < len(texts) / 10:
        return False
    colourish = sum(all(p.strip() and not _NOT_A_COLOUR.search(p) and len(p.split()) <= 3 for p in t.split(separator)) for t in joined)
    return colourish >= 0.8 * len(joined)


def _cleanups(guesser: _Guesser, found: dict) -> list[str]:
    """Clean-ups for codes, sizes and repeats inside colours (``001 Black``, ``Navy / Size M``, ``Black or black``) and
    for product-type codes (``tshirts_2012_and_later``), each shown on an example from the catalog."""
    out = []
    colour = "base_colour" if "base_colour" in found else None
    if colour is not None:
        texts = _texts(guesser.values(found[colour][0]))
        patterns = [pattern for pattern, probe in _COLOUR_NOISE if texts and sum(bool(probe.search(t)) for t in texts) >= len(texts) / 50]
        if patterns:
            out += _cleanup_lines(colour, texts, FieldCleanup(remove=tuple(re.compile(p, re.IGNORECASE) for p in patterns)),
                                  f"remove = [{', '.join(_literal(p) for p in patterns)}]")
    if "article_type" in found:
        texts = _texts(guesser.values(found["article_type"][0]))
        if texts and sum(bool(_CODE.fullmatch(t)) for t in texts) >= len(texts) / 2:
            years = sum(bool(_YEAR_SUFFIX.search(t)) for t in texts) >= len(texts) / 10
            cleanup = FieldCleanup(remove=(_YEAR_SUFFIX,) if years else (), words=True)
            out += _cleanup_lines("article_type", texts, cleanup, (f"remove = [{_literal(_YEAR_SUFFIX.pattern)}]\n" if years else "") + "words = true")
    return out


def _cleanup_lines(name: str, texts: list[str], cleanup: FieldCleanup, body: str) -> list[str]:
    example = next((t for t in texts if cleanup.apply(t)[1]), None)
    after = cleanup.apply(example)[0] if example else None
    return ["", f"[clean.{name}]   # e.g. {example!r} -> {after!r}; CHECK", *body.split("\n")]


def _genders(draft: Draft, guesser: _Guesser, found: dict, lines: list[str]) -> list[str]:
    if "gender" not in found and "name" in found:
        names = _texts(guesser.values(found["name"][0]))
        share = sum(bool(_GENDER_WORD.search(n)) for n in names) / max(len(names), 1)
        if share >= 0.5:
            lines.append(f'gender = "{found["name"][0]}"   # no gender column, but {share:.0%} of the names say one')
            draft.checks.append(f"the gender is read from the names, which say one in {share:.0%} of the sample")
            return ["", "[clean.gender]   # the gender word of the name (a name without one: no gender); CHECK, or if every",
                    "# item is for one gender, drop this and the gender line and write [constants] gender = \"Women\"",
                    f"extract = {_literal(_GENDER_WORD.pattern)}"]
    if "gender" not in found:
        draft.checks.append("no gender column")
        return ["", "# CHECK: no gender column. If every item is for one gender, say which:", "# [constants]",
                '# gender = "Women"']
    values = Counter(_texts(guesser.values(found["gender"][0])))
    unknown = sorted(v for v in values if v.lower() not in GENDER_SYNONYMS)
    if not unknown:
        return []
    lines = ["", "[values.gender]   # what each gender value means (Men, Women, Boys, Girls or Unisex)"]
    for value in unknown:
        words = [GENDER_SYNONYMS[w] for w in re.findall(r"[a-z']+", value.lower()) if w in GENDER_SYNONYMS and len(w) > 1]
        if len(set(words)) == 1:
            lines.append(f'{_toml_key(value)} = "{words[0]}"   # from the word in it')
        else:
            lines.append(f'# {_toml_key(value)} = "?"   # CHECK: which gender is this?')
            draft.checks.append(f"the gender value {value!r} needs a value map")
    return lines


def _prices(draft: Draft, guesser: _Guesser, found: dict) -> list[str]:
    if "price" not in found:
        return []
    texts = _texts(guesser.values(found["price"][0]))
    marks = Counter(m.group(0).lower() for t in texts for m in re.finditer(r"us\$|a\$|c\$|\$|€|£|₹|¥|\brs\.?|\b[A-Za-z]{3}\b", t)
                    if m.group(0).lower() in CURRENCY_MARKS)
    if not marks:
        draft.checks.append("the price cells name no currency")
        return ["", "[price]", 'currency = "INR"   # CHECK: the price cells name no currency; give this catalog\'s ISO 4217 code']
    mark = marks.most_common(1)[0][0]
    codes = sorted(CURRENCY_MARKS[mark])
    code = "USD" if "USD" in codes else codes[0]
    why = f"the price cells say {mark!r}" + (f" (also {', '.join(c for c in codes if c != code)}: CHECK)" if len(codes) > 1 else "")
    return ["", "[price]", f'currency = "{code}"   # {why}']


def _photos(guesser: _Guesser, found: dict) -> list[str]:
    if "image_path" not in found:
        return []
    texts = _texts(guesser.values(found["image_path"][0]))
    if any(_URL.match(t) for t in texts):
        return ["", "# The photos are web addresses, which fashionrq does not download: those items get no photo. To use",
                "# the photos, save them in or below the catalog's folder and map their relative paths instead."]
    return []


def _variants(guesser: _Guesser, found: dict) -> list[str]:
    group = guesser.column(GROUP_NAMES)
    if group is None:
        return []
    values = _texts(guesser.values(group))
    if len(set(values)) == len(values):
        return []
    colour = next((found[n][0] for n in ("base_colour", "colours") if n in found), None)
    colour = colour[0] if isinstance(colour, list) else colour  # the per-row colour, not the product's fallback
    key = ", ".join(f'"{c}"' for c in (group, colour) if c)
    lines = ["", "[variants]   # rows of one product (sizes) share these; the first row of each is kept", f"key = [{key}]"]
    fill = _first_row_columns(guesser, group)
    if fill:
        lines += ["# the columns only a product's first row fills (later rows take them from it); CHECK",
                  f"fill = [{', '.join(json.dumps(c) for c in fill)}]"]
    return lines


def _first_row_columns(guesser: _Guesser, group: str) -> list[str]:
    """The columns a product's later rows leave empty while its first row fills them, in nine products of ten or
    more (Shopify writes the title, vendor and option names on a product's first row only), with numbered option
    names as one ``Option{n} Name``; only those the draft maps or that name options."""
    products: dict[str, list[dict]] = {}
    for record in guesser.records:
        key = to_text(record.get(group))
        if key:
            products.setdefault(key, []).append(record)
    several = [rows for rows in products.values() if len(rows) > 1]
    if not several:
        return []
    def first_only(column: str) -> bool:
        filled = [rows for rows in several if not is_placeholder(rows[0].get(column, ""))]
        return len(filled) >= max(3, len(several) / 10) and sum(all(is_placeholder(r.get(column, "")) for r in rows[1:])
                                                      for rows in filled) >= 0.9 * len(filled)
    options = [c for c in guesser.columns if _OPTION_NAME.fullmatch(c)]
    fill = [c for c in guesser.columns if c != group and (c in guesser.used or c in options) and first_only(c)]
    named = [c for c in fill if c in options]
    if named:  # every option name, also those the sample's products leave empty
        match = _OPTION_NAME.fullmatch(named[0])
        fill[fill.index(named[0])] = f"{match['head']}{{n}}{named[0][match.end('n'):]}"
        fill = [c for c in fill if c not in named[1:]]
    return fill


def _toml_reference(reference: str | list[str]) -> str:
    return json.dumps(reference) if isinstance(reference, list) else f'"{reference}"'


def _options_and_sales(guesser: _Guesser, found: dict) -> None:
    """The colour from numbered option pairs (``Option1 Name`` = ``Color`` beside ``Option1 Value``), before any
    product-level colour column; the price before a sale (``Variant Compare At Price``) before the price paid."""
    option = _colour_option(guesser)
    if option is not None:
        product_colour = found.pop("base_colour", found.pop("colours", None))
        reference = [option, product_colour[0]] if product_colour else option
        found["colours"] = (reference, "the option named Color" + (", else the product's colour" if product_colour else ""))
    compare_at = guesser.column(COMPARE_AT_NAMES)
    if compare_at is not None and "price" in found and isinstance(found["price"][0], str):
        paid = found["price"][0]
        found["price"] = ([compare_at, paid], "the price before a sale, else the price")
        found.setdefault("discounted_price", (paid, "the price paid"))


def _colour_option(guesser: _Guesser) -> str | None:
    """``Option{n} Value[Option{n} Name=Color|Colour]`` when numbered option-name columns, each beside a value
    column, name a colour in the sample; ``None`` otherwise."""
    for column in guesser.columns:
        match = _OPTION_NAME.fullmatch(column)
        if match is None:
            continue
        head, tail = match["head"], match["tail"]
        value = next((c for c in guesser.columns if c.lower().startswith(f"{head}{match['n']}{tail}value".lower())), None)
        if value is None:
            continue
        value_template = f"{head}{{n}}{value[len(head) + len(match['n']):]}"
        name_template = f"{head}{{n}}{column[len(head) + len(match['n']):]}"
        ref = parse_reference(f"{value_template}[{name_template}=Color|Colour]", guesser.columns, "draft")
        if any(_texts(map(ref.get, guesser.records))):
            guesser.used.update(ref.needs)
            return f"{value_template}[{name_template}=Color|Colour]"
    return None


def _taxonomy(guesser: _Guesser, found: dict, lines: list[str]) -> list[str]:
    """The master and sub category from a category path the article type is not read from (Shopify's ``Product
    Category``, ``Apparel & Accessories > Clothing > Shirts & Tops``): the two parts below a root every path shares,
    else the first two."""
    if "master_category" in found or "sub_category" in found:
        return []
    for column in guesser.columns:
        if column in guesser.used or not any(n in _norms(column) for n in ("productcategory", "category", "categorypath",
                                                                           "googleproductcategory", "breadcrumb")):
            continue
        texts = _texts(guesser.values(column))
        paths = [[p.strip() for p in t.split(">")] for t in texts if ">" in t]
        if not texts or len(paths) < len(texts) / 2:
            continue
        guesser.used.add(column)
        root = Counter(p[0] for p in paths).most_common(1)[0]
        first = 1 if root[1] >= 0.9 * len(paths) else 0
        out = []
        for name, part in (("master_category", first), ("sub_category", first + 1)):
            found[name] = (column, "")
            lines.append(f'{name} = "{column}"   # a part of the category path')
            out += ["", f"[clean.{name}]" + (f"   # below the root {root[0]!r} every path shares" if first and part == first else ""),
                    'split = ">"', f"part = {part}"]
        return out
    return []
