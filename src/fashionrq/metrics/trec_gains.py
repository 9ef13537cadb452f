"""trec_eval's gain-based measures (ndcg, ndcg_rel, Rndcg, G, ndcg_cut) and its ``level=gain`` gain maps.

trec_eval orders the gain levels with ``qsort`` and the comparator ``(int)(gain1 - gain2)``: gains closer
than 1 compare equal, so a map such as ``3=1,2=0.1,1=0.01`` can leave the levels out of order and the ideal
ranking wrong (pytrec_eval gives nDCG 0.0 for it). :func:`trec_gain_order` reproduces that order exactly
(glibc's merge sort); :func:`gain_map_is_ordered` tells whether a map is safe. nDCG does not change when
every gain is multiplied by the same factor, so ``3=100,2=10,1=1`` is the safe spelling of 1/0.1/0.01.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fashionrq.errors import InputError
from fashionrq.ieee import log2_array
from fashionrq.metrics.trec import distinct_ints, group_positions
from fashionrq.metrics.trec_measures import ResRels, _grouped_cumsum, _ratio

GainPairs = Sequence[tuple[int, float]]


def parse_gain_pairs(text: str, where: str = "gain map") -> list[tuple[int, float]]:
    """Parse trec_eval's ``level=gain,level=gain`` syntax (``1=0.1,2=1``) into (level, gain) pairs, in order."""
    pairs: list[tuple[int, float]] = []
    for part in text.split(","):
        level, sep, gain = part.partition("=")
        try:
            pair = (int(level), float(gain))
        except ValueError:
            pair = None
        if not sep or pair is None or not np.isfinite(pair[1]):
            raise InputError(f"{where} {text!r}: {part!r} is not 'level=gain'; write it as e.g. 3=1,2=0.1,1=0.01,0=0.")
        if pair[0] in dict(pairs):
            raise InputError(f"{where} {text!r} gives level {pair[0]} twice; give each grade one gain.")
        pairs.append(pair)
    return pairs


def _glibc_merge_sort(items: list, compare) -> list:
    """glibc's qsort for small arrays: a stable top-down merge sort, taking the left item when compare <= 0."""
    if len(items) <= 1:
        return items
    half = len(items) // 2
    left, right = _glibc_merge_sort(items[:half], compare), _glibc_merge_sort(items[half:], compare)
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def trec_gain_order(pairs: GainPairs, num_rel_levels: int) -> list[tuple[int, float]]:
    """trec_eval's ``setup_gains``: user pairs, then unlisted levels 0..num_rel_levels-1 (gain = level), sorted."""
    given = {level for level, _ in pairs}
    items = list(pairs) + [(level, float(level)) for level in range(num_rel_levels) if level not in given]
    return _glibc_merge_sort(items, lambda a, b: int(a[1] - b[1]))


def gain_map_is_ordered(pairs: GainPairs, num_rel_levels: int) -> bool:
    """True when trec_eval's truncating comparator sorts these gains correctly (ascending by gain)."""
    gains = [gain for _, gain in trec_gain_order(pairs, num_rel_levels)]
    return all(a <= b for a, b in zip(gains, gains[1:]))


def result_gains(rr: ResRels, pairs: GainPairs) -> np.ndarray:
    """trec_eval's ``get_gain`` for every ranked row: the mapped gain, else the grade (0 for unjudged rows)."""
    gains = np.where(rr.rel >= 0, rr.rel, 0).astype(np.float64)
    for level, gain in pairs:
        gains[rr.rel == level] = gain
    return gains


def ideal_gains(rr: ResRels, pairs: GainPairs) -> tuple[np.ndarray, np.ndarray]:
    """The ideal ranking trec_eval walks, per query: (query of each ideal position, its gain), query-major."""
    queries, gains = [], []
    column = {int(level): c for c, level in enumerate(rr.levels)}
    for num_levels in distinct_ints(rr.num_rel_levels):
        members = np.flatnonzero(rr.num_rel_levels == num_levels)
        order = trec_gain_order(pairs, int(num_levels))
        counts = np.zeros((len(members), len(order)), dtype=np.int64)
        active = np.full(len(members), bool(order) and order[-1][1] > 0)
        for slot, (level, gain) in reversed(list(enumerate(order))):
            level_counts = rr.level_counts[members, column[level]] if level in column else np.zeros(len(members), int)
            if gain <= 0:
                active &= level_counts == 0
            else:
                counts[:, slot] = np.where(active, level_counts, 0)
        slots = np.arange(len(order))[::-1]
        flat = counts[:, slots].ravel()
        queries.append(np.repeat(np.repeat(members, len(order)), flat))
        gains.append(np.repeat(np.tile(np.array([g for _, g in order], dtype=float)[slots], len(members)), flat))
    query, gain = np.concatenate(queries or [np.zeros(0, int)]), np.concatenate(gains or [np.zeros(0)])
    order = np.argsort(query, kind="stable")
    return query[order], gain[order]


