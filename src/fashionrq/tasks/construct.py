"""The five tasks (§4, §8.0.3) built from qualified leaf clusters and their queries, leak-proof by construction.

Relevance is the shared-prefix length between an item's SID and the anchor leaf: Exact 3 (same level-3
prefix), Sibling 2 (same level-2 prefix only), Related 1 (same level-1 prefix only), Irrelevant 0.
The threat model and the design are in docs/benchmark.md ("Leak-proof construction"). In short:

* every anchor leaf serves exactly one task (T1 and T4 share pools; open-corpus T1, T2 and T3 get their own
  leaves), and every item belongs to at most one task's candidate lists;
* T1 pools are built per *unit*: two sibling leaves A and B (B may be a leaf without queries) give 10 items
  each, plus 10 Related and 10 Irrelevant items. The pool serves the queries of A and of B, so nothing but
  the query says which half is Exact. Irrelevant items are hard negatives: near the unit in embedding
  space, outside its level-1 prefix. One pool per unit, shared by all its queries and T4 groups;
* an item is never drawn twice: each sits in at most one pool; a unit the catalog cannot fill is reported.
Everything here works on item rows and query indices; opaque public ids are assigned when writing.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from fashionrq.errors import InputError
from fashionrq.exact import Grid
from fashionrq.hierarchy import Hierarchy
from fashionrq.tasks.claims import ItemClaims, nearest
from fashionrq.tasks.records import (
    AnchorQuery,
    OpenQuery,
    PairInstance,
    RankingInstance,
    TaskConfig,
    Tasks,
)
from fashionrq.taskspec import GRADES, MIN_UNITS, TIER_NAMES
from fashionrq.tasks.validity import (FULL_MATCH_GRADE, QueryMatches, describes_leaf, discriminates, least_penalised, query_grades,
                                      singles_out_target)


def prefix_key(prefix: str) -> tuple[int, ...]:
    return tuple(int(c) for c in prefix.split("-"))


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

    def rows(self, prefix: str) -> np.ndarray:
        """Sorted item rows of a prefix of any level."""
        level = prefix.count("-")
        return np.sort(self.members[level][self.group_of[level][prefix]])

    def related(self, leaf: str) -> np.ndarray:
        """Rows sharing the leaf's level-1 prefix but not its level-2 prefix (grade 1)."""
        a, b, _ = leaf.split("-")
        return np.setdiff1d(self.rows(a), self.rows(f"{a}-{b}"))

    def outside(self, leaf: str) -> np.ndarray:
        """Rows outside the leaf's level-1 prefix (grade 0)."""
        return np.flatnonzero(self.h.groups[0] != self.group_of[0][leaf.split("-")[0]])

    def size(self, leaf: str) -> int:
        return self.h.clusters[leaf].size

    def grade(self, anchor: str, rows) -> np.ndarray:
        """Each item's grade for ``anchor``: 3 inside it, one less per level up to the prefix it shares with it, 0
        outside its level-1 prefix. For a leaf that is the shared-prefix length; for a level-2 anchor (a broad
        open-corpus query), 3 inside it, 2 in its level-1 prefix, else 0."""
        key = np.array(prefix_key(anchor))
        equal = self.h.sids[np.asarray(rows, dtype=np.int64)][:, :len(key)] == key
        shared = np.cumprod(equal, axis=1).sum(axis=1)
        return np.where(shared > 0, shared + 3 - len(key), 0)

    def siblings(self, leaf: str) -> list[str]:
        """Other leaves under the same level-2 prefix."""
        clusters = self.h.clusters
        return [c for c in clusters[clusters[leaf].parent].children if c != leaf]

    def cousins(self, leaf: str) -> list[str]:
        """Leaves under the same level-1 prefix but another level-2 prefix."""
        clusters = self.h.clusters
        parent = clusters[clusters[leaf].parent]
        return [c for mid in clusters[parent.parent].children if mid != parent.cluster_id for c in clusters[mid].children]


def _partner(index: TierIndex, leaf: str, free: set[str], min_items: int, penalties: _Penalties) -> str | None:
    """A free sibling leaf (one no task anchors) with at least ``min_items`` items, the one ``leaf``'s queries tell
    apart best (and at least one of them), or ``None``."""
    options = [s for s in index.siblings(leaf) if s in free and index.size(s) >= min_items]
    if penalties.matches is None:
        return next(iter(options), None)
    scored = [(penalties.told_apart(leaf, s), -n, s) for n, s in enumerate(options)]
    best = max(scored, default=None)
    return best[2] if best is not None and best[0] > 0 else None


