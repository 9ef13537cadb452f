"""Labels that mean what the shopper asked (docs/benchmark.md, "Labels that credit every valid result").

The tasks draw their candidates, and keep their queries, with each query's *full matches* in view (the catalog
items whose own fields satisfy every condition of its hidden φ(q); :mod:`fashionrq.relevance.fullmatch`):

* a query must describe its own cluster: at least :data:`MIN_COVERAGE` of its anchor leaf's items are full
  matches, else it is dropped before any task is built;
* candidates that play a non-Exact part for a unit's queries are drawn, where the catalog allows, among the items
  that fully match the fewest of those queries (:func:`least_penalised`);
* a pooled query is kept only if at most :data:`MAX_SIBLING_SHARE` of its Sibling candidates and none of its
  Related or Irrelevant candidates are full matches (:func:`discriminates`); a T3 query only if its target is a
  full match and no other candidate is;
* open-corpus T1 grades every full match at least 2 (:data:`FULL_MATCH_GRADE`), wherever it sits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from fashionrq.querygen.evidence import MAX_SIBLING_SHARE
from fashionrq.relevance.fullmatch import FullMatch

#: Share of its anchor leaf's items a query's full matches must cover.
MIN_COVERAGE = 0.5
# MAX_SIBLING_SHARE (from querygen.evidence): the share of a pooled query's Sibling candidates that may be full
# matches (a tier of 10: 1; of 2: none), and of a sibling leaf's items for the leaf to count as told apart.
#: The lowest grade of a full match in open-corpus T1.
FULL_MATCH_GRADE = 2


class QueryMatches:
    """The full matches of every query (``phis[qi]``, a hidden φ) over the catalog rows, computed on demand from the
    cached clause masks of :class:`~fashionrq.relevance.fullmatch.FullMatch` (a mask per query would not fit)."""

    def __init__(self, full: FullMatch, phis: Sequence[Mapping]) -> None:
        self.full = full
        self.phis = phis

    def mask(self, qi: int, rows: np.ndarray | None = None) -> np.ndarray:
        """Which catalog rows (of ``rows``, default all) fully match query ``qi``."""
        return self.full.mask(self.phis[qi], rows)

    def contradicted(self, qi: int, rows: np.ndarray | None = None) -> np.ndarray:
        """Which catalog rows (of ``rows``, default all) contradict a condition of query ``qi``
        (:meth:`~fashionrq.relevance.fullmatch.FullMatch.contradicts`: a green bag for "red handbags")."""
        return self.full.contradicts(self.phis[qi], rows)

    def count(self, queries: Sequence[int]) -> np.ndarray:
        """Per catalog row, how many of ``queries`` it fully matches."""
        return self._summed(queries, self.mask)

    def count_contradicted(self, queries: Sequence[int]) -> np.ndarray:
        """Per catalog row, how many of ``queries`` it contradicts."""
        return self._summed(queries, self.contradicted)

    def count_unmet(self, queries: Sequence[int]) -> np.ndarray:
        """Per catalog row, how many conditions of ``queries`` (all told) it does not satisfy."""
        return self._summed(queries, lambda qi: self.full.unmet(self.phis[qi]))

    def _summed(self, queries: Sequence[int], per_query) -> np.ndarray:
        out = np.zeros(self.full.n, dtype=np.int32)
        for qi in queries:
            out += per_query(qi)
        return out

    def grades(self, qi: int, prefix_grades: np.ndarray, rows: np.ndarray, full: np.ndarray) -> np.ndarray:
        """Open-corpus grades of query ``qi`` for the catalog ``rows`` (``full``: which of them fully match it): the
        prefix grades, every full match raised to at least :data:`FULL_MATCH_GRADE`, and an item of the anchor leaf
        that contradicts the query lowered to it."""
        return credited(prefix_grades, full, self.contradicted(qi, rows))

    def separated(self, queries: Sequence[int], rows: np.ndarray) -> int:
        """How many of ``queries`` fully match at most :data:`MAX_SIBLING_SHARE` of ``rows`` (a sibling leaf)."""
        return sum(float(self.mask(qi, rows).mean()) <= MAX_SIBLING_SHARE for qi in queries)


def least_penalised(rows: np.ndarray, penalty: np.ndarray | None, k: int) -> np.ndarray:
    """The rows of ``rows`` whose penalty is at most the ``k``-th smallest among them (all rows if fewer, or without
    a penalty)."""
    rows = np.asarray(rows, dtype=np.int64)
    if penalty is None or len(rows) <= k:
        return rows
    cut = np.partition(penalty[rows], k - 1)[k - 1]
    return rows[penalty[rows] <= cut]


def describes_leaf(matches: QueryMatches, qi: int, leaf_rows: np.ndarray) -> bool:
    """At least :data:`MIN_COVERAGE` of the anchor leaf's items fully match query ``qi``."""
    return bool(len(leaf_rows)) and float(matches.mask(qi, leaf_rows).mean()) >= MIN_COVERAGE


def discriminates(hit: np.ndarray, grades: Sequence[int]) -> bool:
    """A pooled query's candidates: at most :data:`MAX_SIBLING_SHARE` of the Sibling ones and no Related or
    Irrelevant one are full matches (``hit``: whether each candidate is one; ``grades``: their grades)."""
    grades = np.asarray(grades)
    siblings = grades == 2
    allowed = int(MAX_SIBLING_SHARE * siblings.sum() + 1e-9)
    return int(hit[siblings].sum()) <= allowed and not hit[grades < 2].any()


def query_grades(matches: QueryMatches | None, qi: int, rows: Sequence[int], grades: Sequence[int]) -> tuple[int, ...]:
    """A pooled query's grades of its candidates ``rows``: the prefix ``grades``, an Exact candidate that contradicts
    the query lowered to :data:`FULL_MATCH_GRADE` (the anchor leaf's green bag for "red handbags")."""
    if matches is None:
        return tuple(grades)
    lowered = credited(np.asarray(grades), np.zeros(len(grades), dtype=bool), matches.contradicted(qi, np.asarray(rows, dtype=np.int64)))
    return tuple(int(g) for g in lowered)


def singles_out_target(hit: np.ndarray, grades: Sequence[int]) -> bool:
    """A T3 query: its target (grade 3) is a full match and no other candidate is (``hit``: per candidate)."""
    target = np.asarray(grades) == 3
    return bool(hit[target].all()) and not hit[~target].any()


def credited(grades: np.ndarray, full: np.ndarray, contradicted: np.ndarray | None = None) -> np.ndarray:
    """Prefix grades raised to :data:`FULL_MATCH_GRADE` where the item is a full match (``full``: booleans), and
    an Exact grade lowered to it where the item contradicts the query (``contradicted``: booleans): the anchor
    leaf's green bag is no exact answer to "red handbags"."""
    raised = np.where(full, np.maximum(grades, FULL_MATCH_GRADE), grades)
    return raised if contradicted is None else np.where(contradicted & (raised > FULL_MATCH_GRADE), FULL_MATCH_GRADE, raised)
