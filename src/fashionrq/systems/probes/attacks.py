"""Label-blind attacks on a release's public files, each a system named ``probe-*``.

Every probe scores the candidates of a pool from public evidence alone and never reads the query's
meaning: if one beats ``random``, the public files give grades away. Ties are broken by a seeded
shuffle (:func:`tie_broken`), so no probe inherits the run writer's item-id tie rule.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from fashionrq.systems.probes.view import Head, Pool, PublicView, Record, tie_broken, top_tie_broken


class Probe:
    """Base of the probes: :meth:`primary` is the attack; scores, T2 features and config follow from it."""

    name = "probe"
    #: One line on what the attack exploits (shown in the probe table and docs).
    attack = ""
    #: True when :meth:`primary` depends on the candidates only, so pools sharing a candidate tuple share it.
    query_free = False

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(self, view: PublicView) -> Probe:
        """Read the public view (and precompute what the attack needs); returns ``self``."""
        self.view_ = view
        self.informative_: set[str] = set()
        self._shared: dict[int, np.ndarray] = {}
        self._heads: dict[tuple[int, int], Head] = {}
        return self

    def attack_scores(self, pool: Pool) -> np.ndarray:
        """:meth:`primary`, noting in ``informative_`` every task where some pool's candidates got different scores."""
        if self.query_free and id(pool.candidates) in self._shared:
            primary = self._shared[id(pool.candidates)]
        else:
            primary = np.asarray(self.primary(pool), dtype=np.float64)
            if self.query_free:
                self._shared[id(pool.candidates)] = primary
        if len(primary) and np.ptp(primary) > 0:
            self.informative_.add(pool.task)
        return primary

    def primary(self, pool: Pool) -> np.ndarray:
        """The attack's raw score of each candidate of ``pool`` (higher = predicted more relevant)."""
        raise NotImplementedError

    def _tie_key(self, pool: Pool) -> str:
        return f"{self.name}:{pool.task}:{pool.qid}"

    def _ranked(self, pool: Pool, raw: np.ndarray) -> np.ndarray:
        """``raw``'s order as scores 1..n, ties broken by a seeded shuffle of this probe's own."""
        return tie_broken(raw, self.seed, self._tie_key(pool))

    def score_pool(self, pool: Pool) -> np.ndarray:
        """Scores of ``pool.candidates`` in the attack's order (distinct values, 1 = last)."""
        return self._ranked(pool, self.attack_scores(pool))

    def top_of_pool(self, pool: Pool, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """The top ``depth`` positions of :meth:`score_pool` and their scores, best first, without ranking the
        whole pool (an open-corpus pool is the catalog); a query-free attack finds its head once for every query."""
        primary = self.attack_scores(pool)
        head = None
        if self.query_free and 0 < depth <= len(primary):
            key = (id(pool.candidates), depth)
            if key not in self._heads:
                self._heads[key] = Head.of(primary, depth)
            head = self._heads[key]
        return top_tie_broken(primary, self.seed, self._tie_key(pool), depth, head)

    def t2_features(self, pool: Pool) -> np.ndarray:
        """``(len(pool.candidates), 2)`` label-free features of a T2 query's pairs: raw score and rank within the pool."""
        raw = self.attack_scores(pool)
        return np.column_stack([raw, self._ranked(pool, raw) / max(len(raw), 1)])

    def config(self) -> dict:
        return {"seed": self.seed, "attack": self.attack}


def _count(records: list[Record], indices, keep=lambda record: True) -> Counter:
    """How many of the records at ``indices`` name each item (a record counts an item once)."""
    return Counter(item for i in indices if keep(records[i]) for item in set(records[i].items))


class CooccurrenceProbe(Probe):
    """(a) Find the other queries of the same intent and count how often each candidate recurs in their pools."""

    name = "probe-cooccurrence"
    attack = "recurrence of a candidate across the pools of the query's same-intent queries (equal texts, T4 groups, shared ids)"

    def fit(self, view: PublicView) -> CooccurrenceProbe:
        super().fit(view)
        self.counts_: dict[tuple[int, str], Counter] = {}
        return self

    def intent_counts(self, pool: Pool, other_tasks: bool = False) -> Counter:
        """Item counts over the records of the pool's intent (only other tasks' records with ``other_tasks``), cached."""
        linked = self.view_.linked(pool.qid)
        key = (id(linked), pool.task if other_tasks else "")
        if key not in self.counts_:
            keep = (lambda r: r.task != pool.task) if other_tasks else (lambda r: True)
            self.counts_[key] = _count(self.view_.records, linked, keep)
        return self.counts_[key]

    def primary(self, pool: Pool) -> np.ndarray:
        return self.view_.values(self.intent_counts(pool), pool.candidates)


class FrequencyProbe(Probe):
    """(b) Count how many public records (pools, pairs, lists of every task) name each item."""

    name = "probe-frequency"
    attack = "how many public records of all tasks name the candidate"
    query_free = True

    def fit(self, view: PublicView) -> FrequencyProbe:
        super().fit(view)
        self.counts_ = _count(view.records, range(len(view.records)))
        return self

    def primary(self, pool: Pool) -> np.ndarray:
        return self.view_.values(self.counts_, pool.candidates)


class RarityProbe(FrequencyProbe):
    """(b') The other side of (b): items named by no public record first. Anchor leaves are task-disjoint, so an
    open-corpus query's own leaf never fills a pool of its own; this probe measures what that absence gives away."""

    name = "probe-rarity"
    attack = "how few public records of all tasks name the candidate (absent from every pool first)"

    def primary(self, pool: Pool) -> np.ndarray:
        return -super().primary(pool)


class LinkageProbe(CooccurrenceProbe):
    """(c) Follow texts and ids into the other tasks: public dev grades first, then presence in other tasks' records."""

    name = "probe-linkage"
    attack = "T2 dev grades and T1/T2/T3/T4 records of other tasks reached through equal texts and shared ids"

    def fit(self, view: PublicView) -> LinkageProbe:
        super().fit(view)
        self.grades_: dict[int, dict[str, int]] = {}
        return self

    def dev_grades(self, pool: Pool) -> dict[str, int]:
        """Item -> highest public dev grade among the records of the pool's intent, cached."""
        linked = self.view_.linked(pool.qid)
        if id(linked) not in self.grades_:
            grade: dict[str, int] = {}
            for i in linked:
                label = self.view_.dev_label(self.view_.records[i])
                for item in self.view_.records[i].items if label is not None else ():
                    grade[item] = max(grade.get(item, label), label)
            self.grades_[id(linked)] = grade
        return self.grades_[id(linked)]

    def primary(self, pool: Pool) -> np.ndarray:
        grade = {item: 100.0 * (label + 1) for item, label in self.dev_grades(pool).items()}
        return self.view_.values(grade, pool.candidates) + self.view_.values(self.intent_counts(pool, other_tasks=True), pool.candidates)


class CopoolProbe(Probe):
    """(a') Without any text: how often each candidate shares a public record with the pool's other candidates."""

    name = "probe-copool"
    attack = "how often a candidate appears together with the pool's other candidates in other public records"
    query_free = True

    def fit(self, view: PublicView) -> CopoolProbe:
        super().fit(view)
        self.records_of_: dict[str, set[int]] = defaultdict(set)
        for i, record in enumerate(view.records):
            if len(record.items) > 1:
                for item in record.items:
                    self.records_of_[item].add(i)
        return self

    def primary(self, pool: Pool) -> np.ndarray:
        together = Counter(i for c in set(pool.candidates) for i in self.records_of_.get(c, ()))
        return np.array([sum(together[i] - 1 for i in self.records_of_.get(c, ())) for c in pool.candidates], dtype=np.float64)


class PositionProbe(Probe):
    """(d) Trust the file: earlier in the candidate list (or in the T2 pair file) ranks higher."""

    name = "probe-position"
    attack = "position of the candidate in its public list or file (earlier first)"
    query_free = True

    def primary(self, pool: Pool) -> np.ndarray:
        return -np.arange(len(pool.candidates), dtype=np.float64)


def numeric_ids(item_ids: list[str]) -> dict[str, float]:
    """Item id -> number: the id itself when every id is an integer, else its position in sorted order."""
    if all(i.isdigit() for i in item_ids):
        return {i: float(i) for i in item_ids}
    return {i: float(rank) for rank, i in enumerate(sorted(item_ids))}


class IdProximityProbe(Probe):
    """(e) Item ids carry structure: rank candidates by numeric closeness to the pool's median id."""

    name = "probe-id-proximity"
    attack = "numeric distance of the candidate's item id to the pool's median id"
    query_free = True

    def fit(self, view: PublicView) -> IdProximityProbe:
        super().fit(view)
        self.number_ = numeric_ids([str(i) for i in view.items.column("item_id").to_pylist()])
        return self

    def primary(self, pool: Pool) -> np.ndarray:
        ids = np.array([self.number_.get(c, np.nan) for c in pool.candidates])
        return -np.abs(ids - np.nanmedian(ids)) if np.isfinite(ids).any() else np.zeros(len(ids))

    def t2_features(self, pool: Pool) -> np.ndarray:
        ids = np.array([self.number_.get(c, 0.0) for c in pool.candidates])
        return np.column_stack([super().t2_features(pool), ids])


class RowProximityProbe(IdProximityProbe):
    """(e'') Row order carries structure: rank candidates by closeness of their row in ``items.parquet`` to the pool's
    median row (the rows are in opaque-id order; in a release that kept the catalog's order, neighbouring rows are often one product line)."""

    name = "probe-row-proximity"
    attack = "distance of the candidate's row in items.parquet to the pool's median row"

    def fit(self, view: PublicView) -> RowProximityProbe:
        Probe.fit(self, view)
        self.number_ = {str(item): float(row) for row, item in enumerate(view.items.column("item_id").to_pylist())}
        return self


class QidOrderProbe(Probe):
    """(e') qids carry structure: count how often a candidate recurs in the records of the nearest qids (all tasks)."""

    name = "probe-qid-order"
    attack = "recurrence of the candidate in the records of the queries with neighbouring qids"

    def __init__(self, seed: int = 0, window: int = 3) -> None:
        super().__init__(seed)
        self.window = window

    def fit(self, view: PublicView) -> QidOrderProbe:
        super().fit(view)
        self.by_qid_: dict[str, list[int]] = defaultdict(list)
        for i, record in enumerate(view.records):
            for link in record.links:
                if link.startswith("qid:"):
                    self.by_qid_[link[4:]].append(i)
        self.order_ = sorted(self.by_qid_, key=lambda qid: (len(qid), qid))
        self.position_ = {qid: k for k, qid in enumerate(self.order_)}
        return self

    def primary(self, pool: Pool) -> np.ndarray:
        k = self.position_.get(pool.qid, 0)
        near = [q for q in self.order_[max(0, k - self.window):k + self.window + 1] if q != pool.qid]
        counts = _count(self.view_.records, [i for q in near for i in self.by_qid_[q]])
        return self.view_.values(counts, pool.candidates)

    def config(self) -> dict:
        return {**super().config(), "window": self.window}


#: The built-in probes by name.
PROBES = {cls.name: cls for cls in (CooccurrenceProbe, FrequencyProbe, RarityProbe, LinkageProbe, CopoolProbe, PositionProbe,
                                    IdProximityProbe, RowProximityProbe, QidOrderProbe)}
