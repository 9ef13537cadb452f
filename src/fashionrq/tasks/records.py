"""Typed records of the tasks stage: configuration, anchor queries and the task instances (item rows, grades)."""

from __future__ import annotations

from dataclasses import dataclass, field

from fashionrq.querygen.records import ConstraintSet
from fashionrq.tasks.validity import QueryMatches


@dataclass(frozen=True)
class TaskConfig:
    """Sizes of the task instances (defaults follow §8.0.3 and docs/benchmark.md)."""

    pool_size: int = 40  # T1/T4 pool: pool_size // 4 items per tier, never fewer
    t2_per_tier: int = 2  # T2 items per tier in a pair unit
    dev_fraction: float = 0.2  # share of level-2 prefixes whose T2 pairs form the public dev split
    t3_candidates: int = 5  # leaves (one item each) in a T3 candidate group
    t3_min_candidates: int = 4
    hard_negative_window: int = 100  # T1 grade-0 items are drawn from this many nearest items outside the level-1 prefix
    t2_hard_negatives: bool = True  # T2 Related and Irrelevant items: nearest the unit (as for T1); False draws them at random
    open_depth: int = 100  # open-corpus T1: items a run returns per query
    max_anchor_leaves: int | None = 1000  # anchor leaves over all tasks; None keeps every leaf
    shares: tuple[tuple[str, float], ...] = (("t1", 0.5), ("t1o", 0.2), ("t2", 0.15), ("t3", 0.15))
    # qualified leaves given queries: above this, a seeded sample of whole level-2 groups (tasks.queries.sample_leaves);
    # None writes queries for every leaf. 8,000 keeps every leaf of the bundled catalog (6,674).
    query_leaves: int | None = 8000

    @property
    def per_tier(self) -> int:
        return self.pool_size // 4


@dataclass(frozen=True)
class AnchorQuery:
    """One deduplicated query of a qualified leaf cluster, with the attributes its generator asserted."""

    text: str
    leaf: str  # anchor leaf prefix
    expressed: dict[str, list[str]] = field(hash=False)
    covers: str | None
    source: str
    constraints: ConstraintSet | None = field(default=None, hash=False)  # MCMR: constraints and their modalities
    held_out: tuple[str, ...] = ()  # φ keys stated in a held-out wording (fashionrq.querygen.heldout)


@dataclass(frozen=True)
class RankingInstance:
    """A candidate list and the grade of each candidate for one anchor leaf.

    T1 and T3: one query; T4: the leaf's paraphrase group. ``unit`` is the bootstrap unit: instances of
    different units share no candidate.
    """

    queries: tuple[int, ...]
    leaf: str
    candidates: tuple[int, ...]
    grades: tuple[int, ...]
    unit: str


@dataclass(frozen=True)
class PairInstance:
    """One T2 (query, item) pair with its grade, split and bootstrap unit."""

    query: int
    row: int
    grade: int
    split: str
    unit: str


@dataclass(frozen=True)
class OpenQuery:
    """One open-corpus T1 query: the whole catalog is its candidate set, graded by shared prefix length."""

    query: int
    leaf: str
    unit: str


@dataclass(frozen=True)
class Tasks:
    """Task instances over item rows; ``query`` fields index ``Tasks.queries``."""

    queries: tuple[AnchorQuery, ...]
    t1: tuple[RankingInstance, ...]
    t1o: tuple[OpenQuery, ...]
    t2: tuple[PairInstance, ...]
    t3: tuple[RankingInstance, ...]
    t4: tuple[RankingInstance, ...]
    report: dict = field(hash=False)
    #: the queries' full matches the labels credit (open-corpus T1 grades them; docs/benchmark.md), or None
    matches: QueryMatches | None = field(default=None, hash=False, compare=False)

    def used_queries(self) -> list[int]:
        """Indices of the queries some task uses, sorted."""
        used = {q for inst in self.t1 + self.t3 + self.t4 for q in inst.queries}
        used |= {p.query for p in self.t2} | {o.query for o in self.t1o}
        return sorted(used)
