"""A first mapping for a catalog fashionrq has never seen, guessed from its file name, header and first records
(``fashionrq draft-mapping``): the format and delimiter, a column for each canonical field (by name, then checked
against the values), paths into nested values, category paths, list separators, the price currency, gender codes,
size variants and attribute columns. Every guess is a commented TOML line the user can read and correct; the lines
that need a decision say CHECK."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fashionrq.catalog.clean import split_list
from fashionrq.catalog.draft_rows import Pairs, options_and_sales, variants_section
from fashionrq.catalog.files import read_bytes
from fashionrq.catalog.generic import ROW_NUMBER, badge_pattern, descriptive_brands, glued_badges, refused_brands, written_as_codes
from fashionrq.catalog.guess import (ATTRIBUTE_NAMES, FIELD_NAMES, GROUP_NAMES, Guesser, norm, norms, present_texts, toml_key,
                                     toml_literal, toml_reference)
from fashionrq.catalog.language import other_language_names
from fashionrq.catalog.mapping import FieldCleanup
from fashionrq.catalog.name_attributes import NAME_ATTRIBUTES, attributes_in_names
from fashionrq.catalog.name_brands import brands_at_start_of_names
from fashionrq.catalog.name_types import (NO_TYPE_WORDS, PRODUCT_WORDS, NameTypes, fold, literal, name_tail, types_at_end_of_names,
                                          types_at_start_of_names)
from fashionrq.catalog.prices import CURRENCY_MARKS, ISO_4217, country_currency, currency_marks, marked_amount, web_host
from fashionrq.catalog.records import DEFAULT_DELIMITERS, DELIMITER_NAMES, PART_FILE, detect_format, header_line, read_records, table_parts
from fashionrq.catalog.report import IngestReport, percent
from fashionrq.catalog.sheets import guessed_header_row, read_sheet
from fashionrq.catalog.schema import (AGE_SCALE, AGE_SYNONYMS, ANY_GENDER_WORDS, ENGLISH_GENDER_FALSE_FRIENDS, GENDERS,
                                     OTHER_LANGUAGE_GENDERS, WEB_ADDRESS, normalise_gender, photo_bytes, texts_script)
from fashionrq.catalog.xmlfeed import product_element
from fashionrq.colour import COLOURS, OTHER_LANGUAGE_COLOURS

#: Fields that sort items into groups: a column with one value in every record is none of them.
_CATEGORY_FIELDS = ("article_type", "master_category", "sub_category")
#: Records whose values the guesses look at.
SAMPLE = 1000

_NOT_A_COLOUR = re.compile(r"\d|\bsize\b", re.IGNORECASE)
#: Noise inside colour values, each with the text that shows it.
_COLOUR_NOISE = ((r"\b\d+\b", re.compile(r"\b\d+\b")), (r"\bsize\s+\w+", re.compile(r"\bsize\s+\w+", re.IGNORECASE)),
                 (r"/", re.compile(r"\s/\s")), (r"\bor\b.*$", re.compile(r"\bor\b", re.IGNORECASE)))
#: Keys of a price object that hold the sale price.
_SALE_KEYS = FIELD_NAMES["discounted_price"] + ("sale", "discounted", "offer", "special")


def _colour_words(colours) -> re.Pattern:
    """One of ``colours`` as a word, the longest first (``navy blue`` before ``blue``), never the steel of a metal
    (``Stainless Steel``, ``Surgical Steel``: a material)."""
    def word(colour: str) -> str:
        spelled = re.escape(colour).replace("\\ ", " ")
        return rf"(?<!stainless )(?<!surgical ){spelled}" if colour.casefold() == "steel" else spelled

    return re.compile(r"\b(" + "|".join(word(c) for c in sorted(colours, key=lambda c: (-len(c), c))) + r")\b", re.IGNORECASE)


_COLOUR_WORD = _colour_words(COLOURS)
#: A colour word of another language (``Camiseta Reserva Chuva Branca``), which ingest reads as English.
_OTHER_LANGUAGE_COLOUR_WORD = _colour_words(OTHER_LANGUAGE_COLOURS)
#: The gender words of English names.
_ENGLISH_GENDERS = "women|woman|ladies|men|man|girls|girl|boys|boy|unisex"
_GENDER = rf"({_ENGLISH_GENDERS})(?:'s|s')?"
#: A gender word inside a name, and a tag that is one.
_GENDER_WORD, _GENDER_TAG = re.compile(rf"\b{_GENDER}\b", re.IGNORECASE), re.compile(rf"^\s*{_GENDER}\s*$", re.IGNORECASE)
_OTHER_LANGUAGES = "|".join(sorted(OTHER_LANGUAGE_GENDERS, key=lambda w: (-len(w), w)))
#: A gender word of English or another language inside a name (``Tênis Masculino``, ``Kleid Damen``), read when the
#: names say too few English ones; ingest reads each as the gender it names (``schema.OTHER_LANGUAGE_GENDERS``).
_ANY_GENDER_WORD = re.compile(rf"\b({_ENGLISH_GENDERS}|{_OTHER_LANGUAGES})(?:'s|s')?\b", re.IGNORECASE)
#: A gender word at the end of a category path's part (a Tokopedia slug's ``sneakers-pria``, ``tas-selempang-wanita``).
_GENDER_AT_END = re.compile(rf"[-_\s]({_ENGLISH_GENDERS}|{_OTHER_LANGUAGES})(?:'s|s')?$", re.IGNORECASE)
#: A gender as a part of a product page address's path (Jabong's ``/men/clothing/...``, Vinted's ``/femmes/...``),
#: in English or another language.
_GENDER_IN_PATH = re.compile(rf"/(women|womens|men|mens|ladies|girls|boys|unisex|{_OTHER_LANGUAGES})/", re.IGNORECASE)
#: The gender word a category starts with (``Men's Shirts``, ``Women's Tops``, ``Kids Shoes``, as scraped listings
#: write their categories), its possessive ending left out.
_GENDER_BEFORE_TYPE = re.compile(r"^\s*(women|woman|ladies|men|man|girls|girl|boys|boy|unisex|kids|kid|children|baby)(?:'s|s'|')?(?=\s)",
                                 re.IGNORECASE)
#: Words of a gender value that name children, and their age group (``Unisex Kids``: kids).
_CHILD_AGES = {word: age for word, age in AGE_SYNONYMS.items() if age != "adult"}
#: Words of a product, colour or gender (:func:`fold`ed): a column of values that say them is no brand column.
_PRODUCT_COLOUR_OR_GENDER = PRODUCT_WORDS | {fold(w) for words in (*COLOURS, *ANY_GENDER_WORDS) for w in words.split()}
_CODE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+|[A-Z0-9]+(?:_[A-Z0-9]+)*")
_YEAR_SUFFIX = re.compile(r"_\d{4}(?:_\w+)?$")
#: Names of a column that holds a category path (Shopify's Product Category, Flipkart's product_category_tree).
TAXONOMY_NAMES = ("productcategory", "category", "categorypath", "googleproductcategory", "breadcrumb", "categorybreadcrumb", "categorytree",
                  "productcategorytree")
#: What separates the parts of a category path in one text, longest first (``Clothing >> Topwear``, ``Women › Tops``,
#: ``Apparel | Tops``), and last a comma (a Scrapy crawl's ``",".join`` of a breadcrumb: ``Moda hombre,Ropa,Camisas``)
#: where the texts are such paths (:func:`_comma_breadcrumbs`); a taxonomy's parts, read beside a type column, are
#: never taken to be separated by "/" or "|", which a type's own name may hold (``Tops/T-shirts``).
PATH_SEPARATORS = (">>", ">", "›", "»", "/", "|", ",")
TAXONOMY_SEPARATORS = (">>", ">", "›", "»")
#: A keyword in lower case with hyphens between its words (Amazon's item_type: ``casual-shoes``).
_KEYWORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


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


def _sniff_delimiter(first_line: str) -> str:
    counts = {d: first_line.count(d) for d in DELIMITER_NAMES}
    return max(counts, key=lambda d: (counts[d], d == ","))


def draft_mapping(catalog: str | Path) -> Draft:
    """Guess a mapping for ``catalog`` (a CSV, TSV, tab-separated ``.txt``, JSON-lines, JSON or Parquet file, an XML
    feed, an Excel workbook, or a folder of JSON files or of CSV or TSV parts of one table) from its first records."""
    path = Path(catalog)
    draft = Draft(path)
    txt = Path(path.name.lower().removesuffix(".gz")).suffix == ".txt"  # Amazon's flat files are tab-separated .txt
    fmt = None if txt else detect_format(path, None)
    encoding, delimiter, header_row, record = "utf-8", None, 1, None
    if fmt == "xlsx":
        header_row = _sheet_and_header_row(draft, path)
    elif fmt == "xml":
        record = _record(draft, path)
    elif fmt not in ("parquet", "xml") and (not path.is_dir() or fmt in DEFAULT_DELIMITERS):  # an XML feed names its own encoding; JSON files are read one by one
        parts = [file for file, _ in table_parts(path) if file.stat().st_size] if path.is_dir() else [path]
        raw = read_bytes(parts[0]) if parts else b""  # a table in parts: its first part that is not empty
        other = [file for file in parts if not _is_utf8(read_bytes(file) if file != parts[0] else raw)]
        if other:
            encoding = "cp1252"
            which = ("the file is" if not path.is_dir() else
                     f"{', '.join(f.relative_to(path).as_posix() for f in other[:3])}{', …' if len(other) > 3 else ''} "
                     f"{'is' if len(other) == 1 else 'are'}")
            draft.top.append(f'encoding = "cp1252"   # CHECK: {which} not UTF-8; cp1252 (Windows, Excel) is the usual other one'
                             + ("; the parts that are UTF-8 are read as UTF-8" if len(other) < len(parts) else ""))
            draft.checks.append(f"{which} not UTF-8: the draft reads {'it' if len(other) == 1 else 'them'} as cp1252")
        text = raw.decode(encoding if parts and parts[0] in other else "utf-8", errors="replace").removeprefix("\ufeff")
        sniffed = _sniff_delimiter(text.split("\n", 1)[0])
        if txt and text.lstrip()[:1] in ("[", "{"):  # a printout of a list of products (JSON, or Python's)
            fmt = "json"
            draft.top.append('format = "json"   # a .txt file that holds a list of products')
        elif txt:
            fmt = "tsv" if sniffed == "\t" else "csv"
            draft.top.append(f'format = "{fmt}"   # a .txt file: its first line is separated by {"tabs" if fmt == "tsv" else "commas"}')
    if fmt in DEFAULT_DELIMITERS:
        delimiter = sniffed
        if delimiter != DEFAULT_DELIMITERS[fmt]:
            draft.top.append(f'delimiter = "{"tab" if delimiter == chr(9) else delimiter}"   # the header is separated by '
                             f"{DELIMITER_NAMES[delimiter]}")
        header_row = header_line(path, text, delimiter) or 1
    if header_row > 1:
        draft.top.append(f"header_row = {header_row}   # the lines above it are not the header (the first has fewer fields); CHECK")
    records, columns = read_records(path, fmt, IngestReport(source=str(path), layout="draft"), encoding, delimiter, header_row,
                                    record=record)
    every_record = [record for _, record in records]
    guesser = Guesser(every_record[:SAMPLE], columns, every_record)
    sections = _columns(draft, guesser)
    draft.lines += sections
    unmapped = [c for c in columns if c not in guesser.used]
    if unmapped:
        draft.lines += ["", f"# Not mapped: {', '.join(c if c.strip() else 'a column without a name' for c in unmapped)}."]
    return draft


def _sheet_and_header_row(draft: Draft, path: Path) -> int:
    """A workbook's sheet (the one ingest reads without a ``sheet`` line, written as a commented line) and the row
    that names its columns."""
    sheet = read_sheet(path)
    why = f"the one with the most filled rows; passed over {', '.join(sheet.passed_over)}" if sheet.passed_over else "its only sheet"
    draft.top.append(f"# sheet = {toml_literal(sheet.name)}   # {why}")
    return guessed_header_row(sheet.rows)


def _record(draft: Draft, path: Path) -> str:
    """An XML feed's product element: a commented line where ingest finds it by itself, else the likeliest one to
    check."""
    name, why, found = product_element(path)
    if found:
        draft.top.append(f"# record = {json.dumps(name)}   # {why}; ingest finds it without this line")
    else:
        draft.top.append(f"record = {json.dumps(name)}   # CHECK: {why}")
        draft.checks.append(f"the product element of the feed is a guess: <{name}>, {why}")
    return name


def _numbers_only(values) -> bool:
    """Whether every present value is a number (``8``, ``9.0``): a count, never a photo's path or address."""
    texts = present_texts(values)
    return bool(texts) and all(re.fullmatch(r"\s*[+-]?\d+(?:\.\d+)?\s*", t) for t in texts)


