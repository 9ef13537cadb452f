"""Paired comparison of committed runs: cluster bootstrap per task and metric, and the conjunctive gate.

Tasks are never averaged. B is promoted over A only if the lower bound of the few-cluster interval of Δ = B − A
(Δ̂ − t(G−1) · SE · √(G/(G−1)), fewer degrees of freedom for units of unequal size; :mod:`fashionrq.protocol.bootstrap`)
is above 0 on every task's headline metric; a task with fewer than two bootstrap units cannot be tested and fails.
"""

from __future__ import annotations

from itertools import combinations, permutations
from pathlib import Path

import numpy as np

from fashionrq.protocol.bootstrap import DIFFERENCE_RANGE, Interval, mean_diff_draws, resample_counts, summarise, t2_diff_draws
from fashionrq.protocol.headline import headline_analysis
from fashionrq.protocol.components import SHARED_MARK, run_shares, shared_note
from fashionrq.errors import ComparisonError
from fashionrq.protocol.multiplicity import attribute_comparisons, holm_pairs
from fashionrq.protocol.scoring import ScoredRun, score_run
from fashionrq.taskspec import MIN_UNITS, TASKS, headlines

FEW_CLUSTER_METHOD = ("paired cluster bootstrap, few-cluster interval: Δ ± t(df) · SE · sqrt(G/(G-1)), SE = sd of the resampled Δ, "
                      "df = G_eff - 1, G_eff = (Σ m²)² / Σ m⁴ over the units m per cluster (G for equal clusters)")


def registered_headline(scored: list[ScoredRun]) -> dict[str, str]:
    """The headline metric of each task as registered in the release's manifest at build time."""
    out = headlines()
    for s in scored:
        out.update({task: entry["headline"] for task, entry in s.report["tasks"].items() if entry.get("headline")})
    return out


def parse_headline(spec: str | dict | None, registered: dict[str, str] | None = None) -> dict[str, str]:
    """Headline metric per task: the registered ones, overridden by ``{"t1": ...}`` or ``"t1=ndcg@5,t3=ndcg@3"``.

    An override is exploratory: :func:`compare_scored` labels it so, since it was chosen after the build.
    """
    headline = dict(registered or headlines())
    if isinstance(spec, str):
        pairs = [part.split("=", 1) for part in spec.split(",") if part.strip()]
        if any(len(pair) != 2 for pair in pairs):
            raise ComparisonError(f"headline {spec!r} is not of the form t1=ndcg@10,t3=ndcg@3; write task=metric pairs.")
        spec = {task.strip().lower(): metric.strip() for task, metric in pairs}
    for task, metric in (spec or {}).items():
        if task not in TASKS:
            raise ComparisonError(f"headline names task {task!r}; use one of {', '.join(TASKS)}.")
        headline[task] = metric
    return headline


def _name(scored: ScoredRun, index: int, taken: set[str]) -> str:
    base = str(scored.report.get("system") or Path(scored.report["run"]).name)
    name = base if base not in taken else f"{base}#{index + 1}"
    taken.add(name)
    return name


def run_names(scored: list[ScoredRun]) -> list[str]:
    """Each run's name in a comparison: its system, numbered when two runs share one."""
    taken: set[str] = set()
    return [_name(s, i, taken) for i, s in enumerate(scored)]


def runs_record(scored: list[ScoredRun]) -> dict:
    """The ``runs`` entry of a comparison: each run's folder, latest commitment and isolation, by name."""
    return {name: {"run": s.report["run"], "commitment": s.report["commitment"]["hash"], "isolation": s.report.get("isolation")}
            for name, s in zip(run_names(scored), scored)}


def _fmt(value: float) -> str:
    return f"{value:+.4f}"


def interval_text(entry: dict) -> str:
    """``Δ [lower, upper]`` of a JSON interval entry; ``Δ [no interval: one cluster]`` when it has no bounds."""
    if entry["lower"] is None or entry["upper"] is None:
        return f"{_fmt(entry['delta'])} [no interval: one cluster]"
    return f"{_fmt(entry['delta'])} [{_fmt(entry['lower'])}, {_fmt(entry['upper'])}]"


def cell_text(entry: dict) -> str:
    """A gate entry's table cell: why the task was not tested, or ``Δ [lower, upper]``, marked when the task is weak
    and when the interval was cut to the range of a difference."""
    if entry.get("reason"):
        return entry["reason"]
    marks = [f"weak: {entry['n_clusters']} units"] if entry.get("weak") else []
    marks += ["cut to the range of a difference, ±1"] if entry.get("clipped") else []
    return interval_text(entry) + (f" ({'; '.join(marks)})" if marks else "")


