"""Outputs never overwrite what they should protect, and the leaderboard shows only numbers it recomputed."""

from __future__ import annotations

import json

import pytest

from fashionrq.cli import main
from fashionrq.protocol.commitment import commit_run
from fashionrq.release import verify_release

from conftest import OTHER_SCHEMA
from test_crash_safety import _t1_run


def _code(args: list[str], capsys) -> tuple[int, str]:
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exit:
        code = exit.code or 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, " ".join(err.split())


@pytest.fixture()
def scored(small_bench, tmp_path, capsys):
    """A committed, scored hand-made run (T1 only, unsealed) and its score file."""
    run = _t1_run(small_bench, tmp_path / "run")
    commit_run(run, small_bench)
    assert _code(["score", run, "--bench", small_bench, "--no-relevance", "--unsealed"], capsys)[0] == 0
    return run


def test_score_never_writes_over_a_committed_file_a_release_or_a_folder(small_bench, scored, tmp_path, capsys):
    before = (scored / "t1.run").read_bytes()
    base = ["score", scored, "--bench", small_bench, "--no-relevance", "--unsealed"]
    code, err = _code([*base, "--out", scored / "t1.run", "--force"], capsys)
    assert code == 14 and "committed file" in err and (scored / "t1.run").read_bytes() == before
    code, err = _code([*base, "--out", small_bench / "labels" / "x.json"], capsys)
    assert code == 10 and "inside the release" in err and verify_release(small_bench).ok
    code, err = _code([*base, "--out", tmp_path], capsys)
    assert code == 2 and "is a folder" in err
    code, err = _code(base, capsys)
    assert code == 2 and "already exists" in err and "--force" in err
    assert _code([*base, "--force"], capsys)[0] == 0


def test_ingest_run_and_export_refuse_existing_files_and_releases(small_bench, tmp_path, capsys):
    taken = tmp_path / "taken.txt"
    taken.write_text("mine")
    catalog = OTHER_SCHEMA / "catalog.csv"
    for args in (["ingest", catalog, "--out", taken], ["export", "beir", "--bench", small_bench, "--out", taken],
                 ["run", "--bench", small_bench, "--system", "random", "--out", taken]):
        code, err = _code(args, capsys)
        assert code == 2 and "is an existing file" in err and taken.read_text() == "mine", args
    for args in (["ingest", catalog, "--out", small_bench / "public" / "x"],
                 ["export", "beir", "--bench", small_bench, "--out", small_bench / "beir"],
                 ["run", "--bench", small_bench, "--system", "random", "--out", small_bench / "runs" / "r"]):
        code, err = _code(args, capsys)
        assert code == 10 and "inside the release" in err, args
    assert verify_release(small_bench).ok
    assert _code(["export", "beir", "--bench", small_bench, "--out", tmp_path / "beir"], capsys)[0] == 0
    code, err = _code(["export", "beir", "--bench", small_bench, "--out", tmp_path / "beir"], capsys)
    assert code == 2 and "already exists" in err
    assert _code(["export", "beir", "--bench", small_bench, "--out", tmp_path / "beir", "--force"], capsys)[0] == 0
    assert (tmp_path / "beir" / "qrels" / "test.tsv").is_file()


def test_leaderboard_refuses_an_edited_or_stale_score_file(small_bench, scored, capsys):
    path = scored / "scores.json"
    good = path.read_text()
    assert _code(["leaderboard", small_bench, scored, "--unsealed"], capsys)[0] == 0
    code, err = _code(["leaderboard", small_bench, scored], capsys)
    assert code == 16 and "--unsealed" in err
    report = json.loads(good)
    true = report["tasks"]["t1"]["aggregate"]["ndcg@10"]
    report["tasks"]["t1"]["aggregate"]["ndcg@10"] = 0.999
    path.write_text(json.dumps(report))
    code, err = _code(["leaderboard", small_bench, scored, "--unsealed"], capsys)
    assert code == 2 and f"tasks.t1.aggregate.ndcg@10: file 0.999, recomputed {str(true)[:5]}" in err
    assert "0.999" not in capsys.readouterr().out
    # stale: the run is committed again (a rerun) after it was scored
    path.write_text(good)
    commit_run(scored, small_bench)  # a second commitment: the score file now describes an older one
    code, err = _code(["leaderboard", small_bench, scored, "--unsealed"], capsys)
    assert code == 2 and "commitment" in err and "stale" in err


def test_compare_with_no_resamples_exits_30_before_scoring(small_bench, scored, capsys):
    code, err = _code(["compare", "--bench", small_bench, scored, scored, "--resamples", "0"], capsys)
    assert code == 30 and err.startswith("error: resamples is 0")


def test_sid_weights_and_embed_outputs_refuse_existing_files_and_releases(small_bench, tmp_path, capsys):
    taken = tmp_path / "taken.json"
    taken.write_text("mine")
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("mine")
    items = small_bench / "public" / "items.parquet"
    cases = (["sid", "assign", "--items", items, "--model", model, "--out", taken],
             ["sid", "report", "--sids", small_bench / "labels" / "sids.parquet", "--items", items, "--json", taken],
             ["sid", "train", "--items", items, "--out", model],
             ["weights", "estimate", "--out", taken],
             ["embed", items, "--out", taken])
    for args in cases:
        code, err = _code(args, capsys)
        assert code == 2 and "already exists" in err and "--force" in err, args
    assert taken.read_text() == "mine" and (model / "config.json").read_text() == "mine"
    code, err = _code(["weights", "estimate", "--out", small_bench / "labels" / "w.json"], capsys)
    assert code == 10 and "inside the release" in err and verify_release(small_bench).ok
    code, err = _code(["sid", "assign", "--items", items, "--model", model, "--out", tmp_path], capsys)
    assert code == 2 and "is a folder" in err
