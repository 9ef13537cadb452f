"""A mapped catalog file to canonical items: each record through the mapping's references, constants, clean-ups and
value maps, its rows made products as ``[variants]`` says (:mod:`fashionrq.catalog.variants`), its photos found as
:mod:`fashionrq.catalog.photos` says; every repair, null and left-out row counted in the ingest report (docs/catalog.md, "Any other catalog: a mapping file")."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fashionrq.catalog.clean import RowCleaner, check_item_id, split_list
from fashionrq.catalog.fieldpath import FirstOf, Reference, parse_reference
from fashionrq.catalog.guess import toml_key, toml_literal
from fashionrq.catalog.mapping import IDENTITY, FieldCleanup, Mapping
from fashionrq.catalog.name_types import alternation, fold
from fashionrq.catalog.photos import Photos
from fashionrq.catalog.prices import DEFAULT_PRICE_FORMAT
from fashionrq.catalog.records import detect_format, read_records
from fashionrq.catalog.report import CLEANED, IngestReport, refuse_duplicate_ids
from fashionrq.catalog.schema import (AGE_SCALE, AGE_SYNONYMS, ANY_GENDER_WORDS, FIELDS, GENDERS, REQUIRED_FIELDS, as_sentences,
                                     clean_string, distinct_ignoring_case, image_object, photo_bytes, strip_html, to_text)
from fashionrq.catalog.variants import VariantReferences, one_row_per_product
from fashionrq.colour import COLOURS, english_colour
from fashionrq.errors import InputError
from fashionrq.terms import PATTERN_TERMS, STORE_SECTIONS, STYLE_TERMS

#: The fields whose values together tell a shopper one product from another.
REPEAT_FIELDS = ("name", "brand", "base_colour", "price", "description")
_REPEAT_WORDS = {"name": "name", "brand": "brand", "base_colour": "colour", "price": "price", "description": "description"}
#: The key of a saved API error response (``{"errorCode": "ProductNotFound", "errorMessage": ...}``) in place of a product.
_ERROR_KEY = re.compile(r"error(?:_?code|_?message)?|error_?type|fault(?:_?code)?", re.IGNORECASE)
#: A label at the start of a value (``Main: Cotton``).
_LABEL = re.compile(r"([A-Za-z][\w &/-]{0,24}):\s")
_COLOUR_JOINS = re.compile(r"\s+or\s+|\s*[/,&+]\s*|\s+and\s+", re.IGNORECASE)


@dataclass(frozen=True)
class References:
    """Where each canonical field and attribute is read from in a record, and how rows make products."""

    fields: dict[str, Reference]
    attributes: dict[str, Reference]
    variants: VariantReferences
    skips: dict[str, Reference]

    @classmethod
    def of(cls, path: Path, mapping: Mapping, columns: list[str]) -> References:
        """The references of ``mapping`` in a file with ``columns``; a column that is not there, or a required field
        with neither a column nor a constant, is refused in one sentence."""
        def resolve(phrase: str, reference: str | list[str], must_exist: bool = True) -> Reference:
            ref = parse_reference(reference, columns, f"{mapping.source} {phrase}")
            missing = next((c for c in ref.needs if c not in columns), None)
            if must_exist and missing is not None:
                named = f"{reference!r}, whose column {missing!r}" if ref.is_path else f"column {reference!r}, which"
                raise InputError(f"{mapping.source} {phrase} {named} {path.name} does not have (columns: {', '.join(columns)[:600]}); "
                                 "fix the column name in the mapping.")
            return ref

        fields = {name: resolve(f"maps {name} to", mapping.source_column(name), must_exist=name in mapping.columns) for name in FIELDS}
        for name in REQUIRED_FIELDS:
            if name not in mapping.constants and any(c not in columns for c in fields[name].needs):
                raise InputError(f"{path} is missing the required column {mapping.source_column(name)!r} for field {name}; "
                                 f"add it, or map another column to {name} under [columns] in a mapping file "
                                 f"(`fashionrq draft-mapping {path}` writes a first one).")
        attributes = {key: resolve(f"maps attribute {key!r} to", column) for key, column in sorted(mapping.attributes.items())}
        skips = {column: resolve("lists under [skip]", column) for column in mapping.skips}
        return cls(fields, attributes, VariantReferences.of(mapping.variants, resolve), skips)


#: The reference that reads a record's number in the file (1, 2, … as read) as its id, for a catalog without an id
#: column (a scrape): ``item_id = "@row"``.
ROW_NUMBER = "@row"


def read_generic(path: Path, mapping: Mapping, report: IngestReport, images: Path | None = None) -> list[dict]:
    """Read a generic catalog file through ``mapping`` into canonical item dicts; ``images``: a folder of photos named
    by item id, for the items whose mapped ``image_path`` gives none (:mod:`fashionrq.catalog.photos`)."""
    records, columns = read_records(path, detect_format(path, mapping.format), report, mapping.encoding, mapping.delimiter,
                                    mapping.header_row, mapping.sheet, mapping.record)
    if mapping.source_column("item_id") == ROW_NUMBER and ROW_NUMBER not in columns:
        records, columns = [(where, {**record, ROW_NUMBER: str(n)}) for n, (where, record) in enumerate(records, 1)], [*columns, ROW_NUMBER]
        report.notes.append(f"item ids are the records' numbers in {path.name} (1 to {len(records):,}, as read; {ROW_NUMBER} in "
                            f"{mapping.source}): the same file gives the same ids, a file in another order other ids")
    refs = References.of(path, mapping, columns)
    if mapping.prices != DEFAULT_PRICE_FORMAT:
        fmt = mapping.prices
        scaled = f"each written amount times {fmt.scale:g}, " if fmt.scale != 1 else ""
        report.notes.append(f"prices read as {fmt.currency} ({scaled}decimal separator {fmt.decimal_separator}, the {fmt.range} end "
                            f"of a range; at or below {fmt.placeholder_limit:g} a placeholder), as [price] in {mapping.source} says")
    for name, value in sorted(mapping.constants.items()):
        report.notes.append(f"{name} is {value!r} for every item ([constants] in {mapping.source})")
    _note_empty_references(records, refs, mapping, report)
    records = _without_skipped(one_row_per_product(records, refs.variants, mapping.variants, mapping.source, report),
                               refs, mapping, report)
    # An items table written by `fashionrq ingest` was accepted once: its rows are only rejected for an empty id.
    required = ("item_id",) if mapping.source == IDENTITY and set(FIELDS) <= set(columns) else REQUIRED_FIELDS
    items = ((where, _mapped_item(where, record, refs, mapping, report, required)) for where, record in records)
    photos = Photos.of(mapping.photos, path if path.is_dir() else path.parent, images, report)
    placed = [(where, photos.resolve(where, item)) for where, item in items if item is not None]
    out = [item for _, item in placed]
    refuse_duplicate_ids(out, str(path), [where for where, _ in placed])
    photos.note(out[0]["item_id"] if out else None)
    _refuse_numbered_types(out, mapping, path)
    _codes_as_words(out, mapping, report)
    _one_spelling_per_category(out, report)
    _note_repeats(out, report, bool(mapping.variants.key))
    _note_unknown_genders(out, mapping, report)
    _note_unknown_ages(mapping, report)
    _note_descriptive_brands(out, mapping, report)
    _note_glued_badges(out, mapping, report)
    _note_labelled_attributes(out, mapping, report)
    return out


def _raw_values(record: dict, refs: References, mapping: Mapping, report: IngestReport, item_id: str) -> tuple[dict, str | None]:
    """The record's value for every canonical field: the mapping's constants, then its clean-ups (counted in
    ``report``; the brand's first, as the mapping orders them, so ``strip_brand`` cuts out the brand it gives), then
    its value maps; and that brand."""
    read = {name: _read(refs.fields[name], record, name) for name in FIELDS}
    raw = {name: mapping.constants.get(name, value) for name, (value, _) in read.items()}
    for name, cleanup in mapping.cleanups.items():
        if cleanup.source is None or read[name][1] in (cleanup.source, None):
            raw[name] = _cleaned(raw[name], cleanup, name, mapping.list_separator, report, item_id, to_text(raw["brand"]))
    brand = to_text(raw["brand"])
    for name, table in mapping.values.items():
        if name == "colours":  # a list: each colour is mapped once split (_row)
            continue
        text = to_text(raw[name])
        if text is not None:
            raw[name] = table.get(text.strip().lower(), raw[name])
    return raw, brand


def _read(reference: Reference, record: dict, name: str) -> tuple[object, str | None]:
    """Field ``name``'s value in ``record`` and, of the references the field reads in turn, the one (as the mapping
    writes it) the value was read from (``None`` for a field that reads one reference). A price of zero is passed
    over for the next reference (Shopify's ``compareAtPrice: 0``, "not on sale", before the variant's price)."""
    if not isinstance(reference, FirstOf):
        return reference.get(record), None
    return reference.first(record, skip=_zero_amount if name in ("price", "discounted_price") else None)


def _zero_amount(value: object) -> bool:
    """Whether ``value`` is an amount of zero (``0``, ``0.0``, ``"0,00"``)."""
    if isinstance(value, str):
        return re.fullmatch(r"\s*0+(?:[.,]0+)?\s*", value) is not None
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def _cleaned(value: object, cleanup: FieldCleanup, name: str, separator: str | None, report: IngestReport, item_id: str,
             brand: str | None = None):
    """``value`` (one text, a list, or a list joined as :func:`split_list` reads it) through ``cleanup`` (``brand``: the item's, for
    ``strip_brand``); each changed value is counted under ``repaired.cleaned_<name>`` and each refused one under
    ``values_nulled.refused_<name>``. A list read into a field of one value (a gender from a list of tags) is
    refused once, when no entry is kept: the entries the clean-up passes over are not the field's values."""
    if isinstance(value, list | tuple):
        entries, joined = [to_text(v) for v in value], False
    else:
        text = to_text(value)
        if text is None:
            return value
        entries, joined = (split_list(text, separator) if name == "colours" else [text]), True
    out, refused = [], 0
    for entry in entries:
        if entry is None or not entry.strip():
            continue
        cleaned, changed = cleanup.apply(entry, brand)
        if cleaned is None:
            refused += 1
        elif changed:
            report.repair(f"{CLEANED}{name}", item_id)
        if cleaned is not None:
            out.append(cleaned)
    if not joined and name != "colours":  # a list read into a field of one value: refused only if nothing is kept
        refused = int(refused > 0 and not out)
    for _ in range(refused):
        report.null_value(f"refused_{name}", item_id)
    if not joined:
        return out
    return (separator or "|").join(out) if out else None


