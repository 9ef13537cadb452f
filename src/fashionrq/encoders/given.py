"""Bring your own embeddings: item vectors computed elsewhere (a GPU pipeline), checked against the items.

Two layouts are accepted:

* Parquet with an ``item_id`` string column and one list (or fixed-size list) column of floats;
* ``.npy`` holding an ``(N, d)`` float array, with the ids one per line in ``<same name>.ids.txt`` beside it.

The vectors are returned in the items table's row order, as float32, exactly as given (no re-normalisation),
so a file written by ``fashionrq embed --out FILE.parquet`` reproduces the computed embeddings bit for bit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from fashionrq.catalog.clean import first_duplicate
from fashionrq.encoders.cache import embed_items
from fashionrq.encoders.registry import get_encoder
from fashionrq.errors import InputError
from fashionrq.io import atomic_write_text, atomic_writer, write_vectors_parquet

ENCODER_KEY = b"fashionrq.encoder"


@dataclass(frozen=True)
class GivenEmbeddings:
    """Vectors aligned to an items table, and where they came from."""

    vectors: np.ndarray
    path: Path
    encoder: dict  # {"name", "fingerprint"}: from the file's metadata, or "given" and the vectors' hash


def ids_path(npy: Path) -> Path:
    """The id list that goes with a ``.npy`` embeddings file."""
    return npy.with_suffix(".ids.txt")


def load_given_embeddings(path: str | Path, item_ids: pa.Array | pa.ChunkedArray | list[str],
                          dim: int | None = None) -> GivenEmbeddings:
    """Read ``path`` and align its vectors to ``item_ids``; every mismatch is one sentence naming the file and the fix."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"embeddings file {path} does not exist; pass a Parquet file (item_id + a list column) or a .npy file with {path.stem}.ids.txt beside it.")
    ids, vectors, encoder = _read_npy(path) if path.suffix == ".npy" else _read_parquet(path)
    _check_values(path, vectors, dim)
    order = _align(path, ids, pa.chunked_array([item_ids]) if isinstance(item_ids, (pa.Array, list)) else item_ids)
    vectors = np.ascontiguousarray(vectors[order], dtype=np.float32)
    return GivenEmbeddings(vectors=vectors, path=path, encoder=encoder or {"name": "given", "fingerprint": None})


def _read_parquet(path: Path) -> tuple[pa.ChunkedArray, np.ndarray, dict | None]:
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as err:
        raise InputError(f"embeddings file {path} is not readable Parquet ({err}); write it with pyarrow, or use .npy plus an id list.") from None
    if "item_id" not in table.column_names:
        raise InputError(f"embeddings file {path} has no item_id column; add one naming each row's item.")
    lists = [f.name for f in table.schema if pa.types.is_list(f.type) or pa.types.is_fixed_size_list(f.type) or pa.types.is_large_list(f.type)]
    if len(lists) != 1:
        raise InputError(f"embeddings file {path} must have exactly one list column of floats beside item_id (found {len(lists)}: {', '.join(lists) or 'none'}).")
    column = table.column(lists[0]).combine_chunks()
    lengths = pc.list_value_length(column).to_numpy(zero_copy_only=False)
    if column.null_count or (len(lengths) and lengths.min() != lengths.max()):
        row = int(np.flatnonzero(pc.is_null(column).to_numpy(zero_copy_only=False) | (lengths != lengths[0]))[0])
        raise InputError(f"embeddings file {path} row {row + 1} has a vector of a different length (or none); every vector must have the same dimension.")
    dim = int(lengths[0]) if len(lengths) else 0
    flat = pc.list_flatten(column).cast(pa.float32()).to_numpy(zero_copy_only=False)
    meta = table.schema.metadata or {}
    encoder = json.loads(meta[ENCODER_KEY]) if ENCODER_KEY in meta else None
    return table.column("item_id"), flat.reshape(len(column), dim), encoder


