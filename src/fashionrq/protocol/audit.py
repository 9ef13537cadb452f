"""The label audit (`fashionrq audit`): does every label mean what the shopper asked? (docs/benchmark.md, "Label audit").

It reads the labels, so it is a judge, not a probe. For every task query it takes the hidden φ(q), finds the
query's full matches in the whole catalog (:class:`fashionrq.relevance.fullmatch.FullMatch`) and reports:

* full matches by grade (open-corpus T1: every catalog item, an unjudged item being grade 0);
* T3 queries whose candidate list holds a full match that is not the target (ambiguous), and targets that are
  not full matches;
* the query's precision (share of its full matches inside the anchor leaf), its anchor coverage (share of the
  anchor leaf's items that are full matches) and its sibling separation (the largest share of a sibling leaf's
  items that are full matches), as quantiles;
* optionally, the attribute oracle: each given run reordered so the query's full matches come first.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from fashionrq.errors import InputError
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.layout import (
    ITEMS, PHI, QUERY_RECORDS, SIDS, T2_DEV_LABELS, T2_PAIRS, T2_TEST, qrels_file, queries_file,
)
from fashionrq.metrics import Qrels, Run, evaluate
from fashionrq.protocol.bootstrap import METRIC_RANGE, mean_interval_bounds, resample_counts
from fashionrq.protocol.validate import load_pools, submitted_order, validate_run
from fashionrq.querygen.evidence import CatalogValues
from fashionrq.release import Release, named_items
from fashionrq.relevance.fullmatch import FullMatch
from fashionrq.sid import read_sids
from fashionrq.tasks.bench import read_qrels, release_dir
from fashionrq.taskspec import GRADES, TASKS, TIER_NAMES

RANKED = ("t1", "t1o", "t3", "t4")
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
#: The headline of each ranking task as a per-query fashionrq.metrics measure (docs/metrics.md): Exact recall for
#: the pooled tasks (T3: of the target; T4: per paraphrase), graded nDCG@10 for the open corpus.
ORACLE_METRICS = {"t1o": ("ndcg@10", "ndcg@10"), "t1": ("recall@10", "recall@10(rel=3)"),
                  "t3": ("recall@1", "recall@1(rel=3)"), "t4": ("recall@10", "recall@10(rel=3)")}
#: What the audit reads besides public/items.parquet.
LABEL_FILES = (SIDS, QUERY_RECORDS, PHI, *map(qrels_file, RANKED), T2_TEST)


@dataclass(frozen=True)
class ReleaseMatches:
    """A release's items, their leaves, and every task query's full matches (public item ids)."""

    ids: list[str]
    leaf_of: np.ndarray  # (N,) leaf prefix of each item row
    meta: dict[str, dict]  # qid -> labels/queries.jsonl record
    matches: dict[str, np.ndarray]  # qid -> sorted item rows of its full matches
    full: FullMatch = field(repr=False)  # the items' full matches and contradictions (for contradicts)
    phis: dict[str, dict] = field(repr=False)  # qid -> hidden φ(q)
    rows: dict[str, np.ndarray] = field(repr=False)  # prefix of any level -> sorted item rows
    children: dict[str, list[str]] = field(repr=False)  # prefix -> its child prefixes that hold items
    row_of: dict[str, int] = field(repr=False)  # public item id -> row

    @classmethod
    def load(cls, bench: str | Path) -> ReleaseMatches:
        release = Release(release_dir(bench), verify=False)
        for name in LABEL_FILES:
            if not release.label_path(name).is_file():
                raise InputError(f"{release.label_path(name)} is missing: the audit judges the labels, so run it on the full "
                                 "release (public/ and labels/), where the host keeps them.")
        table = pq.read_table(release.path(ITEMS))
        ids = table.column("item_id").to_pylist()
        full = FullMatch(CatalogValues(items_frame(table)))
        sid_ids, sids = read_sids(release.label_path(SIDS))
        position = {item: i for i, item in enumerate(sid_ids)}
        sids = sids[[position[item] for item in ids]]
        leaf_of = np.array(["-".join(str(int(c)) for c in row) for row in sids], dtype=object)
        rows: dict[str, list[int]] = defaultdict(list)
        for r, leaf in enumerate(leaf_of):
            for prefix in _prefixes(leaf):
                rows[prefix].append(r)
        meta = {m["qid"]: m for m in release.label_jsonl(QUERY_RECORDS)}
        phis = {r["qid"]: r["phi"] for r in release.label_jsonl(PHI)}
        matches = {qid: full.rows(phi) for qid, phi in phis.items()}
        children: dict[str, list[str]] = defaultdict(list)
        for prefix in rows:
            if "-" in prefix:
                children[prefix.rsplit("-", 1)[0]].append(prefix)
        return cls(ids, leaf_of, meta, matches, full, phis, {leaf: np.asarray(r, dtype=np.int64) for leaf, r in rows.items()}, dict(children),
                   {item: r for r, item in enumerate(ids)})

    def contradicts(self, qid: str, items) -> np.ndarray:
        """Which of ``items`` (public ids) contradict query ``qid`` (:meth:`FullMatch.contradicts`; computed for the
        items asked about, never the whole catalog: a mask per query would not fit)."""
        return self.full.contradicts(self.phis[qid], self._rows(items))

    def of_another_type(self, qid: str, items) -> np.ndarray:
        """Which of ``items`` (public ids) are of another product type than query ``qid`` states (they contradict
        its type condition; none where it states no type)."""
        return self.full.contradicts({"product_type": self.phis[qid].get("product_type")}, self._rows(items))

    def _rows(self, items) -> np.ndarray:
        return np.fromiter((self.row_of[i] for i in items), dtype=np.int64)

    def siblings(self, anchor: str) -> list[str]:
        """The other prefixes under ``anchor``'s parent that hold items (for a leaf: the leaves of its level-2 prefix)."""
        return [other for other in self.children[anchor.rsplit("-", 1)[0]] if other != anchor]

    def discrimination(self, qid: str) -> dict[str, float | None]:
        """Precision, anchor coverage and sibling separation of one query's full matches (its anchor: a leaf, or
        a level-2 cluster for a broad open-corpus query)."""
        leaf = self.meta[qid]["leaf"]
        matches = self.matches[qid]
        inside = int(np.isin(matches, self.rows[leaf]).sum())
        separation = max((float(np.isin(self.rows[s], matches).mean()) for s in self.siblings(leaf)), default=0.0)
        return {"precision": inside / len(matches) if len(matches) else None,
                "coverage": inside / len(self.rows[leaf]), "separation": separation}


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _prefixes(leaf: str) -> list[str]:
    """``"3-0-12"`` -> ``["3", "3-0", "3-0-12"]``."""
    codes = leaf.split("-")
    return ["-".join(codes[:n]) for n in range(1, len(codes) + 1)]


