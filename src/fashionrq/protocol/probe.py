"""The probes' judgement: every label-blind probe and the query-blind baseline placed against random's chance band.

The runs themselves (``fashionrq.pipeline.probes.probe_release``) are run over ``BENCH/public/`` only, committed
and scored like any other run; :func:`probe_report` judges them. Every probe cell is
judged against its **chance band**: the scores a label-blind run of the same form reaches by chance, i.e.
random's score plus or minus t(G−1) times the paired cluster-bootstrap standard error of Δ = probe − random over
the scorer's G leakage units (the few-cluster correction), at the family-wise level over every judged cell.
A probe above its band has predicted grades from the public files: a leak. Random's own interval (few-cluster, like
every interval of the protocol) is shown too, but it is no chance band for a probe: a query-free probe gives every query of a pool the same ranking
and varies more than random, which shuffles each query afresh (one more random seed, scored as a probe, can land
outside it). The query-blind baseline and any real runs (``against``) are shown beside them, not judged.

Example::

    >>> from fashionrq.pipeline.probes import probe_release
    >>> report = probe_release("BENCH")
    >>> print(report)                     # the Markdown table
    >>> report.passed, report.leaks       # False and the cells above their chance band on a leaky release
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from fashionrq.errors import ComparisonError, InputError
from fashionrq.io import read_json
from fashionrq.layout import RUN_JSON
from fashionrq.protocol.bootstrap import (
    METRIC_RANGE,
    balanced_accuracy_from_confusions,
    cluster_sums,
    confusion_draws,
    few_cluster_bounds,
    json_bound,
    macro_f1_from_confusions,
    paired_mean_bootstrap,
    resampled_means,
    summarise,
    within,
)
from fashionrq.protocol.compare import resample_draws
from fashionrq.protocol.scoring import ScoredRun
from fashionrq.taskspec import TASKS

#: Metrics that read no label, never judged: any ranking that ignores the query text scores 1.0 on consistency@k.
LABEL_FREE = ("consistency@",)
#: Metrics shown but never judged, with the reason.
UNGATED = {
    "macro_f1": "a label-blind classifier's macro-F1 depends on how it spreads its predictions over the grades "
                "(0.10 for one grade, 0.25 for an even spread), so random's interval is no chance band for it; "
                "balanced accuracy (mean recall per grade) has chance level 1/4 whatever is predicted",
    "worst_recall@10": "the worst paraphrase of a group rewards giving every paraphrase the same ranking: a query-blind "
                       "ranking's chance level is its mean recall, random's the minimum of several draws",
}
#: T2 metrics computed from confusion counts.
CONFUSION_METRICS = {"macro_f1": macro_f1_from_confusions, "balanced_accuracy": balanced_accuracy_from_confusions}
BASELINE = "random"
QUERY_BLIND = "query-blind"


@dataclass(frozen=True)
class Band:
    """Random's score on one task metric, its few-cluster bootstrap interval and the task's bootstrap units."""

    task: str
    metric: str
    score: float
    lower: float
    upper: float
    gated: bool = True
    #: G, the number of bootstrap units (leakage-unit clusters) the task's chance bands are drawn over.
    units: int = 0

    def verdict(self, score: float) -> str:
        """``inside``, ``above`` or ``below`` the interval."""
        return "above" if score > self.upper else "below" if score < self.lower else "inside"


@dataclass(frozen=True)
class ProbeCell:
    """One system's score on one task metric, placed against its chance band around random."""

    system: str
    kind: str  # "probe", "query-blind" or "against"
    task: str
    metric: str
    score: float
    #: ``inside``, ``above`` or ``below`` the chance band (random's own interval where no band is computed), or
    #: ``untestable``: the band reaches the metric's maximum, 1, so no score could lie above it (too few units).
    verdict: str
    gated: bool = True
    #: Paired bootstrap interval of Δ = system − random at the family-wise level (probe and query-blind cells).
    delta_lower: float | None = None
    delta_upper: float | None = None
    #: The attack gave every candidate of every pool of this task the same score: its order is a seeded shuffle.
    silent: bool = False

    @property
    def band(self) -> tuple[float, float] | None:
        """The chance band ``(lower, upper)``: the scores at which Δ's family-wise interval still holds 0, cut to the
        metric's range [0, 1] (a recall@100 near 0 has no chance band below 0)."""
        if self.delta_lower is None or self.delta_upper is None:
            return None
        return within(self.score - self.delta_upper, METRIC_RANGE), within(self.score - self.delta_lower, METRIC_RANGE)

    @property
    def judged(self) -> bool:
        return self.kind == "probe" and self.gated and not self.silent

    @property
    def leak(self) -> bool:
        """A judged probe cell above its chance band: Δ over random is positive at the family-wise level."""
        return self.judged and self.verdict == "above"


