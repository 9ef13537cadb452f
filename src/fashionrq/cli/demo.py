"""``fashionrq demo``: the main job on the bundled catalog (or any catalog)."""

from __future__ import annotations

from pathlib import Path

import typer

from fashionrq.progress import console


def demo_command(
    out: Path = typer.Option(Path("demo-out"), "--out", help="Folder for the catalog, benchmark, runs, scores, report.md and report.html."),
    catalog: str = typer.Option("bundled", "--catalog", help="Catalog to build from: 'bundled' or a Myntra-layout folder."),
    encoder: str = typer.Option("minilm", "--encoder", help="Item encoder for the semantic IDs."),
    sid_method: str = typer.Option("rqvae", "--sid-method", help="rqvae (with attribute exclusivity), vanilla or rkmeans."),
    seed: int = typer.Option(0, "--seed", help="Seed of every random choice."),
    resamples: int = typer.Option(10_000, "--resamples", help="Paired cluster bootstrap resamples."),
    images: Path = typer.Option(None, "--images", help="Folder of <item_id>.jpg product images: thumbnails in report.html."),
) -> None:
    """Ingest, build the benchmark, run and score the offline baselines, compare them, write report.md and report.html."""
    from fashionrq.report.demo import DemoConfig, run_demo

    config = DemoConfig(catalog=catalog, encoder=encoder, sid_method=sid_method, seed=seed, resamples=resamples,
                        images=str(images) if images else None)
    report = run_demo(out, config, console=console)
    console.print(f"wrote {report}")


def register(app: typer.Typer) -> None:
    app.command("demo")(demo_command)