def _by_grade(counts: dict[int, int], total: dict[int, int]) -> dict[str, dict]:
    return {TIER_NAMES[g]: {"full_matches": counts.get(g, 0), "candidates": total.get(g, 0),
                            "share": round(counts.get(g, 0) / total[g], 4) if total.get(g) else None} for g in GRADES}


def _graded_task(found: ReleaseMatches, judged: dict[str, dict[str, int]]) -> dict:
    """Full matches among each query's judged candidates, by grade, and the Exact ones that contradict the query."""
    index = found.row_of
    counts: dict[int, int] = defaultdict(int)
    total: dict[int, int] = defaultdict(int)
    contradicting = other_type = 0
    for qid, grades in judged.items():
        matched = set(found.matches[qid].tolist())
        for item, grade in grades.items():
            total[grade] += 1
            counts[grade] += index[item] in matched
        exact = [item for item, grade in grades.items() if grade == 3]
        contradicting += int(found.contradicts(qid, exact).sum())
        other_type += int(found.of_another_type(qid, [item for item, grade in grades.items() if grade == 2]).sum())
    return ({"queries": len(judged), "by_grade": _by_grade(counts, total)} | _exact_contradicting(contradicting, total.get(3, 0))
            | _of_another_type(other_type, total.get(2, 0)))