@dataclass(frozen=True)
class ProbeReport:
    """Random's intervals and every probe, query-blind and ``against`` cell; ``passed`` when no probe is above its band."""

    release: str
    bootstrap: dict
    bands: tuple[Band, ...]
    cells: tuple[ProbeCell, ...]

    @property
    def leaks(self) -> list[ProbeCell]:
        """The judged probe cells above their chance band (:attr:`ProbeCell.leak`)."""
        return [c for c in self.cells if c.leak]

    @property
    def untestable(self) -> list[ProbeCell]:
        """The judged probe cells whose chance band reaches 1: their task has too few bootstrap units to show a leak."""
        return [c for c in self.cells if c.judged and c.verdict == "untestable"]

    @property
    def passed(self) -> bool:
        """No judged probe cell above its band (cells in :attr:`untestable` neither pass nor fail)."""
        return not self.leaks

    def score(self, system: str, task: str, metric: str) -> float:
        """One cell's score (``random`` gives random's point score)."""
        if system == BASELINE:
            return next(b.score for b in self.bands if (b.task, b.metric) == (task, metric))
        return next(c.score for c in self.cells if (c.system, c.task, c.metric) == (system, task, metric))

    def to_dict(self) -> dict:
        return {"release": self.release, "bootstrap": self.bootstrap, "passed": self.passed, "verdict": probe_verdict(self),
                "bands": [{**asdict(b), "lower": json_bound(b.lower), "upper": json_bound(b.upper)} for b in self.bands], "cells": [_cell_record(c) for c in self.cells],
                "leaks": [_cell_record(c) for c in self.leaks], "untestable": [_cell_record(c) for c in self.untestable]}

    def to_dataframe(self):
        """One row per (system, task, metric): score, verdict, chance band (``band_lower``/``band_upper``) and
        random's own interval."""
        import pandas as pd

        band = {(b.task, b.metric): b for b in self.bands}
        rows = [{"system": BASELINE, "kind": BASELINE, "task": b.task, "metric": b.metric, "score": b.score,
                 "verdict": "inside", "gated": b.gated, "leak": False, "silent": False, "random_lower": b.lower, "random_upper": b.upper} for b in self.bands]
        rows += [{**_cell_record(c), "random_lower": band[c.task, c.metric].lower,
                  "random_upper": band[c.task, c.metric].upper} for c in self.cells]
        return pd.DataFrame(rows)

    def __str__(self) -> str:
        return probe_markdown(self)


def _cell_record(cell: ProbeCell) -> dict:
    band = cell.band
    return {**asdict(cell), "judged": cell.judged, "leak": cell.leak,
            "band_lower": None if band is None else band[0], "band_upper": None if band is None else band[1]}


#: A cell's mark by verdict (a judged probe cell above its band is ▲, a leak, instead of △).
MARKS = {"above": "△", "inside": "·", "below": "▼", "untestable": "?"}


def probe_mark(verdict: str, *, leak: bool, silent: bool, gated: bool) -> str:
    """The table mark of one cell (also used by the HTML report, on ``probe.json`` records)."""
    if silent:
        return "∅"
    if not gated:
        return ""
    return "▲" if leak else MARKS[verdict]


def _cell_text(cell: ProbeCell) -> str:
    band = None if cell.verdict == "untestable" else cell.band
    mark = probe_mark(cell.verdict, leak=cell.leak, silent=cell.silent, gated=cell.gated)
    return f"{cell.score:.3f}" + (f" {mark}" if mark else "") + ("" if band is None else f" [{band[0]:.3f}, {band[1]:.3f}]")


