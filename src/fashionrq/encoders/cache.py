"""On-disk embedding cache: keyed by encoder fingerprint, role and the content hash of the texts."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import time
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pyarrow as pa
import scipy.sparse as sp

from fashionrq import cachedigest
from fashionrq.encoders.base import Encoder, as_texts
from fashionrq.encoders.parallel import encode_in_workers, encode_with_engine, encoding_workers
from fashionrq.encoders.registry import get_encoder
from fashionrq.encoders.text import TEXT_COLUMNS, item_text
from fashionrq.errors import FashionRQError
from fashionrq.io import atomic_write_text, atomic_writer, crash_point
from fashionrq.layout import default_cache_dir
from fashionrq.progress import console, track

KINDS = ("query", "document")

#: Lists up to this long are also kept in memory by :func:`embed_texts` (queries, attribute values).
MEMORY_MAX_TEXTS = 10_000
#: Texts encoded per cache chunk: an interrupted embedding loses at most one chunk of work.
EMBED_CHUNK = 4096
#: Seconds between looks at a cache entry another process is computing.
LOCK_POLL_S = 2.0
_MEMORY: dict[str, np.ndarray | sp.csr_matrix] = {}
#: A batch-invariant encoder's largest call of up to this many texts is also kept by text, so a later call on a
#: subset of those texts (the MCMR release on a catalog's photographed items) gathers rows instead of encoding.
BY_TEXT_MAX_TEXTS = 200_000
_BY_TEXT: dict[tuple[str, str], tuple[dict[str, int], np.ndarray]] = {}


def clear_memory_cache() -> None:
    """Forget the in-memory copies kept by :func:`embed_texts` (the files on disk stay)."""
    _MEMORY.clear()
    _BY_TEXT.clear()


def _known_rows(enc, kind: str, texts: list[str]) -> np.ndarray | None:
    """The vectors of ``texts`` gathered from the encoder's call kept by text, if it had every one."""
    index, vectors = _BY_TEXT.get((enc.fingerprint, kind), ({}, None))
    if vectors is None or any(t not in index for t in texts):
        return None
    return vectors[[index[t] for t in texts]]


def _keep_by_text(enc, kind: str, texts: list[str], vectors) -> None:
    """Keep the largest call (up to :data:`BY_TEXT_MAX_TEXTS` texts) of a dense batch-invariant encoder by text."""
    if not (_reorderable(enc) and len(texts) <= BY_TEXT_MAX_TEXTS):
        return
    key = (enc.fingerprint, kind)
    if len(texts) >= len(_BY_TEXT.get(key, ({}, None))[0]):
        _BY_TEXT[key] = ({t: i for i, t in enumerate(texts)}, vectors.copy())


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


def _reorderable(enc) -> bool:
    """A dense batch-invariant encoder: a text's vector does not depend on the other texts of the call."""
    return bool(getattr(enc, "batch_invariant", False)) and enc.kind == "dense"


def set_pointer(encoder: Encoder, texts: Sequence[str], kind: str, cache_dir: Path | None = None) -> Path:
    """The file naming the cache entry of any ordering of ``texts`` (the hash is over the texts sorted)."""
    path = cache_path(encoder, sorted(texts), kind, cache_dir)
    return path.with_name("set-" + path.stem + ".txt")


def _text_order(texts: list[str]) -> np.ndarray:
    """Row numbers of ``texts`` sorted by text (stable)."""
    return np.asarray(sorted(range(len(texts)), key=texts.__getitem__), dtype=np.int64)


def _record_set(enc, kind: str, texts: list[str], path: Path, cache_dir: Path | None) -> None:
    """Point the sorted texts at ``path`` (dense batch-invariant encoders), so the same texts in another order are
    gathered from it, in this or a later process (a release publishes its items in another order than the catalog),
    and, for a call of at least one cache chunk (a catalog, not a batch of queries), write each row's text key beside
    it (``.keys.npy``), so a later call on other texts gathers the ones it shares (:func:`_gathered_in_part`). The
    entry's text order is written first, then the pointer: a pointer always finds its order."""
    if not _reorderable(enc):
        return
    root = _root(cache_dir)
    if len(texts) >= EMBED_CHUNK and not path.with_suffix(".keys.npy").exists():
        with atomic_writer(path.with_suffix(".keys.npy"), "wb") as handle:
            np.save(handle, np.frombuffer(b"".join(_text_keys(texts)), dtype=np.uint8).reshape(len(texts), 16))
        cachedigest.record(root, path.with_suffix(".keys.npy"))
    pointer = set_pointer(enc, texts, kind, cache_dir)
    if pointer.exists():
        return
    with atomic_writer(path.with_suffix(".order.npy"), "wb") as handle:
        np.save(handle, _text_order(texts))
    cachedigest.record(root, path.with_suffix(".order.npy"))
    atomic_write_text(pointer, path.name)