def _columns(draft: Draft, guesser: Guesser) -> list[str]:
    found: dict[str, tuple[str, str]] = {}
    same_everywhere = []
    for name, names in FIELD_NAMES.items():
        column = guesser.column(names, (lambda text: normalise_gender(text) in GENDERS) if name == "gender" else None)
        while name in _CATEGORY_FIELDS and column is not None and guesser.constant(column):  # "AMAZON FASHION" everywhere
            same_everywhere.append(column)
            column = guesser.column(names)
        if column is None or (name == "image_path" and _numbers_only(guesser.values(column))):
            continue  # a Shopee scrape's "images" column counts its photos: no path
        if name == "base_colour" and any(isinstance(v, list) and len(v) > 1 for v in guesser.values(column)):
            name = "colours"  # a list of several colours: the colours, the first of them the base colour
        found.setdefault(name, guesser.reference(column, many=name == "colours", last=name == "article_type"))
    _price_before_a_sale(guesser, found)
    for name in ("base_colour", "gender", "brand", "article_type", "usage", "price"):
        if name not in found and (inside := guesser.key_inside(FIELD_NAMES[name])) is not None:
            found[name] = inside
    if "item_id" not in found and (group := guesser.column(GROUP_NAMES)) is not None:
        values = present_texts(guesser.values(group))
        if len(values) == len(guesser.records) and len(set(values)) == len(values):  # one record per product
            found["item_id"] = (group, f"no id column, but every record has its own {group}")
        else:
            guesser.used.discard(group)
    if "item_id" not in found and (column := _id_column_by_values(guesser)) is not None:
        found["item_id"] = (column, "no id column by name, but its values tell the records apart")
    if "item_id" not in found and (column := _id_column_of_addresses(guesser)) is not None:
        found["item_id"] = (column, "no id column, but every record has a product page address; CHECK")
        draft.checks.append(f"no id column: the ids are the product page addresses in {column!r}")
    if "name" not in found and (column := _name_column_by_values(guesser)) is not None:
        found["name"] = (column, "no name column by name, but its texts name fashion products")
    if "name" not in found and "description" in found and _short_texts(guesser, found["description"][0], least=0.25):  # Vinted's
        found["name"] = (found.pop("description")[0], "CHECK: no name column, but this description column's texts are as short as names")
        draft.checks.append(f"no name column: the draft reads {found['name'][0]!r}, whose texts are as short as names")
    if "name" not in found and (column := _name_column_of_short_texts(guesser)) is not None:
        found["name"] = (column, "CHECK: no column looks like a name; these short texts differ the most")
        draft.checks.append(f"no column looks like a name: the draft reads {column!r}, whose short texts differ the most")
    address_words = []
    if "name" not in found and (column := _name_column_of_addresses(guesser, found)) is not None:
        found["name"] = (column, "CHECK: no column holds names, so the words of these product page addresses are the names")
        draft.checks.append(f"no column holds names: the draft reads the words of the product page addresses in {column!r}")
        address_words = _address_words_lines(guesser, column)
    if "price" not in found and (column := _price_column_by_values(guesser)) is not None:
        found["price"] = (column, "no price column by name, but its cells are amounts with a currency sign")
    if "price" not in found and (column := _price_column_by_last_word(guesser)) is not None:
        found["price"] = (column, "CHECK: the price, by the last word of its name")
    if "brand" not in found and "name" in found and (column := _brand_column_by_values(guesser, found["name"][0])) is not None:
        found["brand"] = (column, "no brand column by name, but the names say its values")
    brands_of_names = _brands_of_name_starts(draft, guesser, found) if "brand" not in found and "name" in found else []
    if "attributes" not in found and (column := _attribute_objects(guesser)) is not None:
        found["attributes"] = (column, "objects keyed by attribute names")
    _details_list(guesser, found)
    _unrooted_paths(guesser, found)
    _sale_beside_price(guesser, found)
    _finest_category_as_type(draft, guesser, found)
    if "attributes" in found and (specs := guesser.specifications(found["attributes"][0])) is not None:
        found["attributes"] = (specs[0], f"a list of {{{specs[1]!r}: ..., 'value': ...}} objects, read as attributes")
    if "image_path" in found and all(isinstance(v, list) for v in guesser.decoded(found["image_path"][0])):
        first = next((v[0] for v in guesser.decoded(found["image_path"][0]) if v), None)
        key = next((k for k in ("url", "src", "href", "link", "path", "large", "hi_res") if isinstance(first, dict) and k in first), None)
        found["image_path"] = (f"{found['image_path'][0]}[0]" + (f".{key}" if key else ""), "a list of photos: the first")
    constant = found.pop("attributes")[0] if "attributes" in found and guesser.constant(found["attributes"][0]) else None
    if "attributes" not in found and (features := guesser.keyed_features()) is not None:
        found["attributes"] = (features, '"Key: Value" texts, read as attributes')
    options_and_sales(guesser, found)
    for name in ("master_category", "sub_category"):  # a category path read by name is left for its parts (_taxonomy)
        if name in found and found[name][0] != found.get("article_type", ("",))[0] and _paths(guesser, found[name][0])[1]:
            guesser.used.discard(found.pop(name)[0])
    lines, extra = ["[columns]"], brands_of_names + address_words
    for name, (reference, why) in found.items():
        lines.append(f"{name} = {toml_reference(reference)}" + (f"   # {why}" if why else ""))
    if constant is not None:  # the same in every record: it tells no item from another
        lines.append(f'# attributes = "{constant}"   # left out: the same value in every record of the sample')
    for column in same_everywhere:
        guesser.used.discard(column)
        lines.append(f"# {toml_reference(column)} is {guesser.values(column)[0]!r} in every record of the sample: no category, left out")
    extra += _type_from_names(draft, guesser, found, lines)
    extra += _type_from_parts(draft, guesser, found, lines)
    if "item_id" not in found:  # a scrape: its records' numbers in the file are its ids
        found["item_id"] = (ROW_NUMBER, "")
        lines.append(f'item_id = "{ROW_NUMBER}"   # CHECK: no column looks like an id, so each record\'s number in the file is its '
                     "id (the same file gives the same ids); name the id column if there is one")
        draft.checks.append(f"no column looks like an id: the records' numbers are the ids ({ROW_NUMBER})")
    for name in ("name", "article_type"):
        if name not in found:
            lines.append(f'# {name} = "?"   # CHECK: required, and no column looks like it; name the column')
            draft.missing_required.append(name)
    extra += _category_path(draft, guesser, found, lines)
    extra += _taxonomy(guesser, found, lines)
    extra += _departments_of_no_fashion(draft, guesser, found)
    draft.top += _colour_lists(guesser, found, lines)
    extra += _cleanups(guesser, found)
    extra += _colour_from_names(draft, guesser, found, lines)
    extra += _genders(draft, guesser, found, lines)
    extra += _prices(draft, guesser, found)
    extra += _photos(guesser, found, lines)
    extra += _type_from_names_where_missing(draft, guesser, found, lines, extra)
    extra += _types_in_another_script(draft, guesser, found)
    extra += _colours_in_another_script(draft, guesser, found)
    attributes = [(key, guesser.every_column(names)) for key, names in ATTRIBUTE_NAMES.items()]
    attributes = [(key, guesser.reference(columns[0]) if len(columns) == 1 else (columns, "the first of these with a value"))
                  for key, columns in attributes if columns]
    if "attributes" not in found:  # a key inside an object column (Magento's additional_attributes.material)
        attributes += [(key, inside) for key, names in ATTRIBUTE_NAMES.items()
                       if key not in dict(attributes) and (inside := guesser.key_inside(names, share=0.1)) is not None]
    pairs = Pairs.find(guesser)
    if pairs is not None:
        attributes += [(key, (reference, "the option of that name")) for key, reference in pairs.attributes(guesser, {k for k, _ in attributes})]
    extra += _attributes_from_names(guesser, found, attributes)
    extra += variants_section(guesser, found)
    extra += _rows_of_no_product(guesser)
    if (stand_in := _name_stand_in(guesser, found)) is not None and not any(line.startswith("from = ") for line in extra):
        name, both = found["name"][0], [found["name"][0], stand_in]
        lines = [re.sub(rf"^(\w+ = ){re.escape(toml_reference(name))}(?=\s|$)", lambda m: m.group(1) + toml_reference(both), line)
                 for line in lines]
        lines[next(i for i, line in enumerate(lines) if line.startswith("name = "))] += f"; {stand_in!r} where it is empty"
        attributes = [(key, (both if reference == name else reference, why)) for key, (reference, why) in attributes]
    if attributes:
        extra += ["", "[attributes]"]
        for key, (reference, why) in attributes:
            extra.append(f"{toml_key(key)} = {toml_reference(reference)}" + (f"   # {why}" if why else ""))
    return _one_table_each(lines + extra)


#: At most this many types or colours of another script are listed for translation in the draft (the most frequent).
_MOST_TO_TRANSLATE = 100


def _types_in_another_script(draft: Draft, guesser: Guesser, found: dict) -> list[str]:
    """Commented ``[values.article_type]`` lines to fill in, the most frequent first, when the product types are
    mostly written in a script other than Latin (a Lamoda scrape's ``Куртка``), or in a Latin-script language other
    than English, as the names are (El Corte Inglés's ``Camisas``, ``Vaqueros`` beside names that say ``de hombre``):
    queries would say them as written inside English sentences."""
    reference = found.get("article_type", (None,))[0]
    if reference is None or reference == ROW_NUMBER:
        return []
    texts = present_texts(guesser.values(reference, every_record=True))
    types = guesser.cleaned_counts("article_type", texts)
    script, share = texts_script(list(types.elements()))
    if script == "LATIN":
        if "name" not in found or reference == found["name"][0]:
            return []  # a type read from the names is a word of them, listed by the draft's spellings of it
        names = present_texts(guesser.values(found["name"][0], every_record=True))
        share = sum(n for t, n in types.items() if fold(t.split()[-1]) not in PRODUCT_WORDS) / max(types.total(), 1)
        if other_language_names(names)[0] < 0.3 or share < 0.5:
            return []
        written = "in a language other than English, as the names are"
    elif share >= 0.5:
        written = f"in {script.title()} script"
    else:
        return []
    draft.checks.append(f"{percent(share)} of the product types are written {written}: give each in English for English queries")
    out = [*_to_translate(types, "article_type", f"{percent(share)} of the types are written {written}, which queries would "
                          "say as written inside English sentences; give each in English (the most frequent first)")]
    for category in ("sub_category", "master_category"):  # parts of the same category path, in the same language
        if found.get(category, (None,))[0] == reference:
            out += _to_translate(guesser.cleaned_counts(category, texts), category,
                                 f"the {category.replace('_', ' ')} of the same category paths, likewise")
    return out


def _to_translate(counts: Counter, field: str, why: str) -> list[str]:
    """A commented ``[values.<field>]`` line to fill in for each of ``counts``' values, the most frequent first."""
    shown = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:_MOST_TO_TRANSLATE]
    return (["", f"[values.{field}]   # CHECK: {why}"]
            + [f'# {toml_key(value)} = "?"   # {count:,} record{"s" * (count != 1)}' for value, count in shown]) if shown else []