class _Gains:
    """Discounted gains of the run and of the ideal ranking, with per-query prefix sums."""

    def __init__(self, rr: ResRels, pairs: GainPairs) -> None:
        self.rr = rr
        self.gain = result_gains(rr, pairs)
        self.discount = 1.0 / log2_array(rr.rank + 2.0)
        self.dcg_through = _grouped_cumsum(self.gain * self.discount, rr.start, rr.query)
        self.dcg = rr.total(self.gain * self.discount)
        self.ideal_query, self.ideal_gain = ideal_gains(rr, pairs)
        self.n_ideal = np.bincount(self.ideal_query, minlength=rr.n)
        self.ideal_start = np.r_[0, np.cumsum(self.n_ideal)[:-1]].astype(np.int64)
        self.ideal_rank = np.arange(len(self.ideal_query)) - self.ideal_start[self.ideal_query]
        ideal = self.ideal_gain / log2_array(self.ideal_rank + 2.0)
        self.idcg_through = _grouped_cumsum(ideal, self.ideal_start, self.ideal_query)
        self.idcg = np.bincount(self.ideal_query, weights=ideal, minlength=rr.n)

    def dcg_before(self, query: np.ndarray, position: np.ndarray) -> np.ndarray:
        """Run DCG over ranks < position (position clipped to the query's results)."""
        return _prefix_sum(self.dcg_through, self.rr.start, self.rr.num_ret, query, position)

    def idcg_before(self, query: np.ndarray, position: np.ndarray) -> np.ndarray:
        """Ideal DCG over ideal ranks < position (clipped to the ideal ranking's length)."""
        return _prefix_sum(self.idcg_through, self.ideal_start, self.n_ideal, query, position)


def _prefix_sum(through: np.ndarray, start: np.ndarray, length: np.ndarray, query: np.ndarray,
                position: np.ndarray) -> np.ndarray:
    """Sum of a query's first ``position`` values, from its inclusive running sums ``through``."""
    end = np.minimum(position, length[query])
    if not len(through):
        return np.zeros(len(query))
    return np.where(end > 0, through[np.maximum(start[query] + end - 1, 0)], 0.0)


def ndcg(rr: ResRels, pairs: GainPairs = ()) -> np.ndarray:
    """m_ndcg.c: DCG of the whole run over DCG of the ideal ranking."""
    g = _Gains(rr, pairs)
    return np.where(g.idcg > 0, _ratio(g.dcg, g.idcg), 0.0)


def ndcg_rel(rr: ResRels, pairs: GainPairs = ()) -> np.ndarray:
    """m_ndcg_rel.c: nDCG averaged over the relevant (gain > 0) documents; unretrieved ones at the final nDCG."""
    g = _Gains(rr, pairs)
    positive = g.gain > 0
    rows = np.flatnonzero(positive)
    query = rr.query[rows]
    ideal_at = g.idcg_before(query, np.minimum(rr.rank[rows], g.n_ideal[query] - 1) + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.bincount(query, weights=g.dcg_through[rows] / ideal_at, minlength=rr.n)
        total += (g.n_ideal - rr.count(positive)) * (g.dcg / g.idcg)
        return np.where(total > 0, total / g.n_ideal, 0.0)


def rndcg(rr: ResRels, pairs: GainPairs = ()) -> np.ndarray:
    """m_Rndcg.c: nDCG averaged at each rank where the ideal gain changes (and at the end of the run)."""
    g = _Gains(rr, pairs)
    iq, ir, igain = g.ideal_query, g.ideal_rank, g.ideal_gain
    previous = np.r_[np.nan, igain[:-1]]
    change = (ir > 0) & (igain != previous)  # ideal gain changes at position ir (ir >= 1)
    ends = g.n_ideal > 0  # the ideal ranking ends at position n_ideal: a change to 0
    query = np.r_[iq[change], np.flatnonzero(ends)]
    position = np.r_[ir[change], g.n_ideal[ends]]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = g.dcg_before(query, position) / g.idcg_before(query, position)
        total = np.bincount(query, weights=values, minlength=rr.n)
        count = np.bincount(query, minlength=rr.n).astype(float)
        extra = (rr.num_ret > g.n_ideal + 1) & (g.idcg > 0)
        total += np.where(extra, g.dcg / np.where(extra, g.idcg, 1.0), 0.0)
        count += extra
        value = total / count
    return np.where(rr.num_rel > 0, value, 0.0)


def g_measure(rr: ResRels, pairs: GainPairs = ()) -> np.ndarray:
    """m_G.c: gain / log2(2 + ideal cost so far - run gain so far), over the ideal total gain."""
    g = _Gains(rr, pairs)
    capped = np.maximum(g.ideal_gain, 1.0)
    cost_through = _grouped_cumsum(capped, g.ideal_start, g.ideal_query)
    query, rank = rr.query, rr.rank
    last = np.minimum(rank, g.n_ideal[query] - 1)
    cost = np.where(g.n_ideal[query] > 0, cost_through[np.maximum(g.ideal_start[query] + last, 0)]
                    if len(cost_through) else 0.0, 0.0) + np.maximum(0, rank - g.n_ideal[query] + 1)
    sum_results = _grouped_cumsum(g.gain, rr.start, query)
    nonzero = g.gain != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(nonzero, g.gain / log2_array(2.0 + cost - sum_results), 0.0)
    ideal_total = np.bincount(g.ideal_query, weights=g.ideal_gain, minlength=rr.n)
    return np.where(ideal_total > 0, _ratio(rr.total(term), ideal_total), 0.0)


def ndcg_cut(rr: ResRels, k: int) -> np.ndarray:
    """m_ndcg_cut.c: DCG@k over ideal DCG@k, gains = grades (> 0), the ideal from the judged grade counts."""
    gain = np.where(rr.rel > 0, rr.rel, 0).astype(np.float64)
    top = rr.rank < k
    dcg = rr.total(gain / log2_array(rr.rank + 2.0), top)
    iq, igain = ideal_gains(rr, ())
    irank = group_positions(iq)
    keep = irank < k
    idcg = np.bincount(iq[keep], weights=igain[keep] / log2_array(irank[keep] + 2.0), minlength=rr.n)
    return _ratio(dcg, idcg)

