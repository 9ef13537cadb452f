"""The four tasks (§4, §8.0.3) built from qualified leaf clusters and their queries.

Relevance is the shared-prefix length between an item's SID and the anchor leaf: Exact 3 (same level-3
prefix), Sibling 2 (same level-2 prefix only), Related 1 (same level-1 prefix only), Irrelevant 0.
Everything here works on item rows and query indices; opaque public ids are assigned when writing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from fashionrq.errors import InputError
from fashionrq.hierarchy import Hierarchy

GRADES = (3, 2, 1, 0)
TIER_NAMES = {3: "exact", 2: "sibling", 1: "related", 0: "irrelevant"}


@dataclass(frozen=True)
class TaskConfig:
    """Sizes of the task instances (defaults follow §8.0.3)."""

    pool_size: int = 40  # T1/T4 pool: pool_size // 4 items per tier
    min_per_tier: int = 3  # an anchor needs this many items in every tier for T1/T2/T4 (pool >= 12)
    t2_per_tier: int = 2  # T2 (query, item) pairs per tier and query
    dev_fraction: float = 0.2  # share of level-2 prefixes whose T2 pairs form the public dev split
    t3_distractors: int = 4  # distractor leaf clusters per T3 query
    t3_min_distractors: int = 3
    max_anchor_leaves: int | None = 500  # seeded sample of anchor leaves (paper: 436); None keeps every leaf


@dataclass(frozen=True)
class AnchorQuery:
    """One deduplicated query of a qualified leaf cluster."""

    text: str
    leaf: str  # anchor leaf prefix
    expressed: dict[str, list[str]]
    covers: str | None
    source: str


@dataclass
class Tasks:
    """Task instances over item rows; ``query`` fields index ``Tasks.queries``."""

    queries: list[AnchorQuery]
    t1: list[dict] = field(default_factory=list)  # {"query", "candidates": [row], "grades": [g]}
    t2: list[dict] = field(default_factory=list)  # {"query", "row", "grade", "split"}
    t3: list[dict] = field(default_factory=list)  # {"query", "candidates", "grades"}
    t4: list[dict] = field(default_factory=list)  # {"leaf", "queries": [i], "candidates", "grades"}
    report: dict = field(default_factory=dict)


class TierIndex:
    """Item rows of each relevance tier around a leaf, from the hierarchy's per-level groups."""

    def __init__(self, hierarchy: Hierarchy) -> None:
        if hierarchy.levels != 3:
            raise InputError(f"the tasks need 3-level semantic ids but these have {hierarchy.levels} levels; build the SIDs with levels=3.")
        self.h = hierarchy
        self.members = []
        for groups in hierarchy.groups:
            order = np.argsort(groups, kind="stable")
            sizes = np.bincount(groups)
            self.members.append(np.split(order, np.cumsum(sizes)[:-1]))
        self.group_of = [{p: i for i, p in enumerate(prefixes)} for prefixes in hierarchy.prefixes]
        self._outside: dict[int, np.ndarray] = {}

    def tiers(self, leaf: str) -> dict[int, np.ndarray]:
        """Sorted item rows per grade for anchor ``leaf``."""
        a, b, _ = leaf.split("-")
        g1 = self.group_of[0][a]
        l1 = self.members[0][g1]
        l2 = self.members[1][self.group_of[1][f"{a}-{b}"]]
        l3 = self.members[2][self.group_of[2][leaf]]
        if g1 not in self._outside:
            self._outside[g1] = np.flatnonzero(self.h.groups[0] != g1)
        return {3: np.sort(l3), 2: np.setdiff1d(l2, l3), 1: np.setdiff1d(l1, l2), 0: self._outside[g1]}

    def smallest_tier(self, leaf: str) -> int:
        """Items in the smallest of the four tiers around ``leaf`` (from cluster sizes alone)."""
        clusters = self.h.clusters
        l3 = clusters[leaf]
        l2 = clusters[l3.parent]
        l1 = clusters[l2.parent]
        return min(l3.size, l2.size - l3.size, l1.size - l2.size, len(self.h.sids) - l1.size)

    def grade(self, leaf: str, rows: np.ndarray) -> np.ndarray:
        """Shared-prefix length between each item's SID and ``leaf``."""
        anchor = np.array([int(c) for c in leaf.split("-")])
        equal = self.h.sids[np.asarray(rows)] == anchor
        return np.cumprod(equal, axis=1).sum(axis=1)

    def neighbour_leaves(self, leaf: str) -> tuple[list[str], list[str]]:
        """Other leaf prefixes under the same level-2 prefix (siblings) and under the same level-1 prefix (cousins)."""
        clusters = self.h.clusters
        parent = clusters[clusters[leaf].parent]
        siblings = [c for c in parent.children if c != leaf]
        cousins = [leaf3 for mid in clusters[parent.parent].children if mid != parent.cluster_id for leaf3 in clusters[mid].children]
        return siblings, cousins


def _draw(rnd: random.Random, rows: np.ndarray, k: int) -> list[int]:
    """``k`` rows drawn without replacement (all of them when there are no more), in row order."""
    if k >= len(rows):
        return rows.tolist()
    return rows[sorted(rnd.sample(range(len(rows)), k))].tolist()


