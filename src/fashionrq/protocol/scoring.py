"""Scoring a committed, validated run: per-unit values, aggregates, breakdowns and weighted relevance.

Gate order (nothing under BENCH/labels/ is read before step 5):
1. RUN/run.json names this release (sha256 of BENCH/manifest.json) and records a sealed run (or ``unsealed``);
2. the prediction files match RUN's latest commitment;
3. BENCH/public/ verifies against the manifest;
4. every prediction file validates against the public pools (fail-closed);
5. the whole release verifies, then the labels are read and the run is scored.

The ranking scored is the submitted rank order (ties in score are resolved by rank, not by docno).
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from fashionrq.errors import CommitmentMismatchError, InputError, ReleaseTamperedError
from fashionrq.io import atomic_write_text, refuse_existing
from fashionrq.layout import ITEMS, MCMR, PHI, PUBLIC, QUERY_RECORDS, T2_PAIRS, T2_TEST, refuse_in_release
from fashionrq.metrics import Qrels, classification_metrics, consistency, evaluate
from fashionrq.metrics.trec_gains import parse_gain_pairs
from fashionrq.protocol.bootstrap import METRIC_RANGE, macro_f1_interval_bounds, mean_interval_bounds, resample_counts
from fashionrq.protocol.commitment import check_commitment, check_release, check_sealed, read_ledger, read_run_config
from fashionrq.protocol.constraints import constraint_breakdown
from fashionrq.protocol.validate import LABELS, Pools, load_pools, submitted_order, validate_run
from fashionrq.release import Release, verify_release
from fashionrq.relevance import AttributeMatcher
from fashionrq.stagecache import cached_object
from fashionrq.tasks.bench import read_qrels
from fashionrq.taskspec import GROUPED, OPEN, PAIRS, POOLED, TARGETED, TASKS, refuse_committed
from fashionrq.timing import stage

#: The task whose T1 queries weighted relevance (R@10, AttrScore) is computed on.
RELEVANCE_TASK = "t1"
#: T3's headline metrics are target-only: scored on qrels that keep only the target (gain 1; distractors 0).
T3_TARGET_METRICS = {"ndcg@1": "ndcg@1", "ndcg@3": "ndcg@3", "recall@1": "recall@1", "recall@3": "recall@3", "mrr": "mrr@10"}
CONSISTENCY_K = (5, 10)
T2_METRICS = ("accuracy", "macro_f1")
METRIC_NOTES = {
    "ndcg@k": "nDCG@k with linear gains (grades 3/2/1/0), trec_eval ndcg_cut.k; T3: target-only (target gain 1, distractors 0)",
    "recall@k": "share of the query's Exact items (grade 3; for T3 the target) ranked in the top k",
    "recall@k(rel=1)": "secondary: share of the query's items with grade >= 1 (Exact, Sibling or Related) in the top k",
    "mrr@10": "reciprocal rank of the first Exact item within the top 10 (0 if none); T3 'mrr': of the target",
    "graded_ndcg@k": "T3 secondary: nDCG@k with the old graded distractors (sibling 2, cousin 1)",
    "t1o": "open-corpus T1: each query ranks the whole catalog (top 100 submitted); unjudged items have gain 0",
    "consistency@k": "T4: mean pairwise Jaccard overlap of the top-k sets of a group's paraphrases; unit = group",
    "worst_recall@10": "T4: the lowest Exact recall@10 over a group's paraphrases",
    "t4 recall@10": "T4 headline: mean Exact recall@10 across a group's paraphrases; unit = group",
    "t4 ndcg@10": "T4: mean nDCG@10 across a group's paraphrases; unit = group",
    "macro_f1": "T2: unweighted mean F1 over grades 0-3 on the test split (a class never true nor predicted has F1 0)",
    "R@10": "weighted query relevance of the top 10 (fashionrq.relevance), T1 queries",
    "cluster_macro": "mean over bootstrap units of the per-unit mean (micro = mean over queries, pairs or groups)",
    "ranking": "the submitted rank order is scored; scores must not increase down it",
    "headline": "each task's headline metric is registered in manifest.json (protocol.headline) at build time",
}


@dataclass
class TaskUnits:
    """Per-unit values of one task: unit ids, their bootstrap unit (manifest protocol.bootstrap_unit) and metric columns."""

    unit: str
    ids: list[str]
    clusters: list[str]
    values: dict[str, np.ndarray] = field(default_factory=dict)
    truth: np.ndarray | None = None
    pred: np.ndarray | None = None

    def cluster_index(self, order: list[str]) -> np.ndarray:
        """Position of every unit's cluster in ``order`` (a sorted list of cluster ids)."""
        return np.searchsorted(np.asarray(order), np.asarray(self.clusters))