def _untestable_note(report: ProbeReport) -> str:
    """Which tasks' probe cells could not be tested, and why; empty when every judged cell could be."""
    units = {b.task: b.units for b in report.bands}
    tasks = dict.fromkeys(c.task for c in report.untestable)
    if not tasks:
        return ""
    return ("; untestable: " + ", ".join(f"{TASKS[t].name} ({units[t]} bootstrap unit{'' if units[t] == 1 else 's'})" for t in tasks)
            + ", where even a perfect score would lie inside the chance band; build from a larger catalog to test them")


def probe_verdict(report: ProbeReport) -> str:
    """One line: pass (with the largest Δ over random and how many judged cells sit inside) or the leaking cells."""
    leaks, judged = report.leaks, [c for c in report.cells if c.judged]
    if leaks:
        return (f"LEAK: {len({c.system for c in leaks})} probes leak on {len(leaks)} cells: "
                + "; ".join(f"{c.system} {TASKS[c.task].name} {c.metric} {c.score:.3f} above [{c.band[0]:.3f}, {c.band[1]:.3f}]" for c in leaks))
    if not judged:
        return "pass: no judged probe cell (every probe was silent)"
    random = {(b.task, b.metric): b.score for b in report.bands}
    counts = {v: sum(c.verdict == v for c in judged) for v in ("inside", "below", "untestable")}
    line = (f"pass: no probe leaks: {counts['inside']} of {len(judged)} judged probe cells inside their chance band, "
            f"{counts['below']} below it, {counts['untestable']} untestable, none above")
    tested = [c for c in judged if c.verdict != "untestable"]
    if tested:
        top = max(tested, key=lambda c: (c.score - random[c.task, c.metric], c.system, c.task, c.metric))
        line += (f"; the largest gain over random on a tested cell is {top.score - random[top.task, top.metric]:+.4f} "
                 f"({top.system}, {TASKS[top.task].name} {top.metric})")
    return line + _untestable_note(report)


def query_blind_best(report: ProbeReport) -> dict[tuple[str, str], float]:
    """Per ``(task, metric)``: the best score of any query-blind baseline. A task measures reading the query only
    where every real system scores above it."""
    best: dict[tuple[str, str], float] = {}
    for c in report.cells:
        if c.kind == QUERY_BLIND:
            best[c.task, c.metric] = max(best.get((c.task, c.metric), c.score), c.score)
    return best


def _worst_real(against: list[ProbeCell], heads: list[tuple[str, str]]) -> dict[tuple[str, str], float]:
    """Per head: the lowest score of an ``--against`` run that is not a random run (none: only random runs)."""
    real = [c for c in against if not c.system.startswith(BASELINE)]
    return {h: min(c.score for c in real if (c.task, c.metric) == h) for h in heads} if real else {}