def _of_another_type(count: int, graded_2: int) -> dict:
    """How many (query, item) pairs graded 2 (a sibling cluster's, or a full match raised) are of another product
    type than the query states, and their share of the pairs graded 2 (reported; no bar: the grade is the shared
    prefix's, seed 000 §8.0.4)."""
    return {"graded_2_other_type": count, "graded_2_other_type_share": round(count / graded_2, 4) if graded_2 else None}


def _exact_contradicting(count: int, exact: int) -> dict:
    """How many Exact (query, item) pairs contradict the query, and their share of the Exact pairs."""
    return {"exact_contradicting": count, "exact_contradicting_share": round(count / exact, 4) if exact else None}


def _open_task(found: ReleaseMatches, judged: dict[str, dict[str, int]]) -> dict:
    """Open corpus: every full match in the catalog, unjudged ones counting as grade 0."""
    counts: dict[int, int] = defaultdict(int)
    per_query = []
    contradicting = exact = other_type = graded_2 = 0
    for qid, grades in judged.items():
        matched = [found.ids[r] for r in found.matches[qid]]
        for item in matched:
            counts[grades.get(item, 0)] += 1
        per_query.append(len(matched))
        graded_exact = [item for item, grade in grades.items() if grade == 3]
        exact += len(graded_exact)
        contradicting += int(found.contradicts(qid, graded_exact).sum())
        sibling = [item for item, grade in grades.items() if grade == 2]
        graded_2 += len(sibling)
        other_type += int(found.of_another_type(qid, sibling).sum())
    total = sum(counts.values())
    return ({"queries": len(judged), "full_matches": {f"grade {g}": counts.get(g, 0) for g in GRADES},
             "graded_0_share": round(counts.get(0, 0) / total, 4) if total else None,
             "full_matches_per_query": _quantiles(per_query)} | _exact_contradicting(contradicting, exact)
            | _of_another_type(other_type, graded_2))


#: The depth of the expected open-corpus nDCG the listing balance reports.
LISTING_DEPTH = 10


def listing_balance(release: Release, found: ReleaseMatches, judged: dict[str, dict[str, int]]) -> dict:
    """How often open-corpus answers sit in a public list (a candidate list, a pair, a group), against the catalog:
    the share of each grade's (query, item) pairs whose item is listed, and the open-corpus nDCG@10 that a ranking
    of the never-listed items first, in random order, gets in expectation, beside a random ranking's (exact
    expectations: every position of a random order of a set holds the set's mean gain). Equal shares give equal
    expectations, so "never listed" says nothing of the answers (``probe-rarity``, docs/benchmark.md)."""
    listed = np.zeros(len(found.ids), dtype=bool)
    for _, row in release.public_records():
        listed[[found.row_of[i] for i in named_items(row)]] = True
    unlisted = int((~listed).sum())
    pairs = {g: [0, 0] for g in (3, 2, 1)}
    discount = 1.0 / np.log2(np.arange(LISTING_DEPTH) + 2.0)
    expected: dict[str, list[float]] = {"random": [], "never_listed_first": []}
    for grades in judged.values():
        rows = np.array([found.row_of[i] for i in grades], dtype=np.int64)
        values = np.array(list(grades.values()), dtype=np.int64)
        for g, counts in pairs.items():
            counts[0] += int((values == g).sum())
            counts[1] += int(listed[rows[values == g]].sum())
        best = np.sort(values)[::-1][:LISTING_DEPTH]
        ideal = float((best * discount[:len(best)]).sum())
        if ideal > 0 and unlisted:  # a mean gain over the catalog or its never-listed items: the judged gains' sum over their count
            expected["random"].append(int(values.sum()) / len(listed) * float(discount.sum()) / ideal)
            expected["never_listed_first"].append(int(values[~listed[rows]].sum()) / unlisted * float(discount.sum()) / ideal)
    return {"catalog_listed_share": round(float(listed.mean()), 4),
            "pairs_listed_share": {TIER_NAMES[g]: round(n_listed / n, 4) if n else None for g, (n, n_listed) in pairs.items()},
            f"expected_ndcg@{LISTING_DEPTH}": {k: round(float(np.mean(v)), 4) if v else None for k, v in expected.items()}}


