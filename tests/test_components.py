"""Labels independent of systems: runs sharing a model with the construction are flagged; the home advantage.

Real runs on the fixture release (``small_bench``: SIDs and hard negatives from ``minilm``).
"""

from __future__ import annotations


import pytest

from fashionrq.protocol import commit_run
from fashionrq.protocol.components import construction_components, shared_components
from fashionrq.protocol.compare import compare_runs, verdict_markdown
from fashionrq.protocol.scoring import score_run, write_json
from fashionrq.report.leaderboard import leaderboard
from fashionrq.systems import get_reranker, get_system, run_system

from conftest import main_code

#: Whole-module sealed runs and release builds over the fixture: tens of seconds; CI runs them with -m slow.
pytestmark = pytest.mark.slow

#: (run label, system, reranker): bm25 shares nothing; minilm-int8 is the SID encoder's model in int8; the verifier
#: reads the φ lexicon with its parser and scores with the labels' comparators (minilm-int8) and weights.
RUNS = (("bm25", "bm25", None), ("minilm-int8", "minilm-int8", None), ("bm25+verifier", "bm25", "verifier"))


@pytest.fixture(scope="module")
def runs(small_bench, tmp_path_factory):
    root = tmp_path_factory.mktemp("components")
    out = {}
    for label, system, rerank in RUNS:
        run = root / label
        run_system(small_bench, get_system(system), run, reranker=get_reranker(rerank) if rerank else None)
        commit_run(run, small_bench)
        write_json(score_run(small_bench, run, relevance=False).report, run / "scores.json")
        out[label] = run
    return out


def test_the_manifest_names_the_models_the_construction_used(small_bench):
    components = construction_components(small_bench)
    assert components["sid_encoder"] == components["hard_negative_encoder"] == "minilm-int8"
    assert components["comparator_similarity"] == "minilm-int8"  # what scoring's AttributeMatcher uses
    assert components["weight_oracle"] == "minilm" and components["phi_lexicon"] == "querygen.surface"


def test_shared_components_compare_model_weights_not_encoder_names():
    components = {"sid_encoder": "minilm", "comparator_similarity": "minilm-int8", "weight_oracle": "minilm"}
    hybrid = {"config": {"system_config": {"components": {"bm25": {"k1": 1.2}, "e5-small": {"encoder": "e5-small"}}}}}
    assert shared_components(components, hybrid) == []
    hybrid["config"]["system_config"]["components"]["st"] = {"encoder": "st:sentence-transformers/all-MiniLM-L6-v2"}
    assert shared_components(components, hybrid) == [
        "SID encoder (minilm)", "comparator similarity model (minilm-int8)", "weight oracle (minilm)"]
    assert shared_components({}, hybrid) == []  # a release built before components were recorded flags nothing


def test_leaderboard_flags_every_run_that_shares_a_component(small_bench, runs):
    text = leaderboard(small_bench, list(runs.values()))
    rows = {line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| ")}
    assert {"bm25", "minilm-int8 †", "bm25+verifier †"} <= rows and "bm25 †" not in rows
    notes = {line.split(" shares ")[0]: line for line in text.splitlines() if " shares with the construction: " in line}
    assert set(notes) == {"minilm-int8 †", "bm25+verifier †"}
    assert "SID encoder (minilm-int8)" in notes["minilm-int8 †"] and "hard-negative encoder (minilm-int8)" in notes["minilm-int8 †"]
    verifier = notes["bm25+verifier †"]
    assert "φ lexicon (querygen.surface" in verifier and "comparator similarity model (minilm-int8)" in verifier
    assert "relevance weights" in verifier and "weight oracle (minilm)" in verifier
    assert "SID encoder (minilm-int8)" in verifier  # its comparator model is the SID encoder


def test_compare_and_the_html_report_show_the_flag(small_bench, runs, tmp_path):
    result = compare_runs(small_bench, [runs["bm25"], runs["minilm-int8"]], resamples=200)
    assert result["runs"]["bm25"]["shares_construction"] == []
    assert "SID encoder (minilm-int8)" in result["runs"]["minilm-int8"]["shares_construction"]
    table = verdict_markdown(result)
    assert "| minilm-int8 † | bm25 |" in table and "minilm-int8 † shares with the construction" in table
    assert main_code(["report", str(small_bench), str(runs["bm25"]), str(runs["minilm-int8"]), "--out", str(tmp_path / "r.html"),
                      "--resamples", "200"]) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "minilm-int8 † shares with the construction: SID encoder (minilm-int8)" in page and "bm25 shares" not in page


def test_home_advantage_is_the_difference_of_the_paired_gaps(small_bench, tmp_path):
    from fashionrq.errors import ComparisonError
    from fashionrq.protocol.home import home_advantage, home_markdown
    from fashionrq.tasks import BuildConfig, build_release

    from conftest import MYNTRA_SMALL

    encoders = ("minilm", "minilm-int8")
    benches = {"minilm": tmp_path / "BENCH-fp32", "minilm-int8": small_bench}
    build_release(BuildConfig(catalog=MYNTRA_SMALL, out=benches["minilm"], encoder="minilm", seed=0, allow_weak=True))
    scored = {}
    for release, bench in benches.items():
        for system in encoders:
            run = tmp_path / release / system
            run_system(bench, get_system(system), run)
            commit_run(run, bench)
            scored[(system, release)] = score_run(bench, run, relevance=False)
    results = home_advantage(scored, encoders, resamples=300)
    # every headline of a task both releases have (on this small catalog a release may have no T2 or T3)
    shared = set.intersection(*(set(s.report["tasks"]) for s in scored.values()))
    headlines = [("t1o", "ndcg@10"), ("t1", "recall@10"), ("t2", "macro_f1"), ("t3", "recall@1"), ("t4", "recall@10")]
    assert {"t1o", "t1", "t4"} <= shared
    assert [(r.task, r.metric) for r in results] == [h for h in headlines if h[0] in shared]
    for r in results:
        assert r.scores[("minilm", "minilm")] == scored[("minilm", "minilm")].report["tasks"][r.task]["aggregate"][r.metric]
        for release in encoders:  # Δ = A − B on each release is the gap of the two scores there
            assert r.delta[release].delta == pytest.approx(r.scores[("minilm", release)] - r.scores[("minilm-int8", release)], abs=1e-9)
        assert r.advantage.delta == pytest.approx(r.delta["minilm"].delta - r.delta["minilm-int8"].delta, abs=1e-12)
        assert r.advantage.lower <= r.advantage.delta <= r.advantage.upper
        assert r.own_gain("minilm") == r.scores[("minilm", "minilm")] - r.scores[("minilm", "minilm-int8")]
    assert "| minilm | " in home_markdown(results) and "H = " in str(results[0])
    del scored[("minilm", "minilm-int8")]
    with pytest.raises(ComparisonError, match="minilm on minilm-int8"):
        home_advantage(scored, encoders)