def probe_markdown(report: ProbeReport) -> str:
    """The probe table: one column per task metric, random's own interval first, then every other system with its
    mark and chance band."""
    boot = report.bootstrap
    heads = [(b.task, b.metric) for b in report.bands]
    lines = [f"Each probe and query-blind cell: score, mark and chance band, i.e. random's score ± t(G−1) times the paired "
             f"cluster-bootstrap standard error of Δ = system − random over each task's G leakage units "
             f"({boot['resamples']:,} resamples, seed {boot['seed']}; few-cluster corrected, fewer degrees of freedom for units "
             f"of unequal size) at the family-wise level "
             f"{boot['family_level']:.4f} (Bonferroni over the judged probe cells, so that with no leak "
             f"every judged cell lies inside its band with probability {boot['level']:.0%}). ▲ above its band: a leak; · inside; "
             f"▼ below (worse than chance); ? untestable (the band reaches 1, so even a perfect score would lie inside it: "
             f"the task has too few bootstrap units); △ above, not judged (query-blind reads item content); ∅ silent (the attack scored "
             f"every candidate of every pool alike, so its order is a seeded shuffle; not judged). Random's row gives its own "
             f"{boot['level']:.0%} few-cluster interval, which is narrower than a chance band: a query-free probe ranks every "
             f"query of a pool alike and varies more than random, which shuffles each query afresh.", "",
             "| system | " + " | ".join(f"{TASKS[t].name} {m}" + ("" if b.gated else " †") for (t, m), b in zip(heads, report.bands)) + " |",
             "|---|" + "---|" * len(heads)]
    lines.append(f"| {BASELINE} | " + " | ".join(f"{b.score:.3f} [{b.lower:.3f}, {b.upper:.3f}]" for b in report.bands) + " |")
    systems = list(dict.fromkeys((c.system, c.kind) for c in report.cells if c.kind != "against"))
    for system, kind in systems:
        cells = {(c.task, c.metric): c for c in report.cells if c.system == system}
        lines.append(f"| {system} | " + " | ".join(_cell_text(cells[h]) for h in heads) + " |")
    against = [c for c in report.cells if c.kind == "against"]
    blind, worst = {}, {}
    if against:
        best = {h: max((c for c in against if (c.task, c.metric) == h), key=lambda c: c.score) for h in heads}
        lines.append("| best of --against | " + " | ".join(f"{best[h].score:.3f} {best[h].system}" for h in heads) + " |")
        blind = query_blind_best(report)
        if blind:
            worst = _worst_real(against, heads)
            lines.append("| best − best query-blind | " + " | ".join(f"{best[h].score - blind[h]:+.3f}" for h in heads) + " |")
            if worst:
                lines.append("| worst − best query-blind | " + " | ".join(f"{worst[h] - blind[h]:+.3f}" for h in heads) + " |")
    notes = [f"† {m}: shown, not judged: {why}." for m, why in UNGATED.items() if any(b.metric == m for b in report.bands)]
    if against and blind and worst:
        behind = [f"{TASKS[t].name} {m}" for (t, m) in heads if worst[t, m] <= blind[t, m]]
        notes.append("query-blind check: " + (f"some real run is not above the best query-blind baseline on {', '.join(behind)}; "
                                              "there the task does not measure reading the query for it" if behind else
                                              "every real --against run scores above every query-blind baseline on every column"))
    return "\n".join(lines + ["", *notes, probe_verdict(report)]) + "\n"


def probe_metrics(scored: ScoredRun) -> list[tuple[str, str]]:
    """``(task, metric)`` pairs to judge: each task's headline (as the release registers it, else the default) when it
    reads labels, then its ``probe_metrics`` (fashionrq.taskspec), as far as the scorer reports them."""
    pairs = []
    for task in TASKS:
        if task not in scored.units:
            continue
        entry = scored.report["tasks"][task]
        known = set(entry["aggregate"]) | (set(CONFUSION_METRICS) if scored.units[task].truth is not None else set())
        wanted = [entry.get("headline") or TASKS[task].headline]
        for choice in TASKS[task].probe_metrics:
            wanted.append(next((m for m in ((choice,) if isinstance(choice, str) else choice) if m in known), None))
        pairs += [(task, m) for m in dict.fromkeys(wanted) if m in known and not m.startswith(LABEL_FREE)]
    return pairs


def metric_value(scored: ScoredRun, task: str, metric: str) -> float | None:
    """A run's score on one task metric: the scorer's aggregate, or computed from the T2 confusion counts."""
    units = scored.units.get(task)
    if units is None:
        return None
    if metric in CONFUSION_METRICS and units.truth is not None:
        conf = np.bincount(units.truth * 4 + units.pred, minlength=16).astype(np.float64)
        return float(CONFUSION_METRICS[metric](conf, 4))
    return scored.report["tasks"][task]["aggregate"].get(metric)


def random_bands(scored: ScoredRun, metrics: list[tuple[str, str]], resamples: int, seed: int, level: float) -> tuple[Band, ...]:
    """Random's score and few-cluster interval on each metric, from the protocol's cluster bootstrap draws."""
    clusters, counts = resample_draws([scored], resamples, seed)
    bands = []
    for task, metric in metrics:
        units = scored.units[task]
        index, n = units.cluster_index(clusters[task]), len(clusters[task])
        if metric in CONFUSION_METRICS:
            point, resampled = confusion_draws(units.truth, units.pred, index, n, counts[task])
            interval = summarise(CONFUSION_METRICS[metric](point, 4), CONFUSION_METRICS[metric](resampled, 4), level,
                                 np.bincount(index, minlength=n))
        else:
            interval = paired_mean_bootstrap(units.values[metric], index, n, counts[task], level)[0]
        bands.append(Band(task, metric, metric_value(scored, task, metric), interval.lower, interval.upper,
                          metric not in UNGATED, n))
    return tuple(bands)


