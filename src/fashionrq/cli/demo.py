"""``fashionrq demo``: the main job on the bundled catalog (or any catalog)."""

from __future__ import annotations

from pathlib import Path

import typer

from fashionrq.cli.catalog import CATALOG_ARGUMENT, one_catalog
from fashionrq.encoders.registry import DEFAULT_ENCODER
from fashionrq.progress import console


def demo_command(
    catalog_argument: str = CATALOG_ARGUMENT,
    out: Path = typer.Option(Path("demo-out"), "--out", help="Folder for the catalog, benchmark, runs, scores, report.md and report.html."),
    catalog: str = typer.Option("bundled", "--catalog", help="Catalog to build from: 'bundled', a Myntra-layout folder, or a catalog file or folder (JSON files, CSV/TSV parts) with --mapping."),
    mapping: Path = typer.Option(None, "--mapping", help="TOML mapping of a catalog in another schema (docs/catalog.md; `fashionrq draft-mapping` writes a first one)."),
    encoder: str = typer.Option(DEFAULT_ENCODER, "--encoder", help="Item encoder for the semantic IDs."),
    sid_method: str = typer.Option("rqvae", "--sid-method", help="rqvae (with attribute exclusivity), vanilla or rkmeans."),
    seed: int = typer.Option(0, "--seed", help="Seed of every random choice."),
    resamples: int = typer.Option(10_000, "--resamples", help="Paired cluster bootstrap resamples."),
    systems: str = typer.Option(
        "random,bm25,minilm-int8,hybrid,hybrid+verifier", "--systems",
        help="Comma-separated systems to run; NAME+verifier adds the verifier reranker. Also: minilm, e5-small, splade-tiny, tfidf.",
    ),
    images: Path = typer.Option(None, "--images", help="Folder of <item_id>.jpg product images: thumbnails in report.html."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print each stage's wall time, CPU time and peak RSS as it ends."),
    force: bool = typer.Option(False, "--force", help="Replace an earlier demo's --out folder (a folder holding anything else is refused)."),
    allow_weak: bool = typer.Option(False, "--allow-weak", help="Build the benchmark even when a task has fewer than 8 bootstrap units (the quality gate, exit code 4); the report flags those tasks."),
) -> None:
    """Ingest, build the benchmark, run and score the offline baselines, compare them, write report.md and report.html.

    A rerun reuses the cached embeddings, semantic IDs, release, sealed runs and bootstrap ($FASHIONRQ_CACHE) when
    nothing they depend on changed; every run is still committed and scored.
    """
    from fashionrq.pipeline.demo import DemoConfig, parse_systems
    from fashionrq.report.demo import run_demo

    config = DemoConfig(catalog=one_catalog(catalog_argument, catalog), mapping=str(mapping) if mapping else None, encoder=encoder, sid_method=sid_method, seed=seed, resamples=resamples,
                        systems=parse_systems(systems), images=str(images) if images else None, allow_weak=allow_weak)
    report = run_demo(out, config, console=console, verbose=verbose, force=force)
    console.print(f"wrote {report}")


def register(app: typer.Typer) -> None:
    app.command("demo")(demo_command)
