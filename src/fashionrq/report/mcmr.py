"""MCMR tables on an MCMR release (``fashionrq build --mcmr``): modality ablation, query-side ablation, constraint curve.

:func:`modality_ablation` runs every system in every candidate regime label-blind, commits and scores each run
(the unchanged MODA protocol), and returns an :class:`MCMRAblation` whose tables follow seed 003:

* **candidate side (Table 3)**: each system under text-only, image-only and fused candidates, on the fused
  k_max queries;
* **query side (Table 7)**: fused candidates, the same intents asked as fused, text-only and image-only queries;
* **constraint count (Table 8, Fig. 4)**: fused candidates, fused queries with k_T = k_I = 1 … k_max.

All three read the ``by_constraints`` breakdown the scorer writes from ``labels/mcmr.jsonl``
(:mod:`fashionrq.protocol.constraints`), over the intents that have every query variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fashionrq.errors import InputError
from fashionrq.layout import MCMR, label_file
from fashionrq.report import svg
from fashionrq.report.leaderboard import markdown
from fashionrq.timing import stage

#: The default systems: the floor, lexical, text-dense, the image descriptor, and a fusion of lexical + image.
ABLATION_SYSTEMS = ("random", "bm25", "minilm-int8", "image-descriptor", "hybrid")
#: Metrics of the tables (score names of the open-corpus task), as MCMR reports them.
METRICS = ("recall@10", "recall@50", "recall@100", "ndcg@10", "mrr@10")
CURVE_METRICS = ("recall@10", "ndcg@10")


@dataclass(frozen=True)
class AblationRun:
    """One system in one candidate regime: its run folder and score report."""

    system: str
    regime: str
    run: Path
    scores: dict

    def by_variant(self, task: str) -> dict[str, dict]:
        return self.scores["tasks"].get(task, {}).get("breakdowns", {}).get("by_constraints", {}).get("by_variant", {})


def system_for(name: str, regime: str):
    """``hybrid`` fuses bm25 with the image descriptor where photos are visible, bm25 + minilm-int8 in ``text``."""
    from fashionrq.systems import get_system

    if name == "hybrid":
        return get_system("hybrid", components="bm25,minilm-int8" if regime == "text" else "bm25,image-descriptor")
    return get_system(name)


def _sealed_group(bench: Path, regime: str, group: list[tuple[str, Path]], force: bool) -> None:
    """Every ``(system, run folder)`` of one candidate regime: copied from the stage cache or run together in one
    sealed child (``systems.run_systems``: one start-up, one copy of the photos), then each run committed."""
    from fashionrq.protocol.commitment import commit_run
    from fashionrq.stagecache import cached_runs
    from fashionrq.systems import run_systems

    names = {run: name for name, run in group}
    cached_runs(bench, {run: {"system": name, "regime": regime} for run, name in names.items()},
                lambda missing: run_systems(bench, {run: (system_for(names[run], regime), {}) for run in missing},
                                            regime=regime, force=force), force=force)
    for run in names:
        commit_run(run, bench)


def _scored(bench: Path, run: Path, name: str, regime: str) -> AblationRun:
    from fashionrq.protocol.scoring import score_run, write_json

    with stage(f"mcmr score {name} ({regime})"):
        scores = score_run(bench, run, relevance=False).report
        write_json(scores, run / "scores.json", force=True)
    return AblationRun(name, regime, run, scores)


def _sealed_runs(bench: Path, jobs: list[tuple[str, str, Path]], force: bool, workers: int) -> None:
    """Every ``(system, regime, run folder)`` job's sealed run: one sealed child per regime, ``workers`` of them at
    once (one stage for all: they overlap); each run's files are those it gets alone."""
    from concurrent.futures import ThreadPoolExecutor

    groups: dict[str, list[tuple[str, Path]]] = {}
    for name, regime, run in jobs:
        groups.setdefault(regime, []).append((name, run))
    label = f"mcmr runs ({len(jobs)} in {len(groups)} sealed children, {min(max(workers, 1), len(groups))} at a time)"
    with stage(label), ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        for future in [pool.submit(_sealed_group, bench, regime, group, force) for regime, group in groups.items()]:
            future.result()


