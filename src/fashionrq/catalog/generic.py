"""A mapped catalog file to canonical items: each record through the mapping's references, constants, clean-ups and
value maps, one product per ``[variants]`` key, photos resolved inside the catalog's folder; every repair, null and
left-out row counted in the ingest report (docs/catalog.md, "Any other catalog: a mapping file")."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from fashionrq.catalog.clean import RowCleaner, check_item_id
from fashionrq.catalog.fieldpath import Reference, parse_reference
from fashionrq.catalog.mapping import IDENTITY, FieldCleanup, Mapping
from fashionrq.catalog.prices import DEFAULT_PRICE_FORMAT
from fashionrq.catalog.records import detect_format, read_records
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.schema import FIELDS, GENDERS, REQUIRED_FIELDS, clean_string, distinct_ignoring_case, strip_html, to_text
from fashionrq.errors import InputError

#: The fields whose values together tell a shopper one product from another.
REPEAT_FIELDS = ("name", "brand", "base_colour", "price", "description")
_COLOUR_JOINS = re.compile(r"\s+or\s+|\s*[/,&+]\s*|\s+and\s+", re.IGNORECASE)
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://|^//", re.IGNORECASE)


@dataclass(frozen=True)
class References:
    """Where each canonical field, attribute and variant-key part is read from in a record, and the columns a
    product's later rows take from its first row."""

    fields: dict[str, Reference]
    attributes: dict[str, Reference]
    variant_key: tuple[Reference, ...] = ()
    variant_fill: tuple[str, ...] = ()
    parent: Reference | None = None
    parent_ids: tuple[tuple[str, Reference, str], ...] = ()  # (text before, column, text after): "id:{ID}"

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
        variants = mapping.variants
        variant_key = tuple(resolve("lists under [variants] key", column) for column in variants.key)
        fill = tuple(c for column in variants.fill for c in resolve("lists under [variants] fill", column).needs)
        parent = resolve("names under [variants] parent", variants.parent) if variants.parent else None
        parent_ids = tuple((before, resolve("lists under [variants] parent_id", column), after)
                           for before, column, after in map(_parent_name, variants.parent_id))
        return cls(fields, attributes, variant_key, fill, parent, parent_ids)


def _parent_name(entry: str) -> tuple[str, str, str]:
    """A ``parent_id`` entry as (text before, column, text after): ``"id:{ID}"`` is the text ``id:`` and the row's
    ``ID``; a plain column name is its value alone."""
    template = re.fullmatch(r"([^{}]*)\{([^{}]+)\}([^{}]*)", entry)
    return (template[1], template[2], template[3]) if template and template[2] != "n" else ("", entry, "")


def read_generic(path: Path, mapping: Mapping, report: IngestReport) -> list[dict]:
    """Read a generic catalog file through ``mapping`` into canonical item dicts."""
    records, columns = read_records(path, detect_format(path, mapping.format), report, mapping.encoding, mapping.delimiter)
    refs = References.of(path, mapping, columns)
    if mapping.prices != DEFAULT_PRICE_FORMAT:
        fmt = mapping.prices
        report.notes.append(f"prices read as {fmt.currency} (decimal separator {fmt.decimal_separator}, the {fmt.range} end of a "
                            f"range; at or below {fmt.placeholder_limit:g} a placeholder), as [price] in {mapping.source} says")
    for name, value in sorted(mapping.constants.items()):
        report.notes.append(f"{name} is {value!r} for every item ([constants] in {mapping.source})")
    records = _one_row_per_product(records, refs, mapping, report)
    # An items table written by `fashionrq ingest` was accepted once: its rows are only rejected for an empty id.
    required = ("item_id",) if mapping.source == IDENTITY and set(FIELDS) <= set(columns) else REQUIRED_FIELDS
    items = ((where, _mapped_item(where, record, refs, mapping, report, required)) for where, record in records)
    photos = _Photos(path.parent, report)
    out = [photos.resolve(where, item) for where, item in items if item is not None]
    photos.note()
    _note_repeats(out, report, bool(mapping.variants.key))
    _note_unknown_genders(out, mapping, report)
    return out


