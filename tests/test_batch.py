"""One sealed child for many runs (``run_systems``, as ``probe_release`` uses it): each run folder is byte for byte the
folder a single ``run_system`` writes, and through the stage cache only the runs it lacks go into the batch."""

from __future__ import annotations

import subprocess

import pytest

from fashionrq.cli import main
from fashionrq.errors import InputError
from fashionrq.stagecache import cached_runs
from fashionrq.systems import run_system, run_systems
from fashionrq.systems import sealed


def _files(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _count_children(monkeypatch) -> list:
    started, start = [], subprocess.Popen

    def popen(*args, **kwargs):
        started.append(args[0])
        return start(*args, **kwargs)

    monkeypatch.setattr(sealed.subprocess, "Popen", popen)
    return started


@pytest.mark.slow  # 25 s: three runs in one sealed batch, then two of them alone; the fast suite stays under 5 minutes with an empty cache
def test_a_batch_writes_what_single_runs_write_in_one_sealed_child(small_bench, tmp_path, monkeypatch):
    runs = {"random-seed1": ("random", {"seed": 1}), "probe-position": ("probe-position", {}),
            "probe-cooccurrence": ("probe-cooccurrence", {})}
    started = _count_children(monkeypatch)
    records = run_systems(small_bench, {tmp_path / "batch" / label: spec for label, spec in runs.items()})
    assert len(started) == 1 and all(r["isolation"]["process"] == "sealed child" for r in records.values())
    for label in ("random-seed1", "probe-cooccurrence"):  # an ordinary system, and a pool system given the shared view
        system, params = runs[label]
        run_system(small_bench, system, tmp_path / "single" / label, params=params)
        assert _files(tmp_path / "batch" / label) == _files(tmp_path / "single" / label), label
    assert len(started) == 3


@pytest.mark.slow  # two batched sealed runs (about 15 s)
def test_only_the_runs_the_stage_cache_lacks_go_into_the_batch(small_bench, tmp_path, monkeypatch):
    specs = {"random-seed2": ("random", {"seed": 2}), "probe-frequency": ("probe-frequency", {})}
    batches = []

    def cached(folder, labels):
        wanted = {folder / label: {"system": specs[label][0], "params": specs[label][1]} for label in labels}

        def run(missing):
            batches.append(sorted(p.name for p in missing))
            run_systems(small_bench, {out: specs[out.name] for out in missing})

        return cached_runs(small_bench, wanted, run, cache_dir=tmp_path / "cache")

    first = cached(tmp_path / "cold", ["random-seed2"])
    again = cached(tmp_path / "warm", ["random-seed2", "probe-frequency"])
    assert batches == [["random-seed2"], ["probe-frequency"]]
    assert list(first.values()) == [False] and again == {tmp_path / "warm" / "random-seed2": True,
                                                        tmp_path / "warm" / "probe-frequency": False}
    assert _files(tmp_path / "warm" / "random-seed2") == _files(tmp_path / "cold" / "random-seed2")
    assert (tmp_path / "cache" / "stages" / "run").is_dir() and len(list((tmp_path / "cache" / "stages" / "run").iterdir())) == 2


def test_a_batch_naming_one_run_folder_twice_is_refused_before_anything_runs(small_bench, tmp_path):
    with pytest.raises(InputError, match="same run folder"):
        run_systems(small_bench, {tmp_path / "r": ("random", {}), tmp_path / "x" / ".." / "r": ("bm25", {})})
    assert not (tmp_path / "r").exists()


def test_probing_random_itself_or_a_system_twice_is_one_clear_sentence(small_bench, tmp_path, capsys):
    for systems in (["random"], ["probe-frequency", "probe-frequency"]):
        argv = ["probe", str(small_bench), *[a for s in systems for a in ("--system", s)], "--out", str(tmp_path / "p")]
        with pytest.raises(SystemExit) as exited:
            main(argv)
        err = capsys.readouterr().err
        assert exited.value.code == 2 and "name each once" in err and "Traceback" not in err
        assert not (tmp_path / "p").exists()