#: Types that name no product, whose rows are rejected: a store's section (``Sale``, ``Most Wishlisted``), a gender or an
#: age (a breadcrumb's ``Sneakers > Boy > ...`` read one part too low).
NO_PRODUCT_TYPES = STORE_SECTIONS | frozenset(ANY_GENDER_WORDS) | frozenset(AGE_SYNONYMS)


def _missing_reason(missing: list[str], record: dict, refs: References, mapping: Mapping) -> str:
    """Why a row gives no item: its empty required fields, each with the value its clean-up kept nothing of (a name
    in which ``[clean.article_type] ends_with`` finds no type), so that the user sees what to add to the clean-up."""
    refused = {f: text for f in missing if f in mapping.cleanups and (text := clean_string(_read(refs.fields[f], record, f)[0]))}
    return f"empty required field(s) {', '.join(missing)}" + "".join(
        f" ([clean.{f}] kept nothing of {text!r})" for f, text in refused.items())


def _mapped_item(where: str, record: dict, refs: References, mapping: Mapping, report: IngestReport,
                 required: tuple[str, ...]) -> dict | None:
    """One canonical item, or ``None`` when the row is rejected for an empty ``required`` field (recorded in ``report``)."""
    item_id = clean_string(refs.fields["item_id"].get(record))
    if item_id is None:
        error = next((f"{k}={v!r}" for k, v in record.items() if _ERROR_KEY.fullmatch(str(k)) and clean_string(v)), None)
        report.reject(where, f"an error response ({error}), not a product" if error else
                      f"empty id in column {mapping.source_column('item_id')!r}")
        return None
    check_item_id(item_id, where)
    raw, brand = _raw_values(record, refs, mapping, report, item_id)
    if (type_ := clean_string(raw["article_type"])) is not None and type_.casefold() in NO_PRODUCT_TYPES:
        report.reject(f"{where} (id {item_id})", f"its type {type_!r} names a store's section, a gender or an age, not a product", item_id)
        return None
    missing_required = [f for f in required if clean_string(raw[f]) is None]
    if missing_required:
        report.reject(f"{where} (id {item_id})", _missing_reason(missing_required, record, refs, mapping), item_id,
                      cause=tuple(f"refused_{f}" for f in missing_required))
        return None
    if photo_bytes(raw["image_path"]):
        report.null_value("image_bytes", item_id)
        raw["image_path"] = None
    elif image_object(raw["image_path"]):  # no bytes: the object's path, if any, names the file
        raw["image_path"] = raw["image_path"]["path"]
    clean = RowCleaner(report, item_id, mapping.prices)
    attributes = clean.attributes(raw["attributes"])
    for key, ref in refs.attributes.items():
        text = clean.text(f"attributes.{key}", ref.get(record))
        if text is not None:
            attributes[key] = text
    attributes = _cleaned_attributes(attributes, mapping, clean, brand)
    colour_map = mapping.values.get("colours", {})
    colours = [_one_colour(colour_map.get(c.strip().lower(), c), report, item_id)
               for c in clean.values("colours", raw["colours"], mapping.list_separator)]
    base = _one_colour(clean.text("base_colour", raw["base_colour"]), report, item_id) or (colours[0] if colours else None)
    age_group = clean.age_group(raw["age_group"])
    item = {name: clean.text(name, raw[name]) for name in ("name", "brand", "master_category", "sub_category",
                                                           "article_type", "season", "usage", "image_path")}
    return item | {
        "item_id": item_id,
        "gender": clean.gender(raw["gender"], age_group),
        "age_group": age_group,
        "base_colour": base,
        "colours": distinct_ignoring_case(([base] if base else []) + colours),
        "year": clean.year(raw["year"]),
        "price": clean.price("price", raw["price"]),
        "discounted_price": clean.price("discounted_price", raw["discounted_price"]),
        "description": clean.text("description", strip_html(as_sentences(raw["description"]))),
        "attributes": attributes,
    }


