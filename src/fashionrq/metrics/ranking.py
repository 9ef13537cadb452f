"""Ranking metrics (trec_eval-compatible and fashionrq names), vectorised over all queries at once.

Definitions, denominators and tie-breaking are stated in docs/metrics.md. In short: a run is ranked per
query by score descending, ties by docno descending (trec_eval); a document absent from the qrels has
grade "unjudged" (never relevant, gain 0); a document is relevant when its grade >= the relevance level.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fashionrq.errors import InputError
from fashionrq.ieee import log2_array
from fashionrq.metrics.trec import Qrels, Run, group_positions, judged_values
from fashionrq.metrics.trec_gains import parse_gain_pairs

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
UNJUDGED = -1

# trec_eval name -> (kind, takes cutoffs, position in trec_eval's measure table)
_TREC = {
    "map": ("ap", False, 5),
    "recip_rank": ("rr", False, 9),
    "P": ("precision", True, 11),
    "recall": ("recall", True, 13),
    "ndcg_cut": ("ndcg", True, 26),
}
_FASHIONRQ = {
    "ndcg": "ndcg",
    "ndcg_exp": "ndcg_exp",
    "recall": "recall",
    "capped_recall": "capped_recall",
    "hit_rate": "hit_rate",
    "mrr": "rr",
    "precision": "precision",
}
_GRADED = {"ndcg", "ndcg_exp"}
_NAME = re.compile(r"^(?P<base>[A-Za-z_]+)(?:(?P<sep>[.@])(?P<ks>\d+(?:,\d+)*))?(?:\(rel=(?P<rel>\d+)\))?$")


@dataclass(frozen=True)
class Metric:
    """One parsed metric: ``name`` is its key in results, ``label`` its trec_eval-style printed name."""

    name: str
    kind: str
    k: int | None
    level: int | None
    label: str
    trec_position: int | None


def _parse_one(raw: str) -> list[Metric]:
    match = _NAME.match(raw.strip())
    if not match:
        return []
    base, sep, ks, rel = match["base"], match["sep"], match["ks"], match["rel"]
    level = None if rel is None else int(rel)
    suffix = "" if rel is None else f"(rel={rel})"
    cutoffs = [int(k) for k in ks.split(",")] if ks else []
    if any(k < 1 for k in cutoffs):
        return []
    if base in _TREC and sep != "@":
        kind, takes_cutoffs, position = _TREC[base]
        if kind in _GRADED and level is not None:
            return []
        if not takes_cutoffs:
            return [] if cutoffs else [Metric(f"{base}{suffix}", kind, None, level, f"{base}{suffix}", position)]
        return [
            Metric(f"{base}.{k}{suffix}", kind, k, level, f"{base}_{k}{suffix}", position)
            for k in sorted(set(cutoffs or TREC_CUTOFFS))
        ]
    if base in _FASHIONRQ and sep == "@" and len(cutoffs) == 1:
        kind = _FASHIONRQ[base]
        if kind in _GRADED and level is not None:
            return []
        name = f"{base}@{cutoffs[0]}{suffix}"
        return [Metric(name, kind, cutoffs[0], level, name, None)]
    return []


def parse_metrics(names: Sequence[str] | str) -> list[Metric]:
    """Parse metric names (``ndcg_cut.10``, ``recall.5,10``, ``P``, ``ndcg@10``, ``recall@10(rel=3)`` ...)."""
    names = [names] if isinstance(names, str) else names
    metrics: list[Metric] = []
    for raw in names:
        parsed = _parse_one(raw)
        if not parsed:
            raise InputError(
                f"metric {raw!r} is not known; use trec_eval names (ndcg_cut.K, recall.K, P.K, recip_rank, map) or "
                "ndcg@K, ndcg_exp@K, recall@K, capped_recall@K, hit_rate@K, mrr@K, precision@K, with K >= 1 and an "
                "optional (rel=N) suffix on the binary ones."
            )
        metrics.extend(m for m in parsed if m not in metrics)
    return metrics


class _Ranked:
    """A run joined with qrels: per evaluated row its query index, 0-based rank and grade, in trec_eval order."""

    def __init__(self, qrels: Qrels, run: Run) -> None:
        qrel_qcodes, qids = qrels._query_codes
        self.qids = qids
        self.num_queries = len(qids)
        # judged documents: query index and grade, sorted by query then grade descending (the ideal ranking)
        order = np.lexsort((-qrels.grade, qrel_qcodes))
        self.judged_query = qrel_qcodes[order]
        self.judged_grade = qrels.grade[order]
        self.judged_rank = group_positions(self.judged_query)
        # run rows restricted to judged queries, in trec_eval order
        run_qcodes, run_qids = run._query_codes
        to_qrels = pc.fill_null(pc.index_in(run_qids, value_set=qids), -1).to_numpy()
        ranking = run.ranking
        row_query = to_qrels[run_qcodes[ranking]]
        keep = row_query >= 0
        self.query = row_query[keep]
        self.rank = group_positions(self.query)
        self.grade = _run_grades(qrels, run)[ranking[keep]]
        self.present = np.bincount(self.query, minlength=self.num_queries) > 0

    def per_query(self, metric: Metric, level: int, gains: Mapping[int, float] | None = None) -> np.ndarray:
        """The metric's value for every judged query (0 where the run has no results for it)."""
        n, k = self.num_queries, metric.k
        top = np.ones(len(self.rank), dtype=bool) if k is None else self.rank < k
        relevant = self.grade >= level
        num_rel = np.bincount(self.judged_query[self.judged_grade >= level], minlength=n)
        if metric.kind in _GRADED:
            gain = _gain(self.grade[top], metric.kind, gains) / log2_array(self.rank[top] + 2.0)
            judged_gain = _gain(self.judged_grade, metric.kind, gains)
            best_first = np.lexsort((-judged_gain, self.judged_query))  # the ideal ranking: gains descending
            ideal_top = self.judged_rank < k
            ideal = judged_gain[best_first][ideal_top] / log2_array(self.judged_rank[ideal_top] + 2.0)
            dcg = np.bincount(self.query[top], weights=gain, minlength=n)
            idcg = np.bincount(self.judged_query[ideal_top], weights=ideal, minlength=n)
            return _ratio(dcg, idcg)
        hits = np.bincount(self.query[top & relevant], minlength=n).astype(np.float64)
        if metric.kind == "precision":
            return hits / k
        if metric.kind == "recall":
            return _ratio(hits, num_rel)
        if metric.kind == "capped_recall":
            return _ratio(hits, np.minimum(num_rel, k))
        if metric.kind == "hit_rate":
            return (hits > 0).astype(np.float64)
        if metric.kind == "rr":
            rows = np.flatnonzero(top & relevant)
            first = rows[np.r_[True, self.query[rows][1:] != self.query[rows][:-1]]] if len(rows) else rows
            values = np.zeros(n)
            values[self.query[first]] = 1.0 / (self.rank[first] + 1.0)
            return values
        # average precision: precision at each relevant retrieved document, summed, over all relevant
        rows = np.flatnonzero(relevant)
        hits_so_far = group_positions(self.query[rows]) + 1.0
        precision = np.bincount(self.query[rows], weights=hits_so_far / (self.rank[rows] + 1.0), minlength=n)
        return _ratio(precision, num_rel)


