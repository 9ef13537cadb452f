"""Metrics: TREC qrels/run IO and trec_eval-compatible ranking metrics, classification and consistency metrics.

Definitions are in docs/metrics.md. Small ranx-like API::

    qrels, run = read_qrels("t1.qrels"), read_run("t1.run")
    evaluate(qrels, run, ["ndcg_cut.10", "recall.10", "recip_rank"])
"""

from fashionrq.metrics.classification import accuracy, classification_metrics, confusion_matrix, macro_f1, per_class_prf
from fashionrq.metrics.ranking import Metric, compare, consistency, evaluate, jaccard_consistency, parse_metrics
from fashionrq.metrics.trec import Qrels, Run, RunCheck, check_run_against_qrels, read_qrels, read_run, write_qrels, write_run

__all__ = [
    "Metric",
    "Qrels",
    "Run",
    "RunCheck",
    "accuracy",
    "check_run_against_qrels",
    "classification_metrics",
    "compare",
    "confusion_matrix",
    "consistency",
    "evaluate",
    "jaccard_consistency",
    "macro_f1",
    "parse_metrics",
    "per_class_prf",
    "read_qrels",
    "read_run",
    "write_qrels",
    "write_run",
]
