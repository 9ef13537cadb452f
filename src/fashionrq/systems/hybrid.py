"""``hybrid``: reciprocal rank fusion (RRF) of several systems' rankings."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from fashionrq.systems.base import BaseRetriever
from fashionrq.systems.registry import get_system

DEFAULT_COMPONENTS = ("bm25", "minilm-int8")


def ranks(scores: np.ndarray) -> np.ndarray:
    """1-based rank of each entry by descending score: 1 + the number of higher scores, so equal scores share a rank
    (identical items get one fused score, and the run's ranking rule, not their position, orders them)."""
    keyed = -np.asarray(scores, dtype=np.float64)
    order = np.argsort(keyed)  # any order of equal scores gives the same ranks, so the sort need not be stable
    ordered = keyed[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))  # first position of each score
    out = np.empty(len(keyed))
    out[order] = np.repeat(starts + 1.0, np.diff(np.append(starts, len(keyed))))
    return out


def rrf(score_lists: Sequence[np.ndarray], k: float = 60.0) -> np.ndarray:
    """Reciprocal rank fusion: ``sum_s 1 / (k + rank_s(item))`` over the systems' scores of the same items."""
    return np.sum([1.0 / (k + ranks(s)) for s in score_lists], axis=0)


class HybridRetriever(BaseRetriever):
    """RRF of ``components`` (system names or one comma-separated string; default bm25 + minilm-int8, as in the README and the demo)
    with constant ``k``.

    Ranks are taken within the scored candidate set, so ``search`` fuses whole-corpus rankings and
    ``score`` fuses the rankings of the given candidates.
    """

    name = "hybrid"

    def __init__(self, components: Sequence[str] = DEFAULT_COMPONENTS, k: float = 60.0) -> None:
        if isinstance(components, str):
            components = [c.strip() for c in components.split(",") if c.strip()]
        self.components = tuple(components)
        self.k = float(k)
        self.systems = [get_system(name) for name in self.components]

    def fit(self, items: pa.Table) -> HybridRetriever:
        for system in self.systems:
            system.fit(items)
        return self

    def score(self, query: str, candidate_rows: np.ndarray) -> np.ndarray:
        self._check_fitted()
        return rrf([s.score(query, candidate_rows) for s in self.systems], self.k)

    def score_batch(self, queries, candidate_rows):
        self._check_fitted()
        per_system = [s.score_batch(queries, candidate_rows) for s in self.systems]
        return [rrf([scores[i] for scores in per_system], self.k) for i in range(len(queries))]

    def config(self) -> dict:
        return {"components": {name: getattr(s, "config", dict)() for name, s in zip(self.components, self.systems)}, "k": self.k}