def _text_keys(texts: list[str]) -> list[bytes]:
    """Each text's 128-bit BLAKE2b digest, by which a later call finds the text's vector (a ``.keys.npy`` row)."""
    return [hashlib.blake2b(t.encode("utf-8"), digest_size=16).digest() for t in texts]


def _gathered_in_part(enc, kind: str, texts: list[str], cache_dir: Path | None) -> tuple[np.ndarray, list[int]] | None:
    """For a dense batch-invariant encoder, whose vector of a text does not depend on the other texts: the vectors of
    ``texts`` that earlier cached calls (with their verified ``.keys.npy``) hold, zeros elsewhere, and the rows still
    to encode; ``None`` when no earlier call holds any. An edited catalog encodes only its new and changed texts.
    Calls shorter than a cache chunk (queries) neither look nor leave keys: their own encoding is cheap."""
    if not _reorderable(enc) or len(texts) < EMBED_CHUNK:
        return None
    wanted: dict[bytes, list[int]] = {}
    for row, key in enumerate(_text_keys(texts)):
        wanted.setdefault(key, []).append(row)
    vectors, root = None, _root(cache_dir)
    folder = cache_path(enc, [], kind, cache_dir).parent
    for keys_file in sorted(folder.glob(f"{kind}-{enc.fingerprint[:16]}-*.keys.npy")) if folder.is_dir() else ():
        source = keys_file.with_name(keys_file.name.removesuffix(".keys.npy") + ".npy")
        if not wanted:
            break
        if not (source.exists() and cachedigest.trusted(root, keys_file) and cachedigest.trusted(root, source)):
            continue  # changed since written, or still being written by another process: passed over, not deleted
        held = np.load(keys_file, allow_pickle=False)
        found = {key: row for row, key in enumerate(map(bytes, held)) if key in wanted}
        if not found:
            continue
        stored = np.load(source, mmap_mode="r", allow_pickle=False)
        if vectors is None:
            vectors = np.zeros((len(texts), stored.shape[1]), dtype=stored.dtype)
        into = [(row, held_row) for key, held_row in found.items() for row in wanted.pop(key)]
        vectors[[row for row, _ in into]] = stored[[held_row for _, held_row in into]]
    if vectors is None:
        return None
    return vectors, sorted(row for rows in wanted.values() for row in rows)


def _reordered(enc, kind: str, texts: list[str], cache_dir: Path | None) -> np.ndarray | None:
    """The vectors of ``texts`` gathered from a cached call on the same texts in another order, if there is one (and
    its vectors and order match their digests)."""
    if not _reorderable(enc) or not (pointer := set_pointer(enc, texts, kind, cache_dir)).exists():
        return None
    source = pointer.with_name(pointer.read_text(encoding="utf-8").strip())
    root = _root(cache_dir)
    if not (source.exists() and _verified(root, source) and _verified(root, source.with_suffix(".order.npy"))):
        return None
    stored, stored_order = _read_or_fail(source, enc.kind), np.load(source.with_suffix(".order.npy"))
    vectors = np.empty_like(stored)
    vectors[_text_order(texts)] = stored[stored_order]  # the k-th smallest text has the same vector in both calls
    return vectors


def _root(cache_dir: Path | None) -> Path:
    return Path(cache_dir or default_cache_dir())


def _verified(root: Path, path: Path) -> bool:
    """Whether the cache entry ``path`` matches its recorded digest; one that does not is reported and deleted."""
    if not path.exists() or cachedigest.trusted(root, path):
        return path.exists()
    if cachedigest.sealed_child():  # the shared folder is read-only to a sealed run: it computes its own copy
        return False
    console.print(f"embedding cache file {path} does not match a digest recorded when it was written (changed since, "
                  "written by a sealed run, or by an older fashionrq); computing it again.", soft_wrap=True)
    path.unlink(missing_ok=True)
    return False


