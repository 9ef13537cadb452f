"""Open-corpus search: the top-k catalog items per query through each system's cached index, on any engine.

Dense encoder systems search a :class:`~fashionrq.systems.index.DenseIndex` (faiss or numpy); BM25 scores the
whole corpus from its cached bm25s index; any other system scores every item with ``score_batch``. With an
engine, dense query encoding and index search run in that engine's chunks (a Ray actor pool), byte-identical
to the local engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from fashionrq.encoders import embed_texts, get_encoder
from fashionrq.engine.base import CHUNK_COLUMN, only_chunk, run_chunked
from fashionrq.engine.tasks import column_vectors, set_threads, vectors_column
from fashionrq.errors import FashionRQError
from fashionrq.systems.base import top_k
from fashionrq.systems.index import DenseIndex, IndexConfig, exact_search, faiss_module, recall_at_k

#: Queries per whole-corpus score_batch call on the generic path.
SCORE_BLOCK = 64


@dataclass(frozen=True)
class CorpusHits:
    """Top-k rows and scores per query (best first, ties by the lower row) and what run.json records of the index."""

    rows: list[np.ndarray]
    scores: list[np.ndarray]
    index: dict = field(default_factory=dict)

    def pairs(self) -> list[list[tuple[int, float]]]:
        """Per query, the ``(row, score)`` pairs best first (the shape of ``top_k``)."""
        return [[(int(r), float(v)) for r, v in zip(rows, scores)] for rows, scores in zip(self.rows, self.scores)]


class SearchChunk:
    """A chunk task: encode a chunk's ``text`` queries and search the cached index at ``index_path`` (one torch/faiss
    thread)."""

    def __init__(self, encoder: str, index_path: str, config: IndexConfig, k: int, threads: int = 1) -> None:
        set_threads(threads)
        faiss = faiss_module()
        if faiss is not None:
            faiss.omp_set_num_threads(threads)
        self.encoder, self.k = get_encoder(encoder), k
        self.index = DenseIndex.load(index_path, config)

    def __call__(self, chunk: pa.Table) -> pa.Table:
        index = only_chunk(chunk)
        queries = self.encoder.encode_queries(chunk.column("text").to_pylist())
        rows, scores = self.index.search(queries, self.k)
        return pa.table({CHUNK_COLUMN: np.full(len(rows), index, np.int64), "query": vectors_column(queries),
                         "rows": pa.array([r.tolist() for r in rows], pa.list_(pa.int64())),
                         "scores": pa.array([s.tolist() for s in scores], pa.list_(pa.float32()))})


def _dense(system, queries: list[str], k: int, config: IndexConfig, engine) -> CorpusHits:
    index = DenseIndex(system.documents, config, system.cache_dir)
    if engine is None:
        vectors = np.asarray(embed_texts(queries, system.encoder, kind="query", cache_dir=system.cache_dir), np.float32)
        rows, scores = index.search(vectors, k)
    else:
        out = run_chunked(engine, SearchChunk, (system.encoder_name, str(index.path), config, k, engine.threads), pa.table({"text": queries}))
        vectors = column_vectors(out.column("query"))
        rows = [np.asarray(r, np.int64) for r in out.column("rows").to_pylist()]
        scores = [np.asarray(s, np.float32) for s in out.column("scores").to_pylist()]
    info = index.describe()
    if config.kind != "exact":
        info[f"recall@{k}_vs_exact"] = round(recall_at_k(rows, exact_search(index.grid, vectors, k)[0], k), 6)
    return CorpusHits(rows, scores, info)


def _scored(system, queries: list[str], k: int, n_items: int) -> CorpusHits:
    everything = np.arange(n_items)
    rows, scores = [], []
    for start in range(0, len(queries), SCORE_BLOCK):
        block = queries[start:start + SCORE_BLOCK]
        for values in system.score_batch(block, [everything] * len(block)):
            values = np.asarray(values, dtype=np.float64)
            if len(values) != n_items or not np.all(np.isfinite(values)):
                raise FashionRQError(f"system '{system.name}' returned {len(values)} scores, some not finite, for {n_items} items; fix its score().")
            hits = top_k(values, k)
            rows.append(np.array([r for r, _ in hits], np.int64))
            scores.append(np.array([v for _, v in hits]))
    return CorpusHits(rows, scores, {"kind": "exact", "backend": "score_batch"})


def corpus_search(system, queries: Sequence[str], k: int, config: IndexConfig = IndexConfig(), engine=None) -> CorpusHits:
    """The ``k`` best catalog rows per query of a fitted ``system`` (dense encoders through a cached index)."""
    queries = list(queries)
    if getattr(system, "sparse", True) is False and hasattr(system, "documents"):
        return _dense(system, queries, k, config, engine)
    return _scored(system, queries, k, system.n_items)
