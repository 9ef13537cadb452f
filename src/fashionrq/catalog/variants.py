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
from fashionrq.catalog.schema import clean_string, to_text

Records = list[tuple[str, dict]]


@dataclass(frozen=True)
class VariantReferences:
    """``[variants]`` resolved in a file's columns: the key's references, the columns to fill, the parent column and
    the ``parent_id`` entries as (text before, column, text after), ``id:{ID}`` being ``("id:", ID, "")``."""

    key: tuple[Reference, ...] = ()
    fill: tuple[str, ...] = ()
    parent: Reference | None = None
    parent_ids: tuple[tuple[str, Reference, str], ...] = ()

    @classmethod
    def of(cls, variants: Variants, resolve: Callable[[str, str], Reference]) -> VariantReferences:
        """``variants`` with each column resolved by ``resolve(phrase, column)``, which refuses a column the file
        does not have, naming it with ``phrase`` (``lists under [variants] key``)."""
        return cls(key=tuple(resolve("lists under [variants] key", column) for column in variants.key),
                   fill=tuple(c for column in variants.fill for c in resolve("lists under [variants] fill", column).needs),
                   parent=resolve("names under [variants] parent", variants.parent) if variants.parent else None,
                   parent_ids=tuple((before, resolve("lists under [variants] parent_id", column), after)
                                    for before, column, after in map(parent_name, variants.parent_id)))


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
    records = (_without_parent_rows if refs.parent else _filled_from_first_rows)(records, refs, variants, source, report)
    if not refs.key:
        return records
    key_names = ", ".join(variants.key)
    first: dict[tuple, str] = {}
    first_of_product: dict[str, tuple] = {}
    kept = []
    for where, record in records:
        key = tuple(clean_string(to_text(ref.get(record))) for ref in refs.key)
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
                        f"([variants] in {source}); each is listed under rejected")
    return kept


def _taken(record: dict, source: dict, columns: tuple[str, ...]) -> dict:
    """The ``columns`` ``record`` leaves empty that ``source`` fills, with ``source``'s values."""
    return {c: source[c] for c in columns if clean_string(record.get(c)) is None and clean_string(source.get(c)) is not None}


def _filled_from_first_rows(records: Records, refs: VariantReferences, variants: Variants, source: str,
                            report: IngestReport) -> Records:
    """Each row with the ``[variants] fill`` columns it leaves empty taken from the first row of its product (the
    first key column), as a Shopify export writes a product's title, vendor and option names on its first row only."""
    if not refs.fill:
        return records
    firsts: dict[str, dict] = {}
    out, filled = [], 0
    for where, record in records:
        product = clean_string(to_text(refs.key[0].get(record)))
        taken = {} if product is None else _taken(record, firsts.setdefault(product, record), refs.fill)
        filled += bool(taken)
        out.append((where, record | taken))
    report.notes.append(f"{filled:,} rows took their empty {', '.join(refs.fill)} from the first row of their product "
                        f"(the same {variants.key[0]}; [variants] fill in {source})")
    return out


def _without_parent_rows(records: Records, refs: VariantReferences, variants: Variants, source: str,
                        report: IngestReport) -> Records:
    """Each row that names a parent row in the ``[variants] parent`` column (by the value of one of its
    ``parent_id`` columns, or a text around it: ``id:{ID}`` reads WooCommerce's ``id:44``), with the ``fill`` columns it
    leaves empty taken from that row. Every row named as a parent is left out and listed: its variants are the
    items. A row naming a parent the file does not hold is kept as it is, and counted in a note."""
    rows_by_name = rows_by_parent_name(records, refs.parent_ids)
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
        taken = _taken(record, parent[1], refs.fill)
        filled += bool(taken)
        out.append((where, record | taken))
    for where, _ in records:
        if where in children:
            report.reject(where, f"the parent row of {children[where]:,} variant rows (their [variants] parent column "
                                 f"{variants.parent!r} names it); its variants are the items")
    took = f"; {filled:,} variant rows took their empty {', '.join(refs.fill)} from their parent row" if refs.fill else ""
    report.notes.append(f"{len(children):,} parent rows left out, each named by its variant rows in column {variants.parent!r} "
                        f"([variants] in {source}){took}")
    if orphans:
        report.notes.append(f"{orphans:,} rows name a parent in column {variants.parent!r} that no row's "
                            f"{' or '.join(variants.parent_id)} holds; each is kept as an item of its own")
    return [(where, record) for where, record in out if where not in children]
