"""``verifier``: a pointwise second stage that checks every condition of the query explicitly (MCMR §5).

The query is parsed into attributes φ(q) with :class:`fashionrq.querygen.LexiconParser` built from the
public items table; each (query, item) pair is checked against every expressed attribute with the §8.0.4
comparators (:class:`fashionrq.relevance.AttributeMatcher`), and its score is the constraint score
R(q, p) = Σ w_a m_a / Σ w_a (relevance weights). A pair's score depends on that pair alone; the two-stage
pipeline (:mod:`fashionrq.systems.twostage`) sorts the first stage's top ``depth`` by it, ties by first-stage rank.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from fashionrq.layout import default_cache_dir
from fashionrq.querygen import LexiconParser
from fashionrq.relevance import AttributeMatcher


class VerifierReranker:
    """Pointwise per-condition reranker: R(q, p) of each (query, item) pair (a :class:`~fashionrq.systems.twostage.PointwiseReranker`).

    Parameters
    ----------
    weights : {attribute: w_a}; default: the shipped relevance weights.
    encoder : text encoder of the soft comparators' sim(.,.) (it encodes each text alone, so no pair sees another).
    cache_dir : where attribute-string embeddings persist (default: the shared embedding cache).
    """

    name = "verifier"

    def __init__(
        self,
        weights: Mapping[str, float] | None = None,
        encoder: str = "minilm-int8",
        cache_dir: str | Path | None = None,
    ) -> None:
        self.weights = dict(weights) if weights is not None else None
        self.encoder = encoder
        self.cache_dir = cache_dir

    def fit(self, items: pa.Table) -> VerifierReranker:
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

    def score_pairs(self, queries: Sequence[str], rows: np.ndarray) -> np.ndarray:
        """R(q, p) of each pair ``(queries[i], rows[i])``, scored row by row (0.5 when q expresses no attribute).

        The comparison strings of the whole batch are embedded first, one text at a time, so a pair's score
        does not depend on the batch it came in.
        """
        rows = np.asarray(rows, dtype=np.int64)
        if len(queries) != len(rows):
            raise ValueError(f"{len(queries)} queries for {len(rows)} rows")
        distinct = list(dict.fromkeys(queries))
        self._prepare(distinct, rows)
        positions: dict[str, list[int]] = {q: [] for q in distinct}
        for i, q in enumerate(queries):
            positions[q].append(i)
        out = np.full(len(rows), 0.5)  # a query that expresses no attribute
        for q, at in positions.items():
            phi = self.parse(q)
            if any(phi.values()):
                out[at] = self.matcher.relevances(phi, rows[at].tolist())
        return out

    def config(self) -> dict:
        return {"name": self.name, "weights": self.matcher.weights if hasattr(self, "matcher") else self.weights,
                "encoder": self.encoder, "parser": "querygen.LexiconParser(public items)"}
