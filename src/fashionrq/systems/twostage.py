"""Two-stage retrieval (MCMR §4): a first stage ranks, a pointwise reranker re-scores its top ``depth`` pair by pair.

The reranker is a :class:`PointwiseReranker`: it is handed ``(query, row)`` pairs and returns one score per
pair, so it never sees a pair's fellow candidates. :func:`two_stage_order` then sorts the first stage's top
``depth`` by that score, ties by first-stage rank (MCMR: "ties broken by their original retrieval rank"),
and keeps everything below ``depth`` in first-stage order. Both orders use the one ranking rule of
:func:`fashionrq.systems.base.ranking_order` (descending score, ties by an ascending key): the first stage
with the item id as key, the second with the first-stage rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import pyarrow as pa

from fashionrq.errors import FashionRQError, InputError
from fashionrq.systems.base import ranking_order

#: Candidates per query a second stage re-scores by default (MCMR: the first stage's top 50).
DEFAULT_DEPTH = 50


@runtime_checkable
class PointwiseReranker(Protocol):
    """A second stage that scores each (query, item) pair on its own (MCMR's pointwise reranker).

    ``score_pairs`` receives parallel sequences, one pair per position, and must score each pair independently
    of the others: the same pair gets the same score in any batch, in any order.
    """

    name: str

    def fit(self, items: pa.Table) -> PointwiseReranker:
        """Read the corpus ``items`` (rows are positions in it) and return ``self``."""

    def score_pairs(self, queries: Sequence[str], rows: np.ndarray) -> np.ndarray:
        """One finite score per pair ``(queries[i], rows[i])``; higher means more relevant."""

    def config(self) -> dict:
        """The parameters that define this reranker (written to ``RUN/run.json``)."""


def check_reranker(reranker, spec: str) -> PointwiseReranker:
    """``reranker`` if it implements :class:`PointwiseReranker`, else one sentence naming what is missing."""
    missing = [m for m in ("name", "fit", "score_pairs", "config") if not hasattr(reranker, m)]
    if missing:
        raise FashionRQError(f"reranker '{spec}' lacks {', '.join(missing)}; a reranker scores (query, item) pairs, "
                             "see 'Second stage' in docs/systems.md.")
    return reranker


def check_depth(depth: int) -> int:
    """``depth`` as an int >= 1, else one sentence with the fix."""
    if int(depth) != depth or depth < 1:
        raise InputError(f"rerank depth is {depth}: use a whole number >= 1 (MCMR reranks the top 50).")
    return int(depth)


def two_stage_order(first_scores: np.ndarray, pair_scores: np.ndarray, item_ids: Sequence[str], depth: int) -> np.ndarray:
    """Positions in final order: the first stage's top ``depth`` by ``pair_scores`` (ties by first-stage rank), then the rest.

    ``pair_scores`` is aligned with the first stage's top ``depth`` in first-stage order.
    """
    first = ranking_order(first_scores, item_ids)
    top, rest = first[:depth], first[depth:]
    return np.concatenate([top[ranking_order(pair_scores, np.arange(len(top)))], rest])


def rank_scores(order: np.ndarray) -> np.ndarray:
    """Scores that reproduce ``order`` exactly under any tie rule: ``n, n-1, ..., 1`` down the ranking (float32-exact)."""
    scores = np.empty(len(order), dtype=np.float64)
    scores[order] = np.arange(len(order), 0, -1)
    return scores


def rerank(reranker: PointwiseReranker, queries: Sequence[str], rows: Sequence[np.ndarray], first: Sequence[np.ndarray],
           item_ids: np.ndarray, depth: int) -> list[np.ndarray]:
    """Two-stage scores of every query's candidates ``rows``: :func:`rank_scores` of :func:`two_stage_order`.

    The reranker is called once with every query's top ``depth`` pairs flattened into one batch.
    """
    tops = [np.asarray(r)[ranking_order(s, item_ids[r])[:depth]] for r, s in zip(rows, first)]
    pair_queries = [q for q, top in zip(queries, tops) for _ in top]
    flat = np.concatenate(tops) if tops else np.empty(0, dtype=np.int64)
    pair_scores = np.asarray(reranker.score_pairs(pair_queries, flat), dtype=np.float64)
    if pair_scores.shape != (len(flat),) or not np.all(np.isfinite(pair_scores)):
        raise FashionRQError(f"reranker '{reranker.name}' returned {pair_scores.size} scores, some not finite, for "
                             f"{len(flat)} pairs; fix its score_pairs().")
    bounds = np.cumsum([0, *map(len, tops)])
    return [rank_scores(two_stage_order(s, pair_scores[a:b], item_ids[r], depth))
            for r, s, a, b in zip(rows, first, bounds[:-1], bounds[1:])]
