"""``fashionrq images attributes`` (derive colours, pattern, shape and descriptors from product photos) and
``fashionrq images accuracy`` (agreement with the catalog's baseColour and Pattern fields)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from fashionrq.progress import console

images_app = typer.Typer(help="Weight-free image-derived attributes: colours, pattern, shape and an image descriptor.", no_args_is_help=True)

CATALOG_HELP = "A Myntra-layout folder, a mapped catalog file, a folder written by `fashionrq ingest`, or 'bundled'."
IMAGES_HELP = "Folder of <item_id>.jpg photos (default: the catalog's images/ folder or its image_path column)."


def load_catalog(catalog: str, images: Path | None):
    """The items table of ``catalog``: an ingest output folder or items.parquet is read, anything else ingested."""
    from fashionrq.catalog import ingest, load_items

    path = Path(catalog)
    if images is None and (path.suffix == ".parquet" or (path.is_dir() and (path / "items.parquet").is_file())):
        return load_items(path)
    return ingest(catalog, images=images).table


@images_app.command("attributes")
def attributes_command(
    catalog: str = typer.Option(..., "--catalog", help=CATALOG_HELP),
    images: Path = typer.Option(None, "--images", help=IMAGES_HELP),
    out: Path = typer.Option(..., "--out", help="Parquet file to write: one row per photographed item."),
    workers: int = typer.Option(1, "--workers", min=1, help="Processes extracting in parallel (the output does not depend on it)."),
    cache: Path = typer.Option(None, "--cache", help="Cache folder (default $FASHIONRQ_CACHE or ~/.cache/fashionrq)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --out file."),
) -> None:
    """Derive colours, pattern, shape features and a descriptor from every item's photo (cached on disk)."""
    from fashionrq.images.store import extract_items
    from fashionrq.io import refuse_existing

    refuse_existing(out, force)
    table = load_catalog(catalog, images)
    start, cpu = time.perf_counter(), time.process_time()
    attributes = extract_items(table, cache_dir=cache, workers=workers)
    attributes.write(out)
    console.print(f"wrote {out}: {len(attributes):,} photographed items of {table.num_rows:,} "
                  f"({time.perf_counter() - start:.1f} s wall, {time.process_time() - cpu:.1f} s CPU in this process)")


@images_app.command("accuracy")
def accuracy_command(
    catalog: str = typer.Option(..., "--catalog", help=CATALOG_HELP),
    images: Path = typer.Option(None, "--images", help=IMAGES_HELP),
    attributes: Path = typer.Option(None, "--attributes", help="Attributes written by `images attributes` (default: derive them, cached)."),
    out: Path = typer.Option(None, "--out", help="Also write the table as Markdown here."),
    json_out: Path = typer.Option(None, "--json", help="Also write the numbers as JSON here."),
    workers: int = typer.Option(1, "--workers", min=1, help="Processes extracting in parallel when attributes are derived."),
    force: bool = typer.Option(False, "--force", help="Replace existing --out / --json files."),
) -> None:
    """Per-attribute accuracy of the derived colour and pattern against the catalog's baseColour and Pattern."""
    from fashionrq.images.accuracy import accuracy_markdown, attribute_accuracy
    from fashionrq.images.store import ImageAttributeSet, catalog_vocabulary, extract_items
    from fashionrq.io import atomic_write_json, atomic_write_text, refuse_existing

    for path in (out, json_out):
        if path is not None:
            refuse_existing(path, force)
    table = load_catalog(catalog, images)
    derived = ImageAttributeSet.read(attributes) if attributes else extract_items(table, workers=workers)
    results = attribute_accuracy(table, derived, catalog_vocabulary(table))
    text = accuracy_markdown(results)
    console.print(text, markup=False, highlight=False)
    if out is not None:
        atomic_write_text(out, text)
    if json_out is not None:
        atomic_write_json(json_out, {"items": len(derived), "attributes": [r.to_dict() for r in results]})


@images_app.command("ablation")
def ablation_command(
    bench: Path = typer.Option(..., "--bench", help="An MCMR release (`fashionrq build --mcmr`)."),
    out: Path = typer.Option(..., "--out", help="Folder for the run folders (<system>-<regime>/), mcmr.md and mcmr.json."),
    systems: str = typer.Option(None, "--systems", help="Comma-separated systems, each run in every candidate regime it reads (default: random, bm25, minilm-int8, image-descriptor, hybrid)."),
    force: bool = typer.Option(False, "--force", help="Replace mcmr.md, mcmr.json and uncommitted run folders in --out (a committed run is never replaced)."),
    workers: int = typer.Option(1, "--workers", min=1, help="Sealed children at once, one per candidate regime (the run files do not depend on it)."),
) -> None:
    """MCMR Tables 3, 7 and 8: every system under text / image / fused candidates, query variants, constraint count."""
    from fashionrq.io import atomic_write_json, atomic_write_text, refuse_existing
    from fashionrq.pipeline.mcmr import ABLATION_SYSTEMS, modality_ablation
    from fashionrq.report.mcmr import MCMRAblation

    for name in ("mcmr.md", "mcmr.json"):
        refuse_existing(out / name, force)
    names = [s.strip() for s in systems.split(",") if s.strip()] if systems else ABLATION_SYSTEMS
    result = MCMRAblation.of(modality_ablation(bench, out, names, force=force, workers=workers))
    text = result.to_markdown()
    console.print(text, markup=False, highlight=False, soft_wrap=True)
    atomic_write_text(out / "mcmr.md", text)
    atomic_write_json(out / "mcmr.json", result.to_dict())


def register(app: typer.Typer) -> None:
    app.add_typer(images_app, name="images")
