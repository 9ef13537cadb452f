"""Candidate-visibility regimes (MCMR §4.2): what of each candidate a system may see.

* ``text``: the catalog fields only; the photo is hidden (``image_path`` is null).
* ``image``: the photo only: ``image_path`` and the image-derived attributes, verbalised into ``name``
  (:func:`fashionrq.images.verbalize.describe`); every catalog text field is null.
* ``fused``: the catalog fields, the photo, and the verbalised image attributes in front of ``description``.

The regime travels in the view's schema metadata (:func:`regime_of`), so systems that read pixels or image
descriptors (``image-descriptor``, an ``open_clip:`` encoder) know whether they may.
"""

from __future__ import annotations

import pyarrow as pa

from fashionrq.errors import InputError

REGIMES = ("text", "image", "fused")
REGIME_KEY = b"fashionrq.regime"
#: Columns an image-only candidate keeps.
IMAGE_COLUMNS = ("item_id", "image_path")


def regime_of(items: pa.Table) -> str:
    """The regime a view was made for (``text`` for a plain items table)."""
    return (items.schema.metadata or {}).get(REGIME_KEY, b"text").decode()


def _with_regime(table: pa.Table, regime: str) -> pa.Table:
    return table.replace_schema_metadata({**(table.schema.metadata or {}), REGIME_KEY: regime.encode()})


def _replace(table: pa.Table, name: str, values: list) -> pa.Table:
    index = table.schema.get_field_index(name)
    return table.set_column(index, table.schema.field(index), pa.array(values, type=table.schema.field(index).type))


def check_regime(regime: str) -> str:
    """``regime`` if it is one of :data:`REGIMES`, else an error naming them."""
    if regime not in REGIMES:
        raise InputError(f"candidate regime '{regime}' is unknown: use one of {', '.join(REGIMES)}.")
    return regime


def candidate_view(items: pa.Table, regime: str, cache_dir=None, workers: int = 1) -> pa.Table:
    """The items table as candidates look in ``regime`` (same rows, same order, same schema)."""
    # deferred: pandas (fashionrq.images), which the text regime and the sealed child's start-up do without
    from fashionrq.images.store import catalog_vocabulary, extract_items, with_vocabulary
    from fashionrq.images.verbalize import describe  # deferred: pandas (fashionrq.images)

    check_regime(regime)
    if regime == "text":
        return _with_regime(_replace(items, "image_path", [None] * items.num_rows), regime)
    items = with_vocabulary(items, catalog_vocabulary(items))
    attributes = extract_items(items, cache_dir=cache_dir, workers=workers)
    phrases = [describe(attributes.get(i)) for i in items.column("item_id").to_pylist()]
    if regime == "image":
        blank = {name: pa.nulls(items.num_rows, items.schema.field(name).type) for name in items.schema.names}
        columns = [items.column(n) if n in IMAGE_COLUMNS else blank[n] for n in items.schema.names]
        view = pa.Table.from_arrays(columns, schema=items.schema)
        return _with_regime(_replace(view, "name", phrases), regime)
    descriptions = items.column("description").to_pylist()
    fused = [" ".join(p for p in (phrase, text) if p) or None for phrase, text in zip(phrases, descriptions)]
    return _with_regime(_replace(items, "description", fused), regime)
