"""``fashionrq synth``: a synthetic catalog of any size (with embeddings) for scale tests, never for quality claims."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from fashionrq.progress import console


def synth_command(
    items: int = typer.Option(..., "--items", min=1, help="Number of synthetic items to draw."),
    out: Path = typer.Option(..., "--out", help="Folder to write: items.parquet, embeddings.parquet, synth.json, SYNTHETIC.md."),
    seed: int = typer.Option(0, "--seed", help="Random seed; the same seed and size give byte-identical files."),
    dim: int = typer.Option(64, "--dim", min=2, help="Embedding dimension."),
    force: bool = typer.Option(False, "--force", help="Replace --out if it exists."),
) -> None:
    """Write a SYNTHETIC catalog drawn from the bundled catalog's joint attribute distributions, with attribute-clustered embeddings."""
    from fashionrq.catalog.synth import synthesize
    from fashionrq.io import refuse_existing

    refuse_existing(out, force, "synthetic catalog folder")
    start = time.perf_counter()
    catalog = synthesize(items, seed=seed, dim=dim)
    catalog.write(out, force=force)
    console.print(f"SYNTHETIC catalog: {items:,} items x {dim}-d embeddings (seed {seed}) written to {out} "
                  f"in {time.perf_counter() - start:.1f} s; build with `fashionrq build --catalog {out}/items.parquet "
                  f"--embeddings {out}/embeddings.parquet`. Never quote quality numbers measured on it.", soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("synth")(synth_command)
