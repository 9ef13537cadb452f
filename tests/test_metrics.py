"""Metric definitions on hand-checked examples, classification against scikit-learn, TREC file IO and every bad-file error."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from sklearn import metrics as skm

from conftest import MYNTRA_SMALL
from fashionrq.cli import main
from fashionrq.errors import InputError
from fashionrq.metrics import (
    Qrels,
    Run,
    accuracy,
    check_run_against_qrels,
    classification_metrics,
    compare,
    confusion_matrix,
    consistency,
    evaluate,
    jaccard_consistency,
    macro_f1,
    parse_metrics,
    per_class_prf,
    read_qrels,
    read_run,
    write_qrels,
    write_run,
)

# One query, ranked a > b > c > d > e (descending scores); grades: a 0, b 3, c unjudged, d 1, e 2; f (grade 3) not retrieved.
QRELS = Qrels({"q1": {"a": 0, "b": 3, "d": 1, "e": 2, "f": 3}})
RUN = Run({"q1": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}, name="hand")


def one(metric: str, qrels: Qrels = QRELS, run: Run = RUN, **kwargs) -> float:
    return evaluate(qrels, run, [metric], **kwargs)[metric]


def test_ndcg_linear_and_exponential_gain_by_hand():
    dcg = 3 / np.log2(3) + 1 / np.log2(5) + 2 / np.log2(6)
    ideal = 3 + 3 / np.log2(3) + 2 / np.log2(4) + 1 / np.log2(5)  # all judged docs, best first: f b e d
    assert one("ndcg@5") == pytest.approx(dcg / ideal, abs=1e-12)
    assert one("ndcg_cut.5") == one("ndcg@5")
    exp_dcg = 7 / np.log2(3) + 1 / np.log2(5) + 3 / np.log2(6)
    exp_ideal = 7 + 7 / np.log2(3) + 3 / np.log2(4) + 1 / np.log2(5)
    assert one("ndcg_exp@5") == pytest.approx(exp_dcg / exp_ideal, abs=1e-12)
    assert one("ndcg@2") == pytest.approx((3 / np.log2(3)) / (3 + 3 / np.log2(3)), abs=1e-12)


def test_recall_capped_recall_hit_rate_precision_by_hand():
    # relevant (grade >= 1): b d e f -> 4; in top 2: b; in top 5: b d e
    assert one("recall@2") == pytest.approx(1 / 4) and one("recall.5") == pytest.approx(3 / 4)
    assert one("capped_recall@2") == pytest.approx(1 / 2)  # min(K=2, 4 relevant)
    assert one("capped_recall@5") == pytest.approx(3 / 4)  # min(5, 4) = 4
    assert one("precision@2") == pytest.approx(1 / 2) and one("P.10") == pytest.approx(3 / 10)
    assert one("hit_rate@1") == 0.0 and one("hit_rate@2") == 1.0
    # exact matches only (grade 3): b f -> 2 relevant, b at rank 2
    assert one("recall@5(rel=3)") == pytest.approx(1 / 2) and one("capped_recall@1(rel=3)") == 0.0
    assert one("capped_recall@2(rel=3)") == pytest.approx(1 / 2) and one("hit_rate@2(rel=3)") == 1.0
    assert one("recall@5", relevance_level=2) == pytest.approx(2 / 3)  # b e of b e f


def test_mrr_cutoff_and_recip_rank_and_map_by_hand():
    run = Run({"q1": {f"x{i:02d}": 100.0 - i for i in range(11)} | {"b": 0.5}})  # b, the first relevant, at rank 12
    assert one("recip_rank", run=run) == pytest.approx(1 / 12)
    assert one("mrr@10", run=run) == 0.0 and one("mrr@12", run=run) == pytest.approx(1 / 12)
    assert one("mrr@10") == pytest.approx(1 / 2) and one("recip_rank(rel=2)") == pytest.approx(1 / 2)
    assert one("map") == pytest.approx((1 / 2 + 2 / 4 + 3 / 5) / 4)


def test_ties_break_by_docno_descending_and_the_rank_column_is_ignored(tmp_path):
    path = tmp_path / "tied.run"
    path.write_text("q1 Q0 b 1 2.0 t\nq1 Q0 a 2 2.0 t\nq1 Q0 c 3 2.0 t\nq1 Q0 z 4 9.5 t\n")
    run = read_run(path)
    assert run.ranked() == {"q1": ["z", "c", "b", "a"]}
    assert one("recip_rank", qrels=Qrels({"q1": {"a": 1}}), run=run) == pytest.approx(1 / 4)


@pytest.mark.parametrize("one_key", [True, False], ids=["uint64-key", "column-sort"])
def test_ranking_orders_shuffled_tied_rows_like_trec_eval(monkeypatch, one_key):
    # qids whose byte order is not numeric order; scores tied exactly, tied only in float32, signed zeros, overflow
    rng = np.random.default_rng(7)
    pool = [0.0, -0.0, 1.0, 1.0 + 1e-12, -2.5, 3e38, 1e300, -1e300, 7.25]
    rows = [(f"q{q}", f"d{d}", float(rng.choice(pool))) for q in (1, 2, 10, 9, 100) for d in rng.permutation(60)[:40]]
    rows = [rows[i] for i in rng.permutation(len(rows))]
    if not one_key:  # as when query, score and docno bits do not fit one 64-bit key
        monkeypatch.setattr("fashionrq.metrics.trec._ranking_by_key", lambda *args: None)
    run = Run.from_arrays([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    by_docno_desc = sorted(rows, key=lambda r: r[1].encode(), reverse=True)
    with np.errstate(over="ignore"):  # trec_eval's float32: 1e300 is infinite there
        expected = sorted(by_docno_desc, key=lambda r: (r[0].encode(), -float(np.float32(r[2]))))
    assert [(rows[i][0], rows[i][1]) for i in run.ranking] == [(q, d) for q, d, _ in expected]


def test_queries_without_relevant_documents_score_zero_and_missing_queries_follow_the_mode():
    qrels = Qrels({"q1": {"a": 1}, "q2": {"a": 0}, "q3": {"a": 2}})
    run = Run({"q1": {"a": 1.0}, "q2": {"a": 1.0}, "q9": {"a": 1.0}})
    assert evaluate(qrels, run, ["ndcg@10", "capped_recall@10"], per_query=True) == {
        "q1": {"ndcg@10": 1.0, "capped_recall@10": 1.0},
        "q2": {"ndcg@10": 0.0, "capped_recall@10": 0.0},
    }
    assert one("recall@10", qrels=qrels, run=run) == pytest.approx(1 / 2)
    assert one("recall@10", qrels=qrels, run=run, complete=True) == pytest.approx(1 / 3)


def test_consistency_is_mean_pairwise_jaccard_of_top_k_sets():
    rankings = [["a", "b", "c"], ["b", "a", "d"], ["a", "x", "y"]]
    # top-2 sets {a,b} {a,b} {a,x}: J = 1, 1/3, 1/3
    assert jaccard_consistency(rankings, 2) == pytest.approx((1 + 1 / 3 + 1 / 3) / 3)
    assert jaccard_consistency([[], []], 5) == 1.0
    run = Run({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"b": 3.0, "a": 2.0, "d": 1.0}, "q3": {"a": 1.0, "x": 1.0}})
    # top-2: q1 {a,b}, q2 {a,b}, q3 {a,x}, q4 (no results) {}
    assert consistency(run, {"g1": ["q1", "q2"], "g2": ["q1", "q3", "q4"]}, 2) == {"g1": 1.0, "g2": pytest.approx((1 / 3 + 0 + 0) / 3)}
    # q3 ties break by docno descending: x before a; top-1 sets {a} {b} {x}
    assert consistency(run, {"g": ["q1", "q2", "q3"]}, 1) == {"g": 0.0}
    with pytest.raises(InputError, match="group 'g' has 1 query"):
        consistency(run, {"g": ["q1"]}, 3)


def test_classification_metrics_match_scikit_learn():
    rng = np.random.default_rng(0)
    y_true = rng.choice(4, 300, p=[0.4, 0.3, 0.2, 0.1])
    y_pred = np.where(rng.random(300) < 0.6, y_true, rng.choice(4, 300))
    labels = [0, 1, 2, 3]
    assert accuracy(y_true, y_pred) == pytest.approx(skm.accuracy_score(y_true, y_pred))
    assert macro_f1(y_true, y_pred) == pytest.approx(skm.f1_score(y_true, y_pred, average="macro", labels=labels))
    assert (confusion_matrix(y_true, y_pred) == skm.confusion_matrix(y_true, y_pred, labels=labels)).all()
    precision, recall, f1, support = skm.precision_recall_fscore_support(y_true, y_pred, labels=labels)
    per_class = per_class_prf(y_true, y_pred)
    for i, label in enumerate(labels):
        assert per_class[label] == {"precision": pytest.approx(precision[i]), "recall": pytest.approx(recall[i]),
                                    "f1": pytest.approx(f1[i]), "support": support[i]}
    report = classification_metrics(y_true, y_pred)
    assert report["macro_f1"] == macro_f1(y_true, y_pred) and report["confusion_matrix"] == confusion_matrix(y_true, y_pred).tolist()


def test_macro_f1_by_hand_counts_an_absent_class_as_zero():
    y_true, y_pred = [3, 3, 2, 0], [3, 2, 2, 0]
    # class 3: P 1, R 1/2, F1 2/3; class 2: P 1/2, R 1, F1 2/3; class 0: 1; class 1: absent -> 0
    assert macro_f1(y_true, y_pred) == pytest.approx((2 / 3 + 2 / 3 + 1 + 0) / 4)
    assert macro_f1(y_true, y_pred) == pytest.approx(
        skm.f1_score(y_true, y_pred, average="macro", labels=[0, 1, 2, 3], zero_division=0)
    )
    with pytest.raises(InputError, match="prediction 5 at position 1 is not one of"):
        accuracy([1, 2], [1, 5])
    with pytest.raises(InputError, match="differ in shape"):
        accuracy([1, 2], [1])


def test_metric_names_parse_and_unknown_ones_are_refused():
    names = [m.name for m in parse_metrics(["ndcg_cut.10,5", "P", "recall@10(rel=3)", "ndcg_cut.5"])]
    assert names == ["ndcg_cut.5", "ndcg_cut.10", *[f"P.{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)], "recall@10(rel=3)"]
    for bad in ["ndcg", "ndcg@10(rel=3)", "ndcg_cut.0", "recall@5,10", "bpref", "map.5"]:
        with pytest.raises(InputError, match="is not known"):
            parse_metrics([bad])


def test_write_run_is_deterministic_and_reads_back_exactly(tmp_path):
    rng = np.random.default_rng(1)
    ids = [line.split(",")[0] for line in (MYNTRA_SMALL / "styles.csv").read_text().splitlines()[1:200]]
    scores = {f"q{i}": dict(zip(rng.choice(ids, 30, replace=False).tolist(), rng.normal(size=30).tolist())) for i in range(12)}
    run = Run(scores, name="bm25")
    first, second = write_run(run, tmp_path / "a.run"), write_run(Run(run.to_dict(), name="bm25"), tmp_path / "b.run")
    assert first.read_bytes() == second.read_bytes()
    back = read_run(first)
    assert back.to_dict() == run.to_dict() and back.name == "bm25"
    lines = first.read_text().splitlines()
    assert lines[0].split()[:4] == ["q0", "Q0", run.ranked(1)["q0"][0], "1"] and lines[0].endswith(" bm25")
    assert write_run(run, tmp_path / "c.run", tag="other").read_text().splitlines()[0].endswith(" other")
    qrels = Qrels({"q1": {'"quoted"': 2, "b": 0}})
    assert read_qrels(write_qrels(qrels, tmp_path / "q.qrels")).to_dict() == qrels.to_dict()


def test_tab_and_multi_space_separated_files_read_like_single_spaces(tmp_path):
    plain = tmp_path / "plain.run"
    plain.write_text("q1 Q0 a 1 1.5 t\nq1 Q0 b 2 0.5 t\nq2 Q0 a 1 2 t\n")
    tabs = tmp_path / "tabs.run"
    tabs.write_text("q1\tQ0\ta\t1\t1.5\tt\r\nq1\tQ0\tb\t2\t0.5\tt\r\n\nq2\tQ0\ta\t1\t2\tt\r\n")
    spaces = tmp_path / "spaces.run"
    spaces.write_text("q1  Q0 a 1 1.5 t\n  q1 Q0 b 2 0.5 t\nq2 Q0 a 1 2 t   \n")
    assert read_run(tabs).to_dict() == read_run(spaces).to_dict() == read_run(plain).to_dict()


def test_run_queries_unknown_to_the_qrels_are_reported_with_count_and_examples():
    run = Run({"q1": {"a": 1.0}, "x1": {"a": 1.0}, "x2": {"a": 1.0}})
    qrels = Qrels({"q1": {"a": 1}, "q2": {"a": 1}})
    check = check_run_against_qrels(run, qrels)
    assert check.unknown == ["x1", "x2"] and check.missing == ["q2"]
    with pytest.raises(InputError, match=r"run has 2 query id\(s\) not in qrels \(e\.g\. x1, x2\)"):
        check_run_against_qrels(run, qrels, strict=True)
    with pytest.raises(InputError, match="no query of run is judged in qrels"):
        evaluate(qrels, Run({"x1": {"a": 1.0}}), ["map"])


def test_compare_evaluates_every_run():
    other = Run({"q1": {"f": 9.0, "b": 8.0}}, name="better")
    table = compare(QRELS, [RUN, other], ["recall@2"])
    assert table == {"hand": {"recall@2": pytest.approx(1 / 4)}, "better": {"recall@2": pytest.approx(2 / 4)}}
    with pytest.raises(InputError, match="two runs are named 'hand'"):
        compare(QRELS, [RUN, RUN], ["map"])


BAD_RUNS = [
    ("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 1.0\n", r"line 2: expected 6 whitespace-separated fields \(qid Q0 docno rank score tag\) but found 5"),
    ("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 high t\n", r"line 2: field 'score' is 'high', not a number"),
    ("q1 Q0 a 1 nan t\n", r"line 1: field 'score' is 'nan'; scores must be finite"),
    ("q1 Q0 a 1 1.0 t\n\nq1 Q0 b 2 -inf t\n", r"line 3: field 'score' is '-inf'; scores must be finite"),
    ("q1 Q0 a 1 1.0 t\nq2 Q0 a 1 1.0 t\nq1 Q0 a 2 0.5 t\n", r"line 3: query 'q1' lists document 'a' again \(first on line 1\)"),
    ("", r"the file is empty"),
    ("\n  \n", r"the file is empty"),
]
BAD_QRELS = [
    ("q1 0 a 1\nq1 0 b\n", r"line 2: expected 4 whitespace-separated fields \(qid iter docno grade\) but found 3"),
    ("q1 0 a 1.5\n", r"line 1: field 'grade' is '1.5', not an integer"),
    ("q1 0 a 1\nq1 0 a 2\n", r"line 2: query 'q1' lists document 'a' again \(first on line 1\)"),
    ("", r"the file is empty"),
]


@pytest.mark.parametrize("content, message", BAD_RUNS)
def test_bad_run_files_raise_one_sentence_naming_file_line_and_field(tmp_path, content, message):
    path = tmp_path / "bad.run"
    path.write_text(content)
    with pytest.raises(InputError, match=message) as err:
        read_run(path)
    assert str(err.value).startswith(str(path)) and "\n" not in str(err.value)


@pytest.mark.parametrize("content, message", BAD_QRELS)
def test_bad_qrels_files_raise_one_sentence_naming_file_line_and_field(tmp_path, content, message):
    path = tmp_path / "bad.qrels"
    path.write_text(content)
    with pytest.raises(InputError, match=message) as err:
        read_qrels(path)
    assert str(err.value).startswith(str(path))


def test_unreadable_inputs_and_bad_dicts_raise_input_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_run(tmp_path / "missing.run")
    latin = tmp_path / "latin.qrels"
    latin.write_bytes("q1 0 caf\xe9 1\n".encode("latin-1"))
    with pytest.raises(InputError, match="is not UTF-8 text"):
        read_qrels(latin)
    with pytest.raises(InputError, match=r"grade of query 'q1', document 'a' is 1.5, not an integer"):
        Qrels({"q1": {"a": 1.5}})
    with pytest.raises(InputError, match=r"score of query 'q1', document 'a' is inf"):
        Run({"q1": {"a": float("inf")}})
    with pytest.raises(InputError, match=r"score of query 'q1', document 'b' is nan"):
        Run.from_arrays(["q1", "q1"], ["a", "b"], [1.0, float("nan")])
    with pytest.raises(InputError, match="run: query '1' lists document 'a' twice"):
        Run({1: {"a": 1.0}, "1": {"a": 2.0}})
    with pytest.raises(InputError, match="grades have type float64, not integers"):
        Qrels.from_arrays(["q1"], ["a"], [1.5])
    with pytest.raises(InputError, match="document id 'a b' is empty or contains whitespace"):
        write_run(Run({"q1": {"a b": 1.0}}), tmp_path / "x.run")


def run_main(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    captured = capsys.readouterr()
    return exited.value.code, captured.out, captured.err


def test_cli_prints_trec_eval_lines_and_warns_about_unjudged_queries(tmp_path, capsys):
    qrels = write_qrels(QRELS, tmp_path / "t.qrels")
    good = write_run(Run({"q1": RUN.to_dict()["q1"], "q7": {"a": 1.0}}), tmp_path / "good.run")
    code, out, err = run_main(["trec-eval", str(qrels), str(good), "-m", "capped_recall@2", "-m", "P.2"], capsys)
    assert code == 0
    assert out == f"{'P_2':<22s}\tall\t0.5000\n{'capped_recall@2':<22s}\tall\t0.5000\n"
    assert "has 1 query id(s) not in" in err and "(e.g. q7)" in err


def test_cli_reports_a_bad_file_in_one_sentence_with_exit_code_2(tmp_path, capsys):
    qrels = write_qrels(QRELS, tmp_path / "t.qrels")
    run = tmp_path / "t.run"
    run.write_text("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 oops t\n")
    code, _, err = run_main(["trec-eval", str(qrels), str(run)], capsys)
    assert code == 2 and "line 2: field 'score' is 'oops', not a number" in " ".join(err.split())
    code, _, err = run_main(["trec-eval", str(qrels), str(run), "-m", "ndcg@10(rel=3)"], capsys)
    assert code == 2 and "metric 'ndcg@10(rel=3)' is not known" in " ".join(err.split())
    # end to end through the installed entry point: no traceback, exit code 2
    done = subprocess.run([sys.executable, "-m", "fashionrq", "trec-eval", str(qrels), str(run)], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "line 2" in done.stderr
    # both files bad (the qrels are read in a second thread): the qrels error is the one reported, as trec_eval reads them first
    bad_qrels = tmp_path / "bad.qrels"
    bad_qrels.write_text("q1 0 a 3\nq1 0 b high\n")
    done = subprocess.run([sys.executable, "-m", "fashionrq", "trec-eval", str(bad_qrels), str(run)], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "bad.qrels, line 2: field 'grade'" in " ".join(done.stderr.split())