def _colours_in_another_script(draft: Draft, guesser: Guesser, found: dict) -> list[str]:
    """``[values.colours]`` for the colours written in a script other than Latin that ingest does not read as English
    by itself (:data:`fashionrq.colour.OTHER_LANGUAGE_COLOURS`), a tenth of the colours or more (a store's own shade
    names, ``먹색 | charcoal``): each one that stands beside one Latin colour in four of five of its lists
    or more (three at least) is read as that colour; the others are commented lines to fill in. Queries would say
    them as written, and a list that names one colour in two languages twice ("black or 블랙")."""
    source = _colour_source(found)
    if source is None:
        return []
    separator = _colour_separator(guesser, found)
    lists = [[c.strip() for c in (v if isinstance(v, list) else split_list(v, separator)) if isinstance(c, str) and c.strip()]
             for v in guesser.values(found[source][0], every_record=True) if isinstance(v, list | str)]
    colours = Counter(c for colours in lists for c in colours)
    other = {c: n for c, n in colours.items() if texts_script([c])[0] != "LATIN" and c.casefold() not in OTHER_LANGUAGE_COLOURS}
    if not other or sum(other.values()) < 0.1 * sum(colours.values()):
        return []
    script = texts_script(list(other))[0]
    beside: dict[str, Counter] = {c: Counter() for c in other}
    for colours_of in lists:
        latin = {c.casefold() for c in colours_of if c not in other}
        for c in colours_of:
            if c in other and len(latin) == 1:
                beside[c].update(latin)
    out = ["", f"[values.colours]   # CHECK: colours written in {script.title()} script, which queries would say as written; "
           "each given in English (the most frequent first)"]
    unsure = 0
    for colour, count in sorted(other.items(), key=lambda kv: (-kv[1], kv[0]))[:_MOST_TO_TRANSLATE]:
        pairs = beside[colour].most_common(1)
        if pairs and pairs[0][1] >= 3 and pairs[0][1] >= 0.8 * sum(beside[colour].values()):
            out.append(f'{toml_key(colour)} = "{pairs[0][0].title()}"   # beside {pairs[0][0]!r} in {pairs[0][1]:,} lists')
        else:
            out.append(f'# {toml_key(colour)} = "?"   # {count:,} records')
            unsure += 1
    if unsure:
        draft.checks.append(f"{unsure:,} colours written in {script.title()} script need a colour in English ([values.colours])")
    return out


def _name_stand_in(guesser: Guesser, found: dict) -> str | None:
    """An unused column of texts that holds the name in the records whose name column is empty, four in five of them
    or more, and never beside a name (a scrape's shoe pages that name the title ``goods-title-link--jump``)."""
    name = found.get("name", ("",))[0]
    if name not in guesser.columns:  # a path into a column, or a list: read as it is
        return None
    named = [bool(present_texts([record.get(name)])) for record in guesser.every_record]
    if all(named):
        return None
    for column in (c for c in guesser.columns if c not in guesser.used and c != PART_FILE):
        texts = [present_texts([record.get(column)]) for record in guesser.every_record]
        if any(has and text for has, text in zip(named, texts)):
            continue
        stand_in = [t for has, text in zip(named, texts) if not has for t in text if not re.match(r"[a-z]+://", t)]
        if len(stand_in) >= 0.8 * named.count(False) and sum(len(t.split()) for t in stand_in) >= 3 * len(stand_in):
            guesser.used.add(column)
            return column
    return None


def _one_table_each(lines: list[str]) -> list[str]:
    """The draft's lines with a table written twice (``[values.article_type]`` from the type codes and from the
    names) written once: the later one's entries join the first, but for a key the first already has."""
    blocks: list[list[str]] = [[]]  # the lines before the first table, then a table's lines each
    tables: dict[str, list[str]] = {}
    block = blocks[0]
    for line in lines:
        table = re.match(r"\[([^\[\]]+)\]", line)
        if table is not None:
            if table.group(1) not in tables:
                tables[table.group(1)] = [line]
                blocks.append(tables[table.group(1)])
            block = tables[table.group(1)]
            continue
        key = line.split("=", 1)[0].strip() if "=" in line and not line.startswith("#") else None
        if key is None or not any(entry.split("=", 1)[0].strip() == key for entry in block[1:] if not entry.startswith("#")):
            block.append(line)
    return [line for lines_of in blocks for line in lines_of]


def _id_column_by_values(guesser: Guesser) -> str | None:
    """An unused column named like an id (``p_id``, ``style_no``, ``item_code``) whose values, single words in every
    record, tell every record apart, or half of them or more (a scrape that fetched a listing again, as a Vinted
    scrape's ``No``: ``[variants]`` then reads the repeats as one product)."""
    for column in guesser.columns:
        if column in guesser.used or not re.search(r"(id|no|num|number|code|key|ref|sku)$", norm(column)):
            continue
        texts = present_texts(guesser.values(column, every_record=True))
        if len(texts) == len(guesser.every_record) and len(set(texts)) >= len(texts) / 2 and not any(" " in t for t in texts):
            guesser.used.add(column)
            return column
    return None


def _id_column_of_addresses(guesser: Guesser) -> str | None:
    """An unused column of product page addresses in every record, nine in ten of them different (a scrape's ``link``:
    a product fetched twice is one address twice, which ``[variants]`` reads as one product)."""
    for column in (c for c in guesser.columns if c not in guesser.used):
        texts = present_texts(guesser.values(column, every_record=True))
        if (len(texts) == len(guesser.every_record) and len(set(texts)) >= 0.9 * len(texts)
                and all(re.fullmatch(r"https?://\S+", t) for t in texts)):
            guesser.used.add(column)
            return column
    return None


def _best_column(guesser: Guesser, score: Callable[[str], float | None], least: float, also: set[str] = frozenset()) -> str | None:
    """The unused column (or one of ``also``; never the file a record came from) whose ``score`` is the highest,
    ``least`` or more, the first of equals (columns as the catalog orders them: a name before a description); marked
    used."""
    scored = [(value, column) for column in guesser.columns if (column not in guesser.used or column in also) and column != PART_FILE
              and (value := score(column)) is not None and value >= least]
    if not scored:
        return None
    best = max(scored, key=lambda pair: pair[0])[1]
    guesser.used.add(best)
    return best


def _name_column_by_values(guesser: Guesser) -> str | None:
    """The unused column of texts (no addresses) of three words or more on average, three in four different or more, whose words
    name a fashion product (:data:`fashionrq.terms.PRODUCT_TERMS`) in half of its texts or more, the most of them
    (a scrape's columns named after the page's classes: SHEIN's ``goods-title-link``)."""
    def share_naming_products(column: str) -> float | None:
        texts = [t for t in present_texts(guesser.values(column)) if not re.match(r"[a-z]+://", t)]
        if len(texts) < len(guesser.records) / 2 or len(set(texts)) < 0.75 * len(texts):
            return None
        words = [re.findall(r"[A-Za-z][A-Za-z-]*", t) for t in texts]
        if sum(map(len, words)) < 3 * len(texts):
            return None
        return sum(any(fold(w) in PRODUCT_WORDS for w in ws) for ws in words) / len(texts)

    return _best_column(guesser, share_naming_products, 0.5)


def _name_column_of_short_texts(guesser: Guesser) -> str | None:
    """The unused column of short texts (:func:`_short_texts`) that differ the most (a catalog in another language,
    whose names say no English product word)."""
    return _best_column(guesser, lambda column: _short_texts(guesser, column), 0.0)


#: The words of a product page's address (a Vestiaire Collective scrape's only text,
#: ``https://fr.vestiairecollective.com//women-shoes/ankle-boots/acne-studios/black-leather-acne-studios-ankle-boots-19126896.shtml``):
#: the last part of its path, without the file type and the page's number, its hyphens read as spaces.
_ADDRESS_WORDS = FieldCleanup(extract=re.compile(r"([^/?#]+?)/*(?:[?#].*)?$"),
                              remove=(re.compile(r"\.[a-z0-9]{2,5}$", re.IGNORECASE), re.compile(r"[-_]\d{3,}\s*$|^\d{3,}[-_]")), words=True)


def _name_column_of_addresses(guesser: Guesser, found: dict) -> str | None:
    """The column (unused, or the ids) of product page addresses in nine records in ten or more whose last parts are
    three in four of them words (two or more, :data:`_ADDRESS_WORDS`) that differ, where no column holds names."""
    def share_of_words(column: str) -> float | None:
        texts = present_texts(guesser.values(column))
        if len(texts) < 0.9 * len(guesser.records) or not all(re.fullmatch(r"https?://\S+", t) for t in texts):
            return None
        words = [w for w in (_ADDRESS_WORDS.apply(t)[0] for t in texts) if w and len(re.findall(r"[^\W\d_]{2,}", w)) >= 2]
        share = len(words) / len(texts)
        return share if len(set(words)) >= 0.75 * len(words) else None

    return _best_column(guesser, share_of_words, 0.75, also={found.get("item_id", ("",))[0]})


def _address_words_lines(guesser: Guesser, column: str) -> list[str]:
    """The ``[clean.name]`` section that reads the words of the addresses in ``column`` (:data:`_ADDRESS_WORDS`)."""
    guesser.cleanups["name"] = _ADDRESS_WORDS
    body = (f"extract = {toml_literal(_ADDRESS_WORDS.extract.pattern)}   # the last part of the address's path\n"
            f"remove = [{', '.join(toml_literal(p.pattern) for p in _ADDRESS_WORDS.remove)}]   # its file type and number\n"
            "words = true   # its hyphens read as spaces")
    return _cleanup_lines("name", present_texts(guesser.values(column)), _ADDRESS_WORDS, body)


def _short_texts(guesser: Guesser, column: str, least: float = 0.5) -> float | None:
    """How many of the texts of ``column`` differ (a share), where nine records in ten or more hold one (no address,
    not a number), of two to fifteen words on average, a share ``least`` of them different or more: names, such as a
    Vinted scrape's ``Description`` (``Basket air force one react``, a resale listing's title often repeated); else
    nothing."""
    texts = [t for t in present_texts(guesser.values(column)) if not re.match(r"[a-z]+://", t) and re.search(r"[^\W\d_]", t)]
    if len(texts) < 0.9 * len(guesser.records) or not 2 <= sum(len(t.split()) for t in texts) / len(texts) <= 15:
        return None
    share = len(set(texts)) / len(texts)
    return share if share >= least else None


def _price_column_by_last_word(guesser: Guesser) -> str | None:
    """The unused column whose name's last word is the price's (``price``, ``preis``, ``fiyat``, ...) after a word of
    the shop's own (a Trendyol scrape's ``Trendyol Price``), nine in ten of its cells amounts or more, the most filled
    of them."""
    def filled_with_amounts(column: str) -> float | None:
        words = re.findall(r"[^\W_]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", column).lower())
        if len(words) < 2 or norm(words[-1]) not in FIELD_NAMES["price"]:
            return None
        texts = present_texts(guesser.values(column))
        return len(texts) if texts and sum(bool(re.search(r"\d", t)) for t in texts) >= 0.9 * len(texts) else None

    return _best_column(guesser, filled_with_amounts, len(guesser.records) / 2)


def _price_column_by_values(guesser: Guesser) -> str | None:
    """The unused column, filled in half the records or more, whose cells are amounts written with a currency sign
    nine in ten times or more (:func:`fashionrq.catalog.prices.marked_amount`), the most filled of them (a scrape's
    columns named after the page's classes: Target's ``styles_styledBodyMdText__lJVEV``, ``$69.99 - $74.99``)."""
    def filled_with_amounts(column: str) -> float | None:
        texts = present_texts(guesser.values(column))
        return len(texts) if texts and sum(map(marked_amount, texts)) >= 0.9 * len(texts) else None

    return _best_column(guesser, filled_with_amounts, len(guesser.records) / 2)


def _brand_column_by_values(guesser: Guesser, name: str) -> str | None:
    """The unused column of values that repeat (as many as half the records or fewer), named by no product, colour or gender,
    that the record's own name says in three records in five or more, the most of them (Target's
    ``styles_ndsLink__GUaai``: ``Levi's`` beside ``Levi's® Women's High-Rise Cinch Baggy Jeans``, ``Lascana`` beside
    ``... Jeans - LASCANA``)."""
    def plain(text: str) -> str:
        return " ".join(re.sub(r"[™®©]", " ", text).casefold().split())

    def share_said_by_names(column: str) -> float | None:
        pairs = [(n, v) for n, v in guesser.both(name, column) if isinstance(n, str) and isinstance(v, str) and v.strip()]
        values = {plain(v) for _, v in pairs}
        if len(pairs) < len(guesser.records) / 2 or not 2 <= len(values) <= len(pairs) / 2:
            return None
        if sum(bool({fold(w) for w in value.split()} & _PRODUCT_COLOUR_OR_GENDER) for value in values) > len(values) / 2:
            return None  # a category, colour or gender column, whose values names say too
        return sum(re.search(rf"(?<!\w){re.escape(plain(v))}(?!\w)", plain(n)) is not None for n, v in pairs) / len(pairs)

    return _best_column(guesser, share_said_by_names, 0.6)