def _t3_task(found: ReleaseMatches, judged: dict[str, dict[str, int]]) -> dict:
    index = found.row_of
    ambiguous = target_missed = 0
    for qid, grades in judged.items():
        matched = set(found.matches[qid].tolist())
        ambiguous += any(index[i] in matched for i, g in grades.items() if g < 3)
        target_missed += not any(index[i] in matched for i, g in grades.items() if g == 3)
    n = max(len(judged), 1)
    return {"ambiguous_queries": ambiguous, "ambiguous_share": round(ambiguous / n, 4),
            "target_not_full_match": target_missed, "target_not_full_match_share": round(target_missed / n, 4)}


def _listing_line(listing: dict) -> str:
    shares = ", ".join(f"{g} {'-' if v is None else format(v, '.1%')}" for g, v in listing["pairs_listed_share"].items())
    ndcg = listing[f"expected_ndcg@{LISTING_DEPTH}"]
    return (f"open-corpus answers in a public list: {shares} (the catalog: {listing['catalog_listed_share']:.1%}); "
            f"expected nDCG@{LISTING_DEPTH} of the never-listed items first {_score(ndcg['never_listed_first'])}, "
            f"of a random order {_score(ndcg['random'])}")


def _quantiles(values) -> dict[str, float] | None:
    values = np.asarray([v for v in values if v is not None], dtype=float)
    if not len(values):
        return None
    return {f"q{int(q * 100)}": round(float(np.quantile(values, q)), 4) for q in QUANTILES} | {"mean": round(float(values.mean()), 4)}


def _t2_labels(release: Release) -> dict[str, dict[str, int]]:
    labels = {r["pair_id"]: r["label"] for r in release.jsonl(T2_DEV_LABELS) + release.label_jsonl(T2_TEST)}
    judged: dict[str, dict[str, int]] = defaultdict(dict)
    for pair in release.jsonl(T2_PAIRS):
        judged[pair["qid"]][pair["item_id"]] = labels[pair["pair_id"]]
    return judged


def oracle_run(found: ReleaseMatches, run: Run, depth: int | None = None) -> Run:
    """``run`` with each query's full matches moved to the top, in the run's order; for the open corpus (``depth``)
    the full matches the run missed follow those it found, in item-id order, and the list is cut at ``depth``."""
    ranked = run.ranked()
    scores: dict[str, dict[str, float]] = {}
    for qid, items in ranked.items():
        matched = {found.ids[r] for r in found.matches.get(qid, ())}
        order = [i for i in items if i in matched]
        if depth is not None:
            seen = set(order)
            order += sorted(matched - seen)
        order += [i for i in items if i not in matched]
        order = order[:depth] if depth is not None else order
        scores[qid] = {item: float(len(order) - n) for n, item in enumerate(order)}
    return Run(scores, name=f"oracle({run.name})")


def _group_means(values: dict[str, float], groups: dict[str, str]) -> dict[str, float]:
    """Per paraphrase group (``groups``: qid -> group id): the mean of its queries' ``values``."""
    by_group: dict[str, list[float]] = defaultdict(list)
    for qid in sorted(values):
        by_group[groups[qid]].append(values[qid])
    return {group: float(np.mean(v)) for group, v in by_group.items()}


def _headline_values(qrels: Qrels, run: Run, metric: str) -> dict[str, float]:
    return {qid: v[metric] for qid, v in evaluate(qrels, run, [metric], per_query=True, complete=True).items()}


