"""``verifier``: a pointwise second stage that checks every condition of the query explicitly (MCMR §5).

The query is parsed into attributes φ(q) with :class:`fashionrq.querygen.LexiconParser` built from the
public items table; each of the first stage's top ``depth`` candidates is checked against every expressed
attribute with the §8.0.4 comparators (:class:`fashionrq.relevance.AttributeMatcher`), and the constraint
score R(q, p) = Σ w_a m_a / Σ w_a (relevance weights) is combined with the min-max-normalised first-stage
score: ``(1 - alpha) * R + alpha * first``. Candidates below ``depth`` keep their first-stage order under
the reranked ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from fashionrq.errors import InputError
from fashionrq.systems.base import ranking_order

#: Scores of the top ``depth`` lie in [1, 2 + TIE]; the rest in (0, 1), so the top set never changes.
_TOP = 1.0
#: A first-stage-rank bonus far below any real score difference: equal combined scores keep first-stage order.
_TIE = 1e-6


def _minmax(values: np.ndarray) -> np.ndarray:
    span = float(values.max() - values.min()) if len(values) else 0.0
    return (values - values.min()) / span if span > 0 else np.zeros_like(values)


class VerifierReranker:
    """Pointwise per-condition reranker over the first stage's top ``depth`` candidates.

    Parameters
    ----------
    depth : candidates per query to rerank (MCMR: 50).
    alpha : weight of the normalised first-stage score (0 = constraints only, ties by first-stage rank).
    weights : {attribute: w_a}; default: the shipped relevance weights.
    encoder : text encoder of the soft comparators' sim(.,.).
    cache_dir : where attribute-string embeddings persist (default: the shared embedding cache).
    """

    name = "verifier"

    def __init__(
        self,
        depth: int = 50,
        alpha: float = 0.2,
        weights: Mapping[str, float] | None = None,
        encoder: str = "minilm-int8",
        cache_dir: str | Path | None = None,
    ) -> None:
        if depth < 1:
            raise InputError(f"verifier depth is {depth}: use depth >= 1.")
        if not 0.0 <= alpha <= 1.0:
            raise InputError(f"verifier alpha is {alpha}: use a value in [0, 1].")
        self.depth = int(depth)
        self.alpha = float(alpha)
        self.weights = dict(weights) if weights is not None else None
        self.encoder = encoder
        self.cache_dir = cache_dir

    def fit(self, items: pa.Table) -> VerifierReranker:
        from fashionrq.encoders import default_cache_dir
        from fashionrq.querygen import LexiconParser
        from fashionrq.relevance import AttributeMatcher

        self.item_ids = np.asarray(items.column("item_id").to_pylist(), dtype=object)
        self.parser = LexiconParser(items)
        self.matcher = AttributeMatcher(
            items, weights=self.weights, encoder=self.encoder, cache_dir=self.cache_dir or default_cache_dir()
        )
        self._phi: dict[str, dict] = {}
        return self

    def parse(self, query: str) -> dict:
        """φ(q) of ``query`` (memoised)."""
        if query not in self._phi:
            self._phi[query] = self.parser.parse(query)
        return self._phi[query]

    def _prepare(self, queries: Sequence[str], rows: Sequence[int]) -> None:
        """Embed, in one batch, every string the comparators will compare for these queries and items."""
        phis = [self.parse(q) for q in queries]
        attributes = tuple({a for phi in phis for a, v in phi.items() if v})
        if attributes:
            self.matcher.prepare(sorted(set(int(r) for r in rows)), attributes=attributes)
            self.matcher.sim.add({s for phi in phis for v in phi.values() if v for s in v})

    def check(self, query: str, row: int) -> dict[str, tuple[float, bool]]:
        """The explicit per-condition check: ``{attribute: (m_a, covered)}`` for every attribute φ(q) expresses."""
        phi = self.parse(query)
        return self.matcher.match(phi, int(row)) if any(phi.values()) else {}

    def _constraints(self, query: str, rows: np.ndarray) -> np.ndarray:
        phi = self.parse(query)
        if not any(phi.values()):
            return np.full(len(rows), 0.5)
        return np.array([self.matcher.relevance(phi, int(r)) for r in rows], dtype=np.float64)

    def constraint_scores(self, query: str, rows: np.ndarray) -> np.ndarray:
        """R(q, p) of each row (0.5 for every row when the query expresses no attribute)."""
        self._prepare([query], rows)
        return self._constraints(query, rows)

    def constraint_scores_batch(self, queries: Sequence[str], rows: Sequence[np.ndarray]) -> list[np.ndarray]:
        """:meth:`constraint_scores` of many queries, embedding all their comparison strings in one batch first."""
        self._prepare(queries, np.concatenate(rows) if len(rows) else [])
        return [self._constraints(q, r) for q, r in zip(queries, rows)]

    def _rerank(self, query: str, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        order = ranking_order(scores, self.item_ids[rows])
        top, rest = order[:self.depth], order[self.depth:]
        out = np.empty(len(rows), dtype=np.float64)
        combined = (1 - self.alpha) * self._constraints(query, rows[top]) + self.alpha * _minmax(scores[top])
        out[top] = _TOP + combined + _TIE * (len(top) - np.arange(len(top))) / max(len(top), 1)
        out[rest] = 1.0 - np.arange(1, len(rest) + 1) / (len(rest) + 1)
        return out

    def _top(self, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        return rows[ranking_order(scores, self.item_ids[rows])[:self.depth]]

    def rerank(self, query: str, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """New scores for ``rows``: the top ``depth`` by ``scores`` reordered by constraints, the rest below."""
        scores = np.asarray(scores, dtype=np.float64)
        self._prepare([query], self._top(rows, scores))
        return self._rerank(query, rows, scores)

    def rerank_batch(self, queries: Sequence[str], rows: Sequence[np.ndarray], scores: Sequence[np.ndarray]) -> list[np.ndarray]:
        """:meth:`rerank` of many queries, embedding all their comparison strings in one batch first."""
        scores = [np.asarray(s, dtype=np.float64) for s in scores]
        tops = [self._top(r, s) for r, s in zip(rows, scores)]
        self._prepare(queries, np.concatenate(tops) if tops else [])
        return [self._rerank(q, r, s) for q, r, s in zip(queries, rows, scores)]

    def config(self) -> dict:
        return {"name": self.name, "depth": self.depth, "alpha": self.alpha, "weights": self.matcher.weights if hasattr(self, "matcher") else self.weights,
                "encoder": self.encoder, "parser": "querygen.LexiconParser(public items)"}