def _attribute_objects(guesser: Guesser) -> str | None:
    """An unused column of objects, a quarter of them or more keyed by two attribute names or more (``{'Fabric':
    'Cotton', 'Neck': 'Round Neck', ...}``; a shoe's or a bag's keys are others)."""
    known = {name for names in ATTRIBUTE_NAMES.values() for name in names}
    for column in guesser.columns:
        objects = [v for v in guesser.decoded(column) if isinstance(v, dict)] if column not in guesser.used else []
        if objects and sum(len({norm(k) for k in v if isinstance(k, str)} & known) >= 2 for v in objects) >= len(objects) / 4:
            guesser.used.add(column)
            return column
    return None


def _details_list(guesser: Guesser, found: dict) -> None:
    """A description given as a list of one-key objects (``[{"Product Details": "..."}, {"Brand": "Topshop"}, {"About
    Me": "Cotton"}]``): the entry with the longest texts as the description, and the list as the attributes."""
    column = found.get("description", ("",))[0]
    keys = guesser.one_key_lists(column) if column in guesser.columns else None
    common = [k for k, n in (keys or Counter()).items() if n >= len(guesser.records) / 3]
    if not common:
        return
    length = Counter({k: sum(len(t) for t in present_texts(guesser.values(f"{column}[*].{k}"))) for k in common})
    key = length.most_common(1)[0][0]
    found["description"] = (f"{column}[*].{key}", f"a list of one-key objects: the {key!r} entry, the longest")
    found.setdefault("attributes", (column, "a list of one-key objects, read as attributes"))


#: Column names (:func:`fashionrq.catalog.guess.norm`) of the price before a sale, beside a column named ``price``.
_BEFORE_SALE = ("originalprice", "regularprice", "listprice", "listingprice", "retailprice", "mrp", "rrp", "oldprice",
                "wasprice", "fullprice", "compareatprice")


def _price_before_a_sale(guesser: Guesser, found: dict) -> None:
    """A column named ``price`` beside one named for the price before a sale (a Lamoda scrape's ``Price`` and
    ``Original Price``, a store's ``price`` and ``mrp``): that one is the price, and ``price`` the price paid."""
    price = found.get("price", ("",))[0]
    if "discounted_price" in found or price not in guesser.columns or norm(price) not in ("price", "prices"):
        return
    before = next((c for c in guesser.columns if c not in guesser.used and norm(c) in _BEFORE_SALE and guesser.values(c)), None)
    if before is not None:
        guesser.used.add(before)
        found["price"] = (before, f"the price before a sale, beside {price!r}")
        found["discounted_price"] = (price, f"the price paid, beside {before!r}")


def _finest_category_as_type(draft: Draft, guesser: Guesser, found: dict) -> None:
    """A type column of a few departments beside a sub category of many more values (a Spanish shop's ``categoria``:
    moda, zapatos; its ``subcategoria``: Blusa, Camiseta, ... 39 of them): the finer one is the type, the other the
    master category."""
    if "article_type" not in found or "sub_category" not in found or not all(isinstance(found[f][0], str) for f in ("article_type", "sub_category")):
        return
    types, subs = (len(set(present_texts(guesser.values(found[f][0], every_record=True)))) for f in ("article_type", "sub_category"))
    if types <= 10 and subs >= 3 * types:
        department, finer = found.pop("article_type")[0], found.pop("sub_category")[0]
        found["article_type"] = (finer, f"CHECK: {subs:,} values, where {department!r} has {types:,}: the finer is the type")
        if "master_category" not in found:
            found["master_category"] = (department, f"CHECK: {types:,} departments above the types")
        draft.checks.append(f"the type is read from {finer!r} ({subs:,} values), the finer of the two category columns")


def _sale_beside_price(guesser: Guesser, found: dict) -> None:
    """A price object that holds the sale price beside the amount (``{"amount": 1299, "sale": 999}``): that key as
    the discounted price. A price object of amounts (``{"current": {"value": 12.49}, "previous": {"value": 20.0},
    "currency": "GBP"}``, as retailers' APIs write one): the previous amount, else the current one, as the price, and
    the current one as the price paid."""
    _nested_amounts(guesser, found)
    column = _price_object(found) if "discounted_price" not in found else None
    objects = [v for v in guesser.decoded(column) if isinstance(v, dict)] if column else []
    key = next((k for k in dict.fromkeys(k for v in objects for k in v) if norm(k) in _SALE_KEYS), None)
    if key is not None:
        found["discounted_price"] = (f"{column}.{key}", "the sale price beside the amount")


def _nested_amounts(guesser: Guesser, found: dict) -> None:
    reference = found.get("price", ("",))[0]
    objects = [v for v in guesser.decoded(reference) if isinstance(v, dict)] if reference in guesser.columns else []
    if not objects:
        return
    amounts = {}  # "previous" -> "previous.value"
    for key in dict.fromkeys(k for v in objects for k in v):
        inner = next((v[key] for v in objects if isinstance(v.get(key), dict)), None)
        amount = next((a for a in ("value", "amount") if inner is not None and a in inner), None)
        if amount is not None:
            amounts[norm(key)] = f"{reference}.{key}.{amount}"
    paid = next((amounts[k] for k in ("current", "now", "sale", "selling", "final") if k in amounts), None)
    before = next((amounts[k] for k in ("previous", "was", "rrp", "regular", "original", "list") if k in amounts), None)
    if paid is not None:
        found["price"] = ([before, paid] if before else paid, "a price object: the amount before a sale, else the current one")
        found.setdefault("discounted_price", (paid, "the current amount of the price object"))


def _price_object(found: dict) -> str | None:
    """The column of price objects the price is read from (``price.amount``, ``price.current.value``: ``price``), or
    ``None``."""
    reference = found.get("price", ("",))[0]
    reference = reference[-1] if isinstance(reference, list) else reference
    match = re.fullmatch(r"([^.\[\]]+)(?:\.[^.\[\]]+)?\.(?:amount|value)", reference)
    return match.group(1) if match else None


def _unrooted_paths(guesser: Guesser, found: dict) -> None:
    """An article type read from the path under a root (``categories[0=Clothing, Shoes & Jewelry][-1]``) in a
    catalog some of whose records have no path under it (a beauty product): their first path's last entry."""
    reference = found.get("article_type", ("",))[0]
    match = re.fullmatch(r"(.+)\[0=.+\]\[-1\]", reference) if isinstance(reference, str) else None
    if match and len(guesser.values(reference)) < len(guesser.values(match.group(1))):
        found["article_type"] = ([reference, f"{match.group(1)}[0][-1]"], found["article_type"][1] + "; else the first path's")


#: The share of names that must say a gender for the draft to read it from them: a fifth (a marketplace's clothes say
#: one, its jewellery seldom; a name that says none gives no gender, never a wrong one).
GENDER_NAMES_SHARE = 0.2


def _share_of_names(guesser: Guesser, found: dict, word: re.Pattern) -> float:
    """The share of the names in which ``word`` occurs (a gender word, a colour word): of every record's, as a catalog
    sorted by brand or department may say one only in its first records (a store's export of Adidas, then Nike)."""
    names = present_texts(guesser.values(found["name"][0], every_record=True))
    return sum(bool(word.search(n)) for n in names) / max(len(names), 1)


def _type_from_names(draft: Draft, guesser: Guesser, found: dict, lines: list[str]) -> list[str]:
    """With no type column, the types the names end with (``Roadster Men Navy Blue Slim Fit Jeans``: Jeans), found
    in every record's name, when half of the names or more end in one; each type's other spellings mapped to it."""
    if "article_type" in found or "name" not in found:
        return []
    if (typed := _type_column_by_values(guesser, found["name"][0])) is not None:
        column, why = typed
        found["article_type"] = guesser.reference(column, last=True)
        lines.append(f"article_type = {toml_reference(found['article_type'][0])}   # no type column by name, but its {why}")
        draft.checks.append(f"the type is read from {column!r}, whose {why}")
        _levels_above(guesser, found, lines, column)
        return []
    names = present_texts(guesser.values(found["name"][0], every_record=True))
    brands = _brands(guesser, found)
    types = types_at_end_of_names(names, brands=frozenset(brand.lower() for brand in brands))
    if types.share < END_TYPES_SURELY and (starting := _type_from_name_starts(draft, found, lines, names, brands, beat=types.share)):
        return starting  # a German shop's "Anzug 'JPRSteven'", "Shirt mit V-Neck": the start covers more names
    if types.share < 0.5:
        return []
    _type_read_from_names(draft, found, lines, "end", len(types.spellings), types.share, len(names))
    return _name_types_section(types)


def _type_read_from_names(draft: Draft, found: dict, lines: list[str], at: str, count: int, share: float, names: int) -> None:
    """The type mapped to the names, read at their ``at`` (``"end"`` or ``"start"``): the column's line and the check
    that say which share of the ``names`` end (or start) with one of the ``count`` types."""
    verb, verbs = ("end in", "ends in") if at == "end" else ("start with", "starts with")
    found["article_type"] = found["name"]
    lines.append(f'article_type = {toml_reference(found["name"][0])}   # no type column, but {percent(share)} of the names '
                 f"{verb} one of {count} types")
    draft.checks.append(f"the type is read from the {at} of the names: {count} types, which {at} {percent(share)} of "
                        f"the {names:,} names (an item whose name {verbs} none is rejected)")


#: The share of names ending in a type at which the draft reads the types there, never at the names' start.
END_TYPES_SURELY = 0.9


def _type_from_name_starts(draft: Draft, found: dict, lines: list[str], names: list[str], brands: list[str], beat: float) -> list[str]:
    """Names that end in no type, or in fewer than start with one, in a language that puts the noun first (a Mercado
    Livre ``Tênis Olympikus ...``, a German shop's ``Anzug 'JPRSteven'``): ``[clean.article_type] starts_with`` of the
    types half of the names or more, and more than the ``beat`` share that end in one, start with, when the names do
    not start with their brand."""
    known = {b.casefold() for b in brands}
    if known and sum(any(" ".join(n.split()[:k]).casefold() in known for k in range(1, 5)) for n in names) >= len(names) / 2:
        return []  # names that start with a brand (read from there, or a brand column's)
    types, others, share = types_at_start_of_names(names, frozenset(known))
    if share < 0.5 or share <= beat or len(types) < 2:
        return []
    _type_read_from_names(draft, found, lines, "start", len(types), share, len(names))
    listed = sorted([*types, *others], key=lambda t: (-types.get(t, 0), t))
    return (["", "[clean.article_type]   # the type the name starts with (a name that starts with none: no type, and the item",
             "# is rejected). CHECK: delete a word that is no type (a brand), add a type the list lacks",
             "starts_with = [", *(f"    {json.dumps(t, ensure_ascii=False)},   # {types[t]:,} names" if t in types else
                                  f"    {json.dumps(t, ensure_ascii=False)},   # read as {others[t]!r}" for t in listed), "]"]
            + (["", "[values.article_type]   # each type's other spellings", *(f"{toml_key(w)} = {json.dumps(t, ensure_ascii=False)}"
                                                                               for w, t in others.items())] if others else []))


def _type_from_parts(draft: Draft, guesser: Guesser, found: dict, lines: list[str]) -> list[str]:
    """With no type column and names that end in no type (a Digikala scrape's Persian names), the type the names of
    a catalog's parts say (``category-women-dresses.csv``: Dresses), when they say one for half of the records or
    more: each part's words but those every part has, its gender and words that name no type (``boys clothing``)."""
    if "article_type" in found or PART_FILE not in guesser.columns:
        return []
    records = Counter(present_texts(guesser.values(PART_FILE, every_record=True)))
    common = set.intersection(*(set(part.lower().split()) for part in records)) if len(records) > 1 else set()
    types = {part: _part_type([w for w in part.split() if w.lower() not in common and not _GENDER_WORD.fullmatch(w)])
             for part in records}
    typed = {part: type_ for part, type_ in types.items() if type_}
    def words(type_: str) -> tuple[str, ...]:  # "Trousers Jumpsuits", "Trousers and Jumpsuits": one type
        return tuple(fold(w) for w in type_.split() if w.lower() not in NO_TYPE_WORDS)
    spelled: dict[tuple[str, ...], Counter] = {}
    for part, type_ in typed.items():
        spelled.setdefault(words(type_), Counter())[type_] += records[part]
    one = {key: max(sorted(counts), key=counts.__getitem__) for key, counts in spelled.items()}  # the most records'
    typed = {part: one[words(type_)] for part, type_ in typed.items()}
    share = sum(records[part] for part in typed) / max(sum(records.values()), 1)
    if share < 0.5 or len(set(typed.values())) < 2:
        return []
    found["article_type"] = (PART_FILE, "")
    guesser.used.add(PART_FILE)
    lines.append(f'article_type = "{PART_FILE}"   # no type column and the names end in none, but the names of the parts say '
                 f"one for {percent(share)} of the records")
    draft.checks.append(f"the type is read from the names of the parts: {len(set(typed.values()))} types, for {percent(share)} of the records")
    untyped = sorted(part for part in records if part not in typed)
    out = ["", "[clean.article_type]   # the parts whose names say no type: their items are rejected; CHECK",
           f"refuse = [{', '.join(toml_literal(literal(part)) for part in untyped)}]"] if untyped else []
    return out + ["", "[values.article_type]   # the type each part's name says; CHECK",
                  *(f"{toml_key(part)} = {json.dumps(type_)}" for part, type_ in sorted(typed.items()))]