def _resampled(scored: ScoredRun, task: str, metric: str, index, n: int, counts) -> tuple[float, np.ndarray]:
    """A run's point score and its value in every resample of the clusters."""
    units = scored.units[task]
    if metric in CONFUSION_METRICS:
        point, resampled = confusion_draws(units.truth, units.pred, index, n, counts)
        return float(CONFUSION_METRICS[metric](point, 4)), CONFUSION_METRICS[metric](resampled, 4)
    sums, sizes = cluster_sums(units.values[metric], index, n)
    return float(units.values[metric].mean()), resampled_means(counts, sums, sizes)[:, 0]


def paired_delta(random: ScoredRun, system: ScoredRun, task: str, metric: str, draws, level: float) -> tuple[float, float]:
    """The interval ``(lower, upper)`` of Δ = system − random on one task metric at ``level``.

    Δ̂ ± t(G−1) · SE · √(G/(G−1)) (:func:`~fashionrq.protocol.bootstrap.few_cluster_bounds`, the protocol's one
    interval), where SE is the spread of Δ over the paired cluster resamples and G the number of bootstrap units. With
    few units a percentile interval is too narrow (on the 6-unit T3 of the test fixture as CI built it, one more
    random seed, judged as a probe, fell above it); with many, the two agree. Fewer than two units give no interval.
    """
    clusters, counts = draws
    index, n = random.units[task].cluster_index(clusters[task]), len(clusters[task])
    if system.units[task].ids != random.units[task].ids:
        raise ComparisonError(f"the {task} units of {system.report['run']} differ from random's; run both on the same release.")
    (a, ra), (b, rb) = (_resampled(s, task, metric, index, n, counts[task]) for s in (random, system))
    lower, upper = few_cluster_bounds(b - a, rb - ra, np.bincount(index, minlength=n), level)
    return float(lower), float(upper)


#: Random runs (seeds 0, 1, ...) averaged into the reference: one random draw is itself noisy, and on a task with
#: few bootstrap units an unlucky draw made a harmless probe look like a leak.
RANDOM_SEEDS = 4


def _random_runs(seeds: int = RANDOM_SEEDS) -> dict[str, tuple[str, dict]]:
    """Random's reference runs, folder name -> ``(system, params)``: ``random``, ``random-seed1``, ..."""
    return {BASELINE if k == 0 else f"{BASELINE}-seed{k}": (BASELINE, {"seed": k} if k else {}) for k in range(seeds)}


def _random_reference(runs: list[ScoredRun]) -> ScoredRun:
    """Random's reference: the per-unit mean of the scored random runs (seed 0 first) on every ranking metric;
    T2's confusion counts (which cannot be averaged) are seed 0's."""
    reference = runs[0]
    for task, units in reference.units.items():
        aggregate = reference.report["tasks"][task]["aggregate"]
        if any(run.units[task].ids != units.ids for run in runs):
            raise ComparisonError(f"random's {task} units differ between seeds; the release changed while the probes ran.")
        for metric in units.values:
            units.values[metric] = np.mean([run.units[task].values[metric] for run in runs], axis=0)
            if metric in aggregate:
                aggregate[metric] = float(np.mean([run.report["tasks"][task]["aggregate"][metric] for run in runs]))
    return reference


def _kind(name: str) -> str:
    """``query-blind`` for the query-blind baselines (shown, not judged), else ``probe``."""
    return QUERY_BLIND if name.startswith(QUERY_BLIND) else "probe"


def _system_params(name: str, cache_dir, encoder: str) -> dict:
    """A probed system's parameters: a query-blind baseline's item ``encoder`` (and embedding cache), else none."""
    if _kind(name) == QUERY_BLIND:
        return {"encoder": encoder, **({"cache_dir": str(cache_dir)} if cache_dir is not None else {})}
    return {}


def probe_runs(systems: Sequence[str], cache_dir, encoder: str) -> dict[str, tuple[str, dict]]:
    """Every run the probes need (folder name -> ``(system, params)``): random's seeds, then each probed system."""
    randoms = _random_runs()
    runs = {**randoms, **{name: (name, _system_params(name, cache_dir, encoder)) for name in systems}}
    if len(runs) < len(randoms) + len(systems):
        raise InputError(f"the probed systems {', '.join(systems)} name one twice or name {BASELINE}, the reference itself; name each once.")
    return runs


