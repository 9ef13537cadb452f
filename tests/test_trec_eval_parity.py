"""Parity with trec_eval (through pytrec_eval) on seeded random runs full of score ties, over real Myntra item ids."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import pytrec_eval

from conftest import MYNTRA_SMALL
from fashionrq.cli import main
from fashionrq.metrics import Qrels, Run, evaluate, read_qrels, read_run, write_qrels, write_run

TREC_METRICS = ["ndcg_cut.5", "ndcg_cut.10", "recall.5", "recall.10", "recip_rank", "P.10", "map"]
PYTREC_KEYS = {"ndcg_cut.5": "ndcg_cut_5", "ndcg_cut.10": "ndcg_cut_10", "recall.5": "recall_5", "recall.10": "recall_10",
               "recip_rank": "recip_rank", "P.10": "P_10", "map": "map"}

with (MYNTRA_SMALL / "styles.csv").open(newline="") as handle:
    ITEM_IDS = np.array([row["id"] for row in csv.DictReader(handle)])


def random_case(seed: int, n_queries: int = 400) -> tuple[dict, dict]:
    """A run with integer-rounded scores (many ties) and graded qrels 0-3 with the awkward cases mixed in."""
    rng = np.random.default_rng(seed)
    qids = [f"q{n}" for n in rng.choice(10 * n_queries, n_queries, replace=False)]  # q7 vs q12: byte order matters
    run, qrels = {}, {}
    for i, qid in enumerate(qids):
        depth = int(rng.integers(1, 40))
        docs = rng.choice(ITEM_IDS, depth, replace=False)
        scale = 0.0 if i % 17 == 0 else rng.choice([1.0, 2.0, 5.0])  # every 17th query: all scores tied
        scores = np.round(rng.normal(size=depth) * scale)
        if i % 23 != 0:  # every 23rd query: judged but not answered
            run[qid] = {str(d): float(s) for d, s in zip(docs, scores)}
        if i % 19 != 0:  # every 19th query: answered but not judged
            judged = np.unique(np.concatenate([rng.choice(docs, min(depth, 12), replace=False), rng.choice(ITEM_IDS, 5)]))
            grades = rng.choice(4, len(judged), p=[0.4, 0.3, 0.2, 0.1])
            if i % 11 == 0:  # every 11th judged query: nothing relevant
                grades[:] = 0
            qrels[qid] = {str(d): int(g) for d, g in zip(judged, grades)}
    return run, qrels


def pytrec(qrels: dict, run: dict, metrics: list[str], relevance_level: int = 1) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, metrics, relevance_level=relevance_level)
    result = evaluator.evaluate(run)
    return {qid: {m: values[PYTREC_KEYS[m]] for m in metrics} for qid, values in result.items()}


def assert_parity(ours: dict, reference: dict, metrics: list[str]) -> None:
    assert set(ours) == set(reference) and reference
    for qid, values in reference.items():
        for metric in metrics:
            assert ours[qid][metric] == pytest.approx(values[metric], abs=1e-9), (qid, metric)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_query_and_mean_values_equal_pytrec_eval_on_tied_runs(seed):
    run, qrels = random_case(seed)
    reference = pytrec(qrels, run, TREC_METRICS)
    ours = evaluate(Qrels(qrels), Run(run), TREC_METRICS, per_query=True)
    assert_parity(ours, reference, TREC_METRICS)
    means = evaluate(Qrels(qrels), Run(run), TREC_METRICS)
    for metric in TREC_METRICS:
        assert means[metric] == pytest.approx(np.mean([v[metric] for v in reference.values()]), abs=1e-9)


def test_the_cases_the_generator_promises_occur():
    run, qrels = random_case(0)
    assert set(run) - set(qrels) and set(qrels) - set(run)
    assert any(all(g == 0 for g in docs.values()) for docs in qrels.values())
    assert any(len(set(scores.values())) == 1 and len(scores) > 1 for scores in run.values())
    assert any(d not in qrels.get(q, {}) for q, docs in run.items() for d in docs)


def test_relevance_level_matches_trec_eval_l_and_leaves_ndcg_on_raw_grades():
    run, qrels = random_case(3)
    for level in (2, 3):
        reference = pytrec(qrels, run, TREC_METRICS, relevance_level=level)
        ours = evaluate(Qrels(qrels), Run(run), TREC_METRICS, per_query=True, relevance_level=level)
        assert_parity(ours, reference, TREC_METRICS)
    suffixed = evaluate(Qrels(qrels), Run(run), ["recall.10(rel=3)", "P.10(rel=3)"], per_query=True)
    reference = pytrec(qrels, run, ["recall.10", "P.10"], relevance_level=3)
    for qid, values in reference.items():
        assert suffixed[qid]["recall.10(rel=3)"] == pytest.approx(values["recall.10"], abs=1e-9)
        assert suffixed[qid]["P.10(rel=3)"] == pytest.approx(values["P.10"], abs=1e-9)


def test_negative_grades_are_never_relevant_and_add_no_gain_like_trec_eval():
    run, qrels = random_case(8)
    rng = np.random.default_rng(8)
    for docs in qrels.values():
        for docno in rng.choice(sorted(docs), max(1, len(docs) // 4), replace=False):
            docs[str(docno)] = -1
    ours = evaluate(Qrels(qrels), Run(run), TREC_METRICS, per_query=True)
    assert_parity(ours, pytrec(qrels, run, TREC_METRICS), TREC_METRICS)


def test_fashionrq_names_that_alias_trec_eval_agree():
    run, qrels = random_case(4)
    reference = pytrec(qrels, run, ["ndcg_cut.10", "recall.10", "P.10"])
    ours = evaluate(Qrels(qrels), Run(run), ["ndcg@10", "recall@10", "precision@10"], per_query=True)
    for qid, values in reference.items():
        assert ours[qid]["ndcg@10"] == pytest.approx(values["ndcg_cut.10"], abs=1e-9)
        assert ours[qid]["recall@10"] == pytest.approx(values["recall.10"], abs=1e-9)
        assert ours[qid]["precision@10"] == pytest.approx(values["P.10"], abs=1e-9)


def test_files_written_and_read_back_give_the_same_values_as_pytrec_eval_parsers(tmp_path):
    run, qrels = random_case(5)
    run_path = write_run(Run(run, name="tied"), tmp_path / "t1.run")
    qrels_path = write_qrels(Qrels(qrels), tmp_path / "t1.qrels")
    with run_path.open() as handle:
        parsed_run = pytrec_eval.parse_run(handle)
    with qrels_path.open() as handle:
        parsed_qrels = pytrec_eval.parse_qrel(handle)
    assert parsed_run == run and parsed_qrels == qrels
    ours = evaluate(read_qrels(qrels_path), read_run(run_path), TREC_METRICS, per_query=True)
    assert_parity(ours, pytrec(parsed_qrels, parsed_run, TREC_METRICS), TREC_METRICS)


def test_complete_mode_averages_over_every_judged_query_like_trec_eval_c():
    run, qrels = random_case(6)
    reference = pytrec(qrels, run, TREC_METRICS)
    ours = evaluate(Qrels(qrels), Run(run), TREC_METRICS, complete=True)
    per_query = evaluate(Qrels(qrels), Run(run), TREC_METRICS, per_query=True, complete=True)
    unanswered = set(qrels) - set(run)
    assert set(per_query) == set(qrels) and unanswered
    for metric in TREC_METRICS:
        assert ours[metric] == pytest.approx(sum(v[metric] for v in reference.values()) / len(qrels), abs=1e-9)
        assert all(per_query[qid][metric] == 0.0 for qid in unanswered)


def test_cli_prints_trec_eval_lines_with_the_pytrec_eval_values(tmp_path, capsys):
    run, qrels = random_case(7, n_queries=60)
    run_path = write_run(Run(run, name="tied"), tmp_path / "t1.run")
    qrels_path = write_qrels(Qrels(qrels), tmp_path / "t1.qrels")
    metrics = ["recip_rank", "ndcg_cut.10", "P.10"]
    with pytest.raises(SystemExit) as exited:
        main(["trec-eval", str(qrels_path), str(run_path), *[f"-m{m}" for m in metrics], "-q"])
    assert exited.value.code == 0
    reference = pytrec(qrels, run, metrics)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == (len(reference) + 1) * len(metrics)
    labels = {"recip_rank": "recip_rank", "ndcg_cut.10": "ndcg_cut_10", "P.10": "P_10"}
    expected = []
    for qid in sorted(reference):  # trec_eval: queries in qid order, measures in trec_eval's table order
        expected += [(labels[m], qid, reference[qid][m]) for m in ["recip_rank", "P.10", "ndcg_cut.10"]]
    expected += [(labels[m], "all", np.mean([v[m] for v in reference.values()])) for m in ["recip_rank", "P.10", "ndcg_cut.10"]]
    for line, (label, qid, value) in zip(lines, expected):
        name, printed_qid, printed = line.split("\t")
        assert name == f"{label:<22s}" and printed_qid == qid
        assert len(printed.split(".")[1]) == 4 and abs(float(printed) - value) <= 5e-5 + 1e-12
