"""``fashionrq demo``: the main job on the bundled catalog (or any catalog)."""

from __future__ import annotations

from pathlib import Path

import typer

from fashionrq.progress import console


def demo_command(
    out: Path = typer.Option(Path("demo-out"), "--out", help="Folder for the catalog, benchmark, runs, scores and report.md."),
    catalog: str = typer.Option("bundled", "--catalog", help="Catalog to build from: 'bundled' or a Myntra-layout folder."),
    encoder: str = typer.Option("minilm-int8", "--encoder", help="Item encoder for the semantic IDs."),
    sid_method: str = typer.Option("rqvae", "--sid-method", help="rqvae (with attribute exclusivity), vanilla or rkmeans."),
    seed: int = typer.Option(0, "--seed", help="Seed of every random choice."),
    resamples: int = typer.Option(10_000, "--resamples", help="Paired cluster bootstrap resamples."),
    systems: str = typer.Option(
        "random,bm25,minilm-int8,hybrid,hybrid+verifier", "--systems",
        help="Comma-separated systems to run; NAME+verifier adds the verifier reranker. Also: minilm, e5-small, splade-tiny, tfidf.",
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print each stage's wall time, CPU time and peak RSS as it ends."),
) -> None:
    """Ingest, build the benchmark, run and score the offline baselines, compare them and write report.md."""
    from fashionrq.report.demo import DemoConfig, parse_systems, run_demo

    config = DemoConfig(catalog=catalog, encoder=encoder, sid_method=sid_method, seed=seed, resamples=resamples,
                        systems=parse_systems(systems))
    report = run_demo(out, config, console=console, verbose=verbose)
    console.print(f"wrote {report}")


def register(app: typer.Typer) -> None:
    app.command("demo")(demo_command)
