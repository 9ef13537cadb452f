"""``fashionrq embed``: item vectors for an items table, through the shared embedding cache."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from fashionrq.cli.engine_options import ADDRESS_OPTION, CHUNK_OPTION, ENGINE_OPTION, make_engine
from fashionrq.encoders.registry import DEFAULT_ENCODER
from fashionrq.errors import InputError
from fashionrq.layout import check_file_output
from fashionrq.progress import console


def _items(source: str):
    from fashionrq.catalog import BUNDLED, bundled_items, load_items  # imported here so other commands start fast

    return bundled_items() if source == BUNDLED else load_items(source)


def embed_command(
    items: str = typer.Argument(..., help="items.parquet, a folder written by `fashionrq ingest`, or 'bundled'."),
    encoder: str = typer.Option(DEFAULT_ENCODER, "--encoder", help="minilm, minilm-int8, e5-small, splade-tiny, st:<id>, open_clip:<id>."),
    cache: Path = typer.Option(None, "--cache", help="Cache folder (default $FASHIONRQ_CACHE or ~/.cache/fashionrq)."),
    out: Path = typer.Option(None, "--out", help="Also write the vectors here: .parquet (item_id + vector, with the encoder recorded; what --embeddings reads) or .npy (+ .ids.txt) for dense, .npz for sparse."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
    embeddings: Path = typer.Option(None, "--embeddings", help="Check a file of precomputed item vectors against the items instead of encoding."),
    workers: int = typer.Option(1, "--workers", min=1, help="Single-threaded processes that share a cache miss (without --engine)."),
    engine: str = typer.Option(None, "--engine", help=ENGINE_OPTION.help),
    address: str = ADDRESS_OPTION,
    chunk_rows: int = CHUNK_OPTION,
) -> None:
    """Embed every item with an encoder (cached on disk; a rerun computes nothing)."""
    check_file_output(out, force, "vectors file")
    start = time.perf_counter()
    table = _items(items)
    if embeddings is not None:
        from fashionrq.encoders.given import load_given_embeddings

        given = load_given_embeddings(embeddings, table.column("item_id"))
        console.print(f"{embeddings}: {given.vectors.shape[0]:,} items x {given.vectors.shape[1]:,}, every catalog item has exactly one "
                      f"finite vector (encoder recorded: {given.encoder['name']}).", soft_wrap=True)
        return
    from fashionrq.encoders import cache_path, embed_items, get_encoder, item_texts

    runner = None if engine is None else make_engine(engine, address, chunk_rows)
    enc = get_encoder(encoder)
    path = cache_path(enc, item_texts(table), "document", cache)
    cached = path.exists()
    vectors = embed_items(table, enc, cache, workers=workers, engine=runner)
    seconds = time.perf_counter() - start
    if out is not None:
        _save(out, table, vectors, enc)
    console.print(
        f"{enc.name}: {vectors.shape[0]:,} items x {vectors.shape[1]:,} ({enc.kind}), "
        f"{'read from cache' if cached else 'computed'} in {seconds:.1f} s"
        + ("" if cached or runner is None else f" by the {runner.describe()}") + f"; cache file {path}"
        + (f"; wrote {out}" if out is not None else ""),
        soft_wrap=True,
    )


def _save(out: Path, table, vectors, enc) -> None:
    import numpy as np
    import scipy.sparse as sp

    from fashionrq.encoders.given import save_embeddings
    from fashionrq.io import atomic_writer

    if sp.issparse(vectors):
        if out.suffix != ".npz":
            raise InputError(f"{enc.name} vectors are sparse; write them to a .npz file, not {out}.")
        with atomic_writer(out, "wb") as handle:
            sp.save_npz(handle, vectors)
    else:
        save_embeddings(out, table.column("item_id"), np.asarray(vectors), {"name": enc.name, "fingerprint": enc.fingerprint})


def register(app: typer.Typer) -> None:
    app.command("embed")(embed_command)