def _pair_group(group: list[str], penalties: _Penalties) -> tuple[list[tuple[str, str]], list[str]]:
    """Sibling anchor leaves paired in order, or, with full matches, greedily by how many of both leaves' queries
    tell the pair apart (a pair no query tells apart is not made); returns the pairs and the lone leaves."""
    if penalties.matches is None:
        pairs = [(group[i], group[i + 1]) for i in range(0, len(group) - 1, 2)]
        return pairs, group[len(pairs) * 2:]
    scored = sorted(((-(penalties.told_apart(a, b) + penalties.told_apart(b, a)), i, j)
                     for i, a in enumerate(group) for j, b in enumerate(group) if i < j))
    paired: set[int] = set()
    pairs = []
    for score, i, j in scored:
        if score < 0 and i not in paired and j not in paired:
            paired.update((i, j))
            pairs.append((group[i], group[j]))
    return pairs, [leaf for i, leaf in enumerate(group) if i not in paired]


def _pair_units(index: TierIndex, leaves: list[str], free: set[str], min_items: int, cap: int | None,
                penalties: _Penalties) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """``(anchors, members)`` units: sibling anchor leaves paired, then each lone one with a free sibling leaf (at most ``cap`` anchors)."""
    by_mid: dict[str, list[str]] = {}
    for leaf in leaves:
        if index.size(leaf) >= min_items:
            by_mid.setdefault(leaf.rsplit("-", 1)[0], []).append(leaf)
    pairs, lone = [], []
    for group in by_mid.values():
        made, left = _pair_group(group, penalties)
        pairs += [(pair, pair) for pair in made]
        lone += left
    units = pairs[:None if cap is None else cap // 2]
    # A lone leaf uses a pool for one anchor: these units come last, so pairs get the items first.
    for a in lone:
        if cap is not None and sum(len(anchors) for anchors, _ in units) >= cap:
            break
        if (b := _partner(index, a, free, min_items, penalties)) is not None:
            free.discard(b)
            units.append(((a,), (a, b)))
    return units


def _t3_groups(index: TierIndex, leaves: list[str], free: set[str], config: TaskConfig,
               penalties: _Penalties) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """``(anchors, members)`` groups of up to ``t3_candidates`` neighbouring leaves, filled with free leaves: siblings
    before cousins, and of each those that hold the nearest miss of the anchors' queries first
    (:meth:`_Penalties.near_miss`)."""
    by_mid: dict[str, list[str]] = {}
    for leaf in leaves:
        by_mid.setdefault(leaf.rsplit("-", 1)[0], []).append(leaf)
    groups = []
    for group in by_mid.values():
        for start in range(0, len(group), config.t3_candidates):
            anchors = tuple(group[start:start + config.t3_candidates])
            near = penalties.near_miss(anchors)
            nearest = (lambda leaf: 0) if near is None else (lambda leaf: int(near[index.rows(leaf)].min()))
            siblings, cousins = ([c for c in kin if c in free] for kin in (index.siblings(anchors[0]), index.cousins(anchors[0])))
            fill = sorted(siblings, key=nearest) + sorted(cousins, key=nearest)
            extra = fill[:config.t3_candidates - len(anchors)]
            if len(anchors) + len(extra) >= config.t3_min_candidates:
                free.difference_update(extra)
                groups.append((anchors, anchors + tuple(extra)))
    return groups


class _Penalties:
    """What each draw should avoid: how many of the queries a candidate plays a non-Exact part for it fully matches
    (``None`` everywhere when the build has no φ to check, e.g. MCMR releases)."""

    def __init__(self, matches: QueryMatches | None, by_leaf: dict[str, list[int]], index: TierIndex) -> None:
        self.matches, self.by_leaf, self.index = matches, by_leaf, index

    def pairable(self, leaf: str, min_items: int) -> bool:
        """Some sibling leaf with ``min_items`` items is told apart by one of ``leaf``'s queries (always, without φ)."""
        return self.matches is None or any(
            self.index.size(s) >= min_items and self.told_apart(leaf, s) > 0 for s in self.index.siblings(leaf))

    def told_apart(self, leaf: str, other: str) -> int:
        """How many of ``leaf``'s queries fully match at most a tenth of ``other``'s items."""
        return self.matches.separated(self.by_leaf.get(leaf, []), self.index.rows(other))

    def against(self, leaves) -> np.ndarray | None:
        """Per row: full matches among the queries of ``leaves``."""
        if self.matches is None:
            return None
        return self.matches.count([qi for leaf in leaves for qi in self.by_leaf.get(leaf, [])])

    def own(self, leaf: str, others) -> np.ndarray | None:
        """Per row, for a draw of ``leaf``'s own (Exact) items: full matches among the queries of the unit's ``others``
        (for which they are Siblings) and contradictions of ``leaf``'s own queries (for which they are Exact)."""
        if self.matches is None:
            return None
        return self.against(others) + self.matches.count_contradicted(self.by_leaf.get(leaf, []))

    def near_miss(self, leaves) -> np.ndarray | None:
        """Per row, for a T3 distractor of the queries of ``leaves``, in order of weight: the full matches among
        them, those it neither fully matches nor contradicts (no sure wrong answer), then the conditions it leaves
        unmet: a draw prefers a sure wrong answer that meets every condition but one."""
        if self.matches is None:
            return None
        queries = [qi for leaf in leaves for qi in self.by_leaf.get(leaf, [])]
        full = self.matches.count(queries)
        penalty = np.zeros(len(full), dtype=np.int64)
        for key in (full, len(queries) - full - self.matches.count_contradicted(queries), self.matches.count_unmet(queries)):
            penalty = penalty * (int(key.max(initial=0)) + 1) + key
        return penalty

    def unmatched(self, leaf: str) -> np.ndarray | None:
        """Per row: the queries of ``leaf`` it does not fully match (a target should satisfy them all)."""
        own = self.by_leaf.get(leaf, [])
        return None if self.matches is None else len(own) - self.matches.count(own)


def _free_least(claims: ItemClaims, rows: np.ndarray, penalty: np.ndarray | None, k: int) -> np.ndarray:
    """The free rows of ``rows`` of least ``penalty`` (:func:`~fashionrq.tasks.validity.least_penalised`) for ``k``
    draws: each draw prefers the items that fully match the fewest queries it would be a non-Exact candidate for."""
    return least_penalised(claims.free(rows), penalty, k)


def _draw_tier(claims: ItemClaims, rnd: random.Random, vectors: Grid | None, unit_rows: list[int], rows: np.ndarray, k: int,
               task: str, window: int, penalty: np.ndarray | None) -> list[int] | None:
    """``k`` free items of ``rows`` among the ``window`` nearest the unit (random ones without vectors), from the
    free rows of least ``penalty``."""
    return claims.draw(rnd, nearest(vectors, unit_rows, _free_least(claims, rows, penalty, k), max(window, k)), k, task, balance=True)


def _components(lists: list[list[int]]) -> list[int]:
    """Connected components of candidate lists that share an item (union-find); one label per list."""
    parent = list(range(len(lists)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[int, int] = {}
    for i, rows in enumerate(lists):
        for r in rows:
            j = first.setdefault(r, i)
            parent[root(i)] = root(j)
    roots = [root(i) for i in range(len(lists))]
    label = {r: n for n, r in enumerate(dict.fromkeys(roots))}
    return [label[r] for r in roots]


def _caps(config: TaskConfig) -> dict[str, int | None]:
    total = config.max_anchor_leaves
    return {task: None if total is None else max(1, int(round(share * total))) for task, share in config.shares}


def _assign(index: TierIndex, by_leaf: dict[str, list[int]], config: TaskConfig, rnd: random.Random, penalties: _Penalties,
            t1_cap: int | None = None) -> dict:
    """Anchor leaves per task (disjoint): T1 pair units first (they need the largest leaves; at most ``t1_cap``
    anchors when given), then the others by fill."""
    order = sorted(by_leaf, key=prefix_key)
    rnd.shuffle(order)
    caps = _caps(config)
    if t1_cap is not None:
        caps["t1"] = t1_cap
    free = {leaf for leaf in index.h.clusters if leaf.count("-") == 2 and leaf not in by_leaf}
    t1 = _pair_units(index, order, free, config.per_tier, caps["t1"], penalties)
    used = {leaf for anchors, _ in t1 for leaf in anchors}
    chosen: dict[str, list[str]] = {"t1o": [], "t2": [], "t3": []}
    for leaf in (leaf for leaf in order if leaf not in used):
        eligible = ["t1o"]
        if index.size(leaf) >= config.t2_per_tier and penalties.pairable(leaf, config.t2_per_tier):
            eligible.append("t2")
        if len(index.siblings(leaf)) + len(index.cousins(leaf)) >= config.t3_min_candidates - 1:
            eligible.append("t3")
        fill = {t: len(chosen[t]) / caps[t] if caps[t] else len(chosen[t]) for t in eligible}
        task = min(eligible, key=lambda t: (fill[t], t))
        if caps[task] is None or len(chosen[task]) < caps[task]:
            chosen[task].append(leaf)
    t2 = _pair_units(index, chosen["t2"], free, config.t2_per_tier, None, penalties)
    t3 = _t3_groups(index, chosen["t3"], free, config, penalties)
    placed = {leaf for units in (t2, t3) for anchors, _ in units for leaf in anchors}
    spill = [leaf for leaf in chosen["t2"] + chosen["t3"] if leaf not in placed]
    return {"t1": t1, "t2": t2, "t3": t3, "t1o": chosen["t1o"] + spill, "spare_leaves": free, "unused_leaves": len(by_leaf) - len(used) - len(placed)
            - len(chosen["t1o"]) - len(spill)}


def _claim_own(units, k: int, claims: ItemClaims, rnd: random.Random, index: TierIndex, task: str,
               penalties: _Penalties) -> list[list[int] | None]:
    """``k`` items of every member leaf of every unit (``None`` for a unit where a leaf has fewer free), each leaf's
    from those that fully match the fewest queries of the unit's other anchors (for which they are Siblings) and
    contradict the fewest of its own (:meth:`_Penalties.own`)."""
    own = []
    for anchors, members in units:
        drawn = []
        for leaf in members:
            rows = _free_least(claims, index.rows(leaf), penalties.own(leaf, [a for a in anchors if a != leaf]), k)
            drawn.append(claims.draw(rnd, rows, k, task))
        own.append(None if any(d is None for d in drawn) else [r for d in drawn for r in d])
    return own


def _claim_targets(groups, claims: ItemClaims, rnd: random.Random, index: TierIndex, penalties: _Penalties) -> list[list[int] | None]:
    """One item of every anchor leaf of every T3 group, among those that fully match most of the leaf's queries."""
    out = []
    for anchors, _ in groups:
        drawn = [claims.draw(rnd, _free_least(claims, index.rows(leaf), penalties.unmatched(leaf), 1), 1, "t3") for leaf in anchors]
        out.append(None if any(d is None for d in drawn) else [r for d in drawn for r in d])
    return out


def _draw_related(units, own, k: int, claims: ItemClaims, rnd: random.Random, index: TierIndex, vectors, task: str,
                  window: int, penalties: _Penalties) -> list[list[int] | None]:
    """``k`` hard Related items per unit: nearest the unit in its level-1 prefix, outside its level-2 prefix.

    Only one level-1 prefix can fill a unit's Related tier, so these are drawn before anything that may come
    from anywhere else (T3's single items, Irrelevant tiers)."""
    return [None if mine is None else _draw_tier(claims, rnd, vectors, mine, index.related(anchors[0]), k, task, window,
                                                 penalties.against(anchors))
            for (anchors, _), mine in zip(units, own)]


def _add_irrelevant(units, own, related, k: int, claims: ItemClaims, rnd: random.Random, index: TierIndex, vectors,
                    task: str, window: int, penalties: _Penalties) -> list[list[int] | None]:
    """Each unit's pool: own items, its Related items and ``k`` hard Irrelevant items (nearest the unit outside its
    level-1 prefix), shuffled; ``None`` if unfillable, and then the unit's items are given back. Items are never reused."""
    pools = []
    for (anchors, _), mine, near in zip(units, own, related):
        far = None if near is None else _draw_tier(claims, rnd, vectors, mine, index.outside(anchors[0]), k, task, window,
                                                   penalties.against(anchors))
        rows = None if far is None else mine + near + far
        if rows is None:
            claims.release((mine or []) + (near or []))
        else:
            rnd.shuffle(rows)
        pools.append(rows)
    return pools


def _discriminating(queries: list[int], rows, grades, matches: QueryMatches | None) -> list[int]:
    """The ``queries`` whose full matches among the candidates ``rows`` (of ``grades``) tell the Exact ones apart
    (:func:`~fashionrq.tasks.validity.discriminates`); all of them without full matches."""
    if matches is None:
        return list(queries)
    rows = np.asarray(rows, dtype=np.int64)
    return [qi for qi in queries if discriminates(matches.mask(qi, rows), grades)]


def _t1_t4(units, pools, by_leaf, index: TierIndex, matches: QueryMatches | None) -> tuple[list[RankingInstance], list[RankingInstance], int]:
    """T1 instances and T4 groups of the filled pools; a query whose candidates its conditions cannot tell apart
    (:func:`~fashionrq.tasks.validity.discriminates`) is dropped from both, and counted (a pool left without
    queries is not published: ``report.tasks.t1_units.told_apart_by_no_query``)."""
    kept = [(u, p) for u, p in zip(units, pools) if p is not None]
    labels = _components([p for _, p in kept])
    t1, t4, dropped = [], [], 0
    for ((anchors, _), rows), label in zip(kept, labels):
        unit = f"t1-{label:05d}"
        for leaf in anchors:
            grades = tuple(index.grade(leaf, rows).tolist())
            queries = _discriminating(by_leaf[leaf], rows, grades, matches)
            dropped += len(by_leaf[leaf]) - len(queries)
            t1 += [RankingInstance((qi,), leaf, tuple(rows), query_grades(matches, qi, rows, grades), unit) for qi in queries]
            if len(queries) >= 2:
                t4.append(RankingInstance(tuple(queries), leaf, tuple(rows), grades, unit))
    return t1, t4, dropped


def _t2(units, pools, by_leaf, index: TierIndex, config: TaskConfig, rnd: random.Random,
        matches: QueryMatches | None) -> tuple[list[PairInstance], int, int]:
    """T2 pairs of the filled units (a query whose eight items its conditions cannot tell apart is dropped), the
    number of dev level-2 prefixes and the number of dropped queries."""
    kept = [(u, p) for u, p in zip(units, pools) if p is not None]
    mids = sorted({anchors[0].rsplit("-", 1)[0] for (anchors, _), _ in kept}, key=prefix_key)
    if len(mids) < 2:  # no dev/test split at the level-2 prefix, so no run could calibrate: no T2 (the report counts it)
        return [], 0, 0
    # At least one dev prefix: a run's T2 calibration needs labelled dev pairs.
    n_dev = max(int(round(config.dev_fraction * len(mids))), 1)
    dev = set(rnd.sample(mids, n_dev))
    pairs, dropped = [], 0
    for ((anchors, _), rows), label in zip(kept, _components([p for _, p in kept])):
        split = "dev" if anchors[0].rsplit("-", 1)[0] in dev else "test"
        for leaf in anchors:
            grades = index.grade(leaf, rows).tolist()
            queries = _discriminating(by_leaf[leaf], rows, grades, matches)
            dropped += len(by_leaf[leaf]) - len(queries)
            pairs += [PairInstance(qi, r, g, split, f"t2-{label:05d}") for qi in queries
                      for r, g in zip(rows, query_grades(matches, qi, rows, grades))]
    return pairs, len(dev), dropped


def _t3(groups, targets, spare: set[str], claims: ItemClaims, by_leaf, index: TierIndex, rnd: random.Random,
        config: TaskConfig, penalties: _Penalties) -> tuple[list[RankingInstance], list[tuple[str, ...]], int]:
    """Each group's anchors' own items (``targets``, drawn with the other tasks' own items) plus one free item of
    each other member leaf, a near miss of the group's queries (:meth:`_Penalties.near_miss`). A member whose items
    all went to other tasks is replaced by a ``spare`` leaf (one no task anchors or fills) among the anchor's
    siblings, then cousins; a group still short of ``t3_min_candidates`` gives its items back and is dropped. A
    query is kept only if its target is a full match and no other candidate is. Returns the instances, the dropped
    groups' anchors (they serve open-corpus T1, which needs no candidate items) and the dropped queries."""
    out, dropped, ambiguous = [], [], 0

    def draw_one(leaf: str, avoid) -> list[int] | None:
        return claims.draw(rnd, _free_least(claims, index.rows(leaf), avoid, 1), 1, "t3")

    for n, ((anchors, members), own) in enumerate(zip(groups, targets)):
        rows = list(own or [])
        avoid = penalties.near_miss(anchors)
        for leaf in members[len(anchors):]:
            if (r := draw_one(leaf, avoid)) is not None:
                rows.append(r[0])
        for leaf in index.siblings(anchors[0]) + index.cousins(anchors[0]):
            if len(rows) >= len(members):
                break
            if leaf in spare and (r := draw_one(leaf, avoid)) is not None:
                spare.discard(leaf)
                rows.append(r[0])
        if own is None or len(rows) < config.t3_min_candidates:
            claims.release(rows)
            dropped.append(anchors)
            continue
        for leaf in anchors:
            grades = index.grade(leaf, rows)
            for qi in by_leaf[leaf]:
                if penalties.matches is not None and not singles_out_target(penalties.matches.mask(qi, np.asarray(rows)), grades):
                    ambiguous += 1
                    continue
                order = rows[:]
                rnd.shuffle(order)
                out.append(RankingInstance((qi,), leaf, tuple(order), tuple(index.grade(leaf, order).tolist()), f"t3-{n:05d}"))
    return out, dropped, ambiguous


def _draw_items(plan: dict, by_leaf, index: TierIndex, config: TaskConfig, rnd: random.Random, vectors: Grid | None,
                claims: ItemClaims, penalties: _Penalties) -> tuple[list, list, list[RankingInstance], list[tuple[str, ...]], int]:
    """Every task's items, in an order that puts each where only it can serve: own items first (the tasks' leaves
    are disjoint; T3's are its targets), then the Related tiers (each can come from one level-1 prefix only), T3's
    one item per other member leaf (a group that cannot be filled is dropped and counted), and last the
    Irrelevant tiers, which may come from anywhere else. Every draw prefers the items that fully match the fewest
    queries they would be a non-Exact candidate for. Returns T1's and T2's pools, T3, T3's dropped groups and its
    dropped (ambiguous) queries."""
    window = config.hard_negative_window
    own1 = _claim_own(plan["t1"], config.per_tier, claims, rnd, index, "t1", penalties)
    own2 = _claim_own(plan["t2"], config.t2_per_tier, claims, rnd, index, "t2", penalties)
    targets3 = _claim_targets(plan["t3"], claims, rnd, index, penalties)
    t2_vectors = vectors if config.t2_hard_negatives else None
    related1 = _draw_related(plan["t1"], own1, config.per_tier, claims, rnd, index, vectors, "t1", window, penalties)
    related2 = _draw_related(plan["t2"], own2, config.t2_per_tier, claims, rnd, index, t2_vectors, "t2", window, penalties)
    t3, t3_dropped, t3_ambiguous = _t3(plan["t3"], targets3, plan["spare_leaves"], claims, by_leaf, index, rnd, config, penalties)
    pools1 = _add_irrelevant(plan["t1"], own1, related1, config.per_tier, claims, rnd, index, vectors, "t1", window, penalties)
    pools2 = _add_irrelevant(plan["t2"], own2, related2, config.t2_per_tier, claims, rnd, index, t2_vectors, "t2", window, penalties)
    return pools1, pools2, t3, t3_dropped, t3_ambiguous


def _anchored(queries: list[AnchorQuery], index: TierIndex, matches: QueryMatches | None) -> tuple[dict[str, list[int]], int]:
    """Query indices per anchor leaf, without the queries whose conditions do not describe their own leaf
    (:func:`~fashionrq.tasks.validity.describes_leaf`); and how many those were."""
    by_leaf: dict[str, list[int]] = {}
    dropped = 0
    for qi, q in enumerate(queries):
        if matches is not None and not describes_leaf(matches, qi, index.rows(q.leaf)):
            dropped += 1
            continue
        by_leaf.setdefault(q.leaf, []).append(qi)
    return by_leaf, dropped


def build_tasks(hierarchy: Hierarchy, queries: list[AnchorQuery], config: TaskConfig = TaskConfig(), seed: int = 0,
                embeddings: np.ndarray | None = None, matches: QueryMatches | None = None) -> Tasks:
    """Instances of every task for ``queries`` (each anchored at a qualified leaf of ``hierarchy``).

    ``embeddings`` (the construction encoder's item vectors, L2-normalised) pick the hard negatives; without
    them grade-0 items are drawn from anywhere outside the level-1 prefix. ``matches`` (the queries' full matches,
    from their hidden φ) makes the labels credit valid results (:mod:`fashionrq.tasks.validity`); without it the
    grades are the shared-prefix lengths alone.

    The task plan is rebalanced when the first one leaves open-corpus T1, T2 or T3 with fewer than
    :data:`MIN_UNITS` bootstrap units while T1 has more than twice that (small catalogs: T1's pools take the
    leaves the other tasks need): T1's anchor leaves are capped at 90%, 80%, ... 20% of the first plan's, and the
    first plan that gives every task ``MIN_UNITS`` is kept, else the one whose weakest task has the most units.
    ``report.task_plan`` records the tries; a catalog whose tasks need no rebalancing is built exactly once.
    """
    vectors = None if embeddings is None else Grid.of(embeddings)  # once: every hard-negative window reads it
    tasks = _build_once(hierarchy, queries, config, seed, vectors, matches)
    if not _needs_rebalancing(tasks.report["bootstrap_units"]):
        return tasks
    first_leaves = tasks.report["leaves_per_task"]["t1"]
    tries = [(None, tasks.report["bootstrap_units"])]
    best_cap, best = None, tasks  # only the best plan is kept: each holds every task's instances
    for fraction in PLAN_T1_FRACTIONS:
        cap = max(2, int(first_leaves * fraction))
        candidate = _build_once(hierarchy, queries, config, seed, vectors, matches, cap)
        tries.append((cap, candidate.report["bootstrap_units"]))
        if _weakest(candidate) > _weakest(best):  # ties keep the earlier plan (the larger T1)
            best_cap, best = cap, candidate
        if _weakest(best) >= MIN_UNITS:
            break
    best.report["task_plan"] = {
        "rule": f"T1 anchor leaves capped until every task has >= {MIN_UNITS} bootstrap units (docs/benchmark.md, 'Quality gate')",
        "t1_leaf_cap": best_cap,
        "tries": [{"t1_leaf_cap": c, "bootstrap_units": units} for c, units in tries],
    }
    return best


#: The T1 anchor-leaf caps a rebalanced task plan tries, as fractions of the first plan's T1 leaves.
PLAN_T1_FRACTIONS = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2)


def _weakest(tasks: Tasks) -> int:
    return min(tasks.report["bootstrap_units"].values())


def _needs_rebalancing(units: dict[str, int]) -> bool:
    return units["t1"] > 2 * MIN_UNITS and min(units[t] for t in ("t1o", "t2", "t3")) < MIN_UNITS


def _build_once(hierarchy: Hierarchy, queries: list[AnchorQuery], config: TaskConfig, seed: int,
                vectors: Grid | None, matches: QueryMatches | None, t1_cap: int | None = None) -> Tasks:
    """:func:`build_tasks` with one task plan (T1 capped at ``t1_cap`` anchor leaves when given)."""
    rnd = random.Random(seed)
    index = TierIndex(hierarchy)
    by_leaf, undescribed = _anchored(queries, index, matches)
    broad = {a: by_leaf.pop(a) for a in sorted(by_leaf, key=prefix_key) if a.count("-") < 2}
    penalties = _Penalties(matches, by_leaf, index)
    plan = _assign(index, by_leaf, config, rnd, penalties, t1_cap)
    claims = ItemClaims(len(hierarchy.sids), _open_grades(plan["t1o"], by_leaf, index, matches))
    pools1, pools2, t3, t3_dropped, t3_ambiguous = _draw_items(plan, by_leaf, index, config, rnd, vectors, claims, penalties)
    t1, t4, t1_dropped = _t1_t4(plan["t1"], pools1, by_leaf, index, matches)
    t2, dev_mids, t2_dropped = _t2(plan["t2"], pools2, by_leaf, index, config, rnd, matches)
    open_leaves = sorted(plan["t1o"] + [leaf for anchors in t3_dropped for leaf in anchors], key=prefix_key)
    # broad anchors over the open-corpus leaves, never over a T2 unit (its dev labels are public)
    open_mids = {index.h.clusters[leaf].parent for leaf in open_leaves}
    t2_mids = {index.h.clusters[queries[p.query].leaf].parent for p in t2}
    open_broad = [a for a in broad if a in open_mids and a not in t2_mids]
    t1o = [OpenQuery(qi, leaf, f"t1o-{leaf}") for leaf in open_leaves for qi in by_leaf[leaf]] + \
          [OpenQuery(qi, anchor, f"t1o-{anchor}") for anchor in open_broad for qi in broad[anchor]]
    tasks = Tasks(tuple(queries), tuple(t1), tuple(t1o), tuple(t2), tuple(t3), tuple(t4), {}, matches)
    tasks.report.update(_report(tasks, plan, by_leaf, index, config, pools1, pools2, t3_dropped, dev_mids, open_leaves))
    tasks.report["broad_anchors"] = {"level": 2, "with_queries": len(broad), "t1o": len(open_broad),
                                     "left_out_holding_t2": len(set(broad) & open_mids & t2_mids),
                                     "t1o_queries": sum(len(broad[a]) for a in open_broad)}
    if matches is not None:
        tasks.report["validity"] = {"rule": "docs/benchmark.md, 'Labels that credit every valid result'",
                                    "queries_not_describing_their_leaf": undescribed,
                                    "dropped_not_discriminating": {"t1": t1_dropped, "t2": t2_dropped, "t3": t3_ambiguous}}
    return tasks


def _open_grades(leaves: list[str], by_leaf, index: TierIndex, matches: QueryMatches | None) -> np.ndarray:
    """Per row, how many queries of the open-corpus anchor ``leaves`` grade it 1, 2 and 3 (a column each): the
    shared-prefix length with the anchor, a full match raised to at least 2
    (:func:`~fashionrq.tasks.validity.credited`), an anchor item that contradicts it lowered to 2. A leaf's prefix
    grades are added for all its queries at once, over its level-1 prefix's rows only; each query then moves its full
    matches of grade 0 or 1, and its contradicting items of grade 3, to 2."""
    counts = np.zeros((len(index.h.sids), 3), dtype=np.int64)
    prefix = np.zeros(len(counts), dtype=np.int8)
    for leaf in leaves:
        a, b, _ = leaf.split("-")
        queries = by_leaf[leaf]
        groups = [index.rows(group) for group in (a, f"{a}-{b}", leaf)]
        for shared, rows in enumerate(groups, start=1):
            prefix[rows] = shared
            counts[rows, shared - 1] += len(queries)
            if shared > 1:
                counts[rows, shared - 2] -= len(queries)
        for qi in queries if matches is not None else ():
            raised = np.flatnonzero(matches.mask(qi) & (prefix < FULL_MATCH_GRADE))
            counts[raised, FULL_MATCH_GRADE - 1] += 1
            below = raised[prefix[raised] > 0]
            counts[below, prefix[below] - 1] -= 1
            lowered = groups[2][matches.contradicted(qi, groups[2])]
            counts[lowered, FULL_MATCH_GRADE - 1] += 1
            counts[lowered, 2] -= 1
        prefix[groups[0]] = 0  # the level-1 prefix holds the others
    return counts


def _report(tasks: Tasks, plan: dict, by_leaf, index: TierIndex, config: TaskConfig, pools1, pools2, t3_dropped, dev_mids: int,
            open_leaves) -> dict:
    """The construction counts written to ``manifest.json`` (``report.tasks``)."""
    queries, t1, t2, t3 = tasks.queries, tasks.t1, tasks.t2, tasks.t3
    return {
        "anchor_leaves": len(by_leaf),
        "anchor_queries": sum(len(v) for v in by_leaf.values()),
        "leaves_per_task": {"t1": len({i.leaf for i in t1}), "t1o": len(open_leaves), "t2": len({queries[p.query].leaf for p in t2}),
                            "t3": len({i.leaf for i in t3})},
        "leaves_unused": plan["unused_leaves"],
        "t1_leaves_too_small": sum(1 for leaf in by_leaf if index.size(leaf) < config.per_tier),
        "t1_units": {"planned": len(plan["t1"]), "unfillable": sum(p is None for p in pools1),
                     "paired": sum(len(a) == 2 for (a, _), p in zip(plan["t1"], pools1) if p is not None),
                     "told_apart_by_no_query": sum(p is not None for p in pools1) - len({i.candidates for i in t1})},
        "t2_units": {"planned": len(plan["t2"]), "unfillable": sum(p is None for p in pools2),
                     "dropped_single_level2_prefix": sum(p is not None for p in pools2) if not t2 else 0},
        "t2_dev_level2_prefixes": dev_mids,
        "t3_groups": {"planned": len(plan["t3"]), "unfillable": len(t3_dropped),
                      "told_apart_by_no_query": len(plan["t3"]) - len(t3_dropped) - len({i.unit for i in t3})},
        "tier_balance": tier_balance(tasks),
        "recurrence": recurrence(tasks),
        "bootstrap_units": {name: len({i.unit for i in insts}) for name, insts in
                            (("t1", t1), ("t1o", tasks.t1o), ("t2", t2), ("t3", t3), ("t4", tasks.t4))},
    }


def tier_balance(tasks: Tasks, tolerance: float = 0.10) -> dict[str, dict]:
    """Share of each grade over (query, candidate) pairs in T1 and T2, and whether each is within ±tolerance of 1/4."""
    out = {}
    for name, grades in (("t1", [g for inst in tasks.t1 for g in inst.grades]), ("t2", [p.grade for p in tasks.t2])):
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


def recurrence(tasks: Tasks) -> dict[str, dict]:
    """How many distinct candidate lists (T1 pools, T2 units, T3 groups) each candidate sits in, by grade.

    Equal means across grades is what makes item frequency useless to a label-blind program; 1.0 everywhere
    means every item is used once.
    """
    out = {}
    for name, insts in (("t1", tasks.t1), ("t3", tasks.t3)):
        lists = {tuple(sorted(i.candidates)) for i in insts}
        counts = Counter(r for rows in lists for r in rows)
        by_grade = {}
        for g in GRADES:
            values = [counts[r] for i in insts for r, grade in zip(i.candidates, i.grades) if grade == g]
            by_grade[TIER_NAMES[g]] = round(float(np.mean(values)), 4) if values else None
        out[name] = {"mean_by_grade": by_grade, "max": max(counts.values(), default=0), "items": len(counts)}
    return out
