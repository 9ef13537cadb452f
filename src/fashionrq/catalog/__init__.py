"""Catalog ingestion: Myntra layout or any mapped CSV/TSV/JSON(L)/Parquet/XML catalog into one canonical items table."""

from fashionrq.catalog.ingest import (
    BUNDLED,
    IngestResult,
    bundled_catalog_dir,
    bundled_items,
    ingest,
    load_items,
    save_ingest,
    write_items,
)
from fashionrq.catalog.mapping import Mapping
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.schema import FIELDS, ITEMS_SCHEMA, REQUIRED_FIELDS

__all__ = [
    "BUNDLED", "FIELDS", "ITEMS_SCHEMA", "REQUIRED_FIELDS", "IngestReport", "IngestResult", "Mapping",
    "bundled_catalog_dir", "bundled_items", "ingest", "load_items", "save_ingest", "write_items",
]
