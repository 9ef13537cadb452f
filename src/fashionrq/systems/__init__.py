"""Retrieval systems: the Retriever interface, built-in baselines, plug-ins, the verifier reranker and label-blind runs."""

from fashionrq.systems.base import BaseRetriever, Retriever, top_k
from fashionrq.systems.bench import LabelAccessError, PublicBench
from fashionrq.systems.registry import ENTRY_POINT_GROUP, builtin_systems, get_reranker, get_system
from fashionrq.systems.run import REGIMES, run_system
from fashionrq.systems.t2 import GradeCalibrator

__all__ = [
    "ENTRY_POINT_GROUP", "REGIMES", "BaseRetriever", "GradeCalibrator", "LabelAccessError", "PublicBench", "Retriever",
    "builtin_systems", "get_reranker", "get_system", "run_system", "top_k",
]