def _part_type(words: list[str]) -> str:
    """The type a part's remaining words name, each capitalised but the small words inside (``tops and croptops``:
    Tops and Croptops); none when they are only words that name no type (``clothing``)."""
    while words and words[0].lower() in NO_TYPE_WORDS:
        words = words[1:]
    while words and words[-1].lower() in NO_TYPE_WORDS:
        words = words[:-1]
    return " ".join(w if w.lower() in NO_TYPE_WORDS else w[:1].upper() + w[1:] for w in words)


def _type_from_names_where_missing(draft: Draft, guesser: Guesser, found: dict, lines: list[str], extra: list[str]) -> list[str]:
    """A type column that some records leave empty (Amazon's category lists, empty for a quarter of the products):
    for those, the type at the end of the name, when half of their names or more end in one (a clean-up ``from`` the
    name alone, so that the column's types are kept as they are, but for the value map of the names' spellings)."""
    typed = found.get("article_type")
    if (typed is None or "name" not in found or not isinstance(typed[0], str) or typed[0] == found["name"][0]
            or any(line.startswith("[clean.article_type]") for line in extra)):
        return []
    name = found["name"][0]
    untyped = present_texts(guesser.where_missing(typed[0], name))
    if len(untyped) < 0.05 * len(guesser.every_record):
        return []
    types = types_at_end_of_names(present_texts(guesser.values(name, every_record=True)))
    pattern = re.compile(types.pattern(), re.IGNORECASE)
    share = sum(bool(pattern.search(text)) for text in untyped) / len(untyped)
    if share < 0.5:
        return []
    at = next(i for i, line in enumerate(lines) if line.startswith("article_type = "))
    lines[at] = (f"article_type = {toml_reference([typed[0], name])}   # {typed[1] + '; ' if typed[1] else ''}else (for the "
                 f"{len(untyped):,} records without one) the type at the end of the name")
    draft.checks.append(f"{len(untyped):,} records have no {typed[0]}: their type is read from the end of the name, which "
                        f"{percent(share)} of them end in")
    return _name_types_section(types, source=name)


def _rows_of_no_product(guesser: Guesser) -> list[str]:
    """``[skip]`` for the rows a column of row kinds marks as no product of their own: BigCommerce's ``SKU`` (a size
    or colour of the product row above) and ``Rule`` (a price rule) rows, under its ``Product`` rows."""
    for column in guesser.columns:
        kinds = {t.strip().lower() for t in present_texts(guesser.values(column))}
        if "product" in kinds and kinds & {"sku", "rule"} and kinds <= {"product", "sku", "rule"}:
            guesser.used.add(column)
            return ["", "[skip]   # rows that are no product of their own: the SKU (variant) and Rule rows under a Product row",
                    f"{toml_key(column)} = ['\\s*(?:sku|rule)\\s*']"]
    return []


def _type_column_by_values(guesser: Guesser, name: str) -> tuple[str, str] | None:
    """An unused column of short category values, or of category paths ending in one, that names the type half of the
    sampled names or more end in (Zara's ``terms``, ``jackets``, beside ``BASIC PUFFER JACKET``; ``Apparel | Topwear |
    Tshirts`` beside ``Puma Men Grey Tshirt``), the one that agrees with the most; else one whose values are product
    words (:data:`fashionrq.terms.PRODUCT_TERMS`) six times in ten or more though the names do not end in them. The
    column, and why, in words."""
    agreeing: list[tuple[float, str, str]] = []
    known: list[tuple[str, str]] = []
    for column in guesser.columns:
        texts = present_texts(guesser.values(column)) if column not in guesser.used | {PART_FILE} else []  # parts: _type_from_parts
        separator = _path_separator(texts, PATH_SEPARATORS)  # "Apparel | Topwear | Tshirts": the last part
        lasts = [_last_part(t, separator) for t in texts]
        if (len(texts) < len(guesser.records) / 2 or len(set(texts)) > len(texts) / 2
                or any(len(t.split()) > 4 or not re.search(r"[A-Za-z]", t) for t in lasts)):
            continue
        values = "values are category paths whose last parts are" if separator else "values are"
        pairs = [(tail[1], words[-1]) for n, t in guesser.both(name, column)
                 if isinstance(n, str) and isinstance(t, str) and (words := _last_part(t, separator).split())
                 and (tail := name_tail(n)) is not None]
        share = sum(fold(word) == fold(type_) for word, type_ in pairs) / max(len(pairs), 1)
        if share >= 0.5:
            agreeing.append((share, column, f"{values} the types {percent(share)} of the names end in"))
        elif sum(fold(t.split()[-1]) in PRODUCT_WORDS for t in lasts) >= 0.6 * len(texts):
            known.append((column, f"{values} product words"))
    found = (max(agreeing, key=lambda a: a[0])[1:] if agreeing else None) or (known[0] if known else None)
    if found is not None:
        guesser.used.add(found[0])
    return found


def _levels_above(guesser: Guesser, found: dict, lines: list[str], column: str) -> None:
    """For a type in a numbered column (``level3``, ``category_3``), the master and sub category in the columns of
    the same name numbered below it: the first, and the one just above the type's."""
    numbered = re.fullmatch(r"(.*?)(\d+)", column)
    if numbered is None:
        return
    stem, level = numbered.group(1), int(numbered.group(2))
    above = {int(m.group(1)): c for c in guesser.columns
             if c not in guesser.used and (m := re.fullmatch(re.escape(stem) + r"(\d+)", c)) and int(m.group(1)) < level and guesser.values(c)}
    for name, number, why in (("master_category", min(above, default=None), "the top level of the type's numbered columns"),
                              ("sub_category", level - 1, "the level just above the type's")):
        if name not in found and number in above and above[number] not in guesser.used:
            guesser.used.add(above[number])
            found[name] = (above[number], why)
            lines.append(f"{name} = {toml_reference(above[number])}   # {found[name][1]}")


def _name_types_section(types: NameTypes, source: str | None = None) -> list[str]:
    """``[clean.article_type]`` reading the types at the end of the names (``from`` ``source`` alone, if given), and
    ``[values.article_type]`` reading each type's other spellings and number as the type."""
    examples = ", ".join(list(types.spellings)[:6])
    out = ["", f"[clean.article_type]   # the type at the end of the name ({examples}, ...); a name that ends in none: no",
           "# type, and the item is rejected. CHECK: add the types this list lacks, drop words that are no type",
           *([f"from = {json.dumps(source)}   # only the types read from the name"] if source else []),
           f"extract = {toml_literal(types.pattern())}"]
    if types.value_map():
        out += ["", "[values.article_type]   # each type's other spellings and number, read as the type"]
        out += [f"{toml_key(spelling)} = {json.dumps(type_)}" for spelling, type_ in types.value_map().items()]
    return out


def _attributes_from_names(guesser: Guesser, found: dict, attributes: list) -> list[str]:
    """With no attribute columns, the attributes a tenth of the names or more say (``Striped``, ``Sleeveless``,
    ``Slim Fit``): each read from the name, its spellings read as one value; added to ``attributes``."""
    if "attributes" in found or "name" not in found or not isinstance(found["name"][0], str):
        return []
    names = present_texts(guesser.values(found["name"][0], every_record=True))
    out = []
    for attribute in attributes_in_names(names, tuple(k for k in NAME_ATTRIBUTES if k not in dict(attributes))):
        attributes.append((attribute.key, (found["name"][0], f"no {attribute.key} column, but {percent(attribute.share)} of the names say one")))
        out += ["", f"[clean.attributes.{toml_key(attribute.key)}]   # the first {attribute.key} word of the name (a name without one: none)",
                f"extract = {toml_literal(attribute.pattern())}"]
        out += ["", f"[values.attributes.{toml_key(attribute.key)}]   # each spelling, in any case, read as one value"]
        out += [f"{toml_key(spelling)} = {json.dumps(value)}" for spelling, value in attribute.value_map().items()]
    return out


def _colour_from_names(draft: Draft, guesser: Guesser, found: dict, lines: list[str]) -> list[str]:
    """With no colour column, the first colour word of the names (``Puma Men Navy Blue T-shirt``), when half of
    them or more say one."""
    if "base_colour" in found or "colours" in found or "name" not in found:
        return []
    share, pattern = _share_of_names(guesser, found, _COLOUR_WORD), _COLOUR_WORD
    if share < 0.5:  # names of another language: the English colours and the other language's that the names say
        names = present_texts(guesser.values(found["name"][0], every_record=True))
        said = {m.casefold() for name in names for m in _OTHER_LANGUAGE_COLOUR_WORD.findall(name)}
        share, pattern = _share_of_names(guesser, found, either := _colour_words([*COLOURS, *said])), either
    if share < 0.5:
        return []
    lines.append(f'base_colour = "{found["name"][0]}"   # no colour column, but {percent(share)} of the names say one')
    draft.checks.append(f"the colour is read from the names, which say one in {percent(share)} of them")
    brand = ["strip_brand = true   # a colour word in the brand's name (Red Tape) is not the item's"] if "brand" in found else []
    return ["", "[clean.base_colour]   # the first colour word of the name (a name without one: no colour); CHECK",
            *brand, f"extract = {toml_literal(pattern.pattern)}"]