def _run_grades(qrels: Qrels, run: Run) -> np.ndarray:
    """Grade of every run row (in file order), UNJUDGED where the (query, docno) pair is not in the qrels."""
    return judged_values(qrels, run, qrels.grade, UNJUDGED)


def _gain(grades: np.ndarray, kind: str, gains: Mapping[int, float] | None = None) -> np.ndarray:
    """Gain of each grade: the grade (ndcg) or 2^grade - 1 (ndcg_exp); a gain map overrides ndcg's (trec_eval's
    rule: an unmapped grade keeps its own value); unjudged and negative grades gain 0."""
    positive = np.maximum(grades, 0).astype(np.float64)
    if kind == "ndcg_exp":
        return np.exp2(positive) - 1.0
    for grade, gain in (gains or {}).items():
        positive[grades == grade] = gain
    return positive


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros(len(numerator))
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def evaluate(
    qrels: Qrels,
    run: Run,
    metrics: Sequence[str] | str,
    per_query: bool = False,
    relevance_level: int = 1,
    complete: bool = False,
    gains: Mapping[int, float] | str | None = None,
) -> dict[str, float] | dict[str, dict[str, float]]:
    """Evaluate ``run`` against ``qrels``: ``{metric: mean}``, or ``{qid: {metric: value}}`` with ``per_query``.

    Queries evaluated are those judged in ``qrels`` that the run answers (trec_eval's default); with
    ``complete=True`` every judged query counts and unanswered ones score 0 (trec_eval ``-c``). Queries
    the run answers but ``qrels`` lacks are ignored (see ``check_run_against_qrels``).
    ``relevance_level`` is the grade from which a document counts as relevant (trec_eval ``-l``); a
    ``(rel=N)`` suffix on a metric name overrides it for that metric. nDCG uses the grades themselves
    as gains, or ``gains`` (``{grade: gain}`` or trec_eval's ``"3=1,2=0.1,1=0.01"``; an unmapped grade keeps its
    own value, as in trec_eval); ndcg_exp ignores ``gains``.
    """
    if relevance_level < 0:
        raise InputError(f"relevance level {relevance_level} is negative; use a grade such as 1 (any relevant) or 3 (exact).")
    parsed = parse_metrics(metrics)
    ranked = _Ranked(qrels, run)
    selected = np.ones(ranked.num_queries, dtype=bool) if complete else ranked.present
    if not selected.any():
        raise InputError(
            f"no query of {run.source} is judged in {qrels.source}; check that the run and the qrels belong to the same task."
        )
    gain_map = _gain_map(gains)
    values = {m.name: ranked.per_query(m, relevance_level if m.level is None else m.level, gain_map)[selected]
              for m in parsed}
    if not per_query:
        return {name: float(column.mean()) for name, column in values.items()}
    qids = ranked.qids.filter(pa.array(selected)).to_pylist()
    columns = {name: column.tolist() for name, column in values.items()}
    return {qid: {name: column[i] for name, column in columns.items()} for i, qid in enumerate(qids)}