def _cleaned_attributes(attributes: dict[str, str], mapping: Mapping, clean: RowCleaner, brand: str | None) -> dict[str, str]:
    """The attributes with HTML tags taken out of their values (``<br>Main: Cotton``; counted under
    ``repaired.html_in_attributes``), then each key's ``[clean.attributes.<key>]`` applied (counted like a field's
    clean-up, a value left a placeholder such as ``NA`` nulled and counted) and its ``[values.attributes.<key>]``."""
    out = {}
    for key, value in attributes.items():
        if "<" in value and (text := strip_html(value)) != value:
            clean.report.repair("html_in_attributes", clean.item_id)
            value = text
        cleanup = mapping.attribute_cleanups.get(key)
        if cleanup is not None:
            value = _cleaned(value, cleanup, f"attributes.{key}", mapping.list_separator, clean.report, clean.item_id, brand)
        if key in mapping.attribute_values and (read := to_text(value)) is not None:
            value = mapping.attribute_values[key].get(read.strip().lower(), value)
        text = clean.text(f"attributes.{key}", value)
        if text is not None and key == "Fabric" and (fibre := main_fibre(text)) is not None:
            clean.report.repair("composition_fabric", clean.item_id)
            text = fibre
        if text is not None:
            out[key] = text
    return out


