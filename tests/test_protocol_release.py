"""The protocol on a real release built from the Myntra fixture and real system runs.

Covers verify (tampering), commit (ledger, hash chain), every fail-closed validation rule with its
exit code, hypothesis fuzzing of prediction files, scoring, the paired comparison and the CLI.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fashionrq.cli import main
from fashionrq.errors import FashionRQError
from fashionrq.io import sha256_file
from fashionrq import errors as E
from fashionrq.protocol.commitment import check_commitment, commit_run, read_ledger
from fashionrq.protocol.compare import compare_runs, compare_scored, gate, parse_headline, verdict_markdown
from fashionrq.protocol.bootstrap import Interval
from fashionrq.protocol.headline import _flips
from fashionrq.protocol.scoring import score_run
from fashionrq.protocol.validate import load_pools, validate_classification, validate_open_ranking, validate_ranking
from fashionrq.release import release_hash, verify_release


@pytest.fixture(scope="module")
def world(small_bench, tmp_path_factory):
    """A copy of the fixture release (its ledger and tampering tests are this module's own) and three committed runs
    (bm25, tfidf, random)."""
    from fashionrq.systems import get_system, run_system

    root = tmp_path_factory.mktemp("protocol")
    bench = shutil.copytree(small_bench, root / "BENCH")
    runs = {}
    for name in ("bm25", "tfidf", "random"):
        run_system(bench, get_system(name), root / name)
        commit_run(root / name, bench)
        runs[name] = root / name
    return {"root": root, "bench": bench, "runs": runs, "pools": load_pools(bench)}


def _copy(src: Path, dst: Path, keep_ledger: bool = False) -> Path:
    shutil.copytree(src, dst)
    if not keep_ledger:
        (dst / "commitments.jsonl").unlink(missing_ok=True)
    return dst


def _exit_code(args: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(args)
    return exc.value.code


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _write(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


# --- verify -----------------------------------------------------------------------------------------------


def test_fresh_release_verifies_and_counts_every_listed_file(world):
    report = verify_release(world["bench"])
    manifest = json.loads((world["bench"] / "manifest.json").read_text())
    assert report.ok and report.checked == len(manifest["files"]) > 10
    assert _exit_code(["verify", str(world["bench"])]) == 0


def test_verify_detects_an_edited_label_file_a_missing_and_an_extra_file(world, tmp_path):
    bench = shutil.copytree(world["bench"], tmp_path / "BENCH")
    qrels = bench / "labels" / "t1.qrels"
    lines = _lines(qrels)
    qid, _, item, grade = lines[0].split()
    lines[0] = f"{qid} 0 {item} {3 - int(grade) if grade != '3' else 0}"
    _write(qrels, lines)
    (bench / "labels" / "phi.jsonl").unlink()
    (bench / "public" / "notes.txt").write_text("hello")
    report = verify_release(bench)
    assert report.changed == ["labels/t1.qrels"]
    assert report.missing == ["labels/phi.jsonl"]
    assert report.extra == ["public/notes.txt"]
    with pytest.raises(E.ReleaseTamperedError, match="labels/t1.qrels"):
        verify_release(bench, strict=True)
    assert _exit_code(["verify", str(bench)]) == 10


def test_verify_refuses_links_special_files_folders_and_an_edited_manifest(world, tmp_path):
    """Issue 26: each of these passed verify, since every listed file still hashed right (the control, asserted first)
    and the walk looked at regular files only."""
    bench = shutil.copytree(world["bench"], tmp_path / "BENCH")
    outside = tmp_path / "t1.qrels"
    shutil.move(bench / "labels" / "t1.qrels", outside)
    (bench / "labels" / "t1.qrels").symlink_to(outside)  # a label file replaced by a link to the same bytes
    (bench / "public" / "extra").symlink_to(tmp_path, target_is_directory=True)
    os.mkfifo(bench / "public" / "pipe")
    (bench / "public" / "empty").mkdir()
    manifest = json.loads((bench / "manifest.json").read_text())
    assert sha256_file(bench / "labels" / "t1.qrels") == manifest["files"]["labels/t1.qrels"]  # the control
    manifest["protocol"]["open_depth"] = 10
    (bench / "manifest.json").write_text(json.dumps(manifest))
    report = verify_release(bench)
    assert report.odd == ["labels/t1.qrels", "public/empty", "public/extra", "public/pipe"] and not report.changed
    assert "protocol" in report.unhashed and "files" not in report.unhashed
    assert "covered by no hash" in report.sentence() and _exit_code(["verify", str(bench)]) == 10
    assert not verify_release(world["bench"]).unhashed  # the build records the digest of its manifest


def test_score_refuses_a_release_whose_labels_were_edited_after_build(world, tmp_path):
    bench = shutil.copytree(world["bench"], tmp_path / "BENCH")
    path = bench / "labels" / "t2_test.jsonl"
    rows = [json.loads(line) for line in _lines(path)]
    rows[0]["label"] = (rows[0]["label"] + 1) % 4
    _write(path, [json.dumps(r) for r in rows])
    with pytest.raises(E.ReleaseTamperedError, match="t2_test.jsonl"):
        score_run(bench, world["runs"]["bm25"], relevance=False)


# --- commitment -------------------------------------------------------------------------------------------


def test_commit_records_hashes_rows_release_config_and_chains(world, tmp_path):
    run = _copy(world["runs"]["bm25"], tmp_path / "run")
    first = commit_run(run, world["bench"])
    assert set(first["files"]) == {"t1o.run", "t1.run", "t2.jsonl", "t3.run", "t4.run"}
    assert first["files"]["t3.run"]["rows"] == len(_lines(run / "t3.run"))
    assert first["release"] == release_hash(world["bench"]) and first["prev"] is None
    assert first["config_sha256"] and first["timestamp"].endswith("+00:00")
    second = commit_run(run)
    assert second["prev"] == first["hash"]
    assert [r["hash"] for r in read_ledger(run)] == [first["hash"], second["hash"]]
    assert check_commitment(run)["hash"] == second["hash"]


def test_score_refuses_an_uncommitted_run(world, tmp_path):
    run = _copy(world["runs"]["bm25"], tmp_path / "run")
    with pytest.raises(E.CommitmentMissingError, match="fashionrq commit"):
        score_run(world["bench"], run, relevance=False)
    assert _exit_code(["score", str(run), "--bench", str(world["bench"]), "--no-relevance"]) == 13


@pytest.mark.parametrize("change", ["edit", "add", "remove", "config"])
def test_any_change_after_commit_is_refused(world, tmp_path, change):
    run = _copy(world["runs"]["tfidf"], tmp_path / "run")
    commit_run(run, world["bench"])
    if change == "edit":  # swap the scores' order of two lines: still a valid file, but not the committed one
        lines = _lines(run / "t3.run")
        lines[0] = lines[0].rsplit(" ", 1)[0] + " edited"
        _write(run / "t3.run", lines)
    elif change == "add":
        (run / "t4.run").rename(tmp_path / "t4.run")
        commit_run(run)
        shutil.copy(tmp_path / "t4.run", run / "t4.run")
    elif change == "remove":
        (run / "t2.jsonl").unlink()
    else:
        config = json.loads((run / "run.json").read_text())
        config["config"]["note"] = "tuned after commit"
        (run / "run.json").write_text(json.dumps(config))
    with pytest.raises(E.CommitmentMismatchError):
        score_run(world["bench"], run, relevance=False)


def test_an_edited_ledger_breaks_the_hash_chain(world, tmp_path):
    run = _copy(world["runs"]["bm25"], tmp_path / "run")
    commit_run(run)
    commit_run(run)
    lines = _lines(run / "commitments.jsonl")
    record = json.loads(lines[0])
    record["timestamp"] = "2020-01-01T00:00:00+00:00"
    lines[0] = json.dumps(record)
    _write(run / "commitments.jsonl", lines)
    with pytest.raises(E.LedgerCorruptError, match="line 1"):
        check_commitment(run)
    _write(run / "commitments.jsonl", lines[1:])  # dropping the first record breaks the chain too
    with pytest.raises(E.LedgerCorruptError, match="chain"):
        check_commitment(run)


def test_a_run_made_for_another_release_is_refused(world, tmp_path):
    run = _copy(world["runs"]["bm25"], tmp_path / "run")
    config = json.loads((run / "run.json").read_text())
    config["release"] = "0" * 64
    (run / "run.json").write_text(json.dumps(config))
    assert _exit_code(["commit", str(run), "--bench", str(world["bench"])]) == 11
    commit_run(run)
    with pytest.raises(E.ReleaseMismatchError, match="another release|made for release"):
        score_run(world["bench"], run, relevance=False)


def test_labels_are_not_opened_before_commitment_and_validation(world, tmp_path):
    bench = shutil.copytree(world["bench"], tmp_path / "BENCH")
    shutil.rmtree(bench / "labels")  # any label read would fail
    uncommitted = _copy(world["runs"]["bm25"], tmp_path / "uncommitted")
    with pytest.raises(E.CommitmentMissingError):
        score_run(bench, uncommitted, relevance=False)
    invalid = _copy(world["runs"]["bm25"], tmp_path / "invalid")
    _write(invalid / "t1.run", _lines(invalid / "t1.run")[1:])
    commit_run(invalid)
    with pytest.raises(E.MissingIdsError):
        score_run(bench, invalid, relevance=False)
    valid = _copy(world["runs"]["bm25"], tmp_path / "valid", keep_ledger=True)
    with pytest.raises(E.ReleaseTamperedError, match="missing"):
        score_run(bench, valid, relevance=False)


# --- fail-closed validation: every rule, every task --------------------------------------------------------


def _ranking_mutations(lines: list[str]) -> dict[str, tuple[list[str] | bytes, type]]:
    first = lines[0].split()
    qid = first[0]
    other = next(line for line in lines if line.split()[0] != qid).split()
    by_query: dict[str, list[str]] = {}
    for line in lines:
        by_query.setdefault(line.split()[0], []).append(line)
    # swap the top two of a query whose top two scores differ (a swap of tied scores is a valid ranking)
    q_lines = next(q for q in by_query.values() if float(q[0].split()[4]) > float(q[1].split()[4]))
    top, second = q_lines[0].split(), q_lines[1].split()
    swapped = [f"{top[0]} Q0 {top[2]} 2 {top[4]} x", f"{second[0]} Q0 {second[2]} 1 {second[4]} x"]
    return {
        "empty": (b"", E.EmptyFileError),
        "blank": (b"\n\n", E.EmptyFileError),
        "five_fields": (["a b c d e"] + lines[1:], E.UnparseableLineError),
        "not_utf8": (b"\xff\xfe q Q0 x 1 1 t\n", E.UnparseableLineError),
        "blank_line_inside": (lines[:3] + [""] + lines[3:], E.UnparseableLineError),
        "score_string": ([" ".join(first[:4] + ["high", first[5]])] + lines[1:], E.WrongTypeError),
        "rank_string": ([" ".join(first[:3] + ["one"] + first[4:])] + lines[1:], E.WrongTypeError),
        "rank_zero": ([" ".join(first[:3] + ["0"] + first[4:])] + lines[1:], E.WrongTypeError),
        "q0_field": ([" ".join([first[0], "Q1"] + first[2:])] + lines[1:], E.WrongTypeError),
        "nan": ([" ".join(first[:4] + ["nan", first[5]])] + lines[1:], E.NonFiniteScoreError),
        "inf": ([" ".join(first[:4] + ["-inf", first[5]])] + lines[1:], E.NonFiniteScoreError),
        "huge": ([" ".join(first[:4] + ["1e999", first[5]])] + lines[1:], E.NonFiniteScoreError),
        "duplicate": (lines + [lines[0]], E.DuplicateError),
        "missing_query": ([line for line in lines if line.split()[0] != qid], E.MissingIdsError),
        "missing_candidate": (lines[1:], E.MissingIdsError),
        "extra_query": (lines + [f"q_not_in_release Q0 {first[2]} 1 1.0 x"], E.ExtraIdsError),
        "out_of_pool": ([" ".join([first[0], "Q0", "not-an-item"] + first[3:])] + lines[1:], E.OutOfPoolError),
        "rank_gap": ([" ".join(first[:3] + ["999"] + first[4:])] + lines[1:], E.RankOrderError),
        "score_rises": (swapped + [l for l in lines if l not in q_lines[:2]], E.RankOrderError),
        "other_query_field": ([" ".join(other[:3] + ["1", other[4], other[5], "extra"])] + lines[1:], E.UnparseableLineError),
    }


@pytest.mark.parametrize("task", ["t1", "t3", "t4"])
def test_every_ranking_rule_rejects_with_its_own_exit_code(world, task):
    pools = world["pools"].ranking(task)
    lines = _lines(world["runs"]["tfidf"] / f"{task}.run")
    assert len(validate_ranking(world["runs"]["tfidf"] / f"{task}.run", pools)) == len(pools)
    codes = set()
    root = world["root"] / f"mutations_{task}"
    root.mkdir(exist_ok=True)
    for name, (content, error) in _ranking_mutations(lines).items():
        path = root / f"{name}.run"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            _write(path, content)
        with pytest.raises(error) as exc:
            validate_ranking(path, pools)
        message = str(exc.value)
        assert str(path) in message and message.count("\n") == 0, name
        codes.add(exc.value.exit_code)
    assert codes == {21, 22, 23, 24, 25, 26, 27, 28, 29}


def test_open_corpus_runs_rank_catalog_items_to_the_registered_depth(world, tmp_path):
    pools = world["pools"]
    path = world["runs"]["tfidf"] / "t1o.run"
    ranked = validate_open_ranking(path, pools.t1o, pools.catalog, pools.open_depth)
    assert set(ranked) == pools.t1o and pools.open_depth == 100 and all(len(r) == 100 for r in ranked.values())
    lines = _lines(path)
    first = lines[0].split()
    qid = first[0]
    deeper = lines + [f"{qid} Q0 {item} {101 + i} -1e9 x" for i, item in enumerate(sorted(pools.catalog - {i for i, _ in ranked[qid]})[:1])]
    mutations = {
        "unknown_item": ([" ".join(first[:2] + ["not-an-item"] + first[3:])] + lines[1:], E.OutOfPoolError),
        "too_deep": (deeper, E.RankOrderError),
        "missing_query": ([l for l in lines if not l.startswith(qid + " ")], E.MissingIdsError),
        "duplicate": (lines + [lines[0]], E.DuplicateError),
    }
    for name, (content, error) in mutations.items():
        _write(tmp_path / f"{name}.run", content)
        with pytest.raises(error):
            validate_open_ranking(tmp_path / f"{name}.run", pools.t1o, pools.catalog, pools.open_depth)


def test_rejections_name_counts_and_at_most_five_examples(world, tmp_path):
    pools = world["pools"].ranking("t1")
    lines = _lines(world["runs"]["bm25"] / "t1.run")
    qids = sorted({line.split()[0] for line in lines})
    path = tmp_path / "t1.run"
    _write(path, [line for line in lines if line.split()[0] not in qids[:7]])
    with pytest.raises(E.MissingIdsError) as exc:
        validate_ranking(path, pools)
    assert "7 query id(s)" in str(exc.value) and ", ".join(qids[:5]) in str(exc.value) and "(+2 more)" in str(exc.value)


def _t2_mutations(rows: list[dict]) -> dict[str, tuple[list[str] | bytes, type]]:
    dump = lambda rs: [json.dumps(r) for r in rs]  # noqa: E731
    first = rows[0]
    return {
        "empty": (b"", E.EmptyFileError),
        "not_json": (["{pair_id: 1}"] + dump(rows[1:]), E.UnparseableLineError),
        "array": (["[1, 2, 3]"] + dump(rows[1:]), E.UnparseableLineError),
        "label_5": (dump([{**first, "label": 5}] + rows[1:]), E.WrongTypeError),
        "label_string": (dump([{**first, "label": "2"}] + rows[1:]), E.WrongTypeError),
        "label_bool": (dump([{**first, "label": True}] + rows[1:]), E.WrongTypeError),
        "label_float": (dump([{**first, "label": 2.0}] + rows[1:]), E.WrongTypeError),
        "no_score": (dump([{"pair_id": first["pair_id"], "label": 1}] + rows[1:]), E.WrongTypeError),
        "score_string": (dump([{**first, "score": "0.5"}] + rows[1:]), E.WrongTypeError),
        "pair_id_int": (dump([{**first, "pair_id": 7}] + rows[1:]), E.WrongTypeError),
        "nan": ([json.dumps({**first, "score": float("nan")})] + dump(rows[1:]), E.NonFiniteScoreError),
        "huge_int": ([json.dumps(first)[:-1] + ', "score": 1' + "0" * 400 + "}"] + dump(rows[1:]), E.NonFiniteScoreError),
        "duplicate": (dump(rows + [rows[0]]), E.DuplicateError),
        "missing": (dump(rows[1:]), E.MissingIdsError),
        "extra": (dump(rows + [{**first, "pair_id": "p_unknown"}]), E.ExtraIdsError),
    }


def test_every_t2_rule_rejects_with_its_own_exit_code(world):
    split = world["pools"].t2_split
    rows = [json.loads(line) for line in _lines(world["runs"]["bm25"] / "t2.jsonl")]
    assert len(validate_classification(world["runs"]["bm25"] / "t2.jsonl", split)) == len(rows)
    root = world["root"] / "mutations_t2"
    root.mkdir(exist_ok=True)
    for name, (content, error) in _t2_mutations(rows).items():
        path = root / f"{name}.jsonl"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            _write(path, content)
        with pytest.raises(error):
            validate_classification(path, split)
            pytest.fail(name)


def test_dev_pairs_are_optional_but_test_pairs_required(world, tmp_path):
    split = world["pools"].t2_split
    rows = [json.loads(line) for line in _lines(world["runs"]["bm25"] / "t2.jsonl")]
    dev = next(p for p, s in sorted(split.items()) if s == "dev")
    path = tmp_path / "t2.jsonl"
    _write(path, [json.dumps(r) for r in rows + [{"pair_id": dev, "label": 0, "score": 0.0}]])
    assert dev in validate_classification(path, split)


def test_every_rule_reaches_the_cli_as_one_sentence_and_its_exit_code(world, tmp_path, capsys):
    run = _copy(world["runs"]["random"], tmp_path / "run")
    lines = _lines(run / "t4.run")
    _write(run / "t4.run", lines + [lines[0]])
    commit_run(run)
    assert _exit_code(["score", str(run), "--bench", str(world["bench"]), "--no-relevance"]) == 25
    err = capsys.readouterr().err
    assert "listed more than once" in err and "Traceback" not in err


# --- hypothesis: mutated files never crash the validator ---------------------------------------------------

_MUTATION = st.sampled_from(["drop", "duplicate", "truncate", "bytes", "number", "unicode", "swap_field", "join"])


def _mutate(data: bytes, kind: str, draw) -> bytes:
    lines = data.split(b"\n")[:-1]
    i = draw(st.integers(0, len(lines) - 1))
    if kind == "drop":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(draw(st.integers(0, len(lines))), lines[i])
    elif kind == "truncate":
        lines[i] = lines[i][: draw(st.integers(0, max(len(lines[i]) - 1, 0)))]
    elif kind == "bytes":
        lines[i] = draw(st.binary(min_size=1, max_size=40))
    elif kind == "number":
        number = draw(st.sampled_from(["1e309", "-1e400", "nan", "NaN", "Infinity", "9" * 500, "0x1p3", "1_0", "--1", ""]))
        parts = lines[i].split(b" ")
        if len(parts) == 6:
            parts[draw(st.sampled_from([3, 4]))] = number.encode()
            lines[i] = b" ".join(parts)
        else:
            lines[i] = lines[i].replace(b'"score": ', b'"score": ' + number.encode() + b", \"x\": ")
    elif kind == "unicode":
        text = draw(st.text(min_size=1, max_size=12))
        pos = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:pos] + text.encode("utf-8") + lines[i][pos:]
    elif kind == "swap_field":
        j = draw(st.integers(0, len(lines) - 1))
        a, b = lines[i].split(b" "), lines[j].split(b" ")
        if len(a) == len(b) == 6:
            a[2], b[2] = b[2], a[2]
            lines[i], lines[j] = b" ".join(a), b" ".join(b)
        else:
            lines[i], lines[j] = lines[j], lines[i]
    else:
        lines[i:i + 2] = [b"".join(lines[i:i + 2])]
    return b"\n".join(lines) + b"\n"


def _check_fuzzed(path: Path, validate, original):
    try:
        parsed = validate(path)
    except FashionRQError as err:
        assert isinstance(err, E.ProtocolError) and err.exit_code >= 10 and "\n" not in str(err)
        return
    # accepted only if the mutation kept the file complete and valid: every id answered, nothing invented
    assert set(parsed) == set(original)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), kind=_MUTATION)
def test_fuzzed_t3_runs_are_rejected_or_still_complete(world, data, kind, tmp_path_factory):
    source = world["runs"]["bm25"] / "t3.run"
    pools = world["pools"].ranking("t3")
    path = tmp_path_factory.mktemp("fuzz") / "t3.run"
    path.write_bytes(_mutate(source.read_bytes(), kind, data.draw))
    _check_fuzzed(path, lambda p: validate_ranking(p, pools), pools)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), kind=_MUTATION)
def test_fuzzed_t2_predictions_are_rejected_or_still_complete(world, data, kind, tmp_path_factory):
    source = world["runs"]["bm25"] / "t2.jsonl"
    split = world["pools"].t2_split
    path = tmp_path_factory.mktemp("fuzz") / "t2.jsonl"
    path.write_bytes(_mutate(source.read_bytes(), kind, data.draw))
    required = {p for p, s in split.items() if s == "test"}
    try:
        parsed = validate_classification(path, split)
    except FashionRQError as err:
        assert isinstance(err, E.ProtocolError) and "\n" not in str(err)
        return
    assert required <= set(parsed) <= set(split)
    assert all(label in (0, 1, 2, 3) and np.isfinite(score) for label, score in parsed.values())


@pytest.mark.parametrize("kind", ["drop", "duplicate"])
def test_dropping_or_duplicating_any_line_is_always_rejected(world, tmp_path, kind):
    pools = world["pools"].ranking("t1")
    lines = _lines(world["runs"]["bm25"] / "t1.run")
    rng = np.random.default_rng(0)
    for i in rng.choice(len(lines), size=10, replace=False):
        mutated = lines[:i] + lines[i + 1:] if kind == "drop" else lines[:i] + [lines[i]] + lines[i:]
        _write(tmp_path / "t1.run", mutated)
        with pytest.raises((E.MissingIdsError, E.DuplicateError)):
            validate_ranking(tmp_path / "t1.run", pools)


# --- scoring -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scored(world):
    return {name: score_run(world["bench"], run, relevance=(name == "bm25")) for name, run in world["runs"].items()}


def test_score_reports_every_task_metric_and_the_commitment(world, scored):
    report = scored["bm25"].report
    assert report["commitment"]["hash"] == read_ledger(world["runs"]["bm25"])[-1]["hash"]
    t = report["tasks"]
    assert {"ndcg@5", "ndcg@10", "recall@5", "recall@10", "mrr@10", "recall@10(rel=1)", "R@10"} <= set(t["t1"]["aggregate"])
    assert {"ndcg@1", "ndcg@5", "ndcg@10", "ndcg@50", "recall@1", "recall@5", "recall@10", "recall@50", "recall@100",
            "mrr@10"} == set(t["t1o"]["aggregate"])  # MCMR §4's set, for the before/after-rerank table
    assert set(t["t2"]["aggregate"]) == {"accuracy", "macro_f1"} and set(t["t2"]["per_class"]) == {"0", "1", "2", "3"}
    assert {"ndcg@1", "ndcg@3", "recall@1", "recall@3", "mrr", "graded_ndcg@1", "graded_ndcg@3"} == set(t["t3"]["aggregate"])
    assert {"consistency@5", "consistency@10", "ndcg@10", "recall@10", "worst_recall@10"} == set(t["t4"]["aggregate"])
    manifest = json.loads((world["bench"] / "manifest.json").read_text())
    for task, entry in t.items():
        assert entry["headline"] == manifest["protocol"]["headline"][task] in entry["aggregate"]
        assert entry["leakage_unit"] == manifest["protocol"]["bootstrap_unit"][task]["unit"]
        units = manifest["protocol"]["bootstrap_unit"][task]["n_units"]
        assert entry["n_clusters"] == units if task != "t2" else 2 <= entry["n_clusters"] < units  # T2 scores test units
    for task in ("t1", "t3"):
        assert len(scored["bm25"].per_unit(task)) == t[task]["n_units"] == len(world["pools"].ranking(task))
        assert "per_unit" not in t[task]
    assert report["bootstrap"]["resamples"] == 10_000 and report["bootstrap"]["level"] == 0.95
    for task, entry in t.items():
        assert set(entry["interval"]) == set(entry["aggregate"]), task
        assert all(lo <= entry["aggregate"][m] <= hi for m, (lo, hi) in entry["interval"].items()), task
    assert t["t1"]["interval"]["ndcg@10"][0] < t["t1"]["aggregate"]["ndcg@10"] < t["t1"]["interval"]["ndcg@10"][1]


def test_t3_recall_at_1_is_the_share_of_queries_whose_top_item_is_the_target(world, scored):
    grades = {}
    for line in _lines(world["bench"] / "labels" / "t3.qrels"):
        qid, _, item, grade = line.split()
        grades[(qid, item)] = int(grade)
    top = {}
    for line in _lines(world["runs"]["tfidf"] / "t3.run"):
        qid, _, item, rank, _, _ = line.split()
        if rank == "1":
            top[qid] = item
    expected = np.mean([grades[(q, i)] == 3 for q, i in top.items()])
    t3 = scored["tfidf"].report["tasks"]["t3"]["aggregate"]
    assert t3["recall@1"] == t3["ndcg@1"] == pytest.approx(expected)


def test_t3_target_only_metrics_checked_by_hand(world, scored):
    """Distractors have gain 0: nDCG@3 = 1/log2(1 + rank) of the target within the top 3, MRR = 1/rank."""
    target = {}
    for line in _lines(world["bench"] / "labels" / "t3.qrels"):
        qid, _, item, grade = line.split()
        if grade == "3":
            target[qid] = item
    rank = {}
    for line in _lines(world["runs"]["random"] / "t3.run"):
        qid, _, item, r, _, _ = line.split()
        if target[qid] == item:
            rank[qid] = int(r)
    per_unit = scored["random"].per_unit("t3")
    for qid, r in rank.items():
        assert per_unit[qid]["ndcg@3"] == pytest.approx(1 / np.log2(1 + r) if r <= 3 else 0.0)
        assert per_unit[qid]["mrr"] == pytest.approx(1 / r) and per_unit[qid]["recall@3"] == float(r <= 3)
        assert per_unit[qid]["recall@1"] == per_unit[qid]["ndcg@1"] == float(r == 1)


def test_t2_accuracy_and_t4_consistency_recomputed_by_hand(world, scored):
    truth = {json.loads(l)["pair_id"]: json.loads(l)["label"] for l in _lines(world["bench"] / "labels" / "t2_test.jsonl")}
    pred = {json.loads(l)["pair_id"]: json.loads(l)["label"] for l in _lines(world["runs"]["bm25"] / "t2.jsonl")}
    assert scored["bm25"].report["tasks"]["t2"]["aggregate"]["accuracy"] == pytest.approx(np.mean([pred[p] == t for p, t in truth.items()]))
    group_of = world["pools"].group_of["t4"]
    group = sorted(set(group_of.values()))[0]
    members = sorted(q for q, g in group_of.items() if g == group)
    tops = {q: set() for q in members}
    for line in _lines(world["runs"]["random"] / "t4.run"):
        qid, _, item, rank, _, _ = line.split()
        if qid in tops and int(rank) <= 5:
            tops[qid].add(item)
    pairs = [(a, b) for i, a in enumerate(members) for b in members[i + 1:]]
    expected = np.mean([len(tops[a] & tops[b]) / len(tops[a] | tops[b]) for a, b in pairs])
    assert scored["random"].per_unit("t4")[group]["consistency@5"] == pytest.approx(expected)


def test_breakdowns_partition_the_queries_by_phi(world, scored):
    t1, per_unit = scored["bm25"].report["tasks"]["t1"], scored["bm25"].per_unit("t1")
    phi = {row["qid"]: row["expressed"] for row in map(json.loads, _lines(world["bench"] / "labels" / "phi.jsonl"))}
    assert sum(entry["n"] for entry in t1["breakdowns"]["by_n_attributes"].values()) == t1["n_units"]
    for n, entry in t1["breakdowns"]["by_n_attributes"].items():
        members = [q for q in per_unit if len(phi[q]) == int(n)]
        assert entry["n"] == len(members)
        assert entry["ndcg@10"] == pytest.approx(np.mean([per_unit[q]["ndcg@10"] for q in members]))
    for attr, entry in t1["breakdowns"]["by_attribute"].items():
        assert entry["present"]["n"] == sum(attr in phi[q] for q in per_unit)
        assert entry["present"]["n"] + entry["absent"]["n"] == t1["n_units"]
    assert t1["breakdowns"]["by_attribute"]["product_type"]["present"]["n"] > 0


def test_attr_scores_come_with_annotation_coverage(scored):
    rel = scored["bm25"].report["relevance"]
    assert 0 < rel["R@10"] <= 1
    scored_attrs = {a: e for a, e in rel["attributes"].items() if e["attr_score"] is not None}
    assert "product_type" in scored_attrs
    for entry in scored_attrs.values():
        assert 0 <= entry["coverage"] <= 1 and entry["n_queries"] > 0


def test_scoring_is_deterministic_byte_for_byte(world, tmp_path):
    outs = []
    for i in range(2):
        out = tmp_path / f"s{i}.json"
        assert _exit_code(["score", str(world["runs"]["random"]), "--bench", str(world["bench"]), "--no-relevance", "--out", str(out)]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


# --- paired comparison and the gate ------------------------------------------------------------------------


def test_identical_predictions_are_never_promoted(world, scored, tmp_path):
    twin = _copy(world["runs"]["random"], tmp_path / "twin")
    commit_run(twin)
    result = compare_runs(world["bench"], [world["runs"]["random"], twin], resamples=500)
    for pair in result["pairs"]:
        assert not pair["gate"]["promoted"]
        assert pair["gate"]["verdict"].startswith("not promoted: T1-open ndcg@10 interval [+0.0000, +0.0000] includes 0")
        for task in pair["tasks"].values():
            assert all(m["delta"] == 0 and m["p_positive"] == 0 for m in task["metrics"].values())


def test_three_runs_give_a_full_pairwise_matrix_and_record_the_seed(scored):
    runs = [scored["bm25"], scored["tfidf"], scored["random"]]
    result = compare_scored(runs, resamples=1000, seed=5)
    assert result["bootstrap"]["seed"] == 5 and result["bootstrap"]["resamples"] == 1000
    assert len(result["pairs"]) == 6
    for row, cells in result["matrix"].items():
        assert sum(v is None for v in cells.values()) == 1 and cells[row] is None
    pair = next(p for p in result["pairs"] if p["b"] == "bm25" and p["a"] == "random")
    reverse = next(p for p in result["pairs"] if p["b"] == "random" and p["a"] == "bm25")
    fwd, back = pair["tasks"]["t1"]["metrics"]["ndcg@10"], reverse["tasks"]["t1"]["metrics"]["ndcg@10"]
    assert fwd["delta"] == pytest.approx(-back["delta"]) and fwd["lower"] == pytest.approx(-back["upper"])
    assert pair["tasks"]["t1"]["n_clusters"] == scored["bm25"].report["tasks"]["t1"]["n_clusters"]
    again = compare_scored(runs, resamples=1000, seed=5)
    assert json.dumps(again, sort_keys=True) == json.dumps(result, sort_keys=True)
    assert result["correction"]["method"] == "Holm-Bonferroni step-down" and result["correction"]["family"] == "3 unordered system pairs"
    ps = sorted({frozenset((x["b"], x["a"])): x["gate"]["p_value"] for x in result["pairs"]}.values())
    assert min(x["gate"]["p_holm"] for x in result["pairs"]) == pytest.approx(min(1.0, 3 * ps[0]))
    assert all(x["gate"]["p_holm"] >= x["gate"]["p_value"] for x in result["pairs"])
    assert all(not x["gate"]["promoted_holm"] or x["gate"]["promoted"] for x in result["pairs"])
    # The gate is conjunctive: bm25 over random is promoted exactly when no headline interval includes 0. On the
    # fixture release T2's few test units leave its interval wide, so the verdict must name the failing task(s).
    assert pair["gate"]["promoted"] == (not pair["gate"]["failing"])
    assert pair["gate"]["tasks"]["t1o"]["lower"] > 0 and pair["gate"]["tasks"]["t1o"]["passes"]
    assert all(f"{t.upper()}" in pair["gate"]["verdict"] for t in pair["gate"]["failing"][:1])
    cells = result["by_attribute"]["cells"]
    assert len(cells) == 3 * len({c["attribute"] for c in cells}) and all(c["p_holm"] >= c["p_value"] for c in cells)
    assert "Holm-Bonferroni" in verdict_markdown(result)


def test_gate_is_conjunctive_and_names_the_binding_task():
    iv = lambda lo, hi: Interval((lo + hi) / 2, lo, hi, 0.5, 0.95, 0.01, 40, 39.0)  # noqa: E731
    heads = dict(parse_headline("t1=ndcg@10,t3=ndcg@3,t4=consistency@10"))
    intervals = {"t1": {"ndcg@10": iv(0.02, 0.05)}, "t2": {"macro_f1": iv(0.01, 0.03)},
                 "t3": {"ndcg@3": iv(-0.01, 0.02)}, "t4": {"consistency@10": iv(0.10, 0.20)}}
    result = gate(intervals, heads, ["t1", "t2", "t3", "t4"], {}, 0.95)
    assert not result["promoted"] and result["decided_by"] == "t3" and result["binding"] == "t3"
    assert result["verdict"] == "not promoted: T3 ndcg@3 interval [-0.0100, +0.0200] includes 0"
    intervals["t3"]["ndcg@3"] = iv(0.004, 0.02)
    result = gate(intervals, heads, ["t1", "t2", "t3", "t4"], {}, 0.95)
    assert result["promoted"] and result["binding"] == "t3" and "lower bound +0.0040" in result["verdict"]
    result = gate(intervals, heads, ["t1", "t2", "t3", "t4"], {"t2": "not submitted by b"}, 0.95)
    assert not result["promoted"] and result["failing"] == ["t2"]
    intervals["t2"]["macro_f1"] = Interval(0.02, -math.inf, math.inf, 1.0, 0.95, 1.0, 1, 0.0)  # one bootstrap unit
    result = gate(intervals, heads, ["t1", "t2", "t3", "t4"], {}, 0.95)
    assert not result["promoted"] and result["failing"] == ["t2"] and result["tasks"]["t2"]["lower"] is None
    assert result["verdict"] == "not promoted: T2 has 1 bootstrap unit, too few to test (build from a larger catalog)"


def test_headline_and_level_are_configurable_and_checked(scored):
    runs = [scored["bm25"], scored["random"]]
    result = compare_scored(runs, resamples=300, level=0.9, headline="t1=ndcg@5,t3=ndcg@3")
    assert result["headline"]["t1"] == "ndcg@5" and result["headline"]["t3"] == "ndcg@3"
    assert result["exploratory"] == ["t1", "t3"] and result["headline_registered"]["t1"] == "recall@10"
    assert result["pairs"][0]["gate"]["tasks"]["t1"]["level"] == 0.9
    roles = result["pairs"][0]["tasks"]["t1"]["metrics"]
    assert roles["recall@10"]["role"] == "headline" and roles["ndcg@5"]["role"] == roles["ndcg@10"]["role"] == "exploratory"
    assert "(exploratory)" in verdict_markdown(result)
    plain = compare_scored(runs, resamples=300)
    assert plain["headline"] == plain["headline_registered"] and plain["exploratory"] == []
    with pytest.raises(E.ComparisonError):
        compare_scored(runs, headline="t1=ndcg@99")
    with pytest.raises(E.ComparisonError):
        compare_scored(runs[:1])
    with pytest.raises(E.ComparisonError):
        compare_scored(runs, level=1.5)


def test_aggregation_flips_are_detected():
    assert _flips({"a": (0.5, 0.4), "b": (0.4, 0.45), "c": (0.1, 0.1)}) == [("a", "b")]
    assert _flips({"a": (0.5, 0.5), "b": (0.4, 0.4)}) == []


def test_compare_cli_writes_verdicts_and_the_headline_analysis(world, tmp_path):
    out = tmp_path / "cmp.json"
    runs = [str(world["runs"][n]) for n in ("bm25", "random")]
    assert _exit_code(["compare", "--bench", str(world["bench"]), *runs, "--resamples", "300", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    analysis = result["analysis"]
    assert {a["axis"].split(":")[0] for a in analysis["aggregation"]} >= {"T1-open ndcg@10", "T1 recall@10", "T2", "T3 recall@1",
                                                                          "T4 recall@10"}
    assert len(analysis["gate_sensitivity"]) == 2
    for entry in analysis["gate_sensitivity"]:
        assert entry["binding"] in ("t1o", "t1", "t2", "t3", "t4")
    assert _exit_code(["compare", "--bench", str(world["bench"]), runs[0]]) == 30


def test_score_with_an_esci_gain_map_equals_evaluate_with_those_gains(world, scored):
    from fashionrq.metrics import evaluate, read_qrels
    from fashionrq.protocol.validate import submitted_order, validate_run

    esci = score_run(world["bench"], world["runs"]["bm25"], relevance=False, gains="3=1,2=0.1,1=0.01")
    assert esci.report["gains"] == {"1": 0.01, "2": 0.1, "3": 1.0}
    qrels = read_qrels(world["bench"] / "labels" / "t1.qrels")
    run = submitted_order(validate_run(world["runs"]["bm25"], load_pools(world["bench"]))["t1"], "t1")
    expected = evaluate(qrels, run, ["ndcg@10"], complete=True, gains={3: 1.0, 2: 0.1, 1: 0.01})["ndcg@10"]
    got = esci.report["tasks"]["t1"]["aggregate"]["ndcg@10"]
    assert got == pytest.approx(expected, abs=1e-12)
    assert got != pytest.approx(scored["bm25"].report["tasks"]["t1"]["aggregate"]["ndcg@10"], abs=1e-6)
    with pytest.raises(FashionRQError, match="not 'level=gain'"):
        score_run(world["bench"], world["runs"]["bm25"], relevance=False, gains="3=1,2")



def test_a_huge_id_is_refused_fast_and_cut_in_the_message(tmp_path):
    """Issue 26: a 1 GiB qid was refused after 332 s with the whole id printed. A 16 MiB one (the control: it is in
    the file) is refused at once with a sentence of a few hundred characters."""
    huge = "q" * (16 << 20)
    path = tmp_path / "t1.run"
    path.write_text(f"{huge} Q0 i00001 1 1.0 hand\n")
    assert huge in path.read_text()
    with pytest.raises(E.ExtraIdsError) as refused:
        validate_ranking(path, {"q1": frozenset({"i00001"})})
    assert len(str(refused.value)) < 500 and f"({len(huge):,} characters)" in str(refused.value)