def oracle_table(bench: Path, found: ReleaseMatches, judged: dict[str, Qrels], runs: list[Path], resamples: int,
                 seed: int) -> dict[str, list[dict]]:
    """Per ranking task, each run's headline beside its attribute oracle's, with the oracle's 95% cluster-bootstrap
    interval over the task's bootstrap units (``labels/queries.jsonl`` ``unit``)."""
    release = Release(bench, verify=False)
    depth = release.manifest.get("protocol", {}).get("open_depth", 100)
    pools = load_pools(bench)
    groups = {row["qid"]: row["group_id"] for row in release.jsonl(queries_file("t4"))}
    lead = {group: qid for qid, group in sorted(groups.items(), reverse=True)}  # each group's first query
    out: dict[str, list[dict]] = {}
    for task, (headline, metric) in ORACLE_METRICS.items():
        rows = []
        for folder in runs:
            path = Path(folder) / TASKS[task].run_file
            if not path.is_file():
                raise InputError(f"{folder} has no {TASKS[task].run_file}: pass run folders written by `fashionrq run`.")
            # in the submitted rank order, as the scorer reads it (trec_eval's order breaks score ties by docno)
            run = submitted_order(validate_run(folder, pools, tasks=[task])[task], Path(folder).name)
            base = _headline_values(judged[task], run, metric)
            oracle = _headline_values(judged[task], oracle_run(found, run, depth if task == "t1o" else None), metric)
            qids = sorted(oracle)
            scores = np.array([base.get(q, 0.0) for q in qids])  # per query: the split by wording
            held = np.array([bool(found.meta[q].get("held_out")) for q in qids])
            if task == "t4":  # T4's headline is a mean over paraphrase groups, as the scorer's
                base, oracle = _group_means(base, groups), _group_means(oracle, groups)
                qids = sorted(oracle)
            units, cluster = np.unique([found.meta[lead[q] if task == "t4" else q]["unit"] for q in qids], return_inverse=True)
            values = np.array([oracle[q] for q in qids])
            low, high = mean_interval_bounds(values, cluster, len(units), resample_counts(len(units), resamples, seed), 0.95,
                                             METRIC_RANGE)[0]
            score = float(np.mean([base.get(q, 0.0) for q in qids]))
            rows.append({"run": Path(folder).name, "headline": headline, "run_score": round(score, 4),
                         "run_lexicon_worded": round(float(scores[~held].mean()), 4) if (~held).any() else None,
                         "run_held_out_worded": round(float(scores[held].mean()), 4) if held.any() else None,
                         "oracle": round(float(values.mean()), 4), "oracle_low": round(low, 4), "oracle_high": round(high, 4),
                         "oracle_reaches_run": bool(high >= score)})
        out[task] = rows
    return out


#: The bars a release must meet (issue 25's "done when"): (what, task, path into its report, most allowed).
BARS = (
    ("open-corpus full matches graded 0", "t1o", ("graded_0_share",), 0.05),
    *((f"{what} Exact items that contradict their query", task, ("exact_contradicting_share",), 0.0)
      for what, task in (("open-corpus", "t1o"), ("pooled T1", "t1"), ("T2", "t2"), ("T3", "t3"), ("T4", "t4"))),
    ("T3 queries with a non-target full match", "t3", ("ambiguous_share",), 0.05),
    ("pooled T1 Sibling candidates that are full matches", "t1", ("by_grade", "sibling", "share"), 0.10),
    ("pooled T1 Irrelevant candidates that are full matches", "t1", ("by_grade", "irrelevant", "share"), 0.02),
    ("pooled T1 Related candidates that are full matches", "t1", ("by_grade", "related", "share"), 0.02),
    ("T2 Irrelevant pairs that are full matches", "t2", ("by_grade", "irrelevant", "share"), 0.02),
    ("T2 Related pairs that are full matches", "t2", ("by_grade", "related", "share"), 0.02),
)


