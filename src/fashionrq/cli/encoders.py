"""``fashionrq embed``: item vectors for an items table, through the shared embedding cache."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from fashionrq.progress import console


def _items(source: str):
    from fashionrq.catalog import BUNDLED, bundled_items, load_items

    return bundled_items() if source == BUNDLED else load_items(source)


def embed_command(
    items: str = typer.Argument(..., help="items.parquet, a folder written by `fashionrq ingest`, or 'bundled'."),
    encoder: str = typer.Option("minilm", "--encoder", help="minilm, minilm-int8, e5-small, splade-tiny, st:<id>, open_clip:<id>."),
    cache: Path = typer.Option(None, "--cache", help="Cache folder (default $FASHIONRQ_CACHE or ~/.cache/fashionrq)."),
    out: Path = typer.Option(None, "--out", help="Also write the vectors here (.npy for dense, .npz for sparse)."),
    workers: int = typer.Option(1, "--workers", min=1, help="Single-threaded processes that share a cache miss."),
) -> None:
    """Embed every item with an encoder (cached on disk; a rerun computes nothing)."""
    import numpy as np  # imported here so other commands start fast
    import scipy.sparse as sp

    from fashionrq.encoders import cache_path, embed_items, get_encoder, item_texts

    start = time.perf_counter()
    table = _items(items)
    enc = get_encoder(encoder)
    path = cache_path(enc, item_texts(table), "document", cache)
    cached = path.exists()
    vectors = embed_items(table, enc, cache, workers=workers)
    seconds = time.perf_counter() - start
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        if sp.issparse(vectors):
            sp.save_npz(out, vectors)
        else:
            np.save(out, vectors)
    console.print(
        f"{enc.name}: {vectors.shape[0]:,} items x {vectors.shape[1]:,} ({enc.kind}), "
        f"{'read from cache' if cached else 'computed'} in {seconds:.1f} s; cache file {path}"
        + (f"; wrote {out}" if out is not None else ""),
        soft_wrap=True,
    )


def register(app: typer.Typer) -> None:
    app.command("embed")(embed_command)