def _read_npy(path: Path) -> tuple[pa.ChunkedArray, np.ndarray, None]:
    id_file = ids_path(path)
    if not id_file.is_file():
        raise InputError(f"embeddings file {path} needs its item ids, one per line, in {id_file}; write that file in the array's row order.")
    try:
        vectors = np.load(path, allow_pickle=False)
    except (ValueError, OSError) as err:
        raise InputError(f"embeddings file {path} is not a readable .npy array ({err}); save it with numpy.save.") from None
    if vectors.ndim != 2 or not np.issubdtype(vectors.dtype, np.number):
        raise InputError(f"embeddings file {path} holds a {vectors.ndim}-d {vectors.dtype} array; it must be a 2-d (items x dimension) float array.")
    ids = id_file.read_text(encoding="utf-8").splitlines()
    if len(ids) != len(vectors):
        raise InputError(f"{id_file} lists {len(ids):,} ids but {path} has {len(vectors):,} rows; give one id per row, in row order.")
    return pa.chunked_array([pa.array(ids, pa.string())]), vectors, None


def _check_values(path: Path, vectors: np.ndarray, dim: int | None) -> None:
    if dim is not None and vectors.shape[1] != dim:
        raise InputError(f"embeddings file {path} has {vectors.shape[1]}-dimensional vectors but {dim} are expected; pass vectors of dimension {dim}.")
    if vectors.shape[1] == 0:
        raise InputError(f"embeddings file {path} has empty vectors; every vector needs at least one value.")
    finite = np.isfinite(vectors).all(axis=1)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raise InputError(f"embeddings file {path} has {len(bad):,} vector(s) with NaN or infinite values (first at row {bad[0] + 1}); recompute or drop those items.")


def _align(path: Path, ids: pa.ChunkedArray, item_ids: pa.ChunkedArray) -> np.ndarray:
    """Row of ``ids`` for each item, refusing duplicate, missing and extra ids."""
    ids = ids.cast(pa.string())
    dup = first_duplicate(ids)
    if dup is not None:
        raise InputError(f"embeddings file {path} lists item id {dup!r} more than once; keep one vector per item.")
    index = pc.index_in(item_ids, value_set=ids)
    missing = pc.is_null(index).to_numpy(zero_copy_only=False)
    if missing.any():
        first = item_ids.take(pa.array([int(np.flatnonzero(missing)[0])]))[0].as_py()
        raise InputError(f"embeddings file {path} has no vector for {int(missing.sum()):,} catalog item(s) (first: {first!r}); embed every item of the catalog.")
    if len(ids) != len(item_ids):
        extra = pc.is_null(pc.index_in(ids, value_set=item_ids)).to_numpy(zero_copy_only=False)
        first = ids.take(pa.array([int(np.flatnonzero(extra)[0])]))[0].as_py()
        raise InputError(f"embeddings file {path} has {int(extra.sum()):,} id(s) that are not in the catalog (first: {first!r}); drop them or pass the matching catalog.")
    return index.to_numpy(zero_copy_only=False).astype(np.int64)


def save_embeddings(path: str | Path, item_ids, vectors: np.ndarray, encoder: dict) -> Path:
    """Write vectors in a layout ``load_given_embeddings`` reads: ``.parquet`` (with the encoder in its metadata) or ``.npy`` + id list."""
    path = Path(path)
    ids = item_ids.to_pylist() if hasattr(item_ids, "to_pylist") else list(item_ids)
    if path.suffix == ".parquet":
        write_vectors_parquet(path, pa.array(ids, pa.string()), vectors, {ENCODER_KEY: json.dumps(encoder, sort_keys=True).encode()})
    elif path.suffix == ".npy":
        with atomic_writer(path, "wb") as handle:
            np.save(handle, np.asarray(vectors, dtype=np.float32))
        atomic_write_text(ids_path(path), "".join(f"{i}\n" for i in ids))
    else:
        raise InputError(f"embeddings output {path} must end in .parquet or .npy.")
    return path


def item_vectors(items: pa.Table, encoder: str, embeddings: str | Path | None,
                 cache_dir: str | Path | None) -> tuple[np.ndarray, dict]:
    """The item embeddings and the encoder's identity: computed by ``encoder`` (cached), or read from ``embeddings``.

    A file written by ``fashionrq embed --out FILE.parquet`` carries its encoder's name and fingerprint, so a
    build from it records the same encoder (and the same manifest) as the build that computed the vectors.
    """
    if embeddings is not None:
        given = load_given_embeddings(embeddings, items.column("item_id"))
        return given.vectors, {"name": given.encoder["name"], "fingerprint": given.encoder["fingerprint"]}
    enc = get_encoder(encoder)
    X = embed_items(items, enc, cache_dir=Path(cache_dir) if cache_dir else None)
    return X, {"name": enc.name, "fingerprint": enc.fingerprint}
