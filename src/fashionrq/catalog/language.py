"""Whether a catalog's names are written in a language other than English, as ingest finds them (docs/catalog.md,
"The ingest report": the cross-lingual notes), recorded on its items table like its price tiers (schema metadata,
and a frame's ``attrs``), so that a release's queries, and the parser that reads them back, say its own product
types as written: an English ending fits an English product noun (``T-Shirt``: "t-shirts"), never ``Hemd`` or
``Kalung`` ("hemds", "kalungs"). A table without the record (every English catalog) has English names."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

if TYPE_CHECKING:  # a frame is only ever handed in
    import pandas as pd

#: Schema-metadata key of an items table whose names are in another language, and its value.
LANGUAGE_KEY, OTHER_LANGUAGE = b"fashionrq.names_language", b"other"
#: The same record in a pandas frame's ``attrs`` (set by :func:`fashionrq.hierarchy.attributes.items_frame`).
FRAME_KEY = LANGUAGE_KEY.decode()


def with_other_language_names(table: pa.Table) -> pa.Table:
    """``table`` recorded as a catalog whose names are in a language other than English."""
    return table.replace_schema_metadata({**(table.schema.metadata or {}), LANGUAGE_KEY: OTHER_LANGUAGE})


def names_in_english(items: pa.Table | pd.DataFrame) -> bool:
    """Whether the names of ``items`` (a table, or a frame from :func:`~fashionrq.hierarchy.attributes.items_frame`)
    are English: no record says otherwise."""
    if isinstance(items, pa.Table):
        return (items.schema.metadata or {}).get(LANGUAGE_KEY) != OTHER_LANGUAGE
    return items.attrs.get(FRAME_KEY) != OTHER_LANGUAGE.decode()


def language_attrs(items: pa.Table | pd.DataFrame) -> dict[str, str]:
    """The record a frame of ``items`` carries in its ``attrs``: none for English names."""
    return {} if names_in_english(items) else {FRAME_KEY: OTHER_LANGUAGE.decode()}