#: One fibre of a composition and its share: ``65% Cotton`` (or ``Shell: 100% Polyester``), else ``Cotton 65%``.
_FIBRE_SHARES = (re.compile(r"(\d+(?:\.\d+)?)\s*%\s*([^\W\d_][^,;/%\d:]*?)\s*(?=[,;/(]|$)"),
                 re.compile(r"()([^\W\d_][^,;/%\d:]*?)\s+(\d+(?:\.\d+)?)\s*%"))


def main_fibre(text: str) -> str | None:
    """The fabric a composition (``65% Cotton, 33% Polyester, 2% Spandex``: a US jeans store's; its queries had said
    "65% cotton, 32% polyester, 3% spandex capris") is said as: its fibre of 95% or more (``Cotton``), else its largest
    one, a blend (``Cotton Blend``); ``None`` for a text that is no composition."""
    shares = [(float(m.group(1) or m.group(3)), m.group(2).strip()) for m in _FIBRE_SHARES[0].finditer(text)]
    shares = shares or [(float(m.group(3)), m.group(2).strip()) for m in _FIBRE_SHARES[1].finditer(text)]
    if not shares:
        return None
    share, fibre = max(shares, key=lambda s: s[0])
    fibre = " ".join(w.capitalize() if w.islower() or w.isupper() else w for w in fibre.split())
    return fibre if share >= 95 else f"{fibre} Blend"


