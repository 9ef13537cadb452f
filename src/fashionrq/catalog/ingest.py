"""Catalog ingestion: any supported catalog in, the canonical items table and an ingest report out."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from fashionrq.catalog.mapping import Mapping, read_generic
from fashionrq.catalog.myntra import is_myntra_layout, read_myntra
from fashionrq.catalog.report import IngestReport, rows_to_table
from fashionrq.catalog.schema import ITEMS_SCHEMA
from fashionrq.errors import InputError
from fashionrq.io import atomic_directory, atomic_writer

BUNDLED = "bundled"
ITEMS_FILE = "items.parquet"
REPORT_FILE = "ingest_report.json"


def bundled_catalog_dir() -> Path:
    """Folder of the embedded Myntra default (a compact Myntra-layout copy shipped in the package)."""
    return Path(str(resources.files("fashionrq") / "data" / "myntra"))


@dataclass
class IngestResult:
    """The canonical items table and the report of how it was made."""

    table: pa.Table
    report: IngestReport


def ingest(catalog: str | Path, mapping: str | Path | None = None, images: str | Path | None = None) -> IngestResult:
    """Ingest ``catalog`` (a Myntra-layout folder, a CSV/JSONL/Parquet file, or ``"bundled"``)."""
    if str(catalog) == BUNDLED:
        path = bundled_catalog_dir()
        source = "bundled Myntra catalog (44,446 products)"
    else:
        path = Path(catalog)
        source = str(path)
        if not path.exists():
            raise InputError(f"catalog path {path} does not exist; pass an existing folder or file, or 'bundled' for the embedded Myntra catalog.")
    image_dir = Path(images) if images is not None else None
    if image_dir is not None and not image_dir.is_dir():
        raise InputError(f"image folder {image_dir} does not exist; pass a folder of <item_id>.jpg files or leave --images out.")
    if mapping is None and is_myntra_layout(path):
        report = IngestReport(source=source, layout="myntra")
        rows = read_myntra(path, report, images=image_dir)
    elif path.is_dir():
        raise InputError(
            f"catalog folder {path} has no styles.csv, so it is not a Myntra-layout catalog; "
            "pass a CSV, JSONL or Parquet file with a --mapping file instead."
        )
    else:
        spec = Mapping.load(Path(mapping)) if mapping is not None else Mapping()
        report = IngestReport(source=source, layout="mapped")
        rows = read_generic(path, spec, report)
    if not rows:
        raise InputError(f"no product in {source} could be ingested ({len(report.rejected)} rows rejected); see the reasons with --out and fix the file.")
    table = rows_to_table(rows, source)
    report.finish(table)
    return IngestResult(table=table, report=report)


def write_items(table: pa.Table, path: Path) -> None:
    """Write an items table as deterministic, compressed Parquet (atomically: temporary name, then rename)."""
    with atomic_writer(path, "wb") as handle:
        pq.write_table(table, handle, compression="zstd", use_dictionary=True, write_statistics=False)


def save_ingest(result: IngestResult, out_dir: str | Path, force: bool = False) -> Path:
    """Write ``items.parquet`` and ``ingest_report.json`` into the new folder ``out_dir``; return the items path.

    ``out_dir`` inside a release is refused, an existing one unless ``force``; it appears only when complete.
    """
    from fashionrq.protocol.manifest import check_folder_output

    out = check_folder_output(out_dir, force, "ingest folder")
    with atomic_directory(out, force=True, what="ingest folder") as tmp:
        write_items(result.table, tmp / ITEMS_FILE)
        result.report.write(tmp / REPORT_FILE)
    return out / ITEMS_FILE


def load_items(path: str | Path) -> pa.Table:
    """Read an items table written by ``ingest``; a folder means its ``items.parquet``."""
    path = Path(path)
    if path.is_dir():
        path = path / ITEMS_FILE
    if not path.exists():
        raise InputError(f"items table {path} does not exist; create it with `fashionrq ingest CATALOG --out DIR`.")
    table = pq.read_table(path)
    missing = [name for name in ITEMS_SCHEMA.names if name not in table.column_names]
    if missing:
        raise InputError(f"{path} lacks the items-table field(s) {', '.join(missing)}; re-create it with `fashionrq ingest`.")
    return table.select(ITEMS_SCHEMA.names).cast(ITEMS_SCHEMA)


def bundled_items() -> pa.Table:
    """The embedded 44,446-item Myntra catalog as a canonical items table."""
    return ingest(BUNDLED).table
