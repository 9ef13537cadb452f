"""The probes' runs: random's seeds, every label-blind probe and the query-blind baselines, run sealed, committed and
scored, then judged by :mod:`fashionrq.protocol.probe` (docs/protocol.md, "Adversarial probes")."""

from __future__ import annotations

import multiprocessing
import tempfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from fashionrq.io import atomic_directory, atomic_write_json
from fashionrq.limits import available_cores
from fashionrq.pipeline.runs import commit_and_score, run_many
from fashionrq.progress import track
from fashionrq.protocol.probe import ProbeReport, informative_tasks, probe_report, probe_runs
from fashionrq.protocol.scoring import ScoredRun, score_run
from fashionrq.systems.probes import PROBES, QUERY_BLIND_SYSTEMS

#: Processes that score the probed runs at once.
SCORING_WORKERS = 4


def default_systems() -> list[str]:
    """Every built-in probe, then the query-blind baselines."""
    return [*PROBES, *QUERY_BLIND_SYSTEMS]


def _run_all(bench: Path, folder: Path, runs: dict[str, tuple[str, dict]]) -> None:
    """Every run (folder name -> ``(system, params)``) sealed and label-blind into ``folder``, in one sealed child
    for the stage cache's misses."""
    wanted = {folder / label: spec for label, spec in runs.items()}
    run_many(bench, wanted, {out: {"system": name, "params": params} for out, (name, params) in wanted.items()})


def _commit_and_score(bench: Path, run: Path) -> tuple[ScoredRun, set]:
    """A probe run committed and scored (no scores.json), with the tasks on which its scores varied within some pool."""
    return commit_and_score(bench, run, relevance=False, keep=False), informative_tasks(run)


def _commit_and_score_all(bench: Path, folder: Path, labels: list[str]) -> dict[str, tuple[ScoredRun, set]]:
    """:func:`_commit_and_score` of every run ``folder/label``, on as many cores as this process may use (each run
    is scored alone, so the results do not depend on how many; at most :data:`SCORING_WORKERS`, each holds a
    release's qrels)."""
    workers = min(len(labels), available_cores(), SCORING_WORKERS)
    label = f"scoring {len(labels)} probe runs"
    if workers < 2:
        return {name: _commit_and_score(bench, folder / name) for name in track(labels, label, total=len(labels))}
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        scored = pool.map(_commit_and_score, [bench] * len(labels), [folder / name for name in labels])
        return dict(zip(labels, track(scored, label, total=len(labels))))


def _probe_all(bench: Path, folder: Path, against: Sequence[Path | ScoredRun], systems: Sequence[str], resamples: int,
               seed: int, level: float, cache_dir, encoder: str) -> ProbeReport:
    runs = probe_runs(systems, cache_dir, encoder)
    _run_all(bench, folder, runs)
    results = _commit_and_score_all(bench, folder, list(runs))
    real = [run if isinstance(run, ScoredRun) else score_run(bench, run, relevance=False) for run in against]
    return probe_report(results, systems, real, resamples, seed, level)


def prepare_probe_runs(bench: str | Path, *, systems: Sequence[str] | None = None, cache_dir: str | Path | None = None,
                       query_blind_encoder: str = "minilm", part: tuple[int, int] = (0, 1)) -> None:
    """Run, sealed and label-blind, every run :func:`probe_release` with the same arguments will need, then commit and
    score each, into the stage cache only: a caller can do this beside other work (the demo does, beside its own
    runs), and the probes then copy the runs from the cache and find their scores there (a score is cached by the
    committed files' hashes, so a copy committed again scores from the cache).

    ``part=(i, n)``: only every n-th of those runs from the i-th (in one sealed child), so that n callers can share
    them out; each run is cached on its own, so the parts together are the whole."""
    index, parts = part
    if not 0 <= index < parts:
        raise ValueError(f"part {index} of {parts}: a part is 0 to {parts - 1}")
    systems = list(systems) if systems is not None else default_systems()
    runs = dict(list(probe_runs(systems, cache_dir, query_blind_encoder).items())[index::parts])
    with tempfile.TemporaryDirectory(prefix="fashionrq-probe-runs-") as tmp:
        _run_all(Path(bench), Path(tmp), runs)
        for label in runs:
            _commit_and_score(Path(bench), Path(tmp) / label)


def probe_release(bench: str | Path, *, out: str | Path | None = None, against: Sequence[str | Path | ScoredRun] = (),
                  systems: Sequence[str] | None = None, resamples: int = 10_000, seed: int = 0, level: float = 0.95,
                  force: bool = False, cache_dir: str | Path | None = None, query_blind_encoder: str = "minilm") -> ProbeReport:
    """Run, commit and score ``random``, every probe and the query-blind baseline on BENCH; returns a ProbeReport.

    ``query_blind_encoder``: the dense encoder whose item vectors the query-blind baseline averages.

    ``against`` are committed runs of real systems, scored and shown beside the probes (or their ScoredRuns from
    ``score_run`` on BENCH, which are not scored again). Every run the probes need that the stage cache lacks runs in
    one sealed child. With ``out`` the runs and ``probe.json`` are kept there (an existing folder is refused unless
    ``force``).
    """
    bench = Path(bench)
    systems = list(systems) if systems is not None else default_systems()
    against = [run if isinstance(run, ScoredRun) else Path(run) for run in against]
    if out is None:
        with tempfile.TemporaryDirectory(prefix="fashionrq-probe-") as tmp:
            return _probe_all(bench, Path(tmp), against, systems, resamples, seed, level, cache_dir, query_blind_encoder)
    with atomic_directory(out, force=force, what="probe folder") as tmp:
        report = _probe_all(bench, tmp, against, systems, resamples, seed, level, cache_dir, query_blind_encoder)
        atomic_write_json(tmp / "probe.json", report.to_dict())
    return report