def _one_colour(text: str | None, report: IngestReport, item_id: str) -> str | None:
    """A colour named in another language that :func:`fashionrq.colour.english_colour` knows (a Musinsa scrape's
    ``블랙``, a Lamoda one's ``черный``, a Dafiti one's ``Preta``, an About You one's ``rauchgrau``) as the English
    colour (``Black``), counted under
    ``repaired.colour_in_english``;
    a colour that repeats itself (``Black or black``, ``Navy/Navy``) as the colour once, counted under
    ``repaired.repeated_colour``; a colour with its shade after a dash (an ASOS scrape's ``PINK - BRIGHT``, ``GREY -
    DARK``) as the shade before it (``BRIGHT PINK``: queries had said "pink or pink - bright"), counted under
    ``repaired.shade_after_colour``; a store's name for a shade before its colour (``Losing My Mind - Medium Wash``)
    as the colour, counted under ``repaired.colour_after_shade_name``; any other text as it is."""
    if text is None:
        return None
    if (english := english_colour(text)) is not None:
        report.repair("colour_in_english", item_id)
        return english.title()
    parts = [p for p in _COLOUR_JOINS.split(text) if p]
    if len(parts) > 1 and len({p.casefold() for p in parts}) == 1:
        report.repair("repeated_colour", item_id)
        return parts[0]
    if (shaded := _SHADE_AFTER.fullmatch(text)) is not None and shaded.group(1).casefold() in COLOURS:
        report.repair("shade_after_colour", item_id)
        return f"{shaded.group(2)} {shaded.group(1)}"
    named = _AFTER_DASH.fullmatch(text)
    if named is not None and named.group(1).casefold() not in COLOURS and named.group(2).split()[-1].casefold() in _COLOUR_FAMILY_WORDS:
        report.repair("colour_after_shade_name", item_id)
        return named.group(2)
    return text


#: A store's name for a shade, a dash, and its colour (a Levi's store's ``Losing My Mind - Medium Wash``, ``Soft Clean
#: White - White``), read as the colour; the words a colour ends in (``wash`` for denim).
_AFTER_DASH = re.compile(r"\s*(.+?)\s+[-–]\s+([^-–]+?)\s*")
_COLOUR_FAMILY_WORDS = frozenset(w for colour in COLOURS for w in colour.split()) | {"wash", "rinse"}
#: A colour, a dash, and its shade (``PINK - BRIGHT``).
_SHADE_AFTER = re.compile(r"\s*([^\W\d_][\w ]*?)\s+[-–]\s+(light|dark|bright|medium|pale|deep|pastel|neon|dusty|soft)\s*", re.IGNORECASE)


def _without_skipped(records: list[tuple[str, dict]], refs: References, mapping: Mapping, report: IngestReport) -> list[tuple[str, dict]]:
    """The products whose value in no ``[skip]`` column matches one of its patterns; each other is left out and
    listed under ``rejected`` with the value that left it out."""
    if not refs.skips:
        return records
    kept = []
    for where, record in records:
        matched = next(((column, text) for column, ref in refs.skips.items()
                        if (text := clean_string(to_text(ref.get(record)))) is not None
                        and any(p.fullmatch(text) for p in mapping.skips[column])), None)
        if matched is None:
            kept.append((where, record))
        else:
            report.reject(where, f"left out: its {matched[0]} is {matched[1][:80]!r} ([skip] in {mapping.source})")
    report.notes.append(f"{len(records) - len(kept):,} products left out by [skip] in {mapping.source} ("
                        + "; ".join(f"{column} matching {', '.join(p.pattern for p in patterns)}" for column, patterns in mapping.skips.items())
                        + "); each is listed under rejected")
    return kept


def _note_empty_references(records: list[tuple[str, dict]], refs: References, mapping: Mapping, report: IngestReport) -> None:
    """Say which mapped columns and paths hold no value in any row: a path that matches nothing (a key spelled
    otherwise, a text that is not JSON) would otherwise only show as a field 100 % missing."""
    named = [(f"{name}", mapping.columns[name], refs.fields[name]) for name in mapping.columns]
    named += [(f"attribute {key!r}", mapping.attributes[key], refs.attributes[key]) for key in sorted(mapping.attributes)]
    for what, reference, ref in named:
        if records and not any(clean_string(to_text(ref.get(record))) is not None for _, record in records):
            report.notes.append(f"{what} is read from {reference!r}, which holds no value in any row of {len(records):,}; "
                                f"check the column or path in {mapping.source} against a row of the file")


def _note_unknown_ages(mapping: Mapping, report: IngestReport) -> None:
    """Say how many age group values named no age (set to null) and the value map that reads them."""
    if unknown := len(report.values_nulled.get("unknown_age_group", ())):
        report.notes.append(f"{unknown:,} age group values name none of {', '.join(AGE_SCALE)} and were set to null; map "
                            f"each under [values.age_group] in {mapping.source} (e.g. Men = \"adult\", \"Teen Girls\" = \"kids\")")


def _note_unknown_genders(items: list[dict], mapping: Mapping, report: IngestReport) -> None:
    """Say which gender values are none of Men, Women, Boys, Girls and Unisex (kept as written)."""
    unknown = Counter(item["gender"] for item in items if item["gender"] is not None and item["gender"] not in GENDERS)
    if unknown:
        shown = ", ".join(f"{value!r} {count:,}" for value, count in unknown.most_common(5))
        report.notes.append(f"gender values kept as written, since they are none of {', '.join(sorted(GENDERS))}: {shown}"
                            f"{' …' if len(unknown) > 5 else ''}; map them under [values.gender] in {mapping.source}")