def _category_path(draft: Draft, guesser: Guesser, found: dict, lines: list[str]) -> list[str]:
    """An article type written as a path (``Women > Apparel > Tops``): its last part, and the parts above it for
    the categories the catalog has no column for."""
    if "article_type" not in found:
        return []
    reference = found["article_type"][0]
    first = reference[0] if isinstance(reference, list) else reference  # of a fallback list, the one that reads the list
    if first.endswith("[-1]"):
        _category_list(guesser, found, lines, first.removesuffix("[-1]"))
        return []
    if (objects := re.fullmatch(r"(.+)\[-1\]\.([^.\[\]]+)", first)) is not None:  # a list of category objects
        _category_list(guesser, found, lines, objects.group(1), objects.group(2))
        return []
    texts = present_texts(guesser.values(found["article_type"][0]))
    separator = _path_separator(texts, PATH_SEPARATORS)
    if separator is None:
        return []
    paths = [[part.strip() for part in t.split(separator)] for t in texts]
    root = Counter(path[0] for path in paths).most_common(1)[0][0]
    # several paths in one cell: Magento's ".../Tshirts,Default Category/Sale", BigCommerce's "Women/Tops;Sale"
    joiner = next((j for j in ((f",{root}" if root else None), ";") if j and sum(j in t for t in texts) >= len(texts) / 20), None)
    if joiner:  # the parts of the first path, counted from its root
        paths = [[part.strip() for part in t.split(joiner)[0].split(separator)] for t in texts]
    joined = joiner is not None
    named = not joined and _paths_end_in_the_name(guesser, found, separator)
    if named:  # "Women > Clothing > Polo Shirts > Polo Shirt in Boucle-knit": the type is the part before the name
        paths = [path[:-1] for path in paths]
    depth = Counter(map(len, paths)).most_common(1)[0][0]
    out = ["", "[clean.article_type]   # a category path: its last part", f'split = "{separator}"']
    cleanup: dict = {"split": separator, "part": -1, "remove": (), "refuse": ()}  # what those lines do, for the draft's own reading
    if named:
        out[1] = "[clean.article_type]   # a category path: the part before its last, which is the product's name"
        out.append("part = -2")
        cleanup["part"] = -2
    if joined:
        example = "Tshirts,Default Category/Sale" if joiner != ";" else "Tops;Sale"
        out[1] = f"[clean.article_type]   # the last part of the first of the paths; CHECK (paths of {depth} parts)"
        out += [f"part = {depth - 1}", f"remove = ['{joiner[0]}.*$']   # the other paths, after a {'comma' if joiner != ';' else 'semicolon'} (\"{example}\")"]
        cleanup.update(part=depth - 1, remove=(re.compile(f"{joiner[0]}.*$"),))
    elif sum(", " in path[-1] for path in paths) >= len(paths) / 20:  # "Tshirts, Sale": a second category after a comma
        out.append("remove = [',.*$']   # a second category after a comma (\"Tshirts, Sale\"); CHECK")
        cleanup["remove"] = (re.compile(",.*$"),)
    if not joined and (sections := _sections(paths)):
        stopped = sum(path[-1] in sections for path in paths)
        draft.checks.append(f"{stopped:,} of the {len(paths):,} sampled category paths stop at a section above the products "
                            f"({', '.join(map(repr, sections[:5]))}): their records are left out, counted; CHECK")
        out.append(f"refuse = [{', '.join(toml_literal(re.escape(section)) for section in sections)}]   # paths that stop at "
                   "a section above the products: no type; CHECK")
        cleanup["refuse"] = tuple(re.compile(re.escape(section), re.IGNORECASE) for section in sections)
    gendered = not joined and sum(_GENDER_AT_END.search(path[-1]) is not None for path in paths) >= 0.6 * len(paths)
    removed = (_GENDER_AT_END,) if gendered else ()
    if gendered:
        out += _genders_of_slugs(guesser, found, lines, separator)
        cleanup["remove"] += removed
    guesser.cleanups["article_type"] = FieldCleanup(**cleanup)
    parts = [("sub_category", depth - 2 if joined else -2 - named), ("master_category", depth - 3 if joined else -3 - named)]
    genders = Counter(i for path in paths for i, part in enumerate(path[:-1]) if part.lower() in ANY_GENDER_WORDS)
    if "gender" not in found and genders and genders.most_common(1)[0][1] >= 0.6 * len(paths):
        gender = genders.most_common(1)[0][0]  # a category part that is the gender's is no category
        parts = [(name, part) for name, part in parts if (part if part >= 0 else depth + named + part) != gender] + [("gender", gender)]
    one_root = len({path[0] for path in paths}) == 1  # Magento's "Default Category": no category
    for name, part in parts:
        if name not in found and (not joined or part >= 1 or not one_root) and depth + named >= (-part if part < 0 else part + 1):
            found[name] = (found["article_type"][0], "")
            level = {"sub_category": 1, "master_category": 2}.get(name)
            higher = _sections(paths, level, level + 1) if level and not joined else []
            guesser.cleanups[name] = FieldCleanup(split=separator, part=part, remove=removed,
                                                  refuse=tuple(re.compile(re.escape(h), re.IGNORECASE) for h in higher))
            lines.append(f'{name} = "{found["article_type"][0]}"   # a part of the category path')
            out += ["", f"[clean.{name}]", f'split = "{separator}"', f"part = {part}"] + (
                [f"remove = [{toml_literal(_GENDER_AT_END.pattern)}]"] if gendered else []) + (
                [f"refuse = [{', '.join(toml_literal(re.escape(h)) for h in higher)}]   # a part that stands higher in other "
                 f"paths (a section above this level): no {name.replace('_', ' ')}"] if higher else [])
    return out


def _genders_of_slugs(guesser: Guesser, found: dict, lines: list[str], separator: str) -> list[str]:
    """For a category path whose parts end in the gender (Tokopedia's ``fashion-pria/sepatu-pria/sneakers-pria``): the
    type's clean-up line that cuts it off, and, with no gender column, the gender of the first part that ends in one
    (a bra's ``fashion-wanita/pakaian-dalam-wanita/bra``)."""
    out = [f"remove = [{toml_literal(_GENDER_AT_END.pattern)}]   # the gender word the part ends in (\"sneakers-pria\": sneakers)"]
    if "gender" not in found:
        at_part_end = re.compile(_GENDER_AT_END.pattern.removesuffix("$") + rf"(?=\s*{re.escape(separator)}|$)", re.IGNORECASE)
        found["gender"] = (found["article_type"][0], "")
        guesser.cleanups["gender"] = FieldCleanup(extract=at_part_end)
        lines.append(f'gender = "{found["article_type"][0]}"   # the gender word a part of the category path ends in')
        out += ["", "[clean.gender]   # the gender word of the first part of the path that ends in one",
                f"extract = {toml_literal(at_part_end.pattern)}"]
    return out


def _paths_end_in_the_name(guesser: Guesser, found: dict, separator: str) -> bool:
    """Whether the category paths end in the record's own name in half the records or more (a breadcrumb down to the
    product's page, as a public Ounass scrape writes it)."""
    if "name" not in found:
        return False
    pairs = [(n, t) for n, t in guesser.both(found["name"][0], found["article_type"][0]) if isinstance(n, str) and isinstance(t, str)]
    return bool(pairs) and sum(_last_part(t, separator).casefold() == n.strip().casefold() for n, t in pairs) >= len(pairs) / 2


def _category_list(guesser: Guesser, found: dict, lines: list[str], column: str, key: str | None = None) -> None:
    """An article type taken from ``column``, a list of categories (``["Clothing, Shoes & Jewelry", "Women",
    "Clothing", "Tops, Tees & Blouses"]``, or of objects whose ``key`` names them: ``[{"name": "Women"}, ...]``): the
    entries above it for the categories the catalog has no column for, and the gender from the position that names
    one in most lists."""
    lists = [v for v in guesser.decoded(column) if isinstance(v, list)]
    depth = Counter(map(len, lists)).most_common(1)[0][0]
    suffix = f".{key}" if key else ""
    for name, index in (("sub_category", -2), ("master_category", -3)):
        if name not in found and depth >= -index:
            found[name] = (f"{column}[{index}]{suffix}", "")
            lines.append(f'{name} = "{column}[{index}]{suffix}"   # an entry of the category list')
    if "gender" not in found:
        named = Counter(i for v in lists for i, entry in enumerate(v[:depth])
                        if str(entry.get(key) if key and isinstance(entry, dict) else entry).lower() in ANY_GENDER_WORDS)
        index, count = named.most_common(1)[0] if named else (None, 0)
        if count >= 0.6 * len(lists):
            found["gender"] = (f"{column}[{index}]{suffix}", "")
            lines.append(f'gender = "{column}[{index}]{suffix}"   # the entry of the category list that names a gender')


def _colour_source(found: dict) -> str | None:
    """The field the draft reads the colours from: the colour list, else the base colour, else none."""
    return "colours" if "colours" in found else "base_colour" if "base_colour" in found else None


def _colour_separator(guesser: Guesser, found: dict) -> str | None:
    """The mark between the colours of one text (``Black/White``, ``Red|Blue``), where the colours are texts that list
    several; else ``None``."""
    source = _colour_source(found)
    values = guesser.values(found[source][0]) if source is not None else []
    if any(isinstance(v, list) for v in values):  # already a list
        return None
    texts = present_texts(values)
    return next((s for s in ("|", "/", ",", ";") if _lists_colours(texts, s)), None)


def _colour_lists(guesser: Guesser, found: dict, lines: list[str]) -> list[str]:
    """Colours written as one text with several colours (``Black/White``, ``Red|Blue``)."""
    separator = _colour_separator(guesser, found)
    if separator is None:
        return []
    if _colour_source(found) == "base_colour":  # several colours in one text: they are the colours list, the first one the base
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


def _brands(guesser: Guesser, found: dict) -> list[str]:
    """Every record's brand as the draft's clean-up reads it (the brand a name starts with), each as often as the
    records hold it."""
    if "brand" not in found:
        return []
    return list(guesser.cleaned_counts("brand", present_texts(guesser.values(found["brand"][0], every_record=True))).elements())


def _brands_of_name_starts(draft: Draft, guesser: Guesser, found: dict) -> list[str]:
    """With no brand column, the brands the names start with (``Red Tape Olive Skinny Fit Jeans``), when they do
    (:func:`fashionrq.catalog.name_brands.brands_at_start_of_names`, never a word of the catalog's own categories),
    read by ``[clean.brand] starts_with``: the section's lines, the brands most common first, each with its count."""
    names = present_texts(guesser.values(found["name"][0], every_record=True))
    references = [found[field][0] for field in _CATEGORY_FIELDS if field in found]
    categories = [r for r in references if found["name"][0] not in (r if isinstance(r, list) else [r])]  # never the names
    words = frozenset(w for reference in categories for text in present_texts(guesser.values(reference))
                      for w in re.findall(r"[^\W\d_]+", text.lower()))
    starting = brands_at_start_of_names(names, words)
    if starting is None:
        return []
    found["brand"] = (found["name"][0], f"no brand column, but {percent(starting.share)} of the names start with one of "
                                        f"{len(starting.brands):,} brands; CHECK [clean.brand]")
    guesser.cleanups["brand"] = FieldCleanup(starts_with=tuple(sorted(starting.brands, key=lambda b: (-len(b), b))))
    draft.checks.append(f"the brand is read from the start of the names: {len(starting.brands):,} brands, which start "
                        f"{percent(starting.share)} of them")
    return ["", "[clean.brand]   # the brand the name starts with (a name that starts with none: no brand); CHECK: delete a",
            "# line that is no brand (a line or collection of one brand), add one the draft missed",
            "starts_with = [", *(f"    {json.dumps(brand, ensure_ascii=False)},   # {count:,} names" for brand, count in starting.brands.items()),
            "]"]


def _cleanups(guesser: Guesser, found: dict) -> list[str]:
    """Clean-ups for brand values that are colour, fit or pattern words (``Regular``, ``Black``), for codes, sizes and
    repeats inside colours (``001 Black``, ``Navy / Size M``, ``Black or black``) and for product-type codes
    (``tshirts_2012_and_later``), each shown on an example from the catalog."""
    out = []
    brands = _brands(guesser, found)
    if sum((words := descriptive_brands(brands)).values()) >= max(3, len(brands) / 100):  # the Flipkart crawl's "Regular", "Black"
        shown = ", ".join(f"{value!r} {count:,}" for value, count in words.most_common(4))
        out += ["", f"[clean.brand]   # CHECK: brand values that are colour, fit or pattern words ({shown}), read as no brand",
                f"refuse = {refused_brands(words)}"]
    if written_as_codes(Counter(brands)):
        out += _cleanup_lines("brand", brands, FieldCleanup(words=True), "words = true")  # a resale scrape's "hugo_boss"
    if badges := glued_badges(brands):  # a public Ounass scrape's "GucciNEW SEASON"
        shown = ", ".join(f"{badge!r} {count:,}" for badge, count in badges.most_common(4))
        out += ["", f"[clean.brand]   # CHECK: badges written onto the end of the brands ({shown}), cut off",
                f"remove = [{toml_literal(badge_pattern(badges))}]"]
    colour = "base_colour" if "base_colour" in found else None
    if colour is not None:
        texts = present_texts(guesser.values(found[colour][0]))
        patterns = [pattern for pattern, probe in _COLOUR_NOISE if texts and sum(bool(probe.search(t)) for t in texts) >= len(texts) / 50]
        if patterns:
            out += _cleanup_lines(colour, texts, FieldCleanup(remove=tuple(re.compile(p, re.IGNORECASE) for p in patterns)),
                                  f"remove = [{', '.join(toml_literal(p) for p in patterns)}]")
    if "article_type" in found:
        texts = present_texts(guesser.values(found["article_type"][0]))
        if texts and sum(bool(_CODE.fullmatch(t)) for t in texts) >= len(texts) / 2:
            years = sum(bool(_YEAR_SUFFIX.search(t)) for t in texts) >= len(texts) / 10
            cleanup = FieldCleanup(remove=(_YEAR_SUFFIX,) if years else (), words=True)
            out += _cleanup_lines("article_type", texts, cleanup, (f"remove = [{toml_literal(_YEAR_SUFFIX.pattern)}]\n" if years else "") + "words = true")
            out += _codes_no_words(guesser, found, cleanup)
        elif (texts and sum(bool(_KEYWORD.fullmatch(t)) for t in texts) >= len(texts) / 2 and sum("-" in t for t in texts) >= len(texts) / 10
              and not any(" " in t for t in texts)):  # "casual shoes" beside "t-shirts": the hyphen is the word's own
            cleanup = FieldCleanup(remove=(re.compile("-"),), words=True)
            out += _cleanup_lines("article_type", texts, cleanup, "remove = ['-']\nwords = true")
    return out


