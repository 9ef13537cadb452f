"""Score files read back and verified: each is rescored from its run's committed predictions and the labels, and a
file that differs in any number (hand-edited, stale, from an older commitment) is refused."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from fashionrq.errors import InputError
from fashionrq.layout import LEDGER, SCORES
from fashionrq.protocol.scoring import ScoredRun, score_run
from fashionrq.release import release_hash


def _run_folder(path: Path, report: dict, given_folder: bool) -> Path:
    """The run a score file belongs to: the folder given, else the folder holding the file, else its ``run`` field."""
    if given_folder or (path.parent / LEDGER).is_file():
        return path.parent
    recorded = Path(str(report.get("run", "")))
    if (recorded / LEDGER).is_file():
        return recorded
    raise InputError(f"{path} names run {recorded}, which holds no commitments.jsonl; keep the score file in its run folder or pass the run folder.")


def _first_difference(found, fresh, where: str = "") -> str | None:
    """The first key path (``tasks.t1.aggregate.ndcg@10: 0.999 vs 0.4123``) where two reports differ, or None."""
    if isinstance(found, dict) and isinstance(fresh, dict):
        for key in sorted(set(found) | set(fresh), key=str):
            if key not in found or key not in fresh:
                return f"{where}{key}: {'missing' if key not in found else 'extra'} in the file"
            diff = _first_difference(found[key], fresh[key], f"{where}{key}.")
            if diff:
                return diff
        return None
    return None if found == fresh else f"{where.rstrip('.')}: file {str(found)[:40]}, recomputed {str(fresh)[:40]}"


def verify_scores(bench: Path, path: Path, report: dict, given_folder: bool, unsealed: bool = False) -> ScoredRun:
    """Re-score the committed run against the ledger and the labels; refuse a score file that differs in any number.

    Returns the fresh scoring (what the leaderboard shows).
    """
    run = _run_folder(path, report, given_folder)
    scored = score_run(bench, run, relevance="relevance" in report, unsealed=unsealed)
    fresh = as_written(scored.report)
    diff = _first_difference({k: v for k, v in report.items() if k != "run"}, {k: v for k, v in fresh.items() if k != "run"})
    if diff:
        raise InputError(f"{path} does not match a fresh scoring of {run} ({diff}): it was edited, or is stale; "
                         f"rescore with `fashionrq score {run} --bench {bench} --force`.")
    return scored


def as_written(report: dict) -> dict:
    """``report`` in the form a score file holds (tuples become lists)."""
    return json.loads(json.dumps(report, sort_keys=True))


def verified_scores(bench: str | Path, paths: Sequence[str | Path], unsealed: bool = False) -> list[tuple[ScoredRun, Path]]:
    """Read score JSON files (or RUN folders holding ``scores.json``) and verify each by rescoring its run; returns
    each fresh scoring with its file.

    A file scored on another release, edited by hand, or stale (its run committed again since) is refused;
    an unsealed run is refused unless ``unsealed``, and then labelled ``(unsealed)``.
    """

    bench = Path(bench)
    release = release_hash(bench)
    out: list[tuple[ScoredRun, Path]] = []
    for raw in paths:
        path = Path(raw)
        folder = path.is_dir()
        if folder:
            path = path / SCORES
        if not path.is_file():
            raise InputError(f"{path} does not exist; pass a score JSON written by `fashionrq score` or the RUN folder holding {SCORES}.")
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(report["tasks"], dict):
                raise TypeError
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise InputError(f"{path} is not a score JSON (no 'tasks' object); write it with `fashionrq score`.") from None
        if report.get("release") != release:
            raise InputError(f"{path} scores release {str(report.get('release'))[:12]}…, not {bench}'s {release[:12]}…; score the run on this release.")
        out.append((verify_scores(bench, path, report, folder, unsealed), path))
    return out