def modality_ablation(bench: str | Path, out: str | Path, systems: Sequence[str] = ABLATION_SYSTEMS,
                      regimes: Sequence[str] = ("text", "image", "fused"), force: bool = False,
                      workers: int = 1) -> MCMRAblation:
    """Run, commit and score every ``system`` in every candidate regime of ``regimes`` on the MCMR release ``bench``.

    Run folders are ``out/<system>-<regime>``. A system that refuses a regime (it reads photos, and text-only
    candidates show none) is left out of that regime. Each regime's systems run together in one sealed child;
    ``workers``: such children at once (the run files do not depend on it); the scoring follows, one run at a time.
    """
    from fashionrq.systems.regimes import check_regime

    bench, out = Path(bench), Path(out)
    if not (bench / label_file(MCMR)).is_file():
        raise InputError(f"{bench} is not an MCMR release (no labels/mcmr.jsonl); build one with `fashionrq build --mcmr`.")
    for regime in regimes:
        check_regime(regime)
    # text-only candidates show no photo: a system that reads photos (image-descriptor) has nothing to read there
    jobs = [(name, regime, out / f"{name}-{regime}") for name in systems for regime in regimes
            if not (regime == "text" and getattr(system_for(name, regime), "reads_photos", False))]
    _sealed_runs(bench, jobs, force, workers)
    runs = tuple(_scored(bench, run, name, regime) for name, regime, run in jobs)
    return MCMRAblation(runs, _task(runs))


def _task(runs) -> str:
    """The open-corpus task when the release has it (all photographed items ranked), else pooled T1."""
    return "t1o" if any("t1o" in r.scores["tasks"] for r in runs) else "t1"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


@dataclass(frozen=True)
class MCMRAblation:
    """The runs of a modality ablation and the MCMR tables drawn from their scores (values in %)."""

    runs: tuple[AblationRun, ...]
    task: str = "t1o"

    def _labels(self) -> list[str]:
        seen = {label: None for r in self.runs for label in r.by_variant(self.task)}
        return list(seen)

    def _fused_labels(self) -> list[str]:
        return [label for label in self._labels() if "+" in label]

    def _n(self, label: str) -> int:
        return max((r.by_variant(self.task).get(label, {}).get("n", 0) for r in self.runs), default=0)

    def candidate_table(self) -> tuple[list[str], list[list[str]]]:
        """Table 3: system x candidate regime, on the fused k_max queries."""
        label = (self._fused_labels() or ["-"])[-1]
        header = ["system", "candidates", *METRICS]
        rows = [[r.system, r.regime, *(_pct(r.by_variant(self.task).get(label, {}).get(m)) for m in METRICS)] for r in self.runs]
        return header, rows

    def query_table(self) -> tuple[list[str], list[list[str]]]:
        """Table 7: fused candidates; fused, text-only and image-only queries of the same intents."""
        labels = [x for x in self._labels() if "+" not in x]
        labels = self._fused_labels()[-1:] + labels
        header = ["system", "query", *METRICS]
        rows = [[r.system, f"{label} (n={self._n(label):,})", *(_pct(r.by_variant(self.task).get(label, {}).get(m)) for m in METRICS)]
                for r in self.runs if r.regime == "fused" for label in labels]
        return header, rows

    def curve_table(self, metric: str = "recall@10") -> tuple[list[str], list[list[str]]]:
        """Table 8: fused candidates, ``metric`` per k_T = k_I (one column per k)."""
        labels = self._fused_labels()
        header = ["system", *(f"{label} (n={self._n(label):,})" for label in labels)]
        rows = [[r.system, *(_pct(r.by_variant(self.task).get(label, {}).get(metric)) for label in labels)]
                for r in self.runs if r.regime == "fused"]
        return header, rows

    def curve_svg(self, metric: str = "recall@10") -> str:
        fused = [r for r in self.runs if r.regime == "fused"]
        labels = self._fused_labels()
        values = [[r.by_variant(self.task).get(label, {}).get(metric) for label in labels] for r in fused]
        return svg.line_chart(labels, [r.system for r in fused], values, f"{self.task.upper()} {metric} by constraint count (fused candidates)",
                              "text + image constraints in the query (k_T = k_I)")

    def tables(self) -> list[tuple[str, list[str], list[list[str]]]]:
        task = self.task.upper()
        return [
            (f"Candidate-side modality ablation (MCMR Table 3), {task}, fused k_max queries, %", *self.candidate_table()),
            (f"Query-side modality ablation (MCMR Table 7), {task}, fused candidates, %", *self.query_table()),
            *((f"Constraint count k_T = k_I (MCMR Table 8), {task} {m}, fused candidates, %", *self.curve_table(m)) for m in CURVE_METRICS),
        ]

    def to_markdown(self) -> str:
        return "\n".join(markdown(title, header, rows) for title, header, rows in self.tables())

    def to_html(self) -> str:
        from fashionrq.report.html import text_table

        charts = "".join(self.curve_svg(m) for m in CURVE_METRICS)
        return f'<div class="charts">{charts}</div>' + "".join(f"<h3>{title}</h3>{text_table(header, rows)}" for title, header, rows in self.tables())

    def to_dict(self) -> dict:
        return {"task": self.task, "runs": [{"system": r.system, "regime": r.regime, "run": str(r.run),
                                             "by_variant": r.by_variant(self.task)} for r in self.runs]}

    def __str__(self) -> str:
        return self.to_markdown()