def _read_or_fail(path: Path, kind: str):
    try:
        return sp.load_npz(path).tocsr() if kind == "sparse" else np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        raise FashionRQError(f"embedding cache file {path} is unreadable ({err}): delete it and run again.") from None


def _write(path: Path, vectors) -> None:
    """Write through a temporary file in the same folder and rename it into place (atomic)."""
    with atomic_writer(path, "wb") as handle:
        if sp.issparse(vectors):
            sp.save_npz(handle, vectors, compressed=False)
        else:
            np.save(handle, vectors)


def _resolve(encoder: str | Encoder) -> Encoder:
    return get_encoder(encoder) if isinstance(encoder, str) else encoder


def _chunk(parts: Path, start: int, texts: list[str], compute, kind: str):
    """Vectors of ``texts`` (rows ``start``...), read from the chunk file when an earlier run finished it."""
    path = parts / f"{start:010d}-{len(texts)}.{'npz' if kind == 'sparse' else 'npy'}"
    if path.is_file():
        try:
            vectors = sp.load_npz(path).tocsr() if kind == "sparse" else np.load(path, allow_pickle=False)
            if vectors.shape[0] == len(texts):
                return vectors
        except (OSError, ValueError, EOFError):
            pass  # a damaged chunk is computed again
    vectors = compute(texts)
    _write(path, vectors)
    crash_point("embed-chunk")
    return vectors


def _compute_chunked(path: Path, texts: list[str], compute, kind: str, label: str):
    """``compute`` over ``texts`` in chunks of EMBED_CHUNK, each kept in ``PATH.parts/`` as soon as it is done,
    so an interrupted embedding resumes at the first missing chunk; the parts are joined into ``path``. Progress
    (named ``label``) counts chunks: in a log a line comes every few chunks, where one chunk's own bar is too short
    to print any.

    Chunks are cut from the texts in (stable) length order, the order in which encoders batch them, so with
    EMBED_CHUNK a multiple of the batch size every batch, and so every vector, is the one an unchunked call gives.
    """
    parts = path.with_name(path.name + ".parts")
    parts.mkdir(parents=True, exist_ok=True)
    order = np.argsort([len(t) for t in texts], kind="stable")
    by_length = [texts[i] for i in order]
    starts = range(0, max(len(texts), 1), EMBED_CHUNK)
    if len(starts) > 1:
        starts = track(starts, f"{label} in chunks of {EMBED_CHUNK:,}", total=len(starts))
    chunks = [_chunk(parts, start, by_length[start:start + EMBED_CHUNK], compute, kind) for start in starts]
    joined = sp.vstack(chunks, format="csr") if kind == "sparse" else np.concatenate(chunks)
    vectors = joined[np.argsort(order, kind="stable")]
    _write(path, vectors)
    shutil.rmtree(parts, ignore_errors=True)
    return vectors


def _compute_once(path: Path, texts: list[str], compute, kind: str, label: str, chunked: bool = True):
    """Compute the vectors of ``texts`` (chunked, resumable) and write them to ``path``, unless another process is
    already doing so: then wait (polling) until the file appears, or the other process gives up and this one takes over."""
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
        if chunked:
            return _compute_chunked(path, texts, compute, kind, label)
        vectors = compute(texts)
        _write(path, vectors)
        return vectors


def _compute(enc: Encoder, texts: list[str], kind: str, workers: int, engine=None, pool=None):
    if engine is not None:
        return encode_with_engine(engine, enc, texts, kind == "query")
    if workers > 1 and len(texts) > workers * enc.batch_size:
        return encode_in_workers(enc, texts, kind == "query", workers, pool)
    return enc.encode_queries(texts) if kind == "query" else enc.encode_documents(texts)