#: Words that describe an item and name no brand: colours, fits (``Regular`` or ``Regular Fit`` of "regular fit")
#: and patterns.
DESCRIPTIVE_WORDS = (frozenset(COLOURS) | frozenset(w for t in STYLE_TERMS if t.endswith(" fit") for w in (t, t.split()[0]))
                     | frozenset(t for t in PATTERN_TERMS if " " not in t))


def descriptive_brands(brands: Iterable[str | None]) -> Counter:
    """The brand values that are a colour, fit or pattern word (:data:`DESCRIPTIVE_WORDS`), counted as written."""
    return Counter(b for b in brands if b is not None and b.casefold() in DESCRIPTIVE_WORDS)


def refused_brands(words: Counter) -> str:
    """The ``[clean.brand] refuse`` list that reads ``words`` as no brand: ``['black', 'regular']``."""
    return "[" + ", ".join(toml_literal(value) for value in sorted({value.casefold() for value in words})) + "]"


#: A badge in capitals written onto the end of a brand (a public Ounass scrape's ``GucciNEW SEASON``, ``Rauaa
#: OfficialEXCLUSIVE``): capitals after a small letter, a digit or a dot.
_GLUED_CAPITALS = re.compile(r"(?<=[^\W_A-Z]|\.)[A-Z][A-Z '&-]*[A-Z]$")


def glued_badges(brands: Iterable[str | None]) -> Counter:
    """The badges in capitals glued to the end of three different brands or more, each with the number of brand
    values that end in it (``DAMNEW SEASON`` too, once ``NEW SEASON`` is a badge)."""
    written = Counter(b for b in brands if b)
    glued = Counter(m.group(0) for b in written if (m := _GLUED_CAPITALS.search(b)))
    badges = [badge for badge, count in glued.items() if count >= 3]
    return Counter({badge: sum(n for b, n in written.items() if b.endswith(badge) and b != badge) for badge in badges})


def badge_pattern(badges: Iterable[str]) -> str:
    """The ``[clean.brand] remove`` pattern that cuts the badges off a brand's end, in capitals only."""
    return f"(?-i:{alternation(badges)})$"


#: A value written as a code: words joined by underscores or hyphens in one case, or one such word (``hugo_boss``,
#: ``u.s._polo_assn.``, ``reid_&_taylor``, ``sneakers-and-converses``, ``diesel``; ``BOOKS_1973_AND_LATER``, ``SHIRT``).
_WRITTEN_AS_CODE = re.compile(r"[a-z0-9][a-z0-9.&'+]*(?:[-_][a-z0-9.&'+]+)*|[A-Z0-9][A-Z0-9.&'+]*(?:_[A-Z0-9.&'+]+)*")
_JOINED = re.compile(r"[-_]")


#: A value that is a number or a numeric code (``1280``, ``40-12``), which no query can say as a product type.
_NUMBER = re.compile(r"[\d.,/ -]*\d[\d.,/ -]*")


def _refuse_numbered_types(items: list[dict], mapping: Mapping, path: Path) -> None:
    """Refuse a catalog whose types are numbers for half its items or more (a product-type code column such as
    Rakuten's ``prdtypecode``: ``1280``), which no query can say, naming the value map that names them."""
    types = Counter(item["article_type"] for item in items if item["article_type"] is not None)
    numbers = Counter({value: n for value, n in types.items() if _NUMBER.fullmatch(value)})
    if types and numbers.total() >= types.total() / 2:
        shown = ", ".join(f"{value!r} {n:,}" for value, n in numbers.most_common(3))
        example = numbers.most_common(1)[0][0]
        raise InputError(f"{path.name}: the article_type values are numbers for {numbers.total():,} of {types.total():,} items "
                         f"({shown}{' …' if len(numbers) > 3 else ''}), which no query can say; name each under "
                         f"[values.article_type] in {mapping.source} (\"{example}\" = \"Dresses\"), or map a column of type names.")


def written_as_codes(values: Counter) -> bool:
    """Whether 19 in 20 of the values (counted as written) are codes, and one in 20 or more joined by underscores or
    hyphens (a resale scrape's brands ``hugo_boss``, ``levis``; Vinted's categories ``baskets-baskets``)."""
    codes = sum(n for value, n in values.items() if _WRITTEN_AS_CODE.fullmatch(value))
    joined = sum(n for value, n in values.items() if _JOINED.search(value) and _WRITTEN_AS_CODE.fullmatch(value))
    return bool(values) and codes >= 0.95 * values.total() and joined >= values.total() / 20


