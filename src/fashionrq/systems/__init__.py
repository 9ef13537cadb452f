"""Retrieval systems: the Retriever interface, built-in baselines, plug-ins, the verifier reranker and label-blind runs."""

from fashionrq.release import LabelAccessError, Release
from fashionrq.systems.adapter import RetrieverAdapter, as_retriever
from fashionrq.systems.base import BaseRetriever, BatchRetriever, Retriever, SearchRetriever, top_k
from fashionrq.systems.registry import ENTRY_POINT_GROUP, builtin_systems, get_reranker, get_system
from fashionrq.systems.regimes import REGIMES, candidate_view, regime_of
from fashionrq.systems.run import run_system, run_systems
from fashionrq.systems.t2 import GradeCalibrator

__all__ = [
    "ENTRY_POINT_GROUP", "REGIMES", "BaseRetriever", "BatchRetriever", "GradeCalibrator", "LabelAccessError", "Release",
    "Retriever", "RetrieverAdapter", "SearchRetriever", "as_retriever", "builtin_systems", "candidate_view", "get_reranker",
    "get_system", "regime_of", "run_system", "run_systems", "top_k",
]
