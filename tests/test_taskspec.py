"""The task table: a task added the way docs/architecture.md describes (one ``TaskSpec``, its builder, a scorer chosen
by its kind) is read by the runner, validated, committed and scored end to end."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from fashionrq.io import atomic_write_json, sha256_file
from fashionrq.layout import MANIFEST, RUN_JSON, candidates_file, label_file, public_file, qrels_file, queries_file
from fashionrq.protocol.commitment import commit_run
from fashionrq.protocol.scoring import score_run
from fashionrq.release import Release, release_hash, with_digest
from fashionrq.systems.runfiles import ranking_task, write_trec
from fashionrq.taskspec import POOLED, TASKS, TaskSpec, register_task, run_files

#: A pooled toy task: T1's queries, pools and judgments under names of its own.
TOY = TaskSpec("toy", "Toy", POOLED, (queries_file("toy"), candidates_file("toy")), qrels_file("toy"), "toy.run",
               headline="recall@10", secondary="ndcg@10", probe_metrics=("ndcg@10",), bootstrap_unit="T1 pool component",
               measures=(("ndcg@10", "ndcg@10"), ("recall@10", "recall@10(rel=3)")))


@pytest.fixture
def toy_task():
    register_task(TOY)
    yield TOY
    del TASKS[TOY.key]


def _build_toy(bench) -> None:
    """The toy task's builder: copies of T1's files under the toy's names, hashed into the manifest."""
    manifest = json.loads((bench / MANIFEST).read_text())
    t1 = TASKS["t1"]
    for source, target in ((public_file(t1.public[0]), public_file(TOY.public[0])), (public_file(t1.public[1]), public_file(TOY.public[1])),
                           (label_file(t1.labels), label_file(TOY.labels))):
        shutil.copy(bench / source, bench / target)
        manifest["files"][target] = sha256_file(bench / target)
    atomic_write_json(bench / MANIFEST, with_digest(manifest))


def _write_run(bench, run, tasks: list[str]) -> None:
    """An unsealed run ranking every pool of ``tasks`` in the same seeded order."""
    run.mkdir()
    release = Release(bench)
    for task in tasks:
        qids, _, pools = ranking_task(release, task)
        scores = [np.random.default_rng(7).permutation(len(pool)).astype(np.float64) for pool in pools]
        write_trec(run / TASKS[task].run_file, qids, pools, scores, "toy")
    (run / RUN_JSON).write_text(json.dumps({"release": release_hash(bench), "system": "toy", "config": {}}))


def test_register_task_refuses_a_known_key():
    with pytest.raises(ValueError, match="already registered"):
        register_task(TASKS["t1"])


def test_a_registered_toy_task_is_run_validated_committed_and_scored(small_bench, tmp_path, toy_task):
    bench = shutil.copytree(small_bench, tmp_path / "BENCH")
    _build_toy(bench)
    run = tmp_path / "run"
    _write_run(bench, run, ["t1", toy_task.key])
    commit_run(run, bench)
    assert run_files()[toy_task.key] in json.loads((run / "commitments.jsonl").read_text().splitlines()[-1])["files"]
    tasks = score_run(bench, run, relevance=False, unsealed=True).report["tasks"]
    assert sorted(tasks) == ["t1", "toy"]
    assert tasks["toy"]["aggregate"] == {m: tasks["t1"]["aggregate"][m] for m in ("ndcg@10", "recall@10")}
    assert tasks["toy"]["n_units"] == tasks["t1"]["n_units"] and tasks["toy"]["unit"] == "query"
