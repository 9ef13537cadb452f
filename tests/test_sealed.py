"""Sealed runs: no route from a plug-in reaches BENCH/labels/ (Landlock, else a private mount namespace).

The in-process tests seal a throwaway child over a small folder and try every route at once; the slow
tests run each attack plug-in of tests/sealed_attacks.py through ``fashionrq run`` on a real release,
then commit and score it, and a control run without isolation shows the same attack does steal the labels.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import sealed_attacks
from fashionrq.protocol.commitment import commit_run
from fashionrq.protocol.errors import UnsealedRunError
from fashionrq.protocol.manifest import verify_release
from fashionrq.protocol.scoring import score_run
from fashionrq.systems.sandbox import landlock_abi

SRC = Path(__file__).resolve().parents[1] / "src"
TESTS = Path(__file__).resolve().parent

ROUTES_SCRIPT = textwrap.dedent('''
    import ctypes, json, os, subprocess, sys
    from pathlib import Path
    from fashionrq.systems.sandbox import seal
    bench, writable = Path(sys.argv[1]), Path(sys.argv[2])
    held = seal([bench], [writable], sys.argv[3])
    secret = bench / "labels" / "t1.qrels"
    def libc_read():
        fd = ctypes.CDLL(None).open(str(secret).encode(), os.O_RDONLY)
        return os.read(fd, 100).decode() if fd >= 0 else ""
    import pyarrow as pa, pyarrow.csv as csv
    routes = {
        "open": lambda: secret.read_text(),
        "subprocess": lambda: subprocess.run(["cat", str(secret)], capture_output=True, text=True).stdout,
        "link": lambda: (os.link(secret, writable / "x"), (writable / "x").read_text())[1],
        "pyarrow": lambda: str(csv.read_csv(secret).num_rows),
        "memory_map": lambda: pa.memory_map(str(secret)).read().decode(),
        "ctypes": libc_read,
        "dir_fd": lambda: os.read(os.open("t1.qrels", os.O_RDONLY, dir_fd=os.open(bench / "labels", os.O_RDONLY)), 100).decode(),
        "rename": lambda: (os.rename(bench / "labels", writable / "moved"), (writable / "moved" / "t1.qrels").read_text())[1],
        "listdir": lambda: ",".join(os.listdir(bench / "labels")),
    }
    out = {}
    for name, route in routes.items():
        try:
            out[name] = route()
        except Exception as err:
            out[name] = "refused: " + type(err).__name__
    (writable / "ok.txt").write_text("written")
    print(json.dumps({"held": held, "routes": out}))
''')


def _env(**extra) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(TESTS)]), **extra}


@pytest.mark.parametrize("mechanism", ["landlock", "mount-namespace"])
def test_seal_refuses_every_route(tmp_path, mechanism):
    if mechanism == "landlock" and landlock_abi() < 1:
        pytest.skip("this kernel has no Landlock")
    if mechanism == "mount-namespace" and os.geteuid() != 0:
        pytest.skip("a private mount namespace needs root")
    bench, writable = tmp_path / "BENCH", tmp_path / "work"
    (bench / "labels").mkdir(parents=True)
    writable.mkdir()
    (bench / "labels" / "t1.qrels").write_text("q1 0 item-secret 3\n")
    done = subprocess.run([sys.executable, "-c", ROUTES_SCRIPT, str(bench), str(writable), mechanism],
                          capture_output=True, text=True, env=_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["held"]["mechanism"] == mechanism
    leaked = {name: value for name, value in result["routes"].items() if "secret" in value or "t1.qrels" in value}
    assert not leaked, leaked
    assert set(result["routes"]) == {"open", "subprocess", "link", "pyarrow", "memory_map", "ctypes", "dir_fd", "rename", "listdir"}
    assert (writable / "ok.txt").read_text() == "written"  # the writable folder stays writable
    assert (bench / "labels" / "t1.qrels").read_text() == "q1 0 item-secret 3\n"  # and the labels stay where they were


def _run(bench: Path, route: str, out: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fashionrq", "run", "--bench", str(bench), "--system", f"sealed_attacks:{route}",
                           "--param", f"bench={bench}", "--out", str(out)], capture_output=True, text=True, env=_env(**env),
                          timeout=600)


def _t1_ndcg(bench: Path, run: Path, **kwargs) -> float:
    commit_run(run, bench)
    return score_run(bench, run, relevance=False, **kwargs).report["tasks"]["t1"]["aggregate"]["ndcg@10"]


@pytest.mark.slow
@pytest.mark.parametrize("route", [cls.__name__ for cls in sealed_attacks.ROUTES])
def test_no_attack_plugin_reads_the_labels(small_bench, tmp_path, route):
    bench = small_bench
    if route == "RenameLabels":  # would move the shared release's labels if it worked
        bench = tmp_path / "BENCH"
        shutil.copytree(small_bench, bench)
    done = _run(bench, route, tmp_path / "run")
    assert verify_release(bench).ok  # nothing in the release moved or changed
    if done.returncode != 0:
        assert done.returncode == 3 and "Traceback" not in done.stdout + done.stderr, done.stderr
        assert not (tmp_path / "run").exists()
        return
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    assert config["isolation"]["mechanism"] in ("landlock", "mount-namespace")
    assert config["config"]["system_config"]["leaked_bytes"] == 0 and config["config"]["system_config"]["errors"]
    assert "item" not in json.dumps(config["config"]["system_config"]["errors"]).lower().replace("items", "")
    assert _t1_ndcg(bench, tmp_path / "run") < 0.9


@pytest.mark.slow
def test_the_attack_works_without_isolation_and_is_refused_then_marked(small_bench, tmp_path):
    """Control: with FASHIONRQ_SANDBOX=none the same plug-in gets a perfect score, so the tests above can fail."""
    done = _run(small_bench, "PyArrowReader", tmp_path / "run", FASHIONRQ_SANDBOX="none")
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    assert config["isolation"]["mechanism"] == "none" and config["config"]["system_config"]["leaked_bytes"] > 0
    with pytest.raises(UnsealedRunError, match="--unsealed"):
        _t1_ndcg(small_bench, tmp_path / "run")
    assert score_run(small_bench, tmp_path / "run", relevance=False, unsealed=True).report["isolation"] == {"mechanism": "none", "sealed": False}
    assert _t1_ndcg(small_bench, tmp_path / "run", unsealed=True) == pytest.approx(1.0)


@pytest.fixture(scope="module")
def scored_run(small_bench, tmp_path_factory):
    """A committed random run on the small release, scored, with its scores.json written."""
    from fashionrq.protocol.scoring import write_json
    from fashionrq.systems import run_system

    run = tmp_path_factory.mktemp("scored") / "random"
    run_system(small_bench, "random", run)
    commit_run(run, small_bench)
    scored = score_run(small_bench, run, relevance=False)
    write_json(scored.report, run / "scores.json")
    return run, scored


def _truth(bench: Path) -> tuple[dict[str, int], dict[str, str]]:
    grades = {row["pair_id"]: row["label"] for row in map(json.loads, (bench / "labels" / "t2_test.jsonl").read_text().splitlines())}
    targets = {line.split()[0]: line.split()[2] for line in (bench / "labels" / "t3.qrels").read_text().splitlines()
               if line.split()[3] == "3"}
    return grades, targets


def test_a_score_file_holds_no_label(small_bench, scored_run):
    """Issue 26: a plug-in reading a scored run's scores.json got every T2 grade and T3 target. The control decodes
    the per-unit values the file used to hold (still in memory) and gets them all; the file itself gives none."""
    run, scored = scored_run
    truth = _truth(small_bench)
    held_before = {"tasks": {task: {"per_unit": scored.per_unit(task)} for task in ("t2", "t3")}}
    assert sealed_attacks.grades_from_scores(held_before, run / "t3.run") == truth  # control: T2 F1 1.0, T3 R@1 1.0
    written = json.loads((run / "scores.json").read_text())
    assert sealed_attacks.grades_from_scores(written, run / "t3.run") == ({}, {})
    text = (run / "scores.json").read_text()
    assert not [key for key in (*truth[0], *truth[1]) if key in text]  # no pair id, no T3 qid: no per-unit entry at all
