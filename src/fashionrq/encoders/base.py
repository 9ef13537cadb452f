"""The encoder interface shared by every backend: batching, ordering, normalisation, progress."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from fashionrq.errors import FashionRQError
from fashionrq.exact import row_norms
from fashionrq.progress import track

#: Inputs longer than this many batches get a progress bar.
PROGRESS_MIN_BATCHES = 4


@lru_cache(maxsize=None)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def file_sha256(path: str | Path) -> str:
    """sha256 of a weights file, computed once per process (keyed by path, size and mtime)."""
    stat = Path(path).stat()
    return _file_sha256(str(path), stat.st_size, stat.st_mtime_ns)


def l2_normalise(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (all-zero rows stay zero), as float32; the norms are exact grid sums
    (:func:`fashionrq.exact.row_norms`), so a row's result does not depend on its position or the CPU."""
    x = np.asarray(x, dtype=np.float32)
    norms = row_norms(x)[:, None]
    return (x / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


def as_texts(texts: Iterable[str]) -> list[str]:
    """``texts`` as a list of str, refusing a bare string and non-string entries."""
    if isinstance(texts, str):
        raise FashionRQError("encode_queries/encode_documents take a list of texts, not one string: wrap it as [text].")
    texts = list(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise FashionRQError(f"text {i} is {type(text).__name__}, not str: pass strings (use item_text(row) for items).")
    return texts


class Encoder:
    """Base class. Subclasses set ``name``, ``dim``, ``kind``, ``batch_size`` and implement
    ``identity`` and ``_encode_batch``; everything else (ordering, batching, progress, output type) is here.
    """

    name: str
    dim: int
    kind: str = "dense"
    batch_size: int = 64
    #: True when a text's vector never depends on the texts batched with it: repeated texts are then encoded once.
    batch_invariant: bool = False

    def __init__(self) -> None:
        #: Number of texts this encoder has run through its model (cache hits leave it unchanged).
        self.texts_encoded = 0

    @property
    def identity(self) -> str:
        """A string that changes whenever the vectors could change (weights hash, model id + version, settings)."""
        raise NotImplementedError

    @property
    def fingerprint(self) -> str:
        """sha256 of :attr:`identity`: the encoder part of every cache key and of a release manifest."""
        return hashlib.sha256(self.identity.encode()).hexdigest()

    def _encode_batch(self, texts: list[str], is_query: bool):
        """Encode one batch; dense encoders return an (n, dim) array, sparse ones a csr_matrix."""
        raise NotImplementedError

    def encode_queries(self, texts: Sequence[str]):
        """Encode search queries."""
        return self._encode(as_texts(texts), is_query=True)

    def encode_documents(self, texts: Sequence[str]):
        """Encode documents (item texts)."""
        return self._encode(as_texts(texts), is_query=False)

    def _encode(self, texts: list[str], is_query: bool):
        if not texts:
            if self.kind == "sparse":
                return sp.csr_matrix((0, self.dim), dtype=np.float32)
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.batch_invariant:
            position = {t: i for i, t in enumerate(dict.fromkeys(texts))}
            if len(position) < len(texts):
                return self._encode_batches(list(position), is_query)[[position[t] for t in texts]]
        return self._encode_batches(texts, is_query)

    def _encode_batches(self, texts: list[str], is_query: bool):
        # Batches of similar length pad less; a stable sort keeps the result deterministic.
        order = np.argsort([len(t) for t in texts], kind="stable")
        starts = range(0, len(texts), self.batch_size)
        if len(starts) >= PROGRESS_MIN_BATCHES:
            kind = "queries" if is_query else "documents"
            starts = track(starts, f"{self.name}: encoding {len(texts):,} {kind}", total=len(starts))
        parts = []
        for start in starts:
            batch = [texts[i] for i in order[start:start + self.batch_size]]
            parts.append(self._encode_batch(batch, is_query))
            self.texts_encoded += len(batch)
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        if self.kind == "sparse":
            return sp.vstack(parts, format="csr", dtype=np.float32)[inverse]
        return l2_normalise(np.concatenate(parts, axis=0)[inverse])

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} kind={self.kind} dim={self.dim}>"