def gate(intervals: dict[str, dict[str, Interval]], headline: dict[str, str], tasks: list[str], missing: dict[str, str],
         level: float) -> dict:
    """The conjunctive promotion gate for one ordered pair: verdict, failing tasks and the binding task."""
    per_task, failing = {}, []
    for task in tasks:
        if task in missing:
            per_task[task] = {"metric": headline[task], "passes": False, "reason": missing[task]}
            failing.append(f"{TASKS[task].name} {missing[task]}")
            continue
        interval = intervals[task][headline[task]]
        passes = interval.lower > 0
        per_task[task] = {"metric": headline[task], "passes": passes, **interval.to_dict()}
        if interval.n_clusters < 2:
            per_task[task]["reason"] = f"{interval.n_clusters} bootstrap unit, too few to test"
            failing.append(f"{TASKS[task].name} has {per_task[task]['reason']} (build from a larger catalog)")
            continue
        per_task[task]["weak"] = interval.n_clusters < MIN_UNITS
        if not passes:
            where = "includes 0" if interval.upper >= 0 else "is below 0"
            failing.append(f"{TASKS[task].name} {headline[task]} interval [{_fmt(interval.lower)}, {_fmt(interval.upper)}] {where}")
    scored = [t for t in tasks if t not in missing]
    binding = min(scored, key=lambda t: intervals[t][headline[t]].lower) if scored else None
    failing_tasks = [t for t in tasks if not per_task[t]["passes"]]
    promoted = not failing_tasks and bool(tasks)
    if promoted:
        b = intervals[binding][headline[binding]]
        verdict = (f"promoted: every headline lower bound of the {level:.0%} interval is above 0 "
                   f"(binding: {TASKS[binding].name} {headline[binding]}, lower bound {_fmt(b.lower)})")
    else:
        verdict = "not promoted: " + "; ".join(failing)
    weak = [f"{TASKS[t].name} ({per_task[t]['n_clusters']} units)" for t in tasks if per_task[t].get("weak")]
    if weak:
        verdict += (f"; weak: {', '.join(weak)} have fewer than {MIN_UNITS} bootstrap units, so those intervals are "
                    "too wide to rank systems by")
    return {"promoted": promoted, "verdict": verdict, "tasks": per_task, "failing": failing_tasks,
            "binding": binding, "decided_by": failing_tasks[0] if len(failing_tasks) == 1 else None}


def pair_draws(a: ScoredRun, b: ScoredRun, task: str, counts: np.ndarray, clusters: list[str]) -> dict[str, tuple]:
    """``{metric: (point Δ, resampled Δ)}`` of Δ = B − A on one task, all metrics from the same resamples."""
    ua, ub = a.units[task], b.units[task]
    if ua.ids != ub.ids:
        raise ComparisonError(f"runs {a.report['run']} and {b.report['run']} scored different {task} units; score both on the same release.")
    index = ua.cluster_index(clusters)
    names = sorted(set(ua.values) & set(ub.values))
    diffs = np.stack([ub.values[n] - ua.values[n] for n in names], axis=1)
    if task != "t2":
        point, resampled = mean_diff_draws(diffs, index, len(clusters), counts)
        return {name: (point[m], resampled[:, m]) for m, name in enumerate(names)}
    point, resampled, f1 = t2_diff_draws(diffs, ua.truth, ua.pred, ub.pred, index, len(clusters), counts)
    return {**{name: (point[m], resampled[:, m]) for m, name in enumerate(names)}, "macro_f1": f1}


def resample_draws(scored: list[ScoredRun], resamples: int, seed: int) -> tuple[dict[str, list[str]], dict[str, np.ndarray]]:
    """Per task: the sorted leakage units (anchor leaf clusters) and the ``(resamples, clusters)`` count matrix.

    Every task draws from a fresh ``default_rng(seed)``, so a task's draws do not depend on which other tasks exist.
    """
    clusters, counts, by_size = {}, {}, {}
    for task in TASKS:
        first = next((s for s in scored if task in s.units), None)
        if first is not None:
            clusters[task] = sorted(set(first.units[task].clusters))
            size = len(clusters[task])
            if size not in by_size:  # same size and seed give the same draws: compute them once
                by_size[size] = resample_counts(size, resamples, seed)
            counts[task] = by_size[size]
    return clusters, counts


