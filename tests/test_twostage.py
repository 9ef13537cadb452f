"""Two-stage retrieval over the whole catalog (MCMR §4) on the fixture release: bm25's top 50 of every open-corpus
query re-scored pair by pair by the verifier, run sealed, committed and scored like any run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import main_code

from fashionrq.protocol import commit_run, load_pools, validate_run
from fashionrq.protocol.scoring import score_run, write_json
from fashionrq.systems import candidate_view, get_reranker, get_system, run_system
from fashionrq.systems.twostage import rerank
from fashionrq.layout import RUN_JSON
from fashionrq.taskspec import run_files

#: Whole-module sealed runs and release builds over the fixture: tens of seconds; CI runs them with -m slow.
pytestmark = pytest.mark.slow

RUN_FILES = (RUN_JSON, *run_files().values())


@pytest.fixture(scope="module")
def runs(small_bench, tmp_path_factory) -> dict[str, Path]:
    """bm25 alone and bm25 + verifier (top 50), written by one `fashionrq run`, committed and scored."""
    root = tmp_path_factory.mktemp("twostage")
    out = {"first": root / "bm25", "second": root / "bm25+verifier"}
    assert main_code(["run", "--bench", str(small_bench), "--system", "bm25", "--rerank", "verifier", "--depth", "50",
                      "--out", str(out["second"]), "--first-stage-out", str(out["first"])]) == 0
    for run in out.values():
        commit_run(run, small_bench)
        write_json(score_run(small_bench, run, relevance=False).report, run / "scores.json")
    return out


@pytest.fixture(scope="module")
def verifier(small_bench):
    items = candidate_view(pq.read_table(small_bench / "public" / "items.parquet"), "text")
    return get_reranker("verifier").fit(items), items


def _open(small_bench, run: Path) -> dict[str, list[str]]:
    ranked = validate_run(run, load_pools(small_bench), tasks=["t1o"])["t1o"]
    return {qid: [item for item, _ in items] for qid, items in ranked.items()}


def _texts(small_bench) -> dict[str, str]:
    return {r["qid"]: r["text"] for r in map(json.loads, (small_bench / "public" / "t1o_queries.jsonl").read_text().splitlines())}


def test_first_stage_output_is_the_plain_run(small_bench, runs, tmp_path):
    run_system(small_bench, "bm25", tmp_path / "plain")
    for name in RUN_FILES:
        assert (tmp_path / "plain" / name).read_bytes() == (runs["first"] / name).read_bytes(), name
    config = json.loads((runs["second"] / "run.json").read_text())
    assert config["system"] == "bm25+verifier" and config["config"]["rerank"]["depth"] == 50


def test_depth_is_respected(small_bench, runs):
    first, second = _open(small_bench, runs["first"]), _open(small_bench, runs["second"])
    assert first.keys() == second.keys() and all(len(v) == 100 for v in second.values())
    for qid in first:
        assert set(second[qid][:50]) == set(first[qid][:50]), qid  # the reranker sees only the top 50
        assert second[qid][50:] == first[qid][50:], qid  # positions 51-100 keep first-stage order
    assert sum(second[q][:50] != first[q][:50] for q in first) > len(first) / 2


def test_ties_are_broken_by_first_stage_rank(small_bench, runs, verifier):
    reranker, items = verifier
    row = {item: i for i, item in enumerate(items.column("item_id").to_pylist())}
    first, second, texts = _open(small_bench, runs["first"]), _open(small_bench, runs["second"]), _texts(small_bench)
    tied_groups = 0
    for qid in sorted(first)[:40]:
        top = second[qid][:50]
        scores = reranker.score_pairs([texts[qid]] * 50, np.array([row[i] for i in top]))
        assert np.all(np.diff(scores) <= 0), qid  # sorted by the pair score
        rank = [first[qid].index(i) for i in top]
        for a in range(49):
            if scores[a] == scores[a + 1]:
                assert rank[a] < rank[a + 1], (qid, top[a], top[a + 1])  # equal scores: first-stage order
                tied_groups += 1
    assert tied_groups > 20  # the verifier's constraint scores tie often, so the rule is exercised


def test_reranker_scores_each_pair_alone(small_bench, verifier):
    reranker, items = verifier
    texts = list(_texts(small_bench).values())[:3]
    rows = np.arange(0, items.num_rows, items.num_rows // 12)[:12]
    queries = [t for t in texts for _ in rows]
    pairs = np.tile(rows, len(texts))
    batch = reranker.score_pairs(queries, pairs)
    assert len(set(batch.round(6))) > 3
    shuffle = np.random.default_rng(0).permutation(len(pairs))
    assert np.array_equal(reranker.score_pairs([queries[i] for i in shuffle], pairs[shuffle]), batch[shuffle])
    alone = [reranker.score_pairs([queries[i]], pairs[i:i + 1])[0] for i in range(0, len(pairs), 7)]
    assert alone == list(batch[::7])


def test_permuting_the_candidates_changes_no_score(small_bench, verifier):
    reranker, items = verifier
    ids = np.asarray(items.column("item_id").to_pylist(), dtype=object)
    text = next(iter(_texts(small_bench).values()))
    system = get_system("bm25").fit(items)
    rows = np.array([r for r, _ in system.search(text, 100)])
    first = system.score(text, rows)
    base = dict(zip(rows, rerank(reranker, [text], [rows], [first], ids, 50)[0]))
    perm = np.random.default_rng(1).permutation(len(rows))
    permuted = dict(zip(rows[perm], rerank(reranker, [text], [rows[perm]], [first[perm]], ids, 50)[0]))
    assert permuted == base
    assert sorted(base.values()) == list(range(1, 101))  # the written scores are the final ranks, 100 .. 1
    shallow = rerank(reranker, [text], [rows], [first], ids, 10)[0]
    order, first_order = rows[np.argsort(-shallow)], rows[np.lexsort((ids[rows], -first))]
    assert set(order[:10]) == set(first_order[:10]) and list(order[10:]) == list(first_order[10:])  # depth 10 respected


def test_scores_equal_pytrec_eval_before_and_after(small_bench, runs):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict[str, dict[str, int]] = {}
    for line in (small_bench / "labels" / "t1o.qrels").read_text().splitlines():
        qid, _, item, grade = line.split()
        qrels.setdefault(qid, {})[item] = int(grade)
    graded = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.1,5,10,50"})
    exact = pytrec_eval.RelevanceEvaluator(qrels, {"recall.1,5,10,50,100"}, relevance_level=3)
    exact_rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, relevance_level=3)
    for run in runs.values():
        ranked = _open(small_bench, run)
        by_rank = {q: {item: float(len(items) - i) for i, item in enumerate(items)} for q, items in ranked.items()}
        top10 = {q: {item: s for item, s in scores.items() if s > len(scores) - 10} for q, scores in by_rank.items()}
        ours = score_run(small_bench, run, relevance=False).per_unit("t1o")
        theirs = {**graded.evaluate(by_rank)}
        for qid, values in exact.evaluate(by_rank).items():
            theirs[qid] = {**theirs[qid], **values, "recip_rank": exact_rr.evaluate(top10)[qid]["recip_rank"]}
        names = {"ndcg@1": "ndcg_cut_1", "ndcg@5": "ndcg_cut_5", "ndcg@10": "ndcg_cut_10", "ndcg@50": "ndcg_cut_50",
                 "recall@1": "recall_1", "recall@5": "recall_5", "recall@10": "recall_10", "recall@50": "recall_50",
                 "recall@100": "recall_100", "mrr@10": "recip_rank"}
        for qid in ranked:
            for ours_name, trec_name in names.items():
                assert ours[qid][ours_name] == pytest.approx(theirs[qid][trec_name], abs=1e-9), (run.name, qid, ours_name)
    # the two-stage file's own scores give trec_eval the submitted order: no tie is left for its docno rule
    second = {}
    for line in (runs["second"] / "t1o.run").read_text().splitlines():
        qid, _, item, _, score, _ = line.split()
        second.setdefault(qid, {})[item] = float(score)
    assert graded.evaluate(second) == graded.evaluate({q: {i: float(100 - r) for r, i in enumerate(v)}
                                                      for q, v in _open(small_bench, runs["second"]).items()})


def test_before_and_after_table(small_bench, runs, tmp_path):
    from fashionrq.report.leaderboard import leaderboard, load_scores
    from fashionrq.report.twostage import TWO_STAGE_METRICS, two_stage_pairs, two_stage_section

    text = leaderboard(small_bench, [runs["first"], runs["second"]])
    first, second = (json.loads((runs[k] / "scores.json").read_text())["tasks"]["t1o"]["aggregate"] for k in ("first", "second"))
    title = next(line for line in text.splitlines() if line.startswith("### Two-stage retrieval"))
    assert f"ceiling (first-stage R@50) = {first['recall@50']:.4f}" in title
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith(("| first stage", "| after rerank", "| Δ"))}
    assert all(f"{first[m]:.4f} [" in rows["| first stage: bm25"] for m, _ in TWO_STAGE_METRICS)
    # the verifier reads φ(q) with the construction's lexicon, so its row carries the shared-component flag (†)
    assert all(f"{second[m]:.4f} [" in rows["| after rerank (top 50): bm25+verifier †"] for m, _ in TWO_STAGE_METRICS)
    assert second["recall@50"] == first["recall@50"] and second["recall@100"] == first["recall@100"]
    assert " +0.0000 [+0.0000, +0.0000] " in rows["| Δ (after − before)"]  # R@50 and R@100 cannot move
    scored = load_scores(small_bench, [runs["first"], runs["second"]])
    assert "<table" in two_stage_section(small_bench, scored)
    assert two_stage_pairs(small_bench, scored[1:]) == []  # no first stage given, no table


def test_first_stage_out_needs_a_reranker_and_its_own_folder(small_bench, tmp_path):
    assert main_code(["run", "--bench", str(small_bench), "--system", "bm25", "--out", str(tmp_path / "x"),
                      "--first-stage-out", str(tmp_path / "y")]) == 2
    assert main_code(["run", "--bench", str(small_bench), "--system", "bm25", "--rerank", "verifier", "--out", str(tmp_path / "x"),
                      "--first-stage-out", str(tmp_path / "x")]) == 2
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