def _gain_map(gains: Mapping[int, float] | str | None) -> dict[int, float] | None:
    if gains is None or isinstance(gains, Mapping):
        return None if gains is None else {int(g): float(v) for g, v in gains.items()}
    return dict(parse_gain_pairs(gains, where="gain map"))


def compare(
    qrels: Qrels,
    runs: Mapping[str, Run] | Sequence[Run],
    metrics: Sequence[str],
    relevance_level: int = 1,
    complete: bool = False,
) -> dict[str, dict[str, float]]:
    """Mean metrics of several runs on the same qrels: ``{run name: {metric: mean}}``."""
    named = dict(runs) if isinstance(runs, Mapping) else {}
    if not isinstance(runs, Mapping):
        for run in runs:
            if run.name in named:
                raise InputError(f"two runs are named {run.name!r}; pass a mapping {{name: run}} to tell them apart.")
            named[run.name] = run
    return {
        name: evaluate(qrels, run, metrics, relevance_level=relevance_level, complete=complete) for name, run in named.items()
    }


def jaccard_consistency(rankings: Sequence[Sequence[str]], k: int) -> float:
    """Mean pairwise Jaccard similarity of the top-``k`` sets of two or more rankings (two empty sets: 1)."""
    if len(rankings) < 2:
        raise InputError(f"consistency needs at least two rankings but got {len(rankings)}; group two or more queries.")
    if k < 1:
        raise InputError(f"consistency cutoff k={k} must be at least 1.")
    tops = [set(ranking[:k]) for ranking in rankings]
    scores = [len(a & b) / len(a | b) if a | b else 1.0 for a, b in combinations(tops, 2)]
    return float(np.mean(scores))


def consistency(run: Run, groups: Mapping[str, Sequence[str]], k: int) -> dict[str, float]:
    """Consistency@k of every group ``{group_id: [qid, ...]}``: mean pairwise Jaccard of the run's top-k sets.

    A query the run does not answer has an empty top-k set.
    """
    ranked = run.ranked(k)
    out = {}
    for group, qids in groups.items():
        if len(qids) < 2:
            raise InputError(f"group {group!r} has {len(qids)} query; consistency needs two or more queries per group.")
        out[group] = jaccard_consistency([ranked.get(qid, []) for qid in qids], k)
    return out