def _balanced_pool(rnd: random.Random, tiers: dict[int, np.ndarray], per_tier: int) -> tuple[list[int], list[int]]:
    """``per_tier`` rows from every tier, shuffled, with their grades."""
    rows: list[int] = []
    grades: list[int] = []
    for g in GRADES:
        drawn = _draw(rnd, tiers[g], per_tier)
        rows += drawn
        grades += [g] * len(drawn)
    order = list(range(len(rows)))
    rnd.shuffle(order)
    return [rows[i] for i in order], [grades[i] for i in order]


def build_tasks(hierarchy: Hierarchy, queries: list[AnchorQuery], config: TaskConfig = TaskConfig(), seed: int = 0) -> Tasks:
    """Instances of T1-T4 for ``queries`` (each anchored at a qualified leaf of ``hierarchy``)."""
    rnd = random.Random(seed)
    index = TierIndex(hierarchy)
    tasks = Tasks(queries=queries)
    per_tier_target = config.pool_size // 4
    short_pools = 0
    skipped_t1 = 0
    skipped_t3 = 0
    by_leaf: dict[str, list[int]] = {}
    for qi, q in enumerate(queries):
        by_leaf.setdefault(q.leaf, []).append(qi)

    leaves = sorted(by_leaf, key=lambda p: tuple(int(c) for c in p.split("-")))
    available = {leaf: index.smallest_tier(leaf) for leaf in leaves}
    # T2 split unit: the level-2 prefix of the T1/T2 anchors (so no leaf and no level-2 cluster is in both splits).
    mids = sorted({leaf.rsplit("-", 1)[0] for leaf in leaves if available[leaf] >= config.min_per_tier},
                  key=lambda p: tuple(int(c) for c in p.split("-")))
    dev_mids = set(rnd.sample(mids, int(round(config.dev_fraction * len(mids)))))

    for leaf in leaves:
        tiers = index.tiers(leaf)
        per_tier = min(per_tier_target, available[leaf])
        if available[leaf] >= config.min_per_tier:
            short_pools += int(per_tier < per_tier_target) * len(by_leaf[leaf])
            for qi in by_leaf[leaf]:
                rows, grades = _balanced_pool(rnd, tiers, per_tier)
                tasks.t1.append({"query": qi, "candidates": rows, "grades": grades})
                rows2, grades2 = _balanced_pool(rnd, tiers, min(config.t2_per_tier, available[leaf]))
                split = "dev" if leaf.rsplit("-", 1)[0] in dev_mids else "test"
                for r, g in zip(rows2, grades2):
                    tasks.t2.append({"query": qi, "row": r, "grade": g, "split": split})
            if len(by_leaf[leaf]) >= 2:
                rows, grades = _balanced_pool(rnd, tiers, per_tier)
                tasks.t4.append({"leaf": leaf, "queries": list(by_leaf[leaf]), "candidates": rows, "grades": grades})
        else:
            skipped_t1 += len(by_leaf[leaf])
        siblings, cousins = index.neighbour_leaves(leaf)
        for qi in by_leaf[leaf]:
            if len(siblings) + len(cousins) < config.t3_min_distractors:
                skipped_t3 += 1
                continue
            chosen = rnd.sample(siblings, min(len(siblings), config.t3_distractors))
            chosen += rnd.sample(cousins, min(len(cousins), config.t3_distractors - len(chosen)))
            rows = [int(tiers[3][rnd.randrange(len(tiers[3]))])]
            for c in chosen:
                members = index.members[2][index.group_of[2][c]]
                rows.append(int(members[rnd.randrange(len(members))]))
            rnd.shuffle(rows)
            tasks.t3.append({"query": qi, "candidates": rows, "grades": index.grade(leaf, np.array(rows)).tolist()})

    tasks.report = {
        "anchor_leaves": len(by_leaf),
        "anchor_queries": len(queries),
        "t1_t2_skipped_queries": skipped_t1,
        "t1_short_pools": short_pools,
        "t3_skipped_queries": skipped_t3,
        "t2_dev_level2_prefixes": len(dev_mids),
        "t2_test_level2_prefixes": len(mids) - len(dev_mids),
        "tier_balance": tier_balance(tasks),
    }
    return tasks


def tier_balance(tasks: Tasks, tolerance: float = 0.10) -> dict[str, dict]:
    """Share of each grade over (query, candidate) pairs in T1 and T2, and whether each is within ±tolerance of 1/4."""
    out = {}
    for name, grades in (("t1", [g for inst in tasks.t1 for g in inst["grades"]]), ("t2", [p["grade"] for p in tasks.t2])):
        counts = np.bincount(np.asarray(grades, dtype=np.int64), minlength=4) if grades else np.zeros(4, dtype=np.int64)
        total = max(int(counts.sum()), 1)
        shares = {TIER_NAMES[g]: round(int(counts[g]) / total, 6) for g in GRADES}
        out[name] = {
            "pairs": int(counts.sum()),
            "counts": {TIER_NAMES[g]: int(counts[g]) for g in GRADES},
            "shares": shares,
            "within_tolerance": bool(grades) and all(abs(s - 0.25) <= tolerance * 0.25 for s in shares.values()),
        }
    return out