def _codes_as_words(items: list[dict], mapping: Mapping, report: IngestReport) -> None:
    """A brand or category field written as codes, whose clean-up in the mapping (if any) does not say ``words``, is
    read as words (``hugo_boss``: Hugo Boss, ``sneakers-and-converses``: Sneakers And Converses; a Tokopedia path's
    last part, ``sneakers-pria``, after ``split = "/"``), as ``[clean.<field>] words = true`` reads it, so that no
    query says a code; each item changed is counted under ``repaired.words_<field>`` and a note says so."""
    for name in ("brand", *CATEGORY_FIELDS):
        values = Counter(item[name] for item in items if item[name] is not None)
        said = mapping.cleanups.get(name)
        if (said is not None and said.words is not None) or not written_as_codes(values):
            continue
        words = {value: FieldCleanup(words=True).apply(value)[0] or value for value in values}
        for item in items:
            if item[name] is not None and words[item[name]] != item[name]:
                report.repair(f"words_{name}", item["item_id"])
                item[name] = words[item[name]]
        shown = ", ".join(f"{value!r}: {words[value]!r}" for value, _ in values.most_common(3))
        own_way = (f"words = false in [clean.{name}] of {mapping.source} keeps them as written" if said is not None else
                   f"a [clean.{name}] table in {mapping.source} reads them your own way")
        report.notes.append(f"the {name.replace('_', ' ')} values are written as codes, read as words ({shown}"
                            f"{' …' if len(values) > 3 else ''}; counted under repaired.words_{name}); {own_way}")


def _note_glued_badges(items: list[dict], mapping: Mapping, report: IngestReport) -> None:
    """Say which badges are written onto the end of the brands (which queries would say as part of them), and the
    clean-up that cuts them off."""
    badges = glued_badges(item["brand"] for item in items)
    if badges:
        shown = ", ".join(f"{badge!r} {count:,}" for badge, count in badges.most_common(5))
        report.notes.append(f"{sum(badges.values()):,} brand values end in a badge written onto the brand ({shown}"
                            f"{' …' if len(badges) > 5 else ''}), which queries would say as part of it: [clean.brand] "
                            f"remove = [{toml_literal(badge_pattern(badges))}] in {mapping.source} cuts them off")


def _note_descriptive_brands(items: list[dict], mapping: Mapping, report: IngestReport) -> None:
    """Say which brand values are a colour, fit or pattern word (the public Flipkart crawl's ``Black`` and ``Red``
    bras and ``Regular`` shirts: another field put in the brand's place), which queries would say as brands, when
    they are 20 items or more and one in a hundred; and the clean-up that reads them as no brand."""
    words = descriptive_brands(item["brand"] for item in items)
    if sum(words.values()) >= max(20, len(items) / 100):
        shown = ", ".join(f"{value!r} {count:,}" for value, count in words.most_common(5))
        report.notes.append(f"{sum(words.values()):,} brand values are colour, fit or pattern words, which queries would say as "
                            f"brands ({shown}{' …' if len(words) > 5 else ''}): the catalog may hold another field there; "
                            f"[clean.brand] refuse = {refused_brands(words)} in {mapping.source} reads them as no brand")


def _note_labelled_attributes(items: list[dict], mapping: Mapping, report: IngestReport) -> None:
    """Say which attribute's values mostly start with one label (``Main: Cotton``), which a query would repeat, and
    the clean-up that takes it out."""
    values: dict[str, list[str]] = {}
    for item in items:
        for key, value in item["attributes"].items():
            values.setdefault(key, []).append(value)
    for key, texts in sorted(values.items()):
        labels = Counter(m.group(1) for t in texts if (m := _LABEL.match(t)))
        label, count = labels.most_common(1)[0] if labels else ("", 0)
        if count >= max(20, len(texts) / 2) and key not in mapping.attribute_cleanups:
            report.notes.append(f"{count:,} of the {len(texts):,} values of the attribute {key!r} start with the label {label + ':'!r} "
                                f"({texts[0]!r}), which queries would repeat; [clean.attributes.{toml_key(key)}] remove = "
                                f"['^{re.escape(label)}:\\s*'] in {mapping.source} takes it out")


#: Fields whose values name a group of items: one group is one value, whatever the case it is written in.
CATEGORY_FIELDS = ("master_category", "sub_category", "article_type", "usage", "season")