def _codes_no_words(guesser: Guesser, found: dict, cleanup: FieldCleanup) -> list[str]:
    """``[values.article_type]`` for the type codes that are no words (ABO's ``FASHIONEARRING``: a word of ten letters
    or more that no name holds), each read as the word most of its items' names end in (with its share when that is
    half or less)."""
    if "name" not in found:
        return []
    pairs = [(n, t) for n, t in guesser.both(found["name"][0], found["article_type"][0]) if isinstance(n, str) and isinstance(t, str)]
    said = {fold(word) for n, _ in pairs for word in re.findall(r"[A-Za-z]+", n)}
    lines = []
    for code in sorted({t for _, t in pairs}):
        words = re.findall(r"[A-Za-z]+", cleanup.apply(code)[0] or "")
        if not any(len(word) >= 10 and fold(word) not in said for word in words):
            continue
        tails = Counter(tail[1] for n, t in pairs if t == code and (tail := name_tail(n)) is not None)
        if tails:
            word, count = tails.most_common(1)[0]
            share = count / sum(tails.values())
            lines.append(f"{toml_key(code)} = {json.dumps(word.title() if word.islower() else word)}"
                         + (f"   # {percent(share)} of its names end so" if share <= 0.5 else ""))
    if not lines:
        return []
    return ["", "[values.article_type]   # type codes that are no words, each read as the word most of its items' names end in; CHECK",
            *lines]


def _cleanup_lines(name: str, texts: list[str], cleanup: FieldCleanup, body: str) -> list[str]:
    changed = [t for t in texts if cleanup.apply(t)[1]]
    example = next((t for t in changed if (cleanup.apply(t)[0] or "").lower() != t.lower()), changed[0] if changed else None)
    after = cleanup.apply(example)[0] if example else None
    return ["", f"[clean.{name}]   # e.g. {example!r} -> {after!r}; CHECK", *body.split("\n")]


def _gender_tags(guesser: Guesser) -> tuple[str, float] | None:
    """A column of tag lists (``["Men", "Topwear", "Casual"]``) in which half of the records or more hold a tag that
    is a gender, and that share."""
    for column in guesser.columns:
        lists = [v for v in guesser.decoded(column) if isinstance(v, list) and v and all(isinstance(e, str) for e in v)]
        share = sum(any(_GENDER_TAG.fullmatch(e.strip()) for e in v) for v in lists) / max(len(guesser.records), 1)
        if share >= 0.5:
            return column, share
    return None


def _genders(draft: Draft, guesser: Guesser, found: dict, lines: list[str]) -> list[str]:
    if "gender" not in found and (column := _gender_column_by_values(guesser)) is not None:
        found["gender"] = (column, "")
        lines.append(f"gender = {toml_reference(column)}   # no gender column by name, but its values are genders")
    if "gender" not in found and (tags := _gender_tags(guesser)) is not None:
        guesser.used.add(tags[0])
        lines.append(f'gender = "{tags[0]}"   # no gender column, but {percent(tags[1])} of the {tags[0]!r} lists hold a gender')
        return ["", "[clean.gender]   # the tag that is a gender (the other tags are passed over); CHECK",
                f"extract = {toml_literal(_GENDER_TAG.pattern)}"]
    before = _gender_before_types(guesser, found) if "gender" not in found else None
    if before is not None:  # "Men's Shirts": the gender is the type's first word
        found["gender"] = (found["article_type"][0], "")
        guesser.cleanups["gender"] = FieldCleanup(extract=_GENDER_BEFORE_TYPE)
        lines.append(f"gender = {toml_reference(found['gender'][0])}   # no gender column, but {percent(before)} of the types start with one")
        before_lines = ["", "[clean.gender]   # the gender word the type starts with (\"Men's Shirts\": Men); a type without one: no gender",
                        f"extract = {toml_literal(_GENDER_BEFORE_TYPE.pattern)}",
                        "", "[clean.article_type]   # the type without that word (\"Men's Shirts\": Shirts)",
                        f"remove = [{toml_literal(_GENDER_BEFORE_TYPE.pattern)}]"]
    if "gender" not in found and "name" in found:
        names = present_texts(guesser.values(found["name"][0], every_record=True))
        said = sorted({m.group(1).casefold() for n in names for m in _ANY_GENDER_WORD.finditer(n)} & set(OTHER_LANGUAGE_GENDERS),
                      key=lambda w: (-len(w), w))  # the longest first: "nam nữ" (unisex) before "nam"
        english = "|".join(w for w in _ENGLISH_GENDERS.split("|") if not ENGLISH_GENDER_FALSE_FRIENDS.get(w, frozenset()) & set(said))
        pattern = _GENDER_WORD if english == _ENGLISH_GENDERS else re.compile(rf"\b({english})(?:'s|s')?\b", re.IGNORECASE)
        share = _share_of_names(guesser, found, pattern)
        if share < GENDER_NAMES_SHARE:  # names of another language: the English words and the other language's they say
            pattern = re.compile(rf"\b({english}{''.join('|' + re.escape(w) for w in said)})(?:'s|s')?\b", re.IGNORECASE)
            share = _share_of_names(guesser, found, pattern)
        if share >= GENDER_NAMES_SHARE:
            lines.append(f'gender = "{found["name"][0]}"   # no gender column, but {percent(share)} of the names say one')
            draft.checks.append(f"the gender is read from the names, which say one in {percent(share)} of them")
            return ["", "[clean.gender]   # the gender word of the name (a name without one: no gender); CHECK, or if every",
                    "# item is for one gender, drop this and the gender line and write [constants] gender = \"Women\"",
                    f"extract = {toml_literal(pattern.pattern)}"]
    if "gender" not in found and PART_FILE in guesser.columns:
        words = present_texts(guesser.values(PART_FILE, every_record=True))
        share = sum(bool(_GENDER_WORD.search(w)) for w in words) / max(len(words), 1)
        if share >= 0.5:  # a catalog in parts, one per gender: AJIO_new_men_pants.csv
            guesser.used.add(PART_FILE)
            lines.append(f'gender = "{PART_FILE}"   # no gender column, but the names of the parts say one for {percent(share)} of the records')
            draft.checks.append(f"the gender is read from the names of the parts, which say one for {percent(share)} of the records")
            return ["", "[clean.gender]   # the gender word of the part's name (a part whose name says none: no gender); CHECK",
                    f"extract = {toml_literal(_GENDER_WORD.pattern)}"]
    if "gender" not in found and (in_path := _gender_in_addresses(guesser)) is not None:
        column, share = in_path
        lines.append(f"gender = {toml_reference(column)}   # no gender column, but {percent(share)} of the product page addresses name one")
        draft.checks.append(f"the gender is read from the product page addresses, which name one in {percent(share)} of the records")
        return ["", "[clean.gender]   # the gender the address's path names (/men/, /women/, /femmes/); CHECK",
                f"extract = {toml_literal(_GENDER_IN_PATH.pattern)}"]
    if "gender" not in found:
        draft.checks.append("no gender column")
        return ["", "# CHECK: no gender column. If every item is for one gender, say which:", "# [constants]",
                '# gender = "Women"']
    cleanup = guesser.cleanups.get("gender")
    texts = present_texts(guesser.values(found["gender"][0]))
    values = guesser.cleaned_counts("gender", texts)
    unknown = sorted(v for v in values if normalise_gender(v) not in GENDERS)
    out = before_lines if before is not None else []
    if unknown:
        out += ["", "[values.gender]   # what each gender value means (Men, Women, Boys, Girls or Unisex)"]
    for value in unknown:
        words = [ANY_GENDER_WORDS[w] for w in re.findall(r"[^\W\d_']+(?:'s)?", value.lower()) if w in ANY_GENDER_WORDS and len(w) > 1]
        if len(set(words)) == 1:
            out.append(f'{toml_key(value)} = "{words[0]}"   # from the word in it')
        else:
            out.append(f'# {toml_key(value)} = "?"   # CHECK: which gender is this?')
            draft.checks.append(f"the gender value {value!r} needs a value map")
    return out + _ages_of_genders(found, sorted(values), lines, cleanup)


def _gender_in_addresses(guesser: Guesser) -> tuple[str, float] | None:
    """A column of product page addresses, half of whose paths or more name a gender (:data:`_GENDER_IN_PATH`), with
    that share."""
    for column in guesser.columns:
        texts = present_texts(guesser.values(column, every_record=True))
        if len(texts) < 0.9 * len(guesser.every_record) or not all(re.match(r"https?://", t) for t in texts[:100]):
            continue
        named = sum(_GENDER_IN_PATH.search(t) is not None for t in texts)
        if named >= 0.5 * len(guesser.every_record):
            guesser.used.add(column)
            return column, named / len(guesser.every_record)
    return None


def _gender_before_types(guesser: Guesser, found: dict) -> float | None:
    """The share of the sampled records whose type, read from a column of its own, starts with a gender word
    (``Men's Shirts``), when that is half of them or more; else None."""
    reference = found.get("article_type", (None,))[0]
    if not isinstance(reference, str) or reference == found.get("name", (None,))[0] or "article_type" in guesser.cleanups:
        return None
    share = sum(bool(_GENDER_BEFORE_TYPE.match(t)) for t in present_texts(guesser.values(reference))) / max(len(guesser.records), 1)
    return share if share >= 0.5 else None


def _gender_column_by_values(guesser: Guesser) -> str | None:
    """An unused column of a few values, nine in ten of which are a gender or a children's group (Zara's ``section``:
    MAN, WOMAN, KIDS), at least one of them a gender."""
    for column in guesser.columns:
        texts = present_texts(guesser.values(column)) if column not in guesser.used else []
        if len(texts) < len(guesser.records) / 2 or len(set(texts)) > 12:
            continue
        genders = sum(normalise_gender(t) in GENDERS for t in texts)
        children = sum(normalise_gender(t) not in GENDERS and any(w in _CHILD_AGES for w in re.findall(r"[a-z]+", t.lower()))
                       for t in texts)
        if genders and genders + children >= 0.9 * len(texts):
            guesser.used.add(column)
            return column
    return None


def _ages_of_genders(found: dict, values: list[str], lines: list[str], cleanup: FieldCleanup | None) -> list[str]:
    """With no age group column, the age group from gender values that name children (``Unisex Kids``, ``Baby
    Girls``, ``Baby/Children``): a value map from each gender value to its age group (``Boys`` and ``Girls``: kids; no
    child's word: adult), the values read with the gender's ``cleanup`` when it has one (``Kids Shoes``: Kids; ``Kids
    > Clothing > Dresses``: Kids)."""
    ages = {value: max((_CHILD_AGES[w] for w in re.findall(r"[a-z]+", value.lower()) if w in _CHILD_AGES), key=AGE_SCALE.index, default=None)
            for value in values}  # the oldest a value names: "Baby/Children" is kids
    if "age_group" in found or not isinstance(found["gender"][0], str) or not any(ages.values()):
        return []
    lines.append(f"age_group = {toml_reference(found['gender'][0])}   # gender values name children ({next(v for v, a in ages.items() if a)!r})")
    read = []
    if cleanup is not None and cleanup.split is not None:
        read = ["", "[clean.age_group]   # the part of the path that is the gender, as for the gender", f"split = {json.dumps(cleanup.split)}",
                f"part = {cleanup.part}"]
    elif cleanup is not None and cleanup.extract is not None:
        read = ["", "[clean.age_group]   # the gender word, as for the gender", f"extract = {toml_literal(cleanup.extract.pattern)}"]
    return read + ["", "[values.age_group]   # the age group each gender value names"] + [
        f'{toml_key(value)} = "{age or ("kids" if normalise_gender(value) in ("Boys", "Girls") else "adult")}"' for value, age in ages.items()]


