"""Runs of pool systems (the probes and the query-blind baseline) in the format of every other run.

:func:`fashionrq.systems.execute.execute` hands a pool system to :func:`execute_pool` inside the sealed child,
so a probe sees exactly what any system sees: a private copy of ``BENCH/public/``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fashionrq.errors import FashionRQError, InputError
from fashionrq.io import atomic_write_jsonl
from fashionrq.layout import T2_PAIRS
from fashionrq.release import Release
from fashionrq.systems.probes.view import PublicView
from fashionrq.systems.runfiles import calibrated_t2, open_depth, run_tag, write_trec
from fashionrq.systems.t2 import GradeCalibrator
from fashionrq.taskspec import POOLED_KINDS, TASKS, tasks_of


def _t2_features(public: Release, view: PublicView, system) -> tuple[list[dict], np.ndarray]:
    """The T2 pairs in file order and one feature row per pair, from the system's view of its query's pool."""
    pairs = public.jsonl(T2_PAIRS)
    at: dict[tuple[str, str], list[int]] = {}
    for i, pair in enumerate(pairs):
        at.setdefault((pair["qid"], pair["item_id"]), []).append(i)
    rows = [None] * len(pairs)
    for pool in view.pools["t2"]:
        for item, row in zip(pool.candidates, system.t2_features(pool)):
            for i in at[(pool.qid, item)]:
                rows[i] = row
    if any(row is None for row in rows):
        raise InputError(f"{public.path('t2_pairs.jsonl')} has pairs whose query is in no T2 pool; rebuild the release.")
    features = np.asarray(rows, dtype=np.float64)
    if not np.all(np.isfinite(features)):
        raise FashionRQError(f"system '{system.name}' returned non-finite T2 features.")
    return pairs, features


def _open_corpus(public: Release, view: PublicView, system, out: Path) -> None:
    """Open-corpus T1 (when the release has it): the top ``protocol.open_depth`` catalog items per query."""
    pools = view.pools.get("t1o")
    if not pools:
        return
    depth = open_depth(public)
    qids, candidates, scores = [], [], []
    for pool in pools:
        top, values = system.top_of_pool(pool, depth)
        qids.append(pool.qid)
        candidates.append([pool.candidates[i] for i in top])
        scores.append(values)
    write_trec(out / TASKS["t1o"].run_file, qids, candidates, scores, run_tag(system.name))


def public_view(public: Release, shared: dict | None = None) -> PublicView:
    """The public view of the staged files, read once for every pool system of a batch (``shared``: the batch's store).
    A pool system must not change the view it is given."""
    if shared is None:
        return PublicView.read(public)
    if "view" not in shared:
        shared["view"] = PublicView.read(public)
    return shared["view"]


def execute_pool(public: Release, system, out: Path, calibrator: GradeCalibrator, view: PublicView | None = None) -> dict:
    """Fit a pool system on the public view (``view``, else read from ``public``), score every pool of every task
    into ``out``; returns the run record.

    Writes the files of every run (``t1.run``, ``t3.run``, ``t4.run``, ``t2.jsonl``; ``t1o.run`` when the
    release has open-corpus T1). T2 labels come from the same dev-label calibrator as every system's, fitted
    on the system's pair features. The record's ``config.informative_tasks`` lists the tasks on which the
    system's scores varied within some pool.
    """
    view = PublicView.read(public) if view is None else view
    system.fit(view)
    for task in tasks_of(*POOLED_KINDS):
        pools = view.pools[task]
        write_trec(out / f"{task}.run", [p.qid for p in pools], [p.candidates for p in pools],
                   [system.score_pool(p) for p in pools], run_tag(system.name))
    _open_corpus(public, view, system, out)
    pairs, features = _t2_features(public, view, system)
    atomic_write_jsonl(out / TASKS["t2"].run_file, calibrated_t2(public, pairs, features, calibrator))
    config = {"system_config": system.config(), "regime": "public files", "rerank": None, "t2": calibrator.config(),
              "informative_tasks": sorted(getattr(system, "informative_", ()))}
    return {"system": system.name, "config": config, "release": public.release}
