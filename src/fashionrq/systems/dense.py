"""Embedding retrievers over the encoders registry: dense (cosine) and learned-sparse (dot product)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import scipy.sparse as sp

from fashionrq.encoders import embed_items, embed_texts, get_encoder
from fashionrq.timing import stage
from fashionrq.systems.base import BaseRetriever


class EncoderRetriever(BaseRetriever):
    """Scores items by the inner product of query and item embeddings from ``fashionrq.encoders``.

    Item embeddings come from :func:`fashionrq.encoders.embed_items` and query embeddings from
    :func:`fashionrq.encoders.embed_texts` (both cached on disk); each distinct query text is encoded once
    per instance and kept in memory. Dense encoders are L2-normalised, so the score is
    the cosine similarity; ``splade-tiny`` gives sparse vectors and the score is their dot product.
    """

    def __init__(self, encoder: str = "minilm", cache_dir: str | Path | None = None) -> None:
        self.encoder_name = encoder
        self.name = encoder
        self.cache_dir = cache_dir
        self._queries: dict[str, int] = {}
        self._query_vectors: list = []

    def fit(self, items: pa.Table) -> EncoderRetriever:
        self._set_items(items)
        self.encoder = get_encoder(self.encoder_name)
        self.sparse = self.encoder.kind == "sparse"
        with stage(f"encode items ({self.encoder_name})"):
            docs = embed_items(items, self.encoder, cache_dir=self.cache_dir)
        self.documents = sp.csr_matrix(docs, dtype=np.float32) if self.sparse else np.asarray(docs, dtype=np.float32)
        self._queries, self._query_vectors = {}, []
        return self

    def _encode(self, queries: Sequence[str]) -> None:
        """Encode the queries not seen before, in one call."""
        new = sorted({q for q in queries if q not in self._queries})
        if not new:
            return
        vectors = embed_texts(new, self.encoder, kind="query", cache_dir=self.cache_dir)
        vectors = sp.csr_matrix(vectors, dtype=np.float32) if self.sparse else np.asarray(vectors, dtype=np.float32)
        for i, q in enumerate(new):
            self._queries[q] = len(self._query_vectors)
            self._query_vectors.append(vectors[i])

    def _scores(self, query: str, rows: np.ndarray) -> np.ndarray:
        vector = self._query_vectors[self._queries[query]]
        if self.sparse:
            return np.asarray((self.documents[rows] @ vector.T).toarray(), dtype=np.float32).ravel()
        return self.documents[rows] @ vector

    def score(self, query: str, candidate_rows: np.ndarray) -> np.ndarray:
        self._check_fitted()
        self._encode([query])
        return self._scores(query, np.asarray(candidate_rows, dtype=np.int64))

    def score_batch(self, queries, candidate_rows):
        self._check_fitted()
        self._encode(queries)
        rows = [np.asarray(r, dtype=np.int64) for r in candidate_rows]
        out: list[np.ndarray | None] = [None] * len(rows)
        everything = np.arange(self.n_items)
        full = [i for i, r in enumerate(rows) if len(r) == self.n_items and np.array_equal(r, everything)]
        if full:  # whole-corpus scoring (T2 percentiles, search): one matrix product instead of one copy per query
            if self.sparse:
                block = sp.vstack([self._query_vectors[self._queries[queries[i]]] for i in full], format="csr")
                scores = np.asarray((block @ self.documents.T).toarray(), dtype=np.float32)
            else:
                block = np.stack([self._query_vectors[self._queries[queries[i]]] for i in full])
                scores = block @ self.documents.T
            for j, i in enumerate(full):
                out[i] = scores[j]
        for i, r in enumerate(rows):
            if out[i] is None:
                out[i] = self._scores(queries[i], r)
        return out

    def config(self) -> dict:
        return {"encoder": self.encoder_name, "encoder_fingerprint": self.encoder.fingerprint if self.items is not None else None}