def _one_row_per_product(records: list[tuple[str, dict]], refs: References, mapping: Mapping,
                         report: IngestReport) -> list[tuple[str, dict]]:
    """The rows that are products: parent rows left out (their variants are the items), empty ``fill`` columns taken
    from the parent or first row, then the first row of each product named by ``[variants] key``, every later row of
    it left out and counted. A row whose first key column is empty is kept; an empty later one (a perfume has no
    colour) is a value like any, except in a row that has none of the later key values while its product's first row
    has them (a Shopify image row): that row belongs to the first."""
    records = _without_parent_rows(records, refs, mapping, report) if refs.parent else _filled_from_first_rows(records, refs, mapping, report)
    if not refs.variant_key:
        return records
    key_names = ", ".join(mapping.variants.key)
    first: dict[tuple, str] = {}
    first_of_product: dict[str, tuple] = {}
    kept = []
    for where, record in records:
        key = tuple(clean_string(to_text(ref.get(record))) for ref in refs.variant_key)
        if key[0] is None:  # no product named: a row of its own
            kept.append((where, record))
            continue
        if all(part is None for part in key[1:]):
            key = first_of_product.get(key[0], key)
        first_of_product.setdefault(key[0], key)
        if first.setdefault(key, where) == where:
            kept.append((where, record))
        else:
            report.reject(where, f"a variant of the product at {first[key]} (the same {key_names})")
    left_out = len(records) - len(kept)
    report.notes.append(f"{left_out:,} rows left out as variants of an earlier row with the same {key_names} "
                        f"([variants] in {mapping.source}); each is listed under rejected")
    return kept


def _taken(record: dict, source: dict, columns: tuple[str, ...]) -> dict:
    """The ``columns`` ``record`` leaves empty that ``source`` fills, with ``source``'s values."""
    return {c: source[c] for c in columns if clean_string(record.get(c)) is None and clean_string(source.get(c)) is not None}


def _filled_from_first_rows(records: list[tuple[str, dict]], refs: References, mapping: Mapping,
                            report: IngestReport) -> list[tuple[str, dict]]:
    """Each row with the ``[variants] fill`` columns it leaves empty taken from the first row of its product (the
    first key column), as a Shopify export writes a product's title, vendor and option names on its first row only."""
    if not refs.variant_fill:
        return records
    firsts: dict[str, dict] = {}
    out, filled = [], 0
    for where, record in records:
        product = clean_string(to_text(refs.variant_key[0].get(record)))
        taken = {} if product is None else _taken(record, firsts.setdefault(product, record), refs.variant_fill)
        filled += bool(taken)
        out.append((where, record | taken))
    report.notes.append(f"{filled:,} rows took their empty {', '.join(refs.variant_fill)} from the first row of their product "
                        f"(the same {mapping.variants.key[0]}; [variants] fill in {mapping.source})")
    return out


def _without_parent_rows(records: list[tuple[str, dict]], refs: References, mapping: Mapping,
                         report: IngestReport) -> list[tuple[str, dict]]:
    """Each row that names a parent row in the ``[variants] parent`` column (by the value of one of its
    ``parent_id`` columns, or a text around it: ``id:{ID}`` reads WooCommerce's ``id:44``), with the ``fill`` columns it
    leaves empty taken from that row. Every row named as a parent is left out and listed: its variants are the
    items. A row naming a parent the file does not hold is kept as it is, and counted in a note."""
    variants = mapping.variants
    rows_by_name: dict[str, tuple[str, dict]] = {}
    for where, record in records:
        for before, ref, after in refs.parent_ids:
            name = clean_string(to_text(ref.get(record)))
            if name is not None:
                rows_by_name.setdefault(f"{before}{name}{after}", (where, record))
    children: Counter = Counter()
    out, filled, orphans = [], 0, 0
    for where, record in records:
        link = clean_string(to_text(refs.parent.get(record)))
        parent = rows_by_name.get(link) if link else None
        if parent is None or parent[0] == where:
            orphans += link is not None and parent is None
            out.append((where, record))
            continue
        children[parent[0]] += 1
        taken = _taken(record, parent[1], refs.variant_fill)
        filled += bool(taken)
        out.append((where, record | taken))
    for where, _ in records:
        if where in children:
            report.reject(where, f"the parent row of {children[where]:,} variant rows (their [variants] parent column "
                                 f"{variants.parent!r} names it); its variants are the items")
    report.notes.append(f"{len(children):,} parent rows left out, each named by its variant rows in column {variants.parent!r} "
                        f"([variants] in {mapping.source}); {filled:,} variant rows took their empty "
                        f"{', '.join(refs.variant_fill) or 'columns'} from their parent row")
    if orphans:
        report.notes.append(f"{orphans:,} rows name a parent in column {variants.parent!r} that no row's "
                            f"{' or '.join(variants.parent_id)} holds; each is kept as an item of its own")
    return [(where, record) for where, record in out if where not in children]


def _raw_values(record: dict, refs: References, mapping: Mapping, report: IngestReport, item_id: str) -> dict:
    """The record's value for every canonical field: the mapping's constants, then its clean-ups (counted in
    ``report``), then its value maps."""
    raw = {name: mapping.constants.get(name, refs.fields[name].get(record)) for name in FIELDS}
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