@dataclass(frozen=True)
class LabelAudit:
    """What :func:`audit_release` found: per task counts and quantiles, the oracle table, and the bars it fails."""

    tasks: dict[str, dict]
    oracle: dict[str, list[dict]] = field(default_factory=dict)

    @property
    def failures(self) -> list[str]:
        """One sentence per bar the release fails (empty: every label credits the results its query asks for)."""
        out = []
        for what, task, path, most in BARS:
            value = self.tasks.get(task, {})
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None and value > most:
                out.append(f"{what}: {value:.1%} (at most {most:.0%} allowed)")
        out += [f"{t} {r['headline']}: the attribute oracle of {r['run']} reaches only {r['oracle_high']:.4f}, below the run's "
                f"{r['run_score']:.4f}" for t, rows in self.oracle.items() for r in rows if not r["oracle_reaches_run"]]
        return out

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def unaudited(self) -> list[str]:
        """The tasks with no query (a release written with ``--allow-weak``): no label of theirs was audited."""
        return [task for task in ("t1o", "t1", "t2", "t3", "t4") if task in self.tasks and not self.tasks[task]["queries"]]

    @property
    def verdict(self) -> str:
        """``every bar met`` (saying which tasks had no query to audit), or the bars failed."""
        if not self.passed:
            return "; ".join(self.failures)
        empty = self.unaudited
        return "every bar met" + (f" (no query in {', '.join(empty)}: nothing there to audit)" if empty else "")

    def to_dict(self) -> dict:
        return {"tasks": self.tasks, "oracle": self.oracle, "failures": self.failures, "passed": self.passed,
                "unaudited": self.unaudited}

    def to_html(self) -> str:
        """Two tables (share of candidates that are full matches, by grade; the attribute oracle) and the verdict."""
        from html import escape

        def pct(value) -> str:
            return "–" if value is None else f"{value:.1%}"

        rows = []
        for task in ("t1", "t2", "t3", "t4"):
            if task in self.tasks:
                grades = self.tasks[task]["by_grade"]
                rows.append(f"<tr><td>{task.upper()}</td><td>{self.tasks[task]['queries']:,}</td>"
                            + "".join(f"<td>{pct(grades[g]['share'])}</td>" for g in ("exact", "sibling", "related", "irrelevant")) + "</tr>")
        t1o, t3 = self.tasks.get("t1o"), self.tasks.get("t3")
        notes = []
        if t1o:
            notes.append(f"open-corpus T1: {sum(t1o['full_matches'].values()):,} full matches over {t1o['queries']:,} queries, "
                         f"{pct(t1o['graded_0_share'])} graded 0")
            notes.append(_listing_line(t1o["listing"]))
        if t3:
            notes.append(f"T3: {pct(t3['ambiguous_share'])} of the queries have a non-target full match")
        contradicting = [f"{t.upper()} {pct(self.tasks[t]['exact_contradicting_share'])}" for t in ("t1o", "t1", "t2", "t4")
                         if t in self.tasks]
        notes.append("Exact items that contradict their query: " + ", ".join(contradicting))
        oracle = "".join(f"<tr><td>{task.upper()} {escape(r['headline'])}</td><td>{escape(r['run'])}</td><td>{r['run_score']:.4f}</td>"
                         f"<td>{_score(r['run_lexicon_worded'])}</td><td>{_score(r['run_held_out_worded'])}</td>"
                         f"<td>{r['oracle']:.4f} [{r['oracle_low']:.4f}, {r['oracle_high']:.4f}]</td></tr>"
                         for task, rs in self.oracle.items() for r in rs)
        return ("<table><tr><th>task</th><th>queries</th><th>exact</th><th>sibling</th><th>related</th><th>irrelevant</th></tr>"
                + "".join(rows) + "</table><p class=note>Share of each grade's candidates that are full matches. "
                + escape("; ".join(notes)) + ".</p>"
                + (f"<table><tr><th>headline</th><th>run</th><th>run</th><th>lexicon-worded</th><th>held-out-worded</th>"
                   f"<th>attribute oracle [95%]</th></tr>{oracle}</table>" if oracle else "")
                + f"<p>verdict: {escape(self.verdict)}</p>")

    def __str__(self) -> str:
        lines = ["label audit: full matches (items whose own fields satisfy every condition of the hidden φ(q))"]
        for task in ("t1o", "t1", "t2", "t3", "t4"):
            report = self.tasks.get(task)
            if report is None:
                continue
            if task == "t1o":
                counts = ", ".join(f"{g} {n:,}" for g, n in report["full_matches"].items())
                share = report["graded_0_share"]
                lines.append(f"  t1o  {report['queries']:,} queries; full matches by grade: {counts}; graded 0: "
                             f"{'-' if share is None else f'{share:.1%}'}; {_contradicting_text(report)}")
                lines.append("       " + _listing_line(report["listing"]))
            else:
                shares = ", ".join(f"{g} {'-' if v['share'] is None else format(v['share'], '.1%')}" for g, v in report["by_grade"].items())
                lines.append(f"  {task:4} {report['queries']:,} queries; candidates that are full matches: {shares}; "
                             f"{_contradicting_text(report)}")
            if task == "t3":
                lines.append(f"       ambiguous (a non-target full match): {report['ambiguous_share']:.1%}; target not a full match: "
                             f"{report['target_not_full_match_share']:.1%}")
            d = report["discrimination"]
            lines.append("       median precision {}, anchor coverage {}, sibling separation {}".format(
                *(("-" if d[k] is None else f"{d[k]['q50']:.3f}") for k in ("precision", "coverage", "separation"))))
        for task, rows in self.oracle.items():
            for r in rows:
                lines.append(f"  oracle {task} {r['headline']}: {r['run']} {r['run_score']:.4f} -> attribute oracle {r['oracle']:.4f} "
                             f"[{r['oracle_low']:.4f}, {r['oracle_high']:.4f}]; run on lexicon-worded / held-out-worded "
                             f"queries {_score(r['run_lexicon_worded'])} / {_score(r['run_held_out_worded'])}")
        lines.append("verdict: " + self.verdict)
        return "\n".join(lines)


