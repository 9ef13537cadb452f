"""`fashionrq trec-eval` as a trec_eval drop-in: byte-identical output to the real trec_eval 9.0.8 and, measure by
measure, per-query parity with pytrec_eval on tie-heavy random runs (gain maps included)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import pytrec_eval
from pytrec_eval_ext import RelevanceEvaluator as RawEvaluator  # the raw evaluator takes gain maps unmangled

from conftest import FIXTURES
from fashionrq.cli import main
from fashionrq.errors import InputError
from fashionrq.metrics import Qrels, Run
from fashionrq.metrics.trec_eval import MEASURES, parse_measures, trec_eval
from fashionrq.metrics.trec_gains import gain_map_is_ordered
from test_trec_eval_parity import random_case

REFERENCE = FIXTURES / "trec_eval"
CASES = json.loads((REFERENCE / "cases.json").read_text())
TEXT_MEASURES = {"runid", "relstring"}  # pytrec_eval returns no usable number for these; covered by the outputs


@pytest.mark.parametrize("case", sorted(CASES))
def test_output_is_byte_identical_to_trec_eval(case, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["trec-eval", *CASES[case], str(REFERENCE / "tied.qrels"), str(REFERENCE / "tied.run")])
    assert exited.value.code == 0
    assert capsys.readouterr().out == (REFERENCE / f"{case}.out").read_text()


def test_every_pytrec_eval_measure_is_supported():
    assert set(pytrec_eval.supported_measures) <= set(MEASURES)
    assert {s.name for s in parse_measures(["all_trec"])} == set(pytrec_eval.supported_nicknames["all_trec"])
    assert {s.name for s in parse_measures(None)} == set(pytrec_eval.supported_nicknames["official"])


def tied_case(seed: int) -> tuple[dict, dict]:
    run, qrels = random_case(seed, n_queries=150)
    rng = np.random.default_rng(seed)
    for docs in qrels.values():  # pooled-but-unjudged (negative) grades and grades above 3
        for docno in list(docs)[: int(rng.integers(0, 3))]:
            docs[docno] = int(rng.choice([-1, 4, 7]))
    return run, qrels


SPECS = [m for m in MEASURES if m not in TEXT_MEASURES] + [
    "P.3,7", "success.2", "iprec_at_recall.0.15,0.5", "Rprec_mult.0.5,3", "utility.2,-1,0.5,0", "set_F.0.3",
    "11pt_avg.0.2,0.8", "ndcg.1=0.1,2=1", "ndcg.3=1,2=0.1,1=0.01", "ndcg.3=100,2=10,1=1", "G.2=5,3=0.5",
    "ndcg_rel.0=1,1=2", "Rndcg.1=0.5,3=7", "Rndcg.3=100,2=10,1=1",
]


@pytest.mark.parametrize("seed,level", [(0, 1), (1, 2), (2, 3)])
def test_each_measure_matches_pytrec_eval_per_query_on_tied_runs(seed, level):
    run, qrels = tied_case(seed)
    qrels_obj, run_obj = Qrels(qrels), Run(run)
    for spec in SPECS:
        ours = trec_eval(qrels_obj, run_obj, [spec], relevance_level=level)
        names = ours.names[spec.partition(".")[0]]
        evaluator = RawEvaluator(query_relevance=qrels, measures={spec}, relevance_level=level, judged_docs_only_flag=False)
        reference = evaluator.evaluate(run)
        assert sorted(reference) == ours.qids
        for i, qid in enumerate(ours.qids):
            for key, value in reference[qid].items():
                name = key if key in ours.per_query else names[0]
                got = ours.per_query[name][i]
                assert got == pytest.approx(value, abs=1e-12, nan_ok=True), (spec, level, qid, key)


def test_esci_gain_map_equals_true_ndcg_and_the_unsafe_spelling_is_flagged(capsys, tmp_path):
    run, qrels = random_case(4)  # grades 0-3, as ESCI's E/S/C/I
    safe = trec_eval(Qrels(qrels), Run(run), ["ndcg.3=100,2=10,1=1"])
    ours = trec_eval(Qrels(qrels), Run(run), ["ndcg.3=1,2=0.1,1=0.01"])
    scaled, unsafe = safe.per_query["ndcg_3=100,2=10,1=1"], ours.per_query["ndcg_3=1,2=0.1,1=0.01"]
    assert safe.warnings() == []
    gain = {3: 1.0, 2: 0.1, 1: 0.01}
    for i, qid in enumerate(ours.qids):  # true nDCG with ESCI gains 1/0.1/0.01/0, computed directly
        ranked = sorted(run[qid], key=lambda d: (-np.float32(run[qid][d]), tuple(-b for b in d.encode())))
        dcg = sum(gain.get(qrels[qid].get(d, 0), 0.0) / np.log2(r + 2) for r, d in enumerate(ranked))
        ideal = sorted((gain.get(g, 0.0) for g in qrels[qid].values()), reverse=True)
        idcg = sum(g / np.log2(r + 2) for r, g in enumerate(ideal) if g > 0)
        assert scaled[i] == pytest.approx(dcg / idcg if idcg else 0.0, abs=1e-12), qid
    assert (unsafe == 0).all() and (scaled > 0).any()  # trec_eval's integer comparator puts level 0 on top
    assert gain_map_is_ordered([(3, 100.0), (2, 10.0), (1, 1.0)], 4)
    assert not gain_map_is_ordered([(3, 1.0), (2, 0.1), (1, 0.01)], 4)
    warnings = ours.warnings()
    assert len(warnings) == 1 and "3=1,2=0.1,1=0.01" in warnings[0] and "3=100,2=10,1=1" in warnings[0]


def test_evaluate_gains_match_pytrec_eval_gain_parameters():
    from fashionrq.metrics import evaluate

    run, qrels = tied_case(6)
    ours = evaluate(Qrels(qrels), Run(run), ["ndcg@1000"], per_query=True, gains="3=1,2=0.1,1=0.01,4=2,7=3")
    evaluator = RawEvaluator(query_relevance=qrels, measures={"ndcg.3=100,2=10,1=1,4=200,7=300"}, relevance_level=1,
                             judged_docs_only_flag=False)
    reference = evaluator.evaluate(run)  # nDCG is scale-free: x100 is the spelling trec_eval sorts correctly
    assert set(reference) == set(ours)
    for qid, values in reference.items():
        assert ours[qid]["ndcg@1000"] == pytest.approx(values["ndcg"], abs=1e-12), qid


@pytest.mark.parametrize("spec,message", [
    ("ndcg_cutt.10", "is not a trec_eval measure"),
    ("P.0,5", "must be positive integers"),
    ("P.5,5", "repeat a value"),
    ("ndcg.1=0.1,2", "is not 'level=gain'"),
    ("ndcg.1=0.1,1=2", "gives level 1 twice"),
    ("map.5", "takes no parameters"),
])
def test_bad_measure_specs_get_one_sentence(spec, message):
    with pytest.raises(InputError, match=message):
        parse_measures([spec])
