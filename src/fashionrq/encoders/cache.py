"""On-disk embedding cache: keyed by encoder fingerprint, role and the content hash of the texts."""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import scipy.sparse as sp

from fashionrq.encoders.base import Encoder, as_texts
from fashionrq.encoders.registry import get_encoder
from fashionrq.encoders.text import item_text
from fashionrq.errors import FashionRQError

KINDS = ("query", "document")

#: Lists up to this long are also kept in memory by :func:`embed_texts` (queries, attribute values).
MEMORY_MAX_TEXTS = 10_000
#: Seconds between looks at a cache entry another process is computing.
LOCK_POLL_S = 2.0
_MEMORY: dict[str, np.ndarray | sp.csr_matrix] = {}


def clear_memory_cache() -> None:
    """Forget the in-memory copies kept by :func:`embed_texts` (the files on disk stay)."""
    _MEMORY.clear()


def default_cache_dir() -> Path:
    """``$FASHIONRQ_CACHE`` if set, else ``~/.cache/fashionrq``."""
    return Path(os.environ.get("FASHIONRQ_CACHE") or Path.home() / ".cache" / "fashionrq")


def texts_hash(texts: Sequence[str]) -> str:
    """sha256 over the texts in order (length-prefixed, so no two lists collide)."""
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def cache_path(encoder: Encoder, texts: Sequence[str], kind: str, cache_dir: Path | None = None) -> Path:
    """Where the vectors of ``texts`` encoded by ``encoder`` as ``kind`` live on disk."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in encoder.name)
    suffix = "npz" if encoder.kind == "sparse" else "npy"
    name = f"{kind}-{encoder.fingerprint[:16]}-{texts_hash(texts)[:24]}-{len(texts)}.{suffix}"
    return Path(cache_dir or default_cache_dir()) / "embeddings" / safe / name


def _read_or_fail(path: Path, kind: str):
    try:
        return sp.load_npz(path).tocsr() if kind == "sparse" else np.load(path)
    except (OSError, ValueError) as err:
        raise FashionRQError(f"embedding cache file {path} is unreadable ({err}): delete it and run again.") from None


def _write(path: Path, vectors) -> None:
    """Write through a temporary file in the same folder and rename it into place (atomic)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            if sp.issparse(vectors):
                sp.save_npz(handle, vectors, compressed=False)
            else:
                np.save(handle, vectors)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _resolve(encoder: str | Encoder) -> Encoder:
    return get_encoder(encoder) if isinstance(encoder, str) else encoder


def _compute_once(path: Path, compute, kind: str):
    """Run ``compute`` and write its result to ``path``, unless another process is already doing so:
    then wait (polling) until the file appears, or the other process gives up and this one takes over."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as lock:
        while True:
            if path.exists():
                return _read_or_fail(path, kind)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                time.sleep(LOCK_POLL_S)
        if path.exists():
            return _read_or_fail(path, kind)
        vectors = compute()
        _write(path, vectors)
        return vectors


def _compute(enc: Encoder, texts: list[str], kind: str, workers: int):
    if workers > 1 and len(texts) > workers * enc.batch_size:
        from fashionrq.encoders.parallel import encode_in_workers

        return encode_in_workers(enc, texts, kind == "query", workers)
    return enc.encode_queries(texts) if kind == "query" else enc.encode_documents(texts)


def embed_texts(
    texts: Sequence[str],
    encoder: str | Encoder,
    kind: str = "query",
    cache_dir: Path | None = None,
    workers: int = 1,
) -> np.ndarray | sp.csr_matrix:
    """Encode ``texts`` as queries or documents (``kind``), cached in memory and on disk.

    The cache key is the encoder's fingerprint, ``kind`` and the content hash of the whole list, so a
    repeated call (in this or a later process) returns the stored vectors without running the model.
    ``workers > 1`` computes a miss in that many single-threaded processes (registry encoders only).
    """
    if kind not in KINDS:
        raise FashionRQError(f"embedding kind '{kind}' is unknown: use 'query' or 'document'.")
    texts = as_texts(texts)
    enc = _resolve(encoder)
    path = cache_path(enc, texts, kind, cache_dir)
    key = str(path)
    if key in _MEMORY:
        return _MEMORY[key].copy()
    if path.exists():
        vectors = _read_or_fail(path, enc.kind)
    else:
        vectors = _compute_once(path, lambda: _compute(enc, texts, kind, workers), enc.kind)
    if len(texts) <= MEMORY_MAX_TEXTS:
        _MEMORY[key] = vectors.copy()
    return vectors


def item_texts(table: pa.Table) -> list[str]:
    """:func:`item_text` of every row of an items table, in table order."""
    return [item_text(row) for row in table.to_pylist()]


def embed_items(
    table: pa.Table, encoder: str | Encoder, cache_dir: Path | None = None, workers: int = 1
) -> np.ndarray | sp.csr_matrix:
    """Document vectors of every item (rows of an items table, in order), cached on disk.

    The cache key is the encoder id and fingerprint plus the content hash of all item texts, so a rerun
    on the same catalog reads the vectors back and a changed item misses the cache.
    """
    return embed_texts(item_texts(table), encoder, kind="document", cache_dir=cache_dir, workers=workers)