def _mapped_item(where: str, record: dict, refs: References, mapping: Mapping, report: IngestReport,
                 required: tuple[str, ...]) -> dict | None:
    """One canonical item, or ``None`` when the row is rejected for an empty ``required`` field (recorded in ``report``)."""
    item_id = clean_string(refs.fields["item_id"].get(record))
    if item_id is None:
        report.reject(where, f"empty id in column {mapping.source_column('item_id')!r}")
        return None
    check_item_id(item_id, where)
    raw = _raw_values(record, refs, mapping, report, item_id)
    missing_required = [f for f in required if clean_string(raw[f]) is None]
    if missing_required:
        report.reject(f"{where} (id {item_id})", f"empty required field(s) {', '.join(missing_required)}")
        return None
    clean = RowCleaner(report, item_id, mapping.prices)
    attributes = clean.attributes(raw["attributes"])
    for key, ref in refs.attributes.items():
        text = clean.text(f"attributes.{key}", ref.get(record))
        if text is not None:
            attributes[key] = text
    colours = [_one_colour(c, report, item_id) for c in clean.values("colours", raw["colours"], mapping.list_separator)]
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
        "description": clean.text("description", strip_html(raw["description"])),
        "attributes": attributes,
    }


def _one_colour(text: str | None, report: IngestReport, item_id: str) -> str | None:
    """A colour that repeats itself (``Black or black``, ``Navy/Navy``) as the colour once, counted under
    ``repaired.repeated_colour``; any other text as it is."""
    if text is None:
        return None
    parts = [p for p in _COLOUR_JOINS.split(text) if p]
    if len(parts) > 1 and len({p.casefold() for p in parts}) == 1:
        report.repair("repeated_colour", item_id)
        return parts[0]
    return text


@dataclass
class _Photos:
    """Each item's ``image_path`` resolved against the catalog's ``folder`` (links followed). A path that leaves the
    folder is refused, so that a release never publishes (or hard-links) a file from elsewhere; a web address
    (which is never downloaded) or a file that is not there is nulled and counted."""

    folder: Path
    report: IngestReport

    def resolve(self, where: str, item: dict) -> dict:
        if item["image_path"] is None:
            return item
        if _URL.match(item["image_path"]):
            self.report.null_value("image_url", item["item_id"])
            return {**item, "image_path": None}
        root = self.folder.resolve()
        photo = (root / item["image_path"]).resolve()
        if root not in photo.parents:
            raise InputError(f"{where} (id {item['item_id'][:80]}): image_path {item['image_path'][:80]!r} lies outside the "
                             f"catalog's folder {str(root)[:200]}; keep the photos in or below that folder.")
        if not photo.is_file():
            self.report.null_value("missing_image_file", item["item_id"])
            return {**item, "image_path": None}
        return {**item, "image_path": str(photo)}

    def note(self) -> None:
        urls = len(self.report.values_nulled.get("image_url", ()))
        missing = len(self.report.values_nulled.get("missing_image_file", ()))
        if urls:
            self.report.notes.append(
                f"{urls} image_path values are web addresses, which fashionrq does not download, so those items have no "
                "photo; to use the photos, save them in or below the catalog's folder and map their relative paths")
        if missing:
            self.report.notes.append(f"{missing} image_path values name no file in or below {self.folder}; those items have no photo")


def _note_unknown_genders(items: list[dict], mapping: Mapping, report: IngestReport) -> None:
    """Say which gender values are none of Men, Women, Boys, Girls and Unisex (kept as written)."""
    unknown = Counter(item["gender"] for item in items if item["gender"] is not None and item["gender"] not in GENDERS)
    if unknown:
        shown = ", ".join(f"{value!r} {count:,}" for value, count in unknown.most_common(5))
        report.notes.append(f"gender values kept as written, since they are none of {', '.join(sorted(GENDERS))}: {shown}"
                            f"{' …' if len(unknown) > 5 else ''}; map them under [values.gender] in {mapping.source}")


def _note_repeats(items: list[dict], report: IngestReport, variants: bool) -> None:
    """Say how many items repeat an earlier item in every field a shopper sees (name, brand, colour, price and
    description): sizes of one product, most likely. Items that differ in price or description are other products."""
    seen, repeats = set(), 0
    for item in items:
        key = tuple(str(item[name] or "").casefold() for name in REPEAT_FIELDS)
        repeats += key in seen
        seen.add(key)
    if repeats and variants:
        report.notes.append(f"{repeats:,} items repeat the name, brand, colour, price and description of an earlier item "
                            "with other [variants] key values; they are kept as items of their own")
    elif repeats:
        report.notes.append(
            f"{repeats:,} items repeat the name, brand, colour, price and description of an earlier item (sizes of one "
            "product?); if each group is one product, name the columns that identify it under [variants] key in the "
            "mapping (docs/catalog.md)")
