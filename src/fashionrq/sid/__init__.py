"""Semantic IDs: RQ-VAE with attribute exclusivity, vanilla RQ-VAE and residual k-means tokenizers, and diagnostics."""

from __future__ import annotations

from fashionrq.errors import InputError
from fashionrq.sid.base import Tokenizer, attributes_from_items, dedup_level
from fashionrq.sid.io import load_tokenizer, read_sids, save_tokenizer, write_sids
from fashionrq.sid.kmeans import ResidualKMeans
from fashionrq.sid.leaves import split_leaves
from fashionrq.sid.report import collisions, purity, report_table, sid_report
from fashionrq.sid.rqvae import DEFAULT_LEVEL_ATTRIBUTES, RQVAE

METHODS = ("rqvae", "vanilla", "rkmeans")


def make_tokenizer(method: str, **params) -> Tokenizer:
    """A tokenizer by name: ``rqvae`` (with exclusivity loss), ``vanilla`` (weight 0) or ``rkmeans`` (residual k-means)."""
    if method == "rqvae":
        return RQVAE(**params)
    if method == "vanilla":
        params = {**params, "exclusivity_weight": 0.0}
        return RQVAE(**params)
    if method == "rkmeans":
        keep = {k: v for k, v in params.items() if k in ("levels", "codebook_size", "seed", "sample", "dedup")}
        return ResidualKMeans(**keep)
    raise InputError(f"unknown semantic-ID method {method!r}; choose one of {', '.join(METHODS)}.")


__all__ = [
    "DEFAULT_LEVEL_ATTRIBUTES", "METHODS", "RQVAE", "ResidualKMeans", "Tokenizer", "attributes_from_items", "collisions",
    "dedup_level", "load_tokenizer", "make_tokenizer", "purity", "read_sids", "report_table", "save_tokenizer",
    "sid_report", "split_leaves", "write_sids",
]
