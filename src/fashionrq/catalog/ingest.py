"""Catalog ingestion: any supported catalog in, the canonical items table and an ingest report out."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from fashionrq.catalog.clean import check_item_id, first_duplicate
from fashionrq.catalog.generic import read_generic
from fashionrq.catalog.language import other_language_names, with_other_language_names
from fashionrq.catalog.mapping import Mapping
from fashionrq.catalog.myntra import is_myntra_layout, read_myntra
from fashionrq.catalog.photos import PhotoFolder, with_photos_by_id
from fashionrq.catalog.price_scale import scale_note
from fashionrq.catalog.prices import DEFAULT_PRICE_FORMAT
from fashionrq.catalog.report import IngestReport, percent, reason_kind, refuse_duplicate_ids, rows_to_table, types_nearly_one_each
from fashionrq.catalog.schema import ITEMS_SCHEMA, SYNTHETIC_KEY, texts_script
from fashionrq.catalog.tiers import currency_of, price_tiers_of, with_price_tiers
from fashionrq.errors import InputError
from fashionrq.io import atomic_directory, atomic_writer
from fashionrq.layout import check_folder_output

BUNDLED = "bundled"
ITEMS_FILE = "items.parquet"
#: Parquet metadata key marking a canonical items table written by fashionrq.
ITEMS_TABLE_KEY = b"fashionrq.items_table"
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
    """Ingest ``catalog``: a Myntra-layout folder, a CSV/TSV/JSON(L)/Parquet/XML file or Excel workbook (with
    ``mapping``, a TOML file, when its columns are not the canonical names), a folder of product JSON files or of CSV/TSV parts of one table (with
    ``mapping``), the output folder of ``fashionrq ingest``, or ``"bundled"``.

    The table records the catalog's price tiers in its currency (:mod:`fashionrq.catalog.tiers`); the report's
    notes say them."""
    if str(catalog) == BUNDLED:
        path = bundled_catalog_dir()
        source = "bundled Myntra catalog (44,446 products)"
    else:
        path = Path(catalog)
        source = str(path)
        if not path.exists():
            raise InputError(f"catalog path {path} does not exist; pass an existing folder or file, or 'bundled' for the embedded Myntra catalog.")
    image_dir = Path(images) if images is not None else None
    currency = DEFAULT_PRICE_FORMAT.currency
    if image_dir is not None and not image_dir.is_dir():
        raise InputError(f"image folder {image_dir} does not exist; pass a folder of photos named by item id (<item_id>.jpg) "
                         "or leave --images out.")
    if mapping is None and is_myntra_layout(path):
        report = IngestReport(source=source, layout="myntra")
        rows = read_myntra(path, report, images=image_dir)
        refuse_duplicate_ids(rows, source)  # a mapped catalog's reader names the rows' places (read_generic)
    elif mapping is None and path.is_dir() and not (path / ITEMS_FILE).is_file():
        raise InputError(
            f"catalog folder {path} has no styles.csv (Myntra layout) and no {ITEMS_FILE} (an ingested catalog); "
            "pass a CSV, TSV, JSON(L) or Parquet file, or a folder of product JSON files or of CSV parts, with a --mapping file instead."
        )
    elif mapping is None and is_items_table(path / ITEMS_FILE if path.is_dir() else path):
        return _read_items_table(path / ITEMS_FILE if path.is_dir() else path, source, image_dir)
    else:
        spec = Mapping.load(Path(mapping)) if mapping is not None else Mapping()
        currency = spec.prices.currency
        path = path / ITEMS_FILE if (path / ITEMS_FILE).is_file() else path  # the output folder of `fashionrq ingest`
        report = IngestReport(source=source, layout="mapped")
        rows = read_generic(path, spec, report, images=image_dir)
    if not rows:
        raise InputError(_nothing_ingested(source, report))
    return _finished(_keep_synthetic_flag(rows_to_table(rows), path), report, currency)


def _nothing_ingested(source: str, report: IngestReport) -> str:
    """The sentence that refuses a catalog none of whose rows gave an item: how many rows, and why, the commonest
    kinds of reason first (:func:`reason_kind`: a variant of each of many products is one kind), each with its first
    row and reason."""
    reasons = Counter(reason_kind(r["reason"]) for r in report.rejected)
    first = {}
    for r in report.rejected:
        first.setdefault(reason_kind(r["reason"]), r)

    def said(kind: str, count: int) -> str:  # a kind of many reasons with its first reason, else the reason itself
        row = first[kind]
        if count == 1 or kind == row["reason"]:
            return f"{count:,} for {row['reason']} (first: {row['row']})"
        return f"{count:,} for {kind} (first: {row['row']}, {row['reason']})"

    why = "; ".join(said(kind, count) for kind, count in reasons.most_common(3))
    more = f"; and {len(reasons) - 3} other kinds of reason" if len(reasons) > 3 else ""
    rows = f"{len(report.rejected):,} row{'s' if len(report.rejected) != 1 else ''}"
    return f"no product in {source} could be ingested: {rows} rejected ({why or 'no rows'}{more}); fix the file or the mapping there."


def _finished(table: pa.Table, report: IngestReport, currency: str) -> IngestResult:
    """The ingest result: ``table`` with the price tiers of its prices in ``currency`` recorded, said in the notes,
    and a note when the names, or the product types, are mostly written in another script than Latin, or a tenth of the
    colours named or more, when the names (or, failing them, the colours of three items in ten or more) are in another
    language, and when the items have nearly one type each. A table whose names or types are in another language is
    recorded so (:mod:`fashionrq.catalog.language`)."""
    table = with_price_tiers(_without_implausible_prices(table, report), currency)
    report.notes.append(price_tiers_of(table).describe())
    if (unit := scale_note(table.column("price").to_pylist(), currency)) is not None:
        report.notes.append(unit)
    other_language = True  # the names, or the types, are in another language: types are said as written
    script, share = texts_script(table.column("name").to_pylist())
    if script != "LATIN" and share >= 0.5:
        report.notes.append(f"{percent(share)} of the names are written in {script.title()} script: queries are written in English, so "
                            "this benchmark is cross-lingual (systems that match words cannot match them); build with "
                            "--encoder e5-small, a multilingual encoder, for the items' semantic IDs")
    elif (other := other_language_names(table.column("name").to_pylist()))[0] >= 0.3:
        share, words = other
        report.notes.append(f"{percent(share)} of the names say a word of a language other than English ({', '.join(words)}, ...): "
                            f"{_PARTLY_CROSS_LINGUAL}")
    elif (share := len(set(report.repaired.get("colour_in_english", ()))) / max(table.num_rows, 1)) >= 0.3:
        report.notes.append(f"{percent(share)} of the items name their colour in a language other than English (read in "
                            f"English), so their names are likely in it too: {_PARTLY_CROSS_LINGUAL}")
    else:
        other_language = False
    types = table.column("article_type").to_pylist()
    script, share = texts_script(types)
    if script != "LATIN" and share >= 0.5:
        shown = [value for value, _ in Counter(t for t in types if t).most_common(3)]
        report.notes.append(f"{percent(share)} of the product types are written in {script.title()} script ({', '.join(shown)}, ...): "
                            "queries say them as written inside English sentences; for English queries, translate each in "
                            f'[values.article_type] ("{shown[0]}" = "<the type in English>")')
        other_language = True
    if other_language:
        table = with_other_language_names(table)
    if (type_count := types_nearly_one_each(table)) is not None:
        report.notes.append(f"the {table.num_rows:,} items have {type_count:,} product types, nearly one each, so no type groups "
                            "items and the build will refuse the release: map article_type to a column of types, not to the "
                            'name, or read the type from the names (docs/catalog.md, "Types only in the names")')
    colours = Counter(c for cs in table.column("colours").to_pylist() for c in cs or ())
    other = Counter({c: n for c, n in colours.items() if texts_script([c])[0] != "LATIN"})
    if other and other.total() >= 0.1 * colours.total():
        script = texts_script(list(other))[0]
        shown = [c for c, _ in other.most_common(3)]
        report.notes.append(f"{percent(other.total() / colours.total())} of the colours named are written in {script.title()} script "
                            f"({', '.join(shown)}, ...): queries say them as written, and an item that lists one colour in two "
                            f'languages is asked for by both; give each in English under [values.colours] ("{shown[0]}" = "<the '
                            'colour in English>"; `fashionrq draft-mapping` reads those it finds beside an English one)')
    report.finish(table)
    return IngestResult(table=table, report=report)


#: A price this many times the catalog's median or more is a seller's placeholder, never a price (a Tokopedia scrape's
#: 999,999,999 and 2,000,000,000 rupiah for a jacket, beside a median of 150,000; the bundled catalog's dearest item
#: is 24 times its median).
IMPLAUSIBLE_PRICE_RATIO = 1000


def _without_implausible_prices(table: pa.Table, report: IngestReport) -> pa.Table:
    """``table`` with its prices of :data:`IMPLAUSIBLE_PRICE_RATIO` times its median price or more (and the discounted
    prices beside them) set to null, each counted under ``values_nulled.implausible_price``."""
    prices = table.column("price").to_numpy(zero_copy_only=False).astype(float)
    positive = prices[np.isfinite(prices) & (prices > 0)]
    if positive.size == 0:
        return table
    implausible = np.nan_to_num(prices, nan=0.0) >= IMPLAUSIBLE_PRICE_RATIO * float(np.median(positive))
    if not implausible.any():
        return table
    ids = table.column("item_id").to_pylist()
    for row in np.flatnonzero(implausible):
        report.null_value("implausible_price", ids[row])
    mask = pa.array(implausible)
    for name in ("price", "discounted_price"):
        table = table.set_column(table.schema.get_field_index(name), table.schema.field(name),
                                 pc.if_else(mask, pa.scalar(None, pa.float64()), table.column(name)))
    return table


_PARTLY_CROSS_LINGUAL = ("queries are written in English around the catalog's own words, so this benchmark is partly "
                         "cross-lingual; build with --encoder e5-small, a multilingual encoder, for the items' semantic IDs")


def _keep_synthetic_flag(table: pa.Table, path: Path) -> pa.Table:
    """A synthetic catalog (``fashionrq synth``) stays marked as such through ingestion."""
    if path.is_file() and path.suffix == ".parquet" and (pq.read_schema(path).metadata or {}).get(SYNTHETIC_KEY) == b"true":
        return table.replace_schema_metadata({SYNTHETIC_KEY: b"true"})
    return table


def write_items(table: pa.Table, path: Path, row_group_size: int = 131_072) -> None:
    """Write an items table as deterministic, compressed Parquet (atomically: temporary name, then rename).

    The file is marked as a canonical items table, so ``ingest`` reads it back column-wise, without re-cleaning.
    """
    metadata = {**(table.schema.metadata or {}), ITEMS_TABLE_KEY: b"1"}
    with atomic_writer(path, "wb") as handle:
        pq.write_table(table.replace_schema_metadata(metadata), handle, compression="zstd", use_dictionary=True,
                       write_statistics=False, row_group_size=row_group_size)


def is_items_table(path: Path) -> bool:
    """Whether ``path`` is a Parquet items table written by fashionrq (``write_items`` or ``fashionrq synth``)."""
    if not (path.is_file() and path.suffix == ".parquet"):
        return False
    try:
        schema = pq.read_schema(path)
    except (pa.ArrowInvalid, OSError):
        return False
    same_columns = schema.names == ITEMS_SCHEMA.names and schema.types == ITEMS_SCHEMA.types
    return (schema.metadata or {}).get(ITEMS_TABLE_KEY) == b"1" and same_columns


def _read_items_table(path: Path, source: str, images: Path | None) -> IngestResult:
    """An already-clean items table, read column-wise; its ids are checked again (unique, non-empty, TREC-safe). With
    ``images``, an item without a photo takes the one that folder holds under its id."""
    table = pq.read_table(path)
    ids = table.column("item_id")
    bad = pc.or_(pc.is_null(ids), pc.match_substring_regex(pc.fill_null(ids, ""), r"^$|[\s\x00-\x1f\x7f]"))
    if pc.any(bad).as_py():
        row = int(pc.index(bad, True).as_py())
        if not ids[row].as_py():
            raise InputError(f"{path} row {row + 1}: the item id is empty; give every item an id.")
        check_item_id(ids[row].as_py(), f"{path} row {row + 1}")
    dup = first_duplicate(ids)
    if dup is not None:
        raise InputError(f"{path}: item id {dup!r} appears more than once; ids must be unique.")
    report = IngestReport(source=source, layout="items-table")
    report.rows_read = table.num_rows
    keep = {k: v for k, v in (table.schema.metadata or {}).items() if k != ITEMS_TABLE_KEY}
    table = table.replace_schema_metadata(keep or None)
    if images is not None:
        table = with_photos_by_id(table, PhotoFolder.scan(images), report)
    return _finished(table, report, currency_of(table))


def save_ingest(result: IngestResult, out_dir: str | Path, force: bool = False) -> Path:
    """Write ``items.parquet`` and ``ingest_report.json`` into the new folder ``out_dir``; return the items path.

    ``out_dir`` inside a release is refused, an existing one unless ``force``; it appears only when complete.
    """

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
    return table.select(ITEMS_SCHEMA.names).cast(ITEMS_SCHEMA.with_metadata(table.schema.metadata))


def bundled_items() -> pa.Table:
    """The embedded 44,446-item Myntra catalog as a canonical items table."""
    return ingest(BUNDLED).table