def embed_texts(
    texts: Sequence[str],
    encoder: str | Encoder,
    kind: str = "query",
    cache_dir: Path | None = None,
    workers: int = 1,
    engine=None,
) -> np.ndarray | sp.csr_matrix:
    """Encode ``texts`` as queries or documents (``kind``), cached in memory and on disk.

    The cache key is the encoder's fingerprint, ``kind`` and the content hash of the whole list, so a
    repeated call (in this or a later process) returns the stored vectors without running the model. A miss
    is encoded in chunks of :data:`EMBED_CHUNK` texts, each cached as soon as it is done, so an interrupted
    call resumes where it stopped.
    ``workers > 1`` computes a miss in that many single-threaded processes (registry encoders only). An
    ``engine`` (:mod:`fashionrq.engine`) computes a miss instead, in its own chunks, and the result is cached whole.
    """
    if kind not in KINDS:
        raise FashionRQError(f"embedding kind '{kind}' is unknown: use 'query' or 'document'.")
    texts = as_texts(texts)
    enc = _resolve(encoder)
    path = cache_path(enc, texts, kind, cache_dir)
    key = str(path)
    if key in _MEMORY:
        return _MEMORY[key].copy()
    if _verified(_root(cache_dir), path):
        vectors = _read_or_fail(path, enc.kind)
        _keep_by_text(enc, kind, texts, vectors)
        return _remembered(key, texts, vectors)
    if cachedigest.sealed_child():  # the shared cache is read-only to a sealed run: nothing it computes is kept
        vectors = _known_rows(enc, kind, texts)
        if vectors is None and (vectors := _reordered(enc, kind, texts, cache_dir)) is None:
            vectors = _compute(enc, texts, kind, workers, engine)
        _keep_by_text(enc, kind, texts, vectors)
        return _remembered(key, texts, vectors)
    if (vectors := _known_rows(enc, kind, texts)) is not None:  # a subset of a kept call: gathered, not encoded
        _write(path, vectors)
    elif (vectors := _reordered(enc, kind, texts, cache_dir)) is not None:  # a kept call in another order
        _write(path, vectors)
        _keep_by_text(enc, kind, texts, vectors)
    else:
        if (partial := _gathered_in_part(enc, kind, texts, cache_dir)) is not None:  # earlier calls hold some texts
            vectors, missing = partial
            if missing:  # encoded (and cached) on their own, then put in their rows
                vectors[missing] = embed_texts([texts[i] for i in missing], enc, kind, cache_dir, workers, engine)
            _write(path, vectors)
        else:
            with encoding_workers(workers) if workers > 1 and engine is None else nullcontext() as pool:  # one for every chunk
                vectors = _compute_once(path, texts, lambda chunk: _compute(enc, chunk, kind, workers, engine, pool), enc.kind,
                                        f"{enc.name}: embedding {len(texts):,} {'queries' if kind == 'query' else 'documents'}",
                                        engine is None)
        _keep_by_text(enc, kind, texts, vectors)
        _record_set(enc, kind, texts, path, cache_dir)
    cachedigest.record(_root(cache_dir), path)
    return _remembered(key, texts, vectors)


def _remembered(key: str, texts: list[str], vectors):
    """``vectors``, also kept in memory when ``texts`` is short (:data:`MEMORY_MAX_TEXTS`)."""
    if len(texts) <= MEMORY_MAX_TEXTS:
        _MEMORY[key] = vectors.copy()
    return vectors


def item_texts(table: pa.Table) -> list[str]:
    """:func:`item_text` of every row of an items table, in table order (only the columns the template reads are
    converted to Python)."""
    columns = [c for c in TEXT_COLUMNS if c in table.column_names]
    return [item_text(row) for row in table.select(columns).to_pylist()]


def remember_items(table: pa.Table, encoder: str | Encoder, cache_dir: Path | None = None) -> bool:
    """Read the items' vectors into memory when the disk cache already holds them (True), so that a later call of a
    dense batch-invariant encoder on a subset of these items gathers their rows; never encodes (False on a miss)."""
    enc = _resolve(encoder)
    texts = item_texts(table)
    if not (getattr(enc, "batch_invariant", False) and (cache_path(enc, texts, "document", cache_dir).exists()
                                                         or set_pointer(enc, texts, "document", cache_dir).exists())):
        return False
    embed_texts(texts, enc, kind="document", cache_dir=cache_dir)
    return True


def embed_items(
    table: pa.Table, encoder: str | Encoder, cache_dir: Path | None = None, workers: int = 1, engine=None
) -> np.ndarray | sp.csr_matrix:
    """Document vectors of every item (rows of an items table, in order), cached on disk.

    The cache key is the encoder id and fingerprint plus the content hash of all item texts, so a rerun
    on the same catalog reads the vectors back and a changed item misses the cache.
    """
    return embed_texts(item_texts(table), encoder, kind="document", cache_dir=cache_dir, workers=workers, engine=engine)