@dataclass
class ScoredRun:
    """Everything ``score_run`` computed; ``report`` is what is written to JSON (aggregates only: no per-unit value)."""

    report: dict
    units: dict[str, TaskUnits]
    attr: dict | None = None
    #: qid -> the attributes φ(q) expresses (for per-attribute comparisons)
    expressed: dict[str, list[str]] = field(default_factory=dict)

    def per_unit(self, task: str) -> dict[str, dict[str, float]]:
        """``{unit id: {metric: value}}`` of ``task`` (T2 adds each pair's true ``label`` and ``predicted`` grade);
        empty when the task was not scored. Held in memory only and never written: read beside the run's own
        ranking, one query's values give its grades away (docs/protocol.md, "Scoring")."""
        units = self.units.get(task)
        if units is None:
            return {}
        columns = dict(units.values)
        if units.truth is not None:
            columns.update(label=units.truth, predicted=units.pred)
        return {uid: {name: column[i].item() for name, column in columns.items()} for i, uid in enumerate(units.ids)}


def _means(units: TaskUnits, rows: np.ndarray | None = None) -> dict[str, float]:
    pick = slice(None) if rows is None else rows
    return {name: float(column[pick].mean()) for name, column in units.values.items()}


def _cluster_macro(units: TaskUnits) -> dict[str, float]:
    order = sorted(set(units.clusters))
    index = units.cluster_index(order)
    sizes = np.bincount(index, minlength=len(order))
    return {name: float((np.bincount(index, weights=column, minlength=len(order)) / sizes).mean())
            for name, column in units.values.items()}


#: How each run's own score intervals are drawn (recorded in the score JSON as ``bootstrap``).
RUN_BOOTSTRAP = {"resamples": 10_000, "seed": 0, "level": 0.95,
                 "method": "cluster bootstrap over anchor leaf clusters, few-cluster interval of the mean: mean ± t(df) · SE · "
                           "sqrt(G/(G-1)), SE = sd of the resampled means (macro-F1: of pooled confusions), df = G_eff - 1 "
                           "(G for equal clusters); none below two clusters"}


def _intervals(units: TaskUnits) -> dict[str, list[float]]:
    """``{metric: [lower, upper]}``: the run's own 95% few-cluster interval of every aggregate metric (none with one cluster)."""
    order = sorted(set(units.clusters))
    if len(order) < 2:
        return {}
    index = units.cluster_index(order)
    counts = resample_counts(len(order), RUN_BOOTSTRAP["resamples"], RUN_BOOTSTRAP["seed"])
    names = sorted(units.values)
    bounds = mean_interval_bounds(np.column_stack([units.values[n] for n in names]), index, len(order), counts, RUN_BOOTSTRAP["level"],
                                  METRIC_RANGE)
    out = {name: list(pair) for name, pair in zip(names, bounds)}
    if units.truth is not None:
        out["macro_f1"] = list(macro_f1_interval_bounds(units.truth, units.pred, index, len(order), counts, RUN_BOOTSTRAP["level"]))
    return out


def _breakdowns(units: TaskUnits, expressed: dict[str, list[str]], attributes: list[str]) -> dict:
    """Every metric by number of expressed attributes in φ(q) and by each attribute's presence."""
    counts = np.array([len(expressed[qid]) for qid in units.ids])
    by_n = {str(n): {"n": int((counts == n).sum()), **_means(units, counts == n)} for n in sorted(set(counts.tolist()))}
    by_attr = {}
    for attr in attributes:
        present = np.array([attr in expressed[qid] for qid in units.ids])
        by_attr[attr] = {key: ({"n": int(mask.sum()), **_means(units, mask)} if mask.any() else {"n": 0})
                         for key, mask in (("present", present), ("absent", ~present))}
    return {"by_n_attributes": by_n, "by_attribute": by_attr}


def _evaluate(qrels, ranked, task: str, names: dict[str, str], gains: dict[int, float] | None = None) -> dict[str, dict[str, float]]:
    per_query = evaluate(qrels, submitted_order(ranked, task), list(names.values()), per_query=True, complete=True, gains=gains)
    return {qid: {short: values[full] for short, full in names.items()} for qid, values in per_query.items()}


