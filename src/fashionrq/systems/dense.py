"""Embedding retrievers over the encoders registry: dense (cosine) and learned-sparse (dot product)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import scipy.sparse as sp

from fashionrq.encoders import Encoder, embed_texts, get_encoder, l2_normalise
from fashionrq.timing import stage
from fashionrq.systems.base import BaseRetriever
from fashionrq.systems.regimes import regime_of
from fashionrq.exact import Grid, grid_scores
from fashionrq.systems.stable import item_vectors, stable_scores


class EncoderRetriever(BaseRetriever):
    """Scores items by the inner product of query and item embeddings from ``fashionrq.encoders``.

    Item embeddings come from :func:`fashionrq.encoders.embed_items` (one vector per distinct item text) and query
    embeddings from :func:`fashionrq.encoders.embed_texts` (both cached on disk); each distinct query text is encoded once
    per instance and kept in memory. Dense encoders are L2-normalised, so the score is
    the cosine similarity; ``splade-tiny`` gives sparse vectors and the score is their dot product.

    Scores are tie-stable, a function of the query and item vectors alone: dense products go through
    :mod:`fashionrq.systems.stable`; sparse ones (canonical CSR) sum the shared non-zero terms in column order.
    """

    def __init__(self, encoder: str | Encoder = "minilm", cache_dir: str | Path | None = None) -> None:
        self.encoder_name = encoder if isinstance(encoder, str) else encoder.name
        self._encoder = None if isinstance(encoder, str) else encoder
        self.name = self.encoder_name
        self.cache_dir = cache_dir
        self._queries: dict[str, int] = {}
        self._query_vectors: list = []

    def fit(self, items: pa.Table) -> EncoderRetriever:
        self.encoder = self._encoder or get_encoder(self.encoder_name)
        self.sparse = self.encoder.kind == "sparse"
        with stage(f"encode items ({self.encoder_name})"):
            docs = item_vectors(items, self.encoder, cache_dir=self.cache_dir)
        self.documents = sp.csr_matrix(docs, dtype=np.float32) if self.sparse else np.asarray(docs, dtype=np.float32)
        if regime_of(items) != "text" and hasattr(self.encoder, "encode_images"):
            self.documents = self._with_photos(items, self.documents)
        if self.sparse:
            self.documents.sum_duplicates()
        else:
            self.grid = Grid.of(self.documents)
        self._queries, self._query_vectors = {}, []
        return self

    def _with_photos(self, items: pa.Table, texts: np.ndarray) -> np.ndarray:
        """Image-capable encoders: image-only candidates are their photo's embedding (zero without one); fused
        candidates the normalised sum of text and photo embeddings."""
        paths = items.column("image_path").to_pylist()
        rows = [i for i, p in enumerate(paths) if p]
        photos = np.zeros_like(texts)
        if rows:
            photos[rows] = self.encoder.encode_images([paths[i] for i in rows])
        if regime_of(items) == "image":
            return photos
        return l2_normalise(texts + photos)

    def _encode(self, queries: Sequence[str]) -> None:
        """Encode the queries not seen before, in one call."""
        new = sorted({q for q in queries if q not in self._queries})
        if not new:
            return
        vectors = embed_texts(new, self.encoder, kind="query", cache_dir=self.cache_dir)
        if self.sparse:
            vectors = sp.csr_matrix(vectors, dtype=np.float32)
            vectors.sum_duplicates()
        else:
            vectors = np.asarray(vectors, dtype=np.float32)
        for i, q in enumerate(new):
            self._queries[q] = len(self._query_vectors)
            self._query_vectors.append(vectors[i])

    def _scores(self, query: str, rows: np.ndarray) -> np.ndarray:
        vector = self._query_vectors[self._queries[query]]
        if self.sparse:
            return np.asarray((self.documents[rows] @ vector.T).toarray(), dtype=np.float32).ravel()
        return stable_scores(vector, self.grid.take(rows))

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
                scores = grid_scores(Grid.of(block), self.grid)
            for j, i in enumerate(full):
                out[i] = scores[j]
        for i, r in enumerate(rows):
            if out[i] is None:
                out[i] = self._scores(queries[i], r)
        return out

    def config(self) -> dict:
        return {"encoder": self.encoder_name, "encoder_fingerprint": self.encoder.fingerprint if self.items is not None else None}