def check_options(n_runs: int, resamples: int, level: float) -> None:
    """Refuse fewer than two runs, fewer than one resample or an interval level outside (0, 1)."""
    if n_runs < 2:
        raise ComparisonError("compare needs at least two runs; pass RUN_A RUN_B [RUN_C ...].")
    if not 0 < level < 1:
        raise ComparisonError(f"interval level {level} is not between 0 and 1; use e.g. 0.95.")
    if resamples < 1:
        raise ComparisonError(f"resamples is {resamples}; use a positive number such as 10000.")


def compare_scored(scored: list[ScoredRun], *, resamples: int = 10_000, seed: int = 0, level: float = 0.95,
                   headline: str | dict | None = None, draws: tuple[dict, dict] | None = None) -> dict:
    """Full pairwise comparison of already-scored runs (every ordered pair: Δ = row − column)."""
    check_options(len(scored), resamples, level)
    registered = registered_headline(scored)
    heads = parse_headline(headline, registered)
    names = run_names(scored)
    tasks = [t for t in TASKS if any(t in s.units for s in scored)]
    for task in tasks:
        known = {m for s in scored if task in s.units for m in s.units[task].values} | ({"macro_f1"} if task == "t2" else set())
        if heads[task] not in known:
            raise ComparisonError(f"headline metric {heads[task]!r} is not scored for {task}; choose one of {', '.join(sorted(known))}.")
    clusters, counts = draws if draws is not None else resample_draws(scored, resamples, seed)
    draws = {}
    for i, j in combinations(range(len(scored)), 2):
        for task in tasks:
            if task in scored[i].units and task in scored[j].units:
                draws[(i, j, task)] = pair_draws(scored[j], scored[i], task, counts[task], clusters[task])
    pairs = []
    for i, j in permutations(range(len(scored)), 2):
        a, b = scored[j], scored[i]
        intervals, missing = {}, {}
        for task in tasks:
            lacking = [n for n, s in ((names[j], a), (names[i], b)) if task not in s.units]
            if lacking:
                missing[task] = f"not submitted by {' and '.join(lacking)}"
                continue
            # Δ(row i − column j); the reverse direction negates the same resampled values
            sign = 1.0 if i < j else -1.0
            found = draws[(min(i, j), max(i, j), task)]
            sizes = np.bincount(a.units[task].cluster_index(clusters[task]), minlength=len(clusters[task]))
            intervals[task] = {m: summarise(sign * point, sign * values, level, sizes).within(DIFFERENCE_RANGE)
                               for m, (point, values) in found.items()}
        entry = {"b": names[i], "a": names[j], "delta": "b - a",
                 "tasks": {t: {"unit": a.units[t].unit if t in a.units else b.units[t].unit,
                               "leakage_unit": (a if t in a.units else b).report["tasks"][t].get("leakage_unit"),
                               "n_clusters": len(clusters[t]),
                               "metrics": {m: {**iv.to_dict(), "role": "headline" if m == registered.get(t) else "exploratory"}
                                           for m, iv in sorted(intervals[t].items())}}
                           for t in tasks if t in intervals},
                 "gate": gate(intervals, heads, tasks, missing, level)}
        pairs.append(entry)
    correction = holm_pairs(pairs, level)
    matrix = {names[i]: {names[j]: None for j in range(len(names))} for i in range(len(names))}
    for entry in pairs:
        matrix[entry["b"]][entry["a"]] = {key: entry["gate"][key] for key in ("promoted", "promoted_holm", "p_holm", "binding", "failing")}
    by_attribute = None
    if "t1" in tasks:
        by_attribute = attribute_comparisons(scored, names, clusters["t1"], counts["t1"], heads["t1"], level)
    return {
        "runs": runs_record(scored),
        "release": scored[0].report["release"],
        "bootstrap": {"resamples": resamples, "seed": seed, "level": level, "method": FEW_CLUSTER_METHOD,
                      "unit": "each task's manifest protocol.bootstrap_unit", "rng": "numpy.random.default_rng(seed).integers per resample"},
        "headline": {t: heads[t] for t in tasks},
        "headline_registered": {t: registered[t] for t in tasks if t in registered},
        "exploratory": sorted(t for t in tasks if heads[t] != registered.get(t)),
        "gate_rule": "row promoted over column only if the lower bound of the few-cluster interval of Δ = row − column is > 0 "
                     "on every task's headline metric (a task with fewer than two bootstrap units fails)",
        "correction": correction,
        "weak_tasks": {t: len(clusters[t]) for t in tasks if len(clusters[t]) < MIN_UNITS},
        "not_scored": dict(sorted({t: why for s in scored for t, why in s.report.get("not_scored", {}).items()}.items())),
        "pairs": pairs,
        "matrix": matrix,
        "by_attribute": by_attribute,
    }