def _file_key(path: Path) -> tuple[str, int, int]:
    """A label file's identity for the in-process parse cache: path, size and modification time (the release was
    verified against its hashes before any label is read)."""
    info = path.stat()
    return str(path), info.st_size, info.st_mtime_ns


@functools.lru_cache(maxsize=16)
def _parsed_qrels(key: tuple[str, int, int], targets: bool) -> Qrels:
    """The qrels at ``key[0]``, parsed once per process (the probes score 15 runs on one release), or with
    ``targets`` only each query's target (grade 3), with gain 1 (T3). Read-only: every caller only evaluates."""
    path = Path(key[0])
    if not targets:
        return read_qrels(path)
    chosen: dict[str, dict[str, int]] = defaultdict(dict)
    for qid, item, grade in read_qrels(path):
        if grade == 3:
            chosen[qid][item] = 1
    return Qrels(chosen, source=f"{path} (targets)")


def _ranking_units(task: str, ranked, qrels_path: Path, unit_of: dict[str, str], gains: dict[int, float] | None = None) -> TaskUnits:
    per_query = _evaluate(_parsed_qrels(_file_key(qrels_path), False), ranked, task, dict(TASKS[task].measures), gains)
    if TASKS[task].kind == TARGETED:
        target = _evaluate(_parsed_qrels(_file_key(qrels_path), True), ranked, task, T3_TARGET_METRICS)
        per_query = {qid: {**target.get(qid, {}), **values} for qid, values in per_query.items()}
    missing = set(ranked) - set(per_query)
    if missing:
        raise ReleaseTamperedError(f"{qrels_path} judges no candidate of {len(missing)} {task} queries; the release is damaged, rebuild it.")
    ids = sorted(ranked)
    units = TaskUnits("query", ids, [unit_of[qid] for qid in ids])
    names = sorted(next(iter(per_query.values())))
    units.values = {name: np.array([per_query[qid][name] for qid in ids]) for name in names}
    return units


def _group_units(task: str, ranked, qrels_path: Path, unit_of: dict[str, str], group_of: dict[str, str],
                 gains: dict[int, float] | None = None) -> tuple[TaskUnits, TaskUnits]:
    queries = _ranking_units(task, ranked, qrels_path, unit_of, gains)
    groups: dict[str, list[str]] = defaultdict(list)
    for qid in sorted(group_of):
        groups[group_of[qid]].append(qid)
    ids = sorted(groups)
    units = TaskUnits("paraphrase group", ids, [unit_of[groups[g][0]] for g in ids])
    run = submitted_order(ranked, task)
    for k in CONSISTENCY_K:
        per_group = consistency(run, groups, k)
        units.values[f"consistency@{k}"] = np.array([per_group[g] for g in ids])
    by_query = {name: dict(zip(queries.ids, column)) for name, column in queries.values.items()}
    units.values["ndcg@10"] = np.array([np.mean([by_query["ndcg@10"][q] for q in groups[g]]) for g in ids])
    units.values["recall@10"] = np.array([np.mean([by_query["recall@10"][q] for q in groups[g]]) for g in ids])
    units.values["worst_recall@10"] = np.array([min(by_query["recall@10"][q] for q in groups[g]) for g in ids])
    return units, queries


def _t2_units(predictions, reader: Release, pair_qid: dict[str, str], unit_of: dict[str, str]) -> tuple[TaskUnits, dict]:
    truth_rows = {row["pair_id"]: row["label"] for row in reader.label_jsonl(T2_TEST)}
    ids = sorted(truth_rows)
    unknown = [pair for pair in ids if pair not in predictions]
    if unknown:
        raise ReleaseTamperedError(f"{reader.label_path(T2_TEST)} labels pairs that {T2_PAIRS} does not mark as test; the release is damaged.")
    truth = np.array([truth_rows[p] for p in ids], dtype=np.int64)
    pred = np.array([predictions[p][0] for p in ids], dtype=np.int64)
    units = TaskUnits("test pair", ids, [unit_of[pair_qid[p]] for p in ids], truth=truth, pred=pred)
    units.values = {"accuracy": (truth == pred).astype(np.float64)}
    return units, classification_metrics(truth.tolist(), pred.tolist(), LABELS)


@dataclass(frozen=True)
class _Labels:
    """What the scorers read once the labels are open."""

    reader: Release
    pools: Pools
    unit_of: dict[str, str]
    expressed: dict[str, list[str]]
    attributes: list[str]
    mcmr: dict[str, dict]
    pair_qid: dict[str, str]
    gains: dict[int, float] | None