def informative_tasks(run: Path) -> set[str]:
    """The tasks on which a run's scores varied within some pool: a pool system records them in run.json; an ordinary
    retriever counts as informative everywhere."""
    return set(read_json(run / RUN_JSON)["config"].get("informative_tasks", TASKS))


def _cells(baseline: ScoredRun, scored: list[tuple[str, str, ScoredRun, set]], bands: tuple[Band, ...], draws,
           family_level: float) -> tuple[ProbeCell, ...]:
    """Every system's cells. A probe or query-blind cell that is not silent gets its chance band (the paired Δ
    interval at the family-wise level) and is placed against it; the others (and every cell of a metric shown but not
    judged, :data:`UNGATED`) against random's own interval."""
    cells = []
    for band in bands:
        for name, kind, result, informative in scored:
            value = metric_value(result, band.task, band.metric)
            if value is None:
                continue
            silent = kind == "probe" and band.task not in informative
            if kind == "against" or silent or not band.gated:
                cells.append(ProbeCell(name, kind, band.task, band.metric, value, band.verdict(value), band.gated, silent=silent))
                continue
            lower, upper = paired_delta(baseline, result, band.task, band.metric, draws, family_level)
            verdict = "above" if lower > 0 else "below" if upper < 0 else "inside"
            if verdict == "inside" and (upper - lower) / 2 >= 1.0 - band.score:  # Δ̂ ≤ 1 − random: never above
                verdict = "untestable"
            bounded = math.isfinite(upper - lower)  # fewer than two units: no band at all (JSON has no infinity)
            cells.append(ProbeCell(name, kind, band.task, band.metric, value, verdict, band.gated,
                                   lower if bounded else None, upper if bounded else None))
    return tuple(sorted(cells, key=lambda c: [s[0] for s in scored].index(c.system)))


def judge(baseline: ScoredRun, scored: list[tuple[str, str, ScoredRun, set]], resamples: int, seed: int,
          level: float) -> tuple[tuple[Band, ...], tuple[ProbeCell, ...], float]:
    """Random's intervals, every cell placed against its chance band, and the family-wise level of the bands.

    ``scored``: ``(name, kind, scored run, informative tasks)`` with kind ``probe``, ``query-blind`` or ``against``;
    the Bonferroni family is every gated metric of every ``probe``."""
    bands = random_bands(baseline, probe_metrics(baseline), resamples, seed, level)
    judged = sum(b.gated for b in bands) * sum(kind == "probe" for _, kind, _, _ in scored)
    family_level = 1.0 - (1.0 - level) / max(judged, 1)
    return bands, _cells(baseline, scored, bands, resample_draws([baseline], resamples, seed), family_level), family_level


def probe_report(results: dict[str, tuple[ScoredRun, set]], systems: Sequence[str], against: Sequence[ScoredRun],
                 resamples: int, seed: int, level: float) -> ProbeReport:
    """Judge the scored probe runs against random's reference: ``results`` maps every run of :func:`probe_runs` to its
    ScoredRun and informative tasks; ``against`` are real runs, shown beside the probes, not judged."""
    baseline = _random_reference([results[label][0] for label in _random_runs()])
    scored = [(name, _kind(name), *results[name]) for name in systems]
    scored += [(str(run.report.get("system") or Path(run.report["run"]).name), "against", run, set(TASKS)) for run in against]
    bands, cells, family_level = judge(baseline, scored, resamples, seed, level)
    units = {task: entry.get("leakage_unit") for task, entry in baseline.report["tasks"].items()}
    boot = {"resamples": resamples, "seed": seed, "level": level, "units": units, "family_level": family_level,
            "method": "random: cluster bootstrap of its mean, few-cluster interval (mean ± t(G−1) · SE · √(G/(G−1))); each probe and query-blind cell: "
                      "Δ over random ± t(G−1) · paired cluster-bootstrap SE · √(G/(G−1)), G the task's bootstrap units, "
                      "at the Bonferroni family-wise level over every judged probe cell (its chance band); a judged "
                      "probe cell above its band is a leak"}
    return ProbeReport(baseline.report["release"], boot, bands, cells)
