"""Exact metrics at any size: queries x distinct docnos past 2^31, and random shapes with extreme id cardinalities."""

from __future__ import annotations

import numpy as np
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fashionrq.metrics import Qrels, Run, evaluate

METRICS = ["ndcg_cut.10", "recall.10", "recip_rank", "P.5", "map"]
PYTREC_KEYS = {"ndcg_cut.10": "ndcg_cut_10", "recall.10": "recall_10", "recip_rank": "recip_rank", "P.5": "P_5",
               "map": "map"}


def assert_parity(qrels: dict, run: dict) -> None:
    reference = pytrec_eval.RelevanceEvaluator(qrels, METRICS).evaluate(run)
    ours = evaluate(Qrels(qrels), Run(run), METRICS, per_query=True)
    assert set(ours) == set(reference)
    qids = sorted(reference)
    for metric in METRICS:
        expected = np.array([reference[q][PYTREC_KEYS[metric]] for q in qids])
        got = np.array([ours[q][metric] for q in qids])
        bad = np.flatnonzero(np.abs(got - expected) > 1e-12)
        assert not len(bad), (metric, qids[bad[0]] if len(bad) else None, len(bad))


def test_parity_where_queries_times_distinct_docnos_exceeds_2_to_the_31():
    # 48,000 queries x 96,000 distinct docnos = 4.6e9 > 2^31: an int32 (query, doc) key overflows from query ~22,400 on
    rng = np.random.default_rng(31)
    n_queries = 48_000
    run, qrels = {}, {}
    for q in range(n_queries):
        docs = [f"d{q}a", f"d{q}b"]
        scores = rng.integers(0, 2, size=2).astype(float)  # ties in half the queries
        run[f"q{q}"] = dict(zip(docs, scores.tolist()))
        qrels[f"q{q}"] = {docs[q % 2]: int(rng.integers(1, 4)), docs[1 - q % 2]: int(rng.integers(0, 2)), f"x{q}": 1}
    assert n_queries * 2 * n_queries > 2**31
    assert_parity(qrels, run)


@st.composite
def shapes(draw) -> tuple[dict, dict]:
    """Random qrels/run: shared or unique docnos, tied or distinct scores, judged/unjudged/unanswered queries."""
    n_queries = draw(st.integers(1, 40))
    unique_docs = draw(st.booleans())  # True: every (query, doc) has its own docno (huge docno cardinality)
    pool = draw(st.integers(1, 30))
    tie_scale = draw(st.sampled_from([0.0, 1.0, 1000.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in range(n_queries):
        qid = f"q{rng.integers(0, 10 * n_queries + 1)}"
        names = [f"{qid}-{i}" for i in range(pool)] if unique_docs else [f"d{i}" for i in range(pool)]
        depth = int(rng.integers(1, pool + 1))
        docs = rng.choice(names, depth, replace=False)
        scores = np.round(rng.normal(size=depth) * tie_scale)
        if rng.random() < 0.9:
            run[qid] = {str(d): float(s) for d, s in zip(docs, scores)}
        judged = rng.choice(names, int(rng.integers(1, pool + 1)), replace=False)
        if rng.random() < 0.9:
            qrels[qid] = {str(d): int(g) for d, g in zip(judged, rng.integers(0, 4, size=len(judged)))}
    return qrels, run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes())
def test_random_shapes_match_pytrec_eval(case):
    qrels, run = case
    if not set(qrels) & set(run):
        return
    assert_parity(qrels, run)
