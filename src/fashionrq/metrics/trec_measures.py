"""trec_eval's measures, vectorised over every query at once: the ranked relevance list and one kernel per measure.

Each kernel reproduces the C function of trec_eval 9.0.8 (the version bundled by pytrec_eval) named in its
docstring, including its quirks; docs/metrics.md lists them. Ranks are 0-based here; ``rel`` is a grade,
``NONPOOL`` (-1) for a document the qrels do not list, ``UNJUDGED`` (-2) for a negative grade in the qrels.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fashionrq.ieee import log2_array
from fashionrq.metrics.trec import Qrels, Run, _recode, arrow_int64, distinct_ints, group_positions, judged_values

NONPOOL, UNJUDGED = -1, -2
MIN_GEO_MEAN = 1e-5
INFAP_EPSILON = 1e-5


@dataclass
class ResRels:
    """Per evaluated query (qid byte order): its ranked rows (``query``, ``rank``, ``rel``) and judged grade counts."""

    qids: pa.Array
    query: np.ndarray
    rank: np.ndarray
    rel: np.ndarray
    levels: np.ndarray  # distinct grades >= 0 in the qrels of evaluated queries, ascending
    level_counts: np.ndarray  # (queries, levels): judged documents per grade, retrieved or not
    relevance_level: int
    num_q_rels: int
    runid: str
    qrels_positive: int  # qrels lines with grade > 0 over every query (trec_eval's num_rel summary with -c)

    @property
    def n(self) -> int:
        return len(self.qids)

    @cached_property
    def num_ret(self) -> np.ndarray:
        return np.bincount(self.query, minlength=self.n)

    @cached_property
    def start(self) -> np.ndarray:
        """Row index of each query's first ranked row."""
        return np.r_[0, np.cumsum(self.num_ret)[:-1]].astype(np.int64)

    @cached_property
    def is_rel(self) -> np.ndarray:
        return self.rel >= self.relevance_level

    @cached_property
    def num_rel(self) -> np.ndarray:
        return self.level_counts[:, self.levels >= self.relevance_level].sum(axis=1)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        return self.count(self.is_rel)

    @cached_property
    def hits_so_far(self) -> np.ndarray:
        """Relevant rows at or above each row, within its query."""
        return _grouped_cumsum(self.is_rel, self.start, self.query)

    @cached_property
    def num_rel_levels(self) -> np.ndarray:
        """trec_eval's ``num_rel_levels``: highest judged grade >= 0 of the query, plus one (0 when none)."""
        present = self.level_counts > 0
        top = np.where(present.any(axis=1), present.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1), -1)
        return np.where(top >= 0, self.levels[np.maximum(top, 0)] + 1, 0) if len(self.levels) else np.zeros(self.n, int)

    def count(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.query[mask], minlength=self.n)

    def total(self, weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        if mask is None:
            return np.bincount(self.query, weights=weights, minlength=self.n)
        return np.bincount(self.query[mask], weights=weights[mask], minlength=self.n)

    def hits_at(self, k: int) -> np.ndarray:
        return self.count(self.is_rel & (self.rank < k))


def _grouped_cumsum(values: np.ndarray, start: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Inclusive running sum of ``values`` (booleans count as 0/1) within each query (rows grouped by query,
    ``start`` its first row)."""
    total = np.cumsum(values, dtype=np.int64 if values.dtype == bool else None)
    before = np.zeros(len(start), dtype=total.dtype)  # the running sum just above each query's first row
    inner = start > 0
    before[inner] = total[start[inner] - 1]
    total -= before[query]
    return total


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros(len(numerator))
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def build_res_rels(qrels: Qrels, run: Run, relevance_level: int = 1, judged_only: bool = False,
                   max_docs: int | None = None) -> ResRels:
    """Join ``run`` with ``qrels`` the way trec_eval's ``form_res_rels`` does, for every query both list."""
    qrels_qids = qrels._encoded[0].dictionary  # distinct query ids
    run_query_rank, run_qids = run._query_codes
    judged = pc.is_in(run_qids, value_set=qrels_qids).to_numpy(zero_copy_only=False)
    qids = run_qids.take(arrow_int64(np.flatnonzero(judged)))
    order = run.ranking
    rows_per_query = np.bincount(run_query_rank, minlength=len(run_qids))  # the ranking is grouped by query id
    query = np.repeat(np.arange(len(qids)), rows_per_query[judged])  # index among the judged query ids
    if not judged.all():
        order = order[np.repeat(judged, rows_per_query)]
    grades = np.where(qrels.grade < 0, UNJUDGED, qrels.grade)
    rel = judged_values(qrels, run, grades, NONPOOL)[order]
    rank = group_positions(query)
    kept = np.ones(len(query), dtype=bool)
    if max_docs is not None:
        kept &= rank < max_docs
    if judged_only:
        kept &= rel >= 0
    if not kept.all():
        query, rel = query[kept], rel[kept]
        rank = group_positions(query)
    levels, counts = _level_counts(qrels, qids)
    return ResRels(qids, query, rank, rel, levels, counts, relevance_level, len(qrels_qids), run.name,
                   int((qrels.grade > 0).sum()))


def _level_counts(qrels: Qrels, qids: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    query = _recode(qrels._encoded[0], qids)
    valid = (query >= 0) & (qrels.grade >= 0)
    query = query[valid]
    grades = qrels.grade[valid]
    levels = distinct_ints(grades)
    column = np.searchsorted(levels, grades)
    counts = np.bincount(query * len(levels) + column, minlength=len(qids) * len(levels))
    return levels, counts.reshape(len(qids), len(levels))


# ----------------------------------------------------------------------------------------------- simple measures


def num_nonrel_judged_ret(rr: ResRels) -> np.ndarray:
    """m_num_nonrel_judged_ret.c: retrieved, judged, not relevant."""
    return (rr.count(rr.rel >= 0) - rr.num_rel_ret).astype(np.float64)


def average_precision(rr: ResRels, cutoff: int | None = None) -> np.ndarray:
    """m_map.c / m_map_cut.c: sum of precision at each relevant retrieved row, over num_rel."""
    mask = rr.is_rel if cutoff is None else rr.is_rel & (rr.rank < cutoff)
    precision = rr.hits_so_far / (rr.rank + 1.0)
    return _ratio(rr.total(precision, mask), rr.num_rel)


def rprec(rr: ResRels) -> np.ndarray:
    """m_Rprec.c: relevant in the top min(num_ret, num_rel), over num_rel."""
    look = np.minimum(rr.num_ret, rr.num_rel)
    return _ratio(rr.count(rr.is_rel & (rr.rank < look[rr.query])), rr.num_rel)


def bpref(rr: ResRels) -> np.ndarray:
    """m_bpref.c: for each relevant retrieved, 1 - min(nonrel above, R) / min(judged nonrel, R); over R."""
    judged_nonrel = (rr.rel >= 0) & ~rr.is_rel
    nonrel_above = _grouped_cumsum(judged_nonrel.astype(np.int64), rr.start, rr.query) - judged_nonrel
    num_nonrel = rr.level_counts[:, rr.levels < rr.relevance_level].sum(axis=1)
    r = rr.num_rel[rr.query]
    cap = np.minimum(num_nonrel, rr.num_rel)[rr.query]
    term = np.where(nonrel_above > 0, 1.0 - _ratio(np.minimum(nonrel_above, r).astype(float), cap), 1.0)
    return _ratio(rr.total(term, rr.is_rel), rr.num_rel)


def recip_rank(rr: ResRels) -> np.ndarray:
    """m_recip_rank.c: 1 / rank of the first relevant retrieved document."""
    rows = np.flatnonzero(rr.is_rel)  # in ranking order, grouped by query
    query = rr.query[rows]
    first = rows[np.r_[True, query[1:] != query[:-1]]] if len(rows) else rows
    values = np.zeros(rr.n)
    values[rr.query[first]] = 1.0 / (rr.rank[first] + 1.0)
    return values


def infap(rr: ResRels) -> np.ndarray:
    """m_infap.c: inferred AP (Yilmaz and Aslam), judged-sample estimate of AP."""
    judged_nonrel = ((rr.rel >= 0) & ~rr.is_rel).astype(np.int64)
    unjudged = (rr.rel == UNJUDGED).astype(np.int64)
    nonrel_above = _grouped_cumsum(judged_nonrel, rr.start, rr.query) - judged_nonrel
    unjudged_above = _grouped_cumsum(unjudged, rr.start, rr.query) - unjudged
    rel_above = rr.hits_so_far - 1.0
    j = rr.rank.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_above + nonrel_above + unjudged_above) / j) * (
            (rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON))
    term = np.where(rr.rank == 0, 1.0, term)
    return _ratio(rr.total(term, rr.is_rel), rr.num_rel)


def bin_g(rr: ResRels) -> np.ndarray:
    """m_binG.c: mean over relevant documents of 1 / log2(2 + nonrelevant retrieved above)."""
    term = 1.0 / log2_array(3.0 + rr.rank - rr.hits_so_far)
    return _ratio(rr.total(term, rr.is_rel), rr.num_rel)


def precision_at(rr: ResRels, k: int) -> np.ndarray:
    """m_P.c."""
    return rr.hits_at(k) / float(k)


def recall_at(rr: ResRels, k: int) -> np.ndarray:
    """m_recall.c."""
    return _ratio(rr.hits_at(k).astype(float), rr.num_rel)


def relative_precision_at(rr: ResRels, k: int) -> np.ndarray:
    """m_rel_P.c: relevant in the top k over min(k, num_rel)."""
    return _ratio(rr.hits_at(k).astype(float), np.minimum(k, rr.num_rel))


def success_at(rr: ResRels, k: int) -> np.ndarray:
    """m_success.c."""
    return (rr.hits_at(k) > 0).astype(np.float64)


def rprec_mult(rr: ResRels, fraction: float) -> np.ndarray:
    """m_Rprec_mult.c: precision at (long)(fraction * num_rel + 0.9) documents (0 at a cutoff of 0)."""
    cut = np.floor(fraction * rr.num_rel + 0.9).astype(np.int64)
    hits = rr.count(rr.is_rel & (rr.rank < cut[rr.query]))
    return _ratio(hits.astype(float), cut)


def interpolated_precision(rr: ResRels, fractions: list[float]) -> np.ndarray:
    """m_iprec_at_recall.c: (queries, cutoffs) interpolated precision at recall (long)(f * num_rel + 0.9)."""
    rows = np.flatnonzero(rr.is_rel)
    precision = rr.hits_so_far[rows] / (rr.rank[rows] + 1.0)
    best = _suffix_max(precision, rr.query[rows])  # max precision at this or any later relevant document
    kth = np.r_[0, np.cumsum(rr.num_rel_ret)[:-1]].astype(np.int64)
    out = np.zeros((rr.n, len(fractions)))
    for c, fraction in enumerate(fractions):
        cut = np.floor(fraction * rr.num_rel + 0.9).astype(np.int64)
        ok = (cut <= rr.num_rel_ret) & (rr.num_rel_ret > 0)
        index = kth[ok] + np.maximum(cut[ok], 1) - 1
        out[ok, c] = best[index]
        out[(rr.num_ret == 0) & (cut == 0), c] = np.nan  # trec_eval divides 0 by 0 retrieved (with -J)
    return out


def _suffix_max(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Max of ``values`` from each element to the end of its group (groups contiguous, ascending); exact."""
    if len(values) == 0:
        return values
    distinct, rank = np.unique(values, return_inverse=True)
    span = len(distinct)
    keyed = rank[::-1].astype(np.int64) + (groups.max() - groups[::-1]).astype(np.int64) * span
    running = np.maximum.accumulate(keyed) - (groups.max() - groups[::-1]).astype(np.int64) * span
    return distinct[running[::-1]]


def utility(rr: ResRels, params: list[float], num_docs: int = 0) -> np.ndarray:
    """m_utility.c: p1 * a + p2 * b + p3 * c + p4 * d over the retrieved/relevant contingency table."""
    a, ret, rel = rr.num_rel_ret, rr.num_ret, rr.num_rel
    return params[0] * a + params[1] * (ret - a) + params[2] * (rel - a) + params[3] * (num_docs + a - ret - rel)


def set_measures(rr: ResRels, name: str, beta: float = 1.0) -> np.ndarray:
    """m_set_P.c, m_set_rel_P.c, m_set_recall.c, m_set_map.c, m_set_F.c: the retrieved set as a whole."""
    a, ret, rel = rr.num_rel_ret.astype(float), rr.num_ret.astype(float), rr.num_rel.astype(float)
    if name == "set_P":
        return _ratio(a, ret)
    if name == "set_relative_P":
        return _ratio(a, np.where(rel > 0, np.minimum(ret, rel), 0))
    if name == "set_recall":
        return _ratio(a, rel)
    if name == "set_map":
        return _ratio(a * a, np.where(rel > 0, ret * rel, 0))
    p, r = _ratio(a, ret), _ratio(a, rel)
    return _ratio((beta + 1.0) * p * r, np.where(a > 0, beta * p + r, 0))


def relstring(rr: ResRels, length: int) -> list[str]:
    """m_relstring.c: the first ``length`` relevance values as characters (0-9, '>' above 9, '-' nonpool, '.' unjudged)."""
    chars = np.where(rr.rel > 9, ord(">"), np.where(rr.rel >= 0, ord("0") + rr.rel,
                     np.where(rr.rel == NONPOOL, ord("-"), ord(".")))).astype(np.uint8)
    chars = chars[rr.rank < length]
    ends = np.cumsum(np.minimum(rr.num_ret, max(length, 0)))
    text = chars.tobytes().decode("ascii")
    return [text[b:e] for b, e in zip(np.r_[0, ends[:-1]], ends)]