def _score_pairs(task: str, predictions, labels: _Labels) -> tuple[TaskUnits, dict]:
    units, metrics = _t2_units(predictions, labels.reader, labels.pair_qid, labels.unit_of)
    return units, {"aggregate": {"accuracy": metrics["accuracy"], "macro_f1": metrics["macro_f1"]},
                   "per_class": {str(k): v for k, v in metrics["per_class"].items()},
                   "confusion_matrix": metrics["confusion_matrix"], "cluster_macro": _cluster_macro(units)}


def _score_ranking(task: str, ranked, labels: _Labels) -> tuple[TaskUnits, dict]:
    units = _ranking_units(task, ranked, labels.reader.label_path(TASKS[task].labels), labels.unit_of, labels.gains)
    breakdowns = _breakdowns(units, labels.expressed, labels.attributes)
    by_constraints = constraint_breakdown(units.ids, units.values, labels.mcmr)
    if by_constraints is not None:
        breakdowns["by_constraints"] = by_constraints
    return units, {"breakdowns": breakdowns}


def _score_groups(task: str, ranked, labels: _Labels) -> tuple[TaskUnits, dict]:
    units, queries = _group_units(task, ranked, labels.reader.label_path(TASKS[task].labels), labels.unit_of,
                                  labels.pools.group_of[task], labels.gains)
    return units, {"breakdowns": _breakdowns(queries, labels.expressed, labels.attributes)}


#: The scorer of each kind of task (fashionrq.taskspec): per-unit values and the task's score entry so far.
SCORERS = {POOLED: _score_ranking, OPEN: _score_ranking, TARGETED: _score_ranking, GROUPED: _score_groups, PAIRS: _score_pairs}


def _relevance(reader: Release, ranked, phi: dict[str, dict], cache_dir) -> dict:
    with stage("relevance (R@10, AttrScore)"):
        matcher = AttributeMatcher(pq.read_table(reader.path(ITEMS)), cache_dir=cache_dir)
        return matcher.score_run({qid: phi[qid] for qid in ranked}, {qid: [i for i, _ in items] for qid, items in ranked.items()}, k=10)


def score_run(bench: str | Path, run: str | Path, *, relevance: bool = True, cache_dir: str | Path | None = None,
              gains: str | None = None, unsealed: bool = False) -> ScoredRun:
    """Score RUN on BENCH after every gate passes (see module docstring); returns a ScoredRun.

    ``gains`` is a gain per grade for every nDCG, in trec_eval's syntax (``3=1,2=0.1,1=0.01``; an unmapped
    grade keeps its own value); the report records it under ``gains``. A run whose run.json records no
    sealed isolation is refused unless ``unsealed``; the report's ``isolation`` says which mechanism held
    (``sealed: false`` marks an unsealed run).
    """
    bench, run = Path(bench), Path(run)
    gain_map = None if gains is None else dict(parse_gain_pairs(gains, where="--gain"))
    release = check_release(run, bench)
    isolation = check_sealed(run, unsealed)
    commitment = check_commitment(run)
    if commitment.get("release") != release:
        raise CommitmentMismatchError(f"{run}'s latest commitment names release {str(commitment.get('release'))[:12]}…, not {release[:12]}…; commit again for this release.")
    verify_release(bench, under=PUBLIC, strict=True)

    # the commitment fixes the run's bytes, so committed files with the same hashes score the same on the same
    # release and code (a warm demo recommits a cached run: a new ledger record over the same files)
    key = {"release": release, "files": {name: entry["sha256"] for name, entry in sorted(commitment["files"].items())},
           "config": commitment["config_sha256"], "relevance": relevance, "gains": gains, "isolation": isolation}
    computed = []

    def compute() -> ScoredRun:  # verifies the whole release itself, after validation and before opening labels
        computed.append(True)
        return _score_committed(bench, run, relevance, cache_dir, gain_map, release, isolation, commitment)

    scored = cached_object("score", key, compute, cache_dir)
    if not computed:
        verify_release(bench, strict=True)  # a cached score is returned only for an intact release
    scored.report.update(run=str(run), commitment=_commitment_record(run, commitment))
    return scored


def _commitment_record(run: Path, commitment: dict) -> dict:
    return {"hash": commitment["hash"], "timestamp": commitment["timestamp"], "ledger_records": len(read_ledger(run))}