#: Where a category's words part: spaces, underscores and hyphens (``Flip-Flops``, ``Flip Flops`` and ``FLIP_FLOPS``
#: read as one).
_WORD_BREAKS = re.compile(r"[\s_-]+")


def _one_spelling_per_category(items: list[dict], report: IngestReport) -> None:
    """A category written in several cases (``SweatShirt`` and ``Sweatshirt``, ``shorts`` and ``Shorts``), or in
    both numbers or with and without a hyphen (``Shirt`` and ``Shirts``, ``T-Shirts`` and ``Tshirts``: a type code
    beside a category path; ``Earring Set`` and ``Earrings Set``: any word's number; ``Flip-Flops`` and ``Flip
    Flops``: a hyphen or a space), is one category, written as
    most of its items write it (the first of equally common spellings), and one written in capitals only (``NAVY
    BLUE``, read from a name in capitals) is written with a capital letter per word; each item changed is counted
    under ``repaired.case_of_<field>`` (a colour, or a category only in case) or ``repaired.spelling_of_<field>``."""
    for name in (*CATEGORY_FIELDS, "base_colour"):
        key = _colour_key if name == "base_colour" else (lambda text: "".join(map(fold, _WORD_BREAKS.split(text))))
        spellings: dict[str, Counter] = {}
        for item in items:
            if item[name] is not None:
                spellings.setdefault(key(item[name]), Counter())[item[name]] += 1
        chosen = {k: _not_in_capitals(counts.most_common(1)[0][0], lower=name == "base_colour") for k, counts in spellings.items()}
        for item in items:
            if item[name] is not None and (spelling := chosen[key(item[name])]) != item[name]:
                if name == "base_colour":
                    item["colours"] = [spelling if c == item[name] else c for c in item["colours"]]
                reason = "case_of" if spelling.casefold() == item[name].casefold() else "spelling_of"
                item[name] = spelling
                report.repair(f"{reason}_{name}", item["item_id"])


#: The spellings of a colour of many colours, one colour (an El Corte Inglés scrape's ``multicolor`` beside ``Multi``).
_MULTI_SPELLINGS = frozenset({"multi", "multicolor", "multicolour", "multicolored", "multicoloured", "multi color",
                              "multi colour", "multi-color", "multi-colour", "multi-coloured", "multi-colored"})


def _colour_key(text: str) -> str:
    """What the spellings of one colour share: the text in any case, a colour of many colours in any spelling."""
    folded = text.casefold()
    return "multi" if folded in _MULTI_SPELLINGS else folded


def _not_in_capitals(text: str, lower: bool = False) -> str:
    """``text`` with a capital letter per word if it is written in capitals only (``T-SHIRT``: ``T-shirt``), or with
    ``lower`` in small letters only (a colour read from a name, ``beige``: ``Beige``), a code's underscores read as
    spaces (``SPORTING_GOODS``: ``Sporting Goods``)."""
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 2 or not (all(c.isupper() for c in letters) or (lower and all(c.islower() for c in letters))):
        return text
    return " ".join(word[:1].upper() + word[1:].lower() for word in text.replace("_", " ").split())


def _note_repeats(items: list[dict], report: IngestReport, variants: bool) -> None:
    """Say how many items repeat an earlier item in every field a shopper sees that the catalog has (of the name,
    brand, colour, price and description): sizes of one product, most likely. Items that differ in price or
    description are other products; in a catalog without colours, colourways of one product look alike too."""
    fields = [name for name in REPEAT_FIELDS if any(item[name] is not None for item in items)]
    if not fields:  # no item
        return
    seen, repeats = set(), 0
    for item in items:
        key = tuple(str(item[name] or "").casefold() for name in fields)
        repeats += key in seen
        seen.add(key)
    words = [_REPEAT_WORDS[name] for name in fields]
    said = " and ".join(filter(None, [", ".join(words[:-1]), words[-1]]))
    if repeats and variants:
        report.notes.append(f"{repeats:,} items repeat the {said} of an earlier item with other [variants] key values; they "
                            "are kept as items of their own")
    elif repeats and "base_colour" not in fields:
        report.notes.append(
            f"{repeats:,} items repeat the {said} of an earlier item; this catalog has no colour, so they may be colourways "
            "of one product, each an item of its own (kept so), or sizes of one: then name the columns that identify a "
            "product under [variants] key in the mapping (docs/catalog.md)")
    elif repeats:
        report.notes.append(
            f"{repeats:,} items repeat the {said} of an earlier item (sizes of one product?); if each group is one product, "
            "name the columns that identify it under [variants] key in the mapping (docs/catalog.md)")
