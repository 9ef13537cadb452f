"""How the rows of a mapped catalog make its products (``[variants]`` in a mapping, docs/catalog.md): parent rows named
by their variants are left out, the columns a row leaves empty are taken from its parent or from the first row of its
product, and of the rows of one product (and colour) the first is kept; every left-out row is listed in the ingest
report with its reason."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from fashionrq.catalog.fieldpath import Reference
from fashionrq.catalog.mapping import Variants
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.schema import clean_string, json_text, to_text

Records = list[tuple[str, dict]]


@dataclass(frozen=True)
class VariantReferences:
    """``[variants]`` resolved in a file's columns: the key's references, the columns to fill, the parent column and
    the ``parent_id`` entries as (text before, column, text after), ``id:{ID}`` being ``("id:", ID, "")``, or the
    children column and the ``variant_id`` entries."""

    key: tuple[Reference, ...] = ()
    fill: tuple[str, ...] = ()
    take: tuple[str, ...] = ()
    parent: Reference | None = None
    parent_ids: tuple[tuple[str, Reference, str], ...] = ()
    children: Reference | None = None
    variant_ids: tuple[tuple[str, Reference, str], ...] = ()

    @classmethod
    def of(cls, variants: Variants, resolve: Callable[[str, str], Reference]) -> VariantReferences:
        """``variants`` with each column resolved by ``resolve(phrase, column)``, which refuses a column the file
        does not have, naming it with ``phrase`` (``lists under [variants] key``)."""
        return cls(key=tuple(resolve("lists under [variants] key", column) for column in variants.key),
                   fill=tuple(c for column in variants.fill for c in resolve("lists under [variants] fill", column).needs),
                   take=tuple(c for column in variants.take for c in resolve("lists under [variants] take", column).needs),
                   parent=resolve("names under [variants] parent", variants.parent) if variants.parent else None,
                   parent_ids=tuple((before, resolve("lists under [variants] parent_id", column), after)
                                    for before, column, after in map(parent_name, variants.parent_id)),
                   children=resolve("names under [variants] children", variants.children) if variants.children else None,
                   variant_ids=tuple((before, resolve("lists under [variants] variant_id", column), after)
                                     for before, column, after in map(parent_name, variants.variant_id)))


def parent_name(entry: str) -> tuple[str, str, str]:
    """A ``parent_id`` entry as (text before, column, text after): ``"id:{ID}"`` is the text ``id:`` and the row's
    ``ID``; a plain column name is its value alone."""
    template = re.fullmatch(r"([^{}]*)\{([^{}]+)\}([^{}]*)", entry)
    return (template[1], template[2], template[3]) if template and template[2] != "n" else ("", entry, "")


def rows_by_parent_name(records: Records, parent_ids: tuple[tuple[str, Reference, str], ...]) -> dict[str, tuple[str, dict]]:
    """Each row, with where it stands, by every name a variant's parent cell may give it: its value in each
    ``parent_id`` column, with the text around it (``id:44``); the first row of a name wins."""
    rows: dict[str, tuple[str, dict]] = {}
    for where, record in records:
        for before, ref, after in parent_ids:
            name = clean_string(to_text(ref.get(record)))
            if name is not None:
                rows.setdefault(f"{before}{name}{after}", (where, record))
    return rows


def one_row_per_product(records: Records, refs: VariantReferences, variants: Variants, source: str,
                        report: IngestReport) -> Records:
    """The rows that are products: parent rows left out (their variants are the items), empty ``fill`` columns taken
    from the parent or first row, then the first row of each product named by ``[variants] key``, every later row of
    it left out and counted. A row whose first key column is empty is kept; an empty later one (a perfume has no
    colour) is a value like any, except in a row that has none of the later key values while its product's first row
    has them (a Shopify image row): that row belongs to the first."""
    product_of: dict[str, str | None] = {}  # a listed variant's product: its parent's first key column
    if refs.parent or refs.children:
        records = _without_parent_rows(records, refs, variants, source, report, product_of)
    else:
        records = _filled_from_first_rows(records, refs, variants, source, report)
    if not refs.key:
        return records
    key_names = ", ".join(variants.key)
    first: dict[tuple, str] = {}
    first_record: dict[tuple, dict] = {}
    first_of_product: dict[str, tuple] = {}
    kept = []
    for where, record in records:
        key = tuple(clean_string(to_text(ref.get(record))) for ref in refs.key)
        key = (product_of[where], *key[1:]) if where in product_of else key
        if key[0] is None:  # no product named: a row of its own
            kept.append((where, record))
            continue
        if all(part is None for part in key[1:]):
            key = first_of_product.get(key[0], key)
        first_of_product.setdefault(key[0], key)
        if first.setdefault(key, where) == where:
            first_record[key] = record
            kept.append((where, record))
        elif record == first_record[key]:  # a crawl that listed one product twice, not a size or a colour of it
            report.reject(where, f"a repeat of the row at {first[key]} (every field the same)")
        else:
            report.reject(where, f"a variant of the product at {first[key]} (the same {key_names})")
    left_out = len(records) - len(kept)
    report.notes.append(f"{left_out:,} rows left out as variants or repeats of an earlier row with the same {key_names} "
                        f"([variants] in {source}); each is listed under rejected")
    return kept


def _taken(record: dict, source: dict, refs: VariantReferences) -> dict:
    """What ``record`` takes from ``source`` (its parent or its product's first row): the ``fill`` columns it leaves
    empty, the keys it lacks of a ``fill`` column of key/value pairs (a JSON object, Magento's ``code=value`` text),
    and the ``take`` columns whatever it holds."""
    out = {}
    for c in refs.fill:
        if clean_string(source.get(c)) is None:
            continue
        if clean_string(record.get(c)) is None:
            out[c] = source[c]
        elif isinstance(mine := json_text(record[c]), dict) and isinstance(theirs := json_text(source[c]), dict):
            if theirs.keys() - mine.keys():
                out[c] = theirs | mine
    return out | {c: source[c] for c in refs.take if clean_string(source.get(c)) is not None}


def _columns_taken(refs: VariantReferences) -> str:
    """``empty Title, Vendor`` (fill) ``and name`` (take), as the notes name what rows took."""
    filled = [f"empty {', '.join(refs.fill)} (or their missing keys)"] if refs.fill else []
    return " and ".join(filled + ([", ".join(refs.take)] if refs.take else []))


def _filled_from_first_rows(records: Records, refs: VariantReferences, variants: Variants, source: str,
                            report: IngestReport) -> Records:
    """Each row with the ``[variants] fill`` columns it leaves empty taken from the first row of its product (the
    first key column), as a Shopify export writes a product's title, vendor and option names on its first row only."""
    if not refs.fill and not refs.take:
        return records
    firsts: dict[str, dict] = {}
    out, filled = [], 0
    for where, record in records:
        product = clean_string(to_text(refs.key[0].get(record)))
        taken = {} if product is None else _taken(record, firsts.setdefault(product, record), refs)
        filled += bool(taken)
        out.append((where, record | taken))
    report.notes.append(f"{filled:,} rows took their {_columns_taken(refs)} from the first row of their product "
                        f"(the same {variants.key[0]}; [variants] fill in {source})")
    return out


def _without_parent_rows(records: Records, refs: VariantReferences, variants: Variants, source: str,
                         report: IngestReport, product_of: dict[str, str | None]) -> Records:
    """Each variant row with the ``fill`` columns it leaves empty taken from its parent row: the row it names in the
    ``[variants] parent`` column (by the value of one of its ``parent_id`` columns, or a text around it: ``id:{ID}``
    reads WooCommerce's ``id:44``), or the row that lists it in the ``children`` column (by one of its ``variant_id``
    columns: Magento's ``configurable_variations``), whose first key column (``product_of``, by where the variant
    stands) then names its product. Every parent row is left out and listed: its variants are the items. A name
    that no row holds is counted in a note (a variant naming it is kept as it is)."""
    parents, orphans = _parents_named(records, refs) if refs.parent else _parents_listing(records, refs)
    children: Counter = Counter()
    out, filled = [], 0
    for where, record in records:
        parent = parents.get(where)
        if parent is None:
            out.append((where, record))
            continue
        children[parent[0]] += 1
        taken = _taken(record, parent[1], refs)
        filled += bool(taken)
        out.append((where, record | taken))
        if refs.children and refs.key:
            product_of[where] = clean_string(to_text(refs.key[0].get(parent[1])))
    column = variants.parent if refs.parent else variants.children
    how = f"their [variants] parent column {column!r} names it" if refs.parent else f"its [variants] children {column!r} lists them"
    for where, _ in records:
        if where in children:
            report.reject(where, f"the parent row of {children[where]:,} variant rows ({how}); its variants are the items")
    took = f"; {filled:,} variant rows took their {_columns_taken(refs)} from their parent row" if refs.fill or refs.take else ""
    by = f"each named by its variant rows in column {column!r}" if refs.parent else f"each listing its variant rows in {column!r}"
    report.notes.append(f"{len(children):,} parent rows left out, {by} ([variants] in {source}){took}")
    if orphans and refs.parent:
        report.notes.append(f"{orphans:,} rows name a parent in column {column!r} that no row's "
                            f"{' or '.join(variants.parent_id)} holds; each is kept as an item of its own")
    elif orphans:
        report.notes.append(f"{orphans:,} variants listed in {column!r} are no row's {' or '.join(variants.variant_id)}; "
                            "the file lacks them")
    return [(where, record) for where, record in out if where not in children]


Link = tuple[dict[str, tuple[str, dict]], int]


def _parents_named(records: Records, refs: VariantReferences) -> Link:
    """Each variant's parent row by where the variant stands, from the parent column, and how many rows name a
    parent that no row is."""
    rows_by_name = rows_by_parent_name(records, refs.parent_ids)
    parents, orphans = {}, 0
    for where, record in records:
        link = clean_string(to_text(refs.parent.get(record)))
        parent = rows_by_name.get(link) if link else None
        orphans += link is not None and parent is None
        if parent is not None and parent[0] != where:
            parents[where] = parent
    return parents, orphans


def _parents_listing(records: Records, refs: VariantReferences) -> Link:
    """Each variant's parent row by where the variant stands, from the rows whose children column lists it (the
    first such row), and how many listed names no row holds."""
    rows_by_name = rows_by_parent_name(records, refs.variant_ids)
    parents, orphans = {}, 0
    for where, record in records:
        listed = refs.children.get(record)
        for name in listed if isinstance(listed, list) else [] if listed is None else [listed]:
            variant = rows_by_name.get(clean_string(to_text(name)) or "")
            orphans += variant is None
            if variant is not None and variant[0] != where:
                parents.setdefault(variant[0], (where, record))
    return parents, orphans
