"""What every run reads from BENCH/public/ and writes into its run folder: the scored tasks' queries and candidates,
TREC run lines, and T2 labels calibrated on the public dev labels (the sealed child's runner and the pool systems)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fashionrq.errors import FashionRQError, InputError
from fashionrq.io import atomic_writer
from fashionrq.layout import MANIFEST, T2_DEV_LABELS
from fashionrq.release import Release
from fashionrq.systems.base import ranking_order
from fashionrq.systems.t2 import GradeCalibrator
from fashionrq.taskspec import GROUPED, TARGETED, TASKS


def run_tag(name: str) -> str:
    """``name`` as a TREC run tag: one token of safe characters."""
    return re.sub(r"[^A-Za-z0-9_.:+-]", "_", name) or "system"


def ranking_task(bench: Release, task: str) -> tuple[list[str], list[str], list[list[str]]]:
    """``(qids, texts, candidate id lists)`` of a pooled, targeted or grouped task (T1, T3, T4) from the public files."""
    spec = TASKS[task]
    queries = bench.jsonl(spec.public[0])
    if spec.kind == TARGETED:
        cands = [q.get("candidates") for q in queries]
    elif spec.kind == GROUPED:
        pools = {g["group_id"]: g["candidates"] for g in bench.jsonl(spec.public[1])}
        cands = [pools.get(q.get("group_id")) for q in queries]
    else:
        pools = {r["qid"]: r["candidates"] for r in bench.jsonl(spec.public[1])}
        cands = [pools.get(q["qid"]) for q in queries]
    for q, pool in zip(queries, cands):
        if not pool:
            raise InputError(f"{bench.public}: {task} query {q.get('qid')} has no candidates; the release is incomplete, rebuild it.")
    return [q["qid"] for q in queries], [q["text"] for q in queries], cands


def write_trec(path: Path, qids: Sequence[str], candidates: Sequence[Sequence[str]], scores: Sequence[np.ndarray], tag: str) -> None:
    """TREC run lines ``qid Q0 item_id rank score tag``, every candidate ranked, scores finite."""
    with atomic_writer(path) as handle:
        for qid, pool, values in zip(qids, candidates, scores):
            values = np.asarray(values, dtype=np.float64)
            if len(values) != len(pool) or not np.all(np.isfinite(values)):
                raise FashionRQError(f"the system returned {len(values)} scores, some not finite, for {len(pool)} candidates of query {qid}; fix its score().")
            for rank, i in enumerate(ranking_order(values, pool), start=1):
                handle.write(f"{qid} Q0 {pool[i]} {rank} {values[i]:.10g} {tag}\n")


def calibrated_t2(bench: Release, pairs: list[dict], features: np.ndarray, calibrator: GradeCalibrator) -> list[dict]:
    """Fit ``calibrator`` on the public dev labels of ``pairs`` (rows of ``features``) and label every test pair
    (none when the release has no T2 pair: a catalog too small for a dev/test split gets no T2)."""
    if not pairs:
        return []
    dev = {r["pair_id"]: int(r["label"]) for r in bench.jsonl(T2_DEV_LABELS)}
    split = {p["pair_id"]: p.get("split") for p in pairs}
    leaked = sorted(pair for pair in dev if split.get(pair) != "dev")
    if leaked:
        raise InputError(f"{bench.path('t2_dev_labels.jsonl')} labels pair {leaked[0]}, which is not a dev pair of t2_pairs.jsonl; rebuild the release.")
    fit = np.flatnonzero([p["pair_id"] in dev for p in pairs])
    calibrator.fit(features[fit], np.array([dev[pairs[i]["pair_id"]] for i in fit]))
    test = np.flatnonzero([p.get("split") == "test" for p in pairs])
    labels, expected = calibrator.predict(features[test])
    return [{"pair_id": pairs[i]["pair_id"], "label": int(label), "score": round(float(score), 6)}
            for i, label, score in zip(test, labels, expected)]


def open_depth(bench: Release) -> int:
    """Items per open-corpus T1 query, as the release's manifest registers it (protocol.open_depth; 100 in a sealed
    child's staged copy, which holds public/ only)."""
    manifest = bench.manifest if (bench.root / MANIFEST).is_file() else {}
    return int(manifest.get("protocol", {}).get("open_depth", 100))
