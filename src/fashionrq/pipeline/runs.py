"""Run a system on a release, commit its predictions, score them: the one sequence every caller goes through.

:func:`run_commit_score` runs one system (and its first stage, for a two-stage run), from the stage cache when
asked; :func:`run_many` runs several in one sealed child (the probes, the MCMR regimes); :func:`commit_and_score`
follows either.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from fashionrq.layout import SCORES
from fashionrq.protocol.commitment import commit_run
from fashionrq.protocol.scoring import ScoredRun, score_run, write_json
from fashionrq.stagecache import cached_run, cached_runs
from fashionrq.systems import Retriever, run_system, run_systems
from fashionrq.systems.twostage import DEFAULT_DEPTH
from fashionrq.timing import stage


def commit_and_score(bench: Path, run: Path, *, relevance: bool = True, keep: bool = True, force: bool = False) -> ScoredRun:
    """Commit ``run``'s predictions to its ledger, then score them on ``bench``; with ``keep`` the report is written
    to ``run/scores.json`` (an existing one is replaced only with ``force``)."""
    commit_run(run, bench)
    scored = score_run(bench, run, relevance=relevance)
    if keep:
        write_json(scored.report, run / SCORES, force=force)
    return scored


def run_commit_score(bench: str | Path, system: str | Retriever, out: str | Path, *, reranker=None,
                     depth: int = DEFAULT_DEPTH, params: dict | None = None, first_stage_out: str | Path | None = None,
                     relevance: bool = True, force: bool = False, cached: bool = False) -> tuple[list[ScoredRun], bool]:
    """Run ``system`` label-blind on ``bench`` into ``out`` (with ``reranker``, its first stage alone into
    ``first_stage_out``), commit and score each run folder (``scores.json`` beside its run files).

    With ``cached``, a built-in system (a name, with a reranker name) is copied from the stage cache when it ran on
    this release with the same parameters before; a plug-in (``module:Class``, ``st:<model>``, an object) never is.
    Returns the ScoredRuns (``out``'s first) and whether the run came from the stage cache.
    """
    bench, folders = Path(bench), [Path(out), *([Path(first_stage_out)] if first_stage_out else [])]
    with stage(f"run {folders[0].name}"):
        if cached and _cacheable(system, reranker):
            hit = _cached_run(bench, system, folders, reranker, depth, dict(params or {}))
        else:
            hit = False
            run_system(bench, system, folders[0], reranker=reranker, depth=depth, params=params,
                       first_stage_out=first_stage_out, force=force)
    scored = []
    for folder in folders:
        with stage(f"score {folder.name}"):
            scored.append(commit_and_score(bench, folder, relevance=relevance, force=force))
    return scored, hit


def _cacheable(system, reranker) -> bool:
    """A built-in system and reranker, by name: code inside the stage cache's code version."""
    return all(part is None or (isinstance(part, str) and ":" not in part) for part in (system, reranker))


def _cached_run(bench: Path, system: str, folders: list[Path], reranker: str | None, depth: int, params: dict) -> bool:
    """The run (and first stage) into ``folders`` through one stage-cache entry; True on a cache hit."""
    inputs = {"system": system, "params": params, "rerank": reranker, "rerank_depth": depth, "first_stage": len(folders) > 1}

    def build(path: Path) -> None:
        run_system(bench, system, path / "run", reranker=reranker, depth=depth, params=params,
                   first_stage_out=path / "first" if len(folders) > 1 else None)

    staging = folders[0].with_name(f".{folders[0].name}.staging")
    hit = cached_run(bench, staging, build, inputs)
    for name, folder in zip(("run", "first"), folders):
        os.replace(staging / name, folder)
    shutil.rmtree(staging)
    return hit


def run_many(bench: str | Path, runs: Mapping[Path, tuple[str | Retriever, dict]], keys: Mapping[Path, dict], *,
             regime: str = "text", force: bool = False) -> None:
    """Every run (folder -> ``(system, params)``) sealed and label-blind: the stage cache's hits (each under its
    ``keys[folder]``) are copied, the misses run together in one sealed child (``systems.run_systems``). The
    caller commits and scores each (:func:`commit_and_score`)."""
    cached_runs(bench, dict(keys), lambda missing: run_systems(bench, {out: runs[out] for out in missing}, regime=regime,
                                                               force=force), force=force)