def compare_runs(bench: str | Path, runs: list[str | Path], *, resamples: int = 10_000, seed: int = 0, level: float = 0.95,
                 headline: str | dict | None = None, relevance: bool = False, cache_dir: str | Path | None = None,
                 unsealed: bool = False) -> dict:
    """Score every run (all protocol gates apply) and compare them pairwise; adds the headline analysis.

    Every number is recomputed from the committed predictions and the labels; ``unsealed`` admits runs made
    without isolation (marked in ``runs``).
    """
    check_options(len(runs), resamples, level)
    parse_headline(headline)
    scored = [score_run(bench, run, relevance=relevance, cache_dir=cache_dir, unsealed=unsealed) for run in runs]
    result = compare_with_analysis(scored, resamples=resamples, seed=seed, level=level, headline=headline)
    for entry in result["runs"].values():
        entry["shares_construction"] = run_shares(bench, entry["run"])
    return result


def compare_with_analysis(scored: list[ScoredRun], *, resamples: int = 10_000, seed: int = 0, level: float = 0.95,
                          headline: str | dict | None = None) -> dict:
    """:func:`compare_scored` over runs already scored (every gate passed in ``score_run``), plus the headline analysis."""
    check_options(len(scored), resamples, level)
    draws = resample_draws(scored, resamples, seed)
    result = compare_scored(scored, resamples=resamples, seed=seed, level=level, headline=headline, draws=draws)
    result["analysis"] = headline_analysis(scored, result, draws)
    return result


def verdict_markdown(result: dict) -> str:
    """The comparison as a Markdown table: Δ [interval] of every headline metric per ordered pair, and the verdict."""
    heads = result["headline"]
    boot = result["bootstrap"]
    corr = result["correction"]
    lines = [f"Δ = B − A, {boot['level']:.0%} few-cluster interval Δ ± t(G−1)·SE·√(G/(G−1)), SE from the paired cluster "
             "bootstrap over each task's G bootstrap units (t with G_eff − 1 degrees of freedom, G_eff = G for units of "
             "equal size), "
             f"{boot['resamples']:,} resamples, seed {boot['seed']}. Multiple comparisons: {corr['method']} over the "
             f"{corr['family']} (α = {corr['alpha']:.2f}); p_Holm is the adjusted p-value.", "",
             "| B | A | " + " | ".join(f"{TASKS[t].name} {m}" + (" (exploratory)" if t in result.get("exploratory", ()) else "")
                                      for t, m in heads.items()) + " | verdict | p_Holm | Holm verdict |",
             "|---|---|" + "---|" * len(heads) + "---|---|---|"]
    shares = {name: entry.get("shares_construction") or [] for name, entry in result.get("runs", {}).items()}
    mark = {name: f"{name} {SHARED_MARK}" if what else name for name, what in shares.items()}
    for pair in result["pairs"]:
        cells = []
        for task in heads:
            entry = pair["gate"]["tasks"][task]
            cells.append(cell_text(entry))
        holm = "promoted" if pair["gate"]["promoted_holm"] else "not promoted"
        lines.append(f"| {mark.get(pair['b'], pair['b'])} | {mark.get(pair['a'], pair['a'])} | " + " | ".join(cells)
                     + f" | {pair['gate']['verdict']} | {pair['gate']['p_holm']:.4f} | {holm} |")
    note = shared_note({mark[n]: what for n, what in shares.items()})
    if result.get("not_scored"):
        lines += ["", "Not scored (no queries in this release): " + ", ".join(TASKS[t].name for t in result["not_scored"]) + "."]
    return "\n".join(lines) + "\n" + (f"\n{note}" if note else "") + attribute_markdown(result.get("by_attribute"))


def attribute_markdown(by_attribute: dict | None) -> str:
    """Per-attribute Δ of the T1 headline for every pair, with Holm-adjusted p-values, as Markdown."""
    if not by_attribute or not by_attribute["cells"]:
        return ""
    lines = ["", f"Per-attribute T1 {by_attribute['metric']} (Δ = B − A over the queries expressing the attribute); "
             f"{by_attribute['method']} over {by_attribute['family']} (α = {by_attribute['alpha']:.2f}).", "",
             "| B | A | attribute | n | Δ [interval] | p | p_Holm | verdict |", "|---|---|---|---|---|---|---|---|"]
    for c in by_attribute["cells"]:
        lines.append(f"| {c['b']} | {c['a']} | {c['attribute']} | {c['n']:,} | {interval_text(c)} "
                     f"| {c['p_value']:.4f} | {c['p_holm']:.4f} | {c['verdict']} |")
    return "\n".join(lines) + "\n"
