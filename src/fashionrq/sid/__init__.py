"""Semantic IDs: RQ-VAE with attribute exclusivity, vanilla RQ-VAE and residual k-means tokenizers, and diagnostics."""

from __future__ import annotations

from fashionrq.sid.base import Tokenizer, attributes_from_items, dedup_level
from fashionrq.sid.io import load_tokenizer, read_sids, save_tokenizer, write_sids
from fashionrq.sid.kmeans import ResidualKMeans
from fashionrq.sid.leaves import split_leaves
from fashionrq.sid.methods import METHODS, make_tokenizer
from fashionrq.sid.report import collisions, purity, report_table, sid_report
from fashionrq.sid.rqvae import DEFAULT_LEVEL_ATTRIBUTES, RQVAE

__all__ = [
    "DEFAULT_LEVEL_ATTRIBUTES", "METHODS", "RQVAE", "ResidualKMeans", "Tokenizer", "attributes_from_items", "collisions",
    "dedup_level", "load_tokenizer", "make_tokenizer", "purity", "read_sids", "report_table", "save_tokenizer",
    "sid_report", "split_leaves", "write_sids",
]