def _prices(draft: Draft, guesser: Guesser, found: dict) -> list[str]:
    """The ``[price]`` section: the currency (:func:`_currency`) and, for whole-number prices beside a column named
    for cents, ``scale = 0.01``."""
    if "price" not in found:
        return []
    out = _currency(draft, guesser, found)
    if (cents := _cents_column(guesser, found)) is not None:
        draft.checks.append(f"the prices are read as cents (scale = 0.01), as the column {cents!r} names them")
        out.append(f"scale = 0.01   # CHECK: whole numbers, beside the column {cents!r}: the prices are in cents (5500 is 55.00)")
    return out


def _cents_column(guesser: Guesser, found: dict) -> str | None:
    """A column named for cents (a crawl's ``priceMinCents``) beside prices that are all whole numbers, where one
    is: the prices are in cents."""
    texts = present_texts(guesser.values(found["price"][0]))
    if not texts or not all(re.fullmatch(r"\s*\d+(?:\.0+)?\s*", t) for t in texts):
        return None
    return next((column for column in guesser.columns if "cents" in norm(column)), None)


def _currency(draft: Draft, guesser: Guesser, found: dict) -> list[str]:
    texts = present_texts(guesser.values(found["price"][0]))
    marks = _currency_marks(texts)
    currency = guesser.column(("currency", "currencycode"))
    beside = _price_object(found)  # {"amount": 549.0, "currency": "INR"}
    keys = {k for v in guesser.decoded(beside) if isinstance(v, dict) for k in v if isinstance(k, str)} if beside else set()
    key = next((k for k in sorted(keys) if norm(k) in ("currency", "currencycode", "currencyiso", "currencyisocode")), None)
    if currency is None and key is not None:  # {"amount": 549.0, "currency": "INR"}; AJIO's {"value": 1250, "currencyIso": "INR"}
        currency = f"{beside}.{key}"
    named = Counter(t.strip().upper() for t in present_texts(guesser.values(currency))) if currency else Counter()
    code = named.most_common(1)[0][0] if len(named) == 1 else None
    if not marks and code in ISO_4217:
        return ["", "[price]", f'currency = "{code}"   # the {currency!r} column says {code}']
    column = found["price"][0] if isinstance(found["price"][0], str) else ""
    # else the column's name: "Price (INR)", "price_usd", "Price ($)"
    said, where = (marks, "the price cells say") if marks else (_currency_marks([column.replace("_", " ")]), "the column's name says")
    if not said and (country := _currency_of_addresses(guesser)) is not None:
        code, host = country
        draft.checks.append(f"the price cells name no currency: the draft takes {code}, that of the shop's country in its web addresses")
        return ["", "[price]", f'currency = "{code}"   # CHECK: the price cells name no currency; {code} is that of the country '
                f"the web addresses name ({host}); give this catalog's ISO 4217 code"]
    if not said:
        names = present_texts(guesser.values(found["name"][0], every_record=True)) if "name" in found else []
        share, words = other_language_names(names)
        other = f", and the names are in another language ({', '.join(words)}): INR, Myntra's, is only a stand-in" if share >= 0.3 else ""
        draft.checks.append(f"the price cells name no currency{other}")
        return ["", "[price]", f'currency = "INR"   # CHECK: the price cells name no currency{other}; give this catalog\'s ISO 4217 code']
    mark = said.most_common(1)[0][0]
    codes = sorted(CURRENCY_MARKS[mark])
    code = "USD" if "USD" in codes else codes[0]
    why = f"{where} {mark!r}" + (f" (also {', '.join(c for c in codes if c != code)}: CHECK)" if len(codes) > 1 else "")
    return ["", "[price]", f'currency = "{code}"   # {why}']


def _currency_of_addresses(guesser: Guesser) -> tuple[str, str] | None:
    """``(currency, an example host)`` of the country the web addresses of the sampled records name, where half of
    them or more name one (:func:`~fashionrq.catalog.prices.country_currency`: ``fr.vestiairecollective.com``, EUR)."""
    addresses = Counter(t.strip() for column in guesser.columns for t in present_texts(guesser.values(column)) if web_host(t))
    named: Counter = Counter()
    example: dict[str, str] = {}
    for address, count in addresses.items():
        if (code := country_currency(address)) is not None:
            named[code] += count
            example.setdefault(code, web_host(address))
    if not named or named.most_common(1)[0][1] < sum(addresses.values()) / 2:
        return None
    code = named.most_common(1)[0][0]
    return code, example[code]


def _currency_marks(texts: list[str]) -> Counter:
    """How often each currency mark (``$``, ``€``, ``rs``, ``inr``, ...) occurs in ``texts``, in lower case."""
    return Counter(mark for t in texts for mark in currency_marks(t))


def _photos(guesser: Guesser, found: dict, lines: list[str]) -> list[str]:
    if "image_path" not in found:
        return []
    values = guesser.values(found["image_path"][0])
    if values and any(photo_bytes(v) for v in values):  # a Hugging Face image column: {"bytes": b"\xff\xd8...", "path": None}
        at = next(i for i, line in enumerate(lines) if line.startswith("image_path = "))
        lines[at] = (f"# {lines[at]}   # the photos are stored inside the file as bytes, which fashionrq does not read: "
                     "save them as files beside the catalog and map their relative paths")
        return []
    texts = present_texts(values)
    if any(WEB_ADDRESS.match(t) for t in texts):
        return ["", "# The photos are web addresses, which fashionrq does not download: those items get no photo. To use",
                "# the photos, save them in or below the catalog's folder and map their relative paths instead."]
    if texts and sum(t.startswith("/") for t in texts) >= len(texts) / 2:  # Magento: "/1/5/15970.jpg", under the store's media folder
        at = next(i for i, line in enumerate(lines) if line.startswith("image_path = "))
        lines[at] = (f"# {lines[at]}   # CHECK: paths from the store's own root ({texts[0]!r}); with the photos copied "
                     "beside the catalog, map them and add [clean.image_path] remove = ['^/']")
    return []


def _taxonomy(guesser: Guesser, found: dict, lines: list[str]) -> list[str]:
    """The master and sub category from a category path the article type is not read from (Shopify's ``Product
    Category``, ``Apparel & Accessories > Clothing > Shirts & Tops``; Flipkart's ``["Clothing >> Men's Clothing >>
    Topwear >> Shirts >> ..."]``): the two parts below a root every path shares (else from the first), passing over
    a part that names a gender."""
    if "master_category" in found or "sub_category" in found:
        return []
    for column in guesser.columns:
        if column in guesser.used or not any(n in norms(column) for n in TAXONOMY_NAMES):
            continue
        reference = f"{column}[0]" if all(isinstance(v, list) for v in guesser.decoded(column)) else column
        separator, paths = _paths(guesser, reference)
        if not paths:
            continue
        guesser.used.add(column)
        root = Counter(p[0] for p in paths).most_common(1)[0]
        gendered = {i for i in range(max(map(len, paths))) if sum(i < len(p) and _GENDER_WORD.search(p[i]) is not None for p in paths) >= 0.6 * len(paths)}
        parts = [i for i in range(1 if root[1] >= 0.9 * len(paths) else 0, max(map(len, paths))) if i not in gendered][:2]
        out = []
        for name, part in zip(("master_category", "sub_category"), parts):
            found[name] = (reference, "")
            guesser.cleanups[name] = FieldCleanup(split=separator, part=part)
            lines.append(f'{name} = "{reference}"   # a part of the category path')
            out += ["", f"[clean.{name}]" + (f"   # below the root {root[0]!r} every path shares" if part == 1 and name == "master_category" else ""),
                    f'split = "{separator}"', f"part = {part}"]
        return out
    return []


def _departments_of_no_fashion(draft: Draft, guesser: Guesser, found: dict) -> list[str]:
    """``[skip]`` for the departments of a marketplace's category path (its first part, the master category) whose
    sampled product names name no fashion product (:data:`fashionrq.terms.PRODUCT_TERMS`) in four of five or more
    (the public Flipkart crawl's ``Automotive``, ``Computers``, ``Furniture``), when other departments' names mostly
    do: queries about car mats and laptop batteries are no fashion benchmark. The guesses after it read the records
    it keeps (the share of names that say a gender: of the clothes, not of the car mats)."""
    cleanup = guesser.cleanups.get("master_category")
    if cleanup is None or cleanup.split is None or cleanup.part != 0 or "name" not in found:
        return []
    said: dict[str, list[bool]] = {}
    for name, path in guesser.both(found["name"][0], found["master_category"][0]):
        if isinstance(name, str) and isinstance(path, str) and (department := cleanup.apply(path)[0]):
            said.setdefault(department, []).append(any(fold(w) in PRODUCT_WORDS for w in re.findall(r"[A-Za-z][A-Za-z-]*", name)))
    others = sorted(d for d, fashion in said.items() if len(fashion) >= 3 and sum(fashion) <= 0.2 * len(fashion))
    if not others or not any(sum(fashion) >= 0.5 * len(fashion) for fashion in said.values()):
        return []
    names = "|".join(re.escape(d).replace("\\ ", " ").replace("\\&", "&") for d in others)
    pattern = rf"\s*(?:{names})\s*(?:{re.escape(cleanup.split.strip())}.*)?"
    guesser.keep(found["master_category"][0], lambda path: not isinstance(path, str) or cleanup.apply(path)[0] not in others)
    draft.checks.append(f"the departments whose product names name no fashion product are left out with [skip]: {', '.join(others)}")
    return ["", f"[skip]   # CHECK: the departments whose names name no fashion product in the sample ({', '.join(others)});",
            "# delete one from the list to keep it, or this section to keep them all",
            f"{toml_key(found['master_category'][0])} = [{toml_literal(pattern)}]"]


def _paths(guesser: Guesser, reference: str) -> tuple[str, list[list[str]]]:
    """The separator and the paths (split into their parts) in ``reference`` (``Apparel & Accessories > Clothing >
    Shirts & Tops``, ``Clothing >> Men's Clothing >> Topwear``), when half of its values or more are paths; else
    nothing."""
    texts = present_texts(guesser.values(reference))
    separator = _path_separator(texts, TAXONOMY_SEPARATORS)
    return (separator, [[p.strip() for p in t.split(separator)] for t in texts if separator in t]) if separator else ("", [])


def _last_part(text: str, separator: str | None) -> str:
    """The last part of a category path (``Tshirts`` of ``Apparel | Topwear | Tshirts``), or the text itself."""
    return text.split(separator)[-1].strip() if separator else text


def _path_separator(texts: list[str], separators: tuple[str, ...]) -> str | None:
    """The first of ``separators`` that half of ``texts`` or more hold: they are paths of categories (a comma only
    where they are breadcrumbs, :func:`_comma_breadcrumbs`)."""
    return next((s for s in separators if texts and sum(s in t for t in texts) >= len(texts) / 2
                 and (s != "," or _comma_breadcrumbs(texts))), None)


def _comma_breadcrumbs(texts: list[str]) -> bool:
    """Whether the texts that hold a comma are breadcrumbs (``Moda hombre,Ropa,Camisas``) rather than lists (``Tops,
    Sale``, ``S,M,L``): three roots or fewer start four in five of them, and they end in three times as many
    categories as they start with."""
    paths = [[part.strip() for part in t.split(",")] for t in texts if "," in t]
    roots = Counter(path[0] for path in paths)
    return (sum(n for _, n in roots.most_common(3)) >= 0.8 * len(paths)
            and len({path[-1] for path in paths}) >= 3 * len(roots))


def _sections(paths: list[list[str]], level: int = 0, least: int = 2) -> list[str]:
    """The parts ``level`` parts above the end of a path (0: its last) that stand ``least`` parts or more above the end
    of a path, and never a part of that level that stands lower in every path: a store's section, no category of that
    level. The last parts of the paths that stop two levels or more above a product (``Moda hombre,Ropa``, clothing,
    beside ``Moda hombre,Ropa,Pantalones,Chinos``) are no type a query may ask for (a path that stops one level above,
    ``Moda hombre,Ropa,Pantalones``, names a kind of product: trousers); in paths of several depths, ``Ropa`` above
    ``Camisas`` is no sub category either (``level = 1``, ``least = 2``). Parts are told apart by the path above them
    (Myntra's ``Accessories > Accessories > Watches``: the second is a sub category, never the first)."""
    heights: dict[tuple[str, ...], set[int]] = {}
    for path in paths:
        for k in range(1, len(path) + 1):
            heights.setdefault(tuple(path[:k]), set()).add(len(path) - k)
    at_level = [(node[-1], max(h)) for node, h in heights.items() if level in h]
    return sorted({name for name, top in at_level if top >= least} - {name for name, top in at_level if top < least})