def _score_committed(bench: Path, run: Path, relevance: bool, cache_dir, gain_map: dict | None, release: str,
                     isolation: dict, commitment: dict) -> ScoredRun:
    """Validate the committed RUN (fail-closed, public files only), then open the labels and score it."""
    pools = load_pools(bench)
    predictions = validate_run(run, pools)
    verify_release(bench, strict=True)
    # --- labels are opened only from here on ---
    reader = Release(bench, verify=False, release=release)
    meta = {row["qid"]: row for row in reader.label_jsonl(QUERY_RECORDS)}
    unit_of = {qid: row["unit"] for qid, row in meta.items()}
    protocol = reader.manifest.get("protocol", {})
    phi_rows = {row["qid"]: row for row in reader.label_jsonl(PHI)}
    expressed = {qid: list(row.get("expressed") or []) for qid, row in phi_rows.items()}
    attributes = sorted({a for names in expressed.values() for a in names})
    mcmr = {row["qid"]: row for row in reader.label_jsonl(MCMR, required=False)}
    pair_qid = {row["pair_id"]: row["qid"] for row in reader.jsonl(T2_PAIRS)}

    labels = _Labels(reader, pools, unit_of, expressed, attributes, mcmr, pair_qid, gain_map)
    units: dict[str, TaskUnits] = {}
    tasks: dict[str, dict] = {}
    attr = None
    for task, spec in TASKS.items():
        if not predictions.get(task):  # a task the release has no query for (a catalog too small for it) is not scored
            continue
        units[task], entry = SCORERS[spec.kind](task, predictions[task], labels)
        if task == RELEVANCE_TASK and relevance:
            attr = _relevance(reader, predictions[task], {q: r["phi"] for q, r in phi_rows.items()}, cache_dir)
            ids = units[task].ids
            units[task].values["R@10"] = np.array([attr["per_query"][q] for q in ids])
        if spec.kind != PAIRS:  # a ranking task's aggregates, with the R@10 column
            entry["aggregate"] = _means(units[task])
            entry["cluster_macro"] = _cluster_macro(units[task])
        entry["interval"] = _intervals(units[task])
        unit = units[task]
        entry.update({"unit": unit.unit, "n_units": len(unit.ids), "n_clusters": len(set(unit.clusters)),
                      "leakage_unit": protocol.get("bootstrap_unit", {}).get(task, {}).get("unit"),
                      "headline": protocol.get("headline", {}).get(task)})
        tasks[task] = entry

    config = read_run_config(run)
    report = {
        "release": release,
        "run": str(run),
        "system": config.get("system"),
        "isolation": isolation,
        "commitment": _commitment_record(run, commitment),
        "tasks": tasks,
        "bootstrap": RUN_BOOTSTRAP,
        "notes": METRIC_NOTES,
    }
    unscored = [task for task in TASKS if task not in tasks]
    if unscored:  # only a weak release (built with allow_weak) has a task with no query
        report["not_scored"] = {task: "the release has no query for this task" for task in unscored}
    if gain_map is not None:
        report["gains"] = {str(grade): gain for grade, gain in sorted(gain_map.items())}
    if attr is not None:
        report["relevance"] = {
            "task": RELEVANCE_TASK, "k": attr["k"], "R@10": attr["R@k"],
            "attributes": {a: {"attr_score": attr["attr_score"][a], "coverage": attr["coverage"][a],
                               "n_queries": attr["attr_queries"][a], "sources": attr["sources"][a]}
                           for a in attr["attr_score"]},
            "weights": attr["weights"],
        }
    return ScoredRun(report=report, units=units, attr=attr, expressed=expressed)


def check_output(path: str | Path, force: bool = False) -> Path:
    """Refuse an output file that is a folder, lies inside a release or on a committed run's files (always),
    or exists (unless ``force``); return it as a Path."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"--out {path} is a folder; name a file to write, e.g. {path / 'scores.json'}.")
    refuse_in_release(path, "output")
    refuse_committed(path)
    refuse_existing(path, force)
    return path


def write_output(text: str, path: str | Path, force: bool = False) -> Path:
    """Write ``text`` to the file ``path`` atomically (temporary name, then rename) after :func:`check_output`."""
    path = check_output(path, force)
    atomic_write_text(path, text)
    return path


def write_json(data: dict, path: str | Path, force: bool = False) -> Path:
    """Write ``data`` as sorted, indented JSON (byte-identical for identical inputs) with :func:`write_output`."""
    return write_output(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", path, force)
