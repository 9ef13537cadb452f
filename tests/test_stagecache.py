"""The stage cache: a warm demo writes a release and sealed runs byte-identical to the cold one, still commits and
scores every run, and a rerun into an existing --out needs --force (which refuses a folder holding anything a demo
does not write)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from conftest import MYNTRA_SMALL, SMALL_BUILD

SYSTEMS = (("random", "random", None), ("bm25", "bm25", None))


def _files(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and p.name not in skip}


@pytest.fixture
def stage_cache(tmp_path, monkeypatch):
    """An empty cache whose embeddings and SIDs are the session's (so only the stages are cold)."""
    from fashionrq.layout import default_cache_dir

    shared, cache = default_cache_dir(), tmp_path / "cache"
    cache.mkdir()
    for name in ("embeddings", "sids"):
        (shared / name).mkdir(parents=True, exist_ok=True)
        (cache / name).symlink_to((shared / name).resolve(), target_is_directory=True)
    monkeypatch.setenv("FASHIONRQ_CACHE", str(cache))
    return cache


def _demo(out: Path, force: bool = False) -> str:
    from fashionrq.pipeline.demo import DemoConfig
    from fashionrq.report.demo import run_demo

    config = DemoConfig(catalog=str(MYNTRA_SMALL), encoder=SMALL_BUILD["encoder"], seed=SMALL_BUILD["seed"], resamples=200,
                        systems=SYSTEMS)
    text = io.StringIO()
    run_demo(out, config, console=Console(file=text, width=200), force=force)
    return text.getvalue()


@pytest.mark.slow  # a whole cold and warm demo: over a minute
def test_warm_demo_is_byte_identical_to_cold_still_commits_and_reruns_only_with_force(stage_cache, tmp_path):
    from fashionrq.errors import InputError
    from fashionrq.protocol.commitment import read_ledger

    cold_log = _demo(tmp_path / "cold")
    assert "stage cache" not in cold_log
    from fashionrq.pipeline.demo import PROBE_RUN_PARTS
    from fashionrq.pipeline.probes import default_systems
    from fashionrq.protocol.probe import RANDOM_SEEDS

    cold = tmp_path / "cold"
    probe_runs = RANDOM_SEEDS + len(default_systems())  # random's reference runs, every probe and the query-blind baseline
    mcmr_runs = len(list((cold / "mcmr-runs").iterdir())) if (cold / "mcmr-runs").is_dir() else 0
    assert len(list((stage_cache / "stages" / "run").iterdir())) == len(SYSTEMS) + probe_runs + mcmr_runs
    assert len(list((stage_cache / "stages" / "release").iterdir())) == 1 + (cold / "mcmr-bench").is_dir()
    # the probes' runs ran beside the demo's own runs in PROBE_RUN_PARTS parts, into the stage cache, and the probe
    # stage copied them from there
    stages = [s["stage"] for s in json.loads((cold / "stages.json").read_text())]
    parts = [s for s in stages if s.startswith("probe runs, part ")]
    assert [p.split(" (")[0] for p in parts] == [f"probe runs, part {i + 1} of {PROBE_RUN_PARTS}" for i in range(PROBE_RUN_PARTS)], stages
    warm_log = _demo(tmp_path / "warm")
    assert warm_log.count("copied from the stage cache") == 1 + len(SYSTEMS)
    warm = tmp_path / "warm"
    # the probe runs come from the cache too, each committed anew: every file but the commitments is the cold one's
    assert _files(cold / "probes", ("commitments.jsonl",)) == _files(warm / "probes", ("commitments.jsonl",))
    assert _files(cold / "bench") == _files(warm / "bench")
    for label, _, _ in SYSTEMS:
        # the sealed run files are the cold run's; the commitment is this run's own (a new timestamped record)
        assert _files(cold / "runs" / label, ("commitments.jsonl", "scores.json")) == _files(warm / "runs" / label, ("commitments.jsonl", "scores.json"))
        assert len(read_ledger(warm / "runs" / label)) == 1 and (warm / "runs" / label / "scores.json").is_file()
    assert (warm / "report.html").read_bytes() == (cold / "report.html").read_bytes()
    assert _files(cold / "catalog") == _files(warm / "catalog")

    # a rerun into an existing --out: refused without --force; --force replaces only an earlier demo's folder
    with pytest.raises(InputError, match="pass --force to replace it"):
        _demo(warm)
    (warm / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="holds notes.txt, which no demo writes"):
        _demo(warm, force=True)
    assert (warm / "catalog").is_dir() and (warm / "notes.txt").read_text() == "mine"  # nothing removed


def test_a_committed_run_is_scored_once_and_a_cached_score_needs_an_intact_release(small_bench, stage_cache, tmp_path, monkeypatch):
    """score_run keeps its result under the run's commitment: a second scoring replays it (the same report), a
    recommitted run or another release is a miss, and a tampered release is refused even with the score cached."""
    import shutil

    from fashionrq.protocol import commit_run, scoring
    from fashionrq.errors import ReleaseTamperedError
    from fashionrq.systems import run_system

    run = tmp_path / "random"
    run_system(small_bench, "random", run)
    commit_run(run, small_bench)
    first = scoring.score_run(small_bench, run, relevance=False)
    assert len(list((stage_cache / "stages" / "score").glob("*.pickle"))) == 1
    monkeypatch.setattr(scoring, "_score_committed", lambda *args: pytest.fail("a committed run was scored twice"))
    assert scoring.score_run(small_bench, run, relevance=False).report == first.report
    tampered = shutil.copytree(small_bench, tmp_path / "BENCH")
    with open(tampered / "labels" / "t1.qrels", "a", encoding="utf-8") as handle:
        handle.write("x 0 y 3\n")
    with pytest.raises(ReleaseTamperedError):
        scoring.score_run(tampered, run, relevance=False)
    commit_run(run, small_bench)  # a new commitment over the same files (a warm demo's cached run) replays the score
    again = scoring.score_run(small_bench, run, relevance=False).report
    assert again["commitment"]["ledger_records"] == 2 and again["commitment"]["hash"] != first.report["commitment"]["hash"]
    assert {k: v for k, v in again.items() if k != "commitment"} == {k: v for k, v in first.report.items() if k != "commitment"}
    monkeypatch.undo()
    monkeypatch.setenv("FASHIONRQ_CACHE", str(stage_cache))
    other = shutil.copytree(run, tmp_path / "other", ignore=shutil.ignore_patterns("commitments*"))
    lines = [line.rsplit(" ", 1)[0] + " retagged" for line in (other / "t1.run").read_text().splitlines()]
    (other / "t1.run").write_text("\n".join(lines) + "\n")  # other bytes, same ranking: scored afresh
    commit_run(other, small_bench)
    assert scoring.score_run(small_bench, other, relevance=False).report["tasks"] == first.report["tasks"]
    assert len(list((stage_cache / "stages" / "score").glob("*.pickle"))) == 2
