"""``fashionrq ingest``: catalog in, canonical items table and ingest report out."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.table import Table

from fashionrq.errors import InputError
from fashionrq.progress import console

if TYPE_CHECKING:
    from fashionrq.catalog import IngestReport


def print_ingest_report(report: IngestReport) -> None:
    """Print rows read, repaired and rejected (:func:`~fashionrq.catalog.report.summary_lines`), and the missing count
    of every field."""
    from fashionrq.catalog.report import summary_counts, summary_lines  # imported here so other commands start fast

    summary = report.to_dict()
    console.print(f"[bold]{escape(summary['source'])}[/]: {escape(summary_counts(summary))}", soft_wrap=True)
    for line in summary_lines(summary):
        console.print(f"  {line}", soft_wrap=True, markup=False)
    table = Table(title="missing values per field", show_edge=False)
    table.add_column("field")
    table.add_column("missing", justify="right")
    table.add_column("share", justify="right")
    for name, count in summary["missing"].items():
        table.add_row(name, f"{count:,}", f"{count / max(summary['rows_written'], 1):.1%}")
    console.print(table)


#: The optional CATALOG argument of ``build`` and ``demo``, beside their ``--catalog`` (as ``ingest`` takes it).
CATALOG_ARGUMENT = typer.Argument(None, metavar="CATALOG", show_default=False, help="The catalog, here or as --catalog.")


def one_catalog(argument: str | None, option: str) -> str:
    """The catalog a command was given, as its CATALOG argument or its ``--catalog`` option; refused when both name
    different ones."""
    if argument is not None and option not in ("bundled", argument):
        raise InputError(f"the catalog is given twice ({argument} and --catalog {option}); give it once.")
    return argument if argument is not None else option


def ingest_command(
    catalog: str = typer.Argument(..., help="A Myntra-layout folder, a CSV/TSV/JSON(L)/Parquet/XML/Excel (.xlsx) file, a folder of product JSON files or of CSV/TSV parts of one table (with --mapping), or 'bundled'."),
    out: Path = typer.Option(..., "--out", help="New folder for items.parquet and ingest_report.json."),
    mapping: Path = typer.Option(None, "--mapping", help="TOML file mapping the catalog's columns to the canonical fields (`fashionrq draft-mapping CATALOG` writes a first one)."),
    images: Path = typer.Option(None, "--images", help="Folder of photos named by item id (<item_id>.jpg, .jpeg, .png or .webp, in it or in folders below it); default for a Myntra folder: CATALOG/images."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --out folder."),
) -> None:
    """Ingest a catalog into the canonical items table (items.parquet) with an ingest report."""
    from fashionrq.catalog import ingest, save_ingest  # imported here so other commands start fast
    from fashionrq.layout import check_folder_output

    check_folder_output(out, force, "ingest folder")  # refused before the (slower) ingest
    result = ingest(catalog, mapping=mapping, images=images)
    path = save_ingest(result, out, force)
    print_ingest_report(result.report)
    console.print(f"wrote {path} and {path.parent / 'ingest_report.json'}", soft_wrap=True)


def draft_mapping_command(
    catalog: Path = typer.Argument(..., help="A CSV, TSV (or tab-separated .txt), JSON-lines, JSON, Parquet, XML or Excel (.xlsx) catalog file, or a folder of product JSON files or of CSV/TSV parts of one table."),
    out: Path = typer.Option(None, "--out", help="Write the draft mapping here (default: print it)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --out file."),
) -> None:
    """Guess a first TOML mapping for a catalog from its header and first records, and check it by ingesting."""
    from fashionrq.catalog import ingest
    from fashionrq.catalog.draft import draft_mapping
    from fashionrq.catalog.price_scale import PRICE_UNIT_NOTE
    from fashionrq.catalog.report import reason_kinds
    from fashionrq.catalog.ingest import ITEMS_FILE
    from fashionrq.catalog.myntra import is_myntra_layout
    from fashionrq.io import atomic_write_text
    from fashionrq.layout import check_file_output

    check_file_output(out, force, "mapping file")
    if is_myntra_layout(catalog) or (catalog / ITEMS_FILE).is_file():
        raise InputError(f"{catalog} is a folder: a Myntra-layout folder or an ingested one needs no mapping; pass the CSV, "
                         "TSV, JSON-lines, JSON, Parquet, XML or Excel file to map.")
    if not catalog.exists():
        raise InputError(f"catalog file {catalog} does not exist; pass the CSV, TSV, JSON-lines, JSON, Parquet, XML or Excel file "
                         "to map, or a folder of product JSON files or of CSV/TSV parts of one table.")
    draft = draft_mapping(catalog)
    if out is None:
        typer.echo(draft.text(), nl=False)  # stdout, so that `> mapping.toml` keeps it; the check goes to stderr
    else:
        atomic_write_text(out, draft.text())
        console.print(f"wrote {out}", soft_wrap=True, markup=False)
    if draft.missing_required:
        raise InputError(f"no column of {catalog.name} looks like the required field(s) {', '.join(draft.missing_required)}; "
                         f"name the column(s) in {out or 'the mapping'} under [columns].")
    with tempfile.TemporaryDirectory(prefix="fashionrq-draft-") as scratch:
        mapping = out or Path(scratch) / "mapping.toml"
        if out is None:
            mapping.write_text(draft.text(), encoding="utf-8")
        report = ingest(catalog, mapping=mapping).report.to_dict()
    console.print(f"with it, {catalog.name} gives {report['rows_written']:,} items from {report['rows_read']:,} rows "
                  f"({report['rejected_rows']:,} left out); see why with `fashionrq ingest {catalog} --mapping {out or 'MAPPING'} "
                  "--out DIR`", soft_wrap=True, markup=False)
    if report["rejected"]:  # the kids' department whose type is an age word, the repeats [variants] lists: said here
        console.print(f"  left out, by reason: {reason_kinds(report['rejected'])}", soft_wrap=True, markup=False)
    for check in draft.checks + [note for note in report["notes"] if note.startswith(PRICE_UNIT_NOTE)]:
        console.print(f"  check: {check}", soft_wrap=True, markup=False)


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest_command)
    app.command("draft-mapping")(draft_mapping_command)