def _contradicting_text(report: dict) -> str:
    share, other = report["exact_contradicting_share"], report.get("graded_2_other_type_share")
    return (f"exact items that contradict the query: {'-' if share is None else f'{share:.1%}'}; items graded 2 of "
            f"another type: {'-' if other is None else f'{other:.1%}'}")


def audit_release(bench: str | Path, runs: list[Path] = (), resamples: int = 1000, seed: int = 0) -> LabelAudit:
    """The label audit of a release (see the module docstring); with ``runs``, each run's attribute oracle beside it."""
    bench = release_dir(bench)
    release = Release(bench, verify=False)
    found = ReleaseMatches.load(bench)
    qrels = {t: read_qrels(release.label_path(qrels_file(t))) for t in RANKED}
    judged = {t: q.to_dict() for t, q in qrels.items()}
    judged["t2"] = _t2_labels(release)
    out: dict[str, dict] = {}
    for task in ("t1", "t2", "t4"):
        out[task] = _graded_task(found, judged[task])
    out["t1o"] = _open_task(found, judged["t1o"]) | {"listing": listing_balance(release, found, judged["t1o"])}
    out["t3"] = _graded_task(found, judged["t3"]) | _t3_task(found, judged["t3"])
    for task, report in out.items():
        stats = [found.discrimination(qid) for qid in judged[task]]
        report["discrimination"] = {k: _quantiles(s[k] for s in stats) for k in ("precision", "coverage", "separation")}
        report["no_full_match"] = sum(1 for qid in judged[task] if not len(found.matches[qid]))
    return LabelAudit(out, oracle_table(bench, found, qrels, list(runs), resamples, seed) if runs else {})
