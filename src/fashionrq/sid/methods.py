"""The tokenizer methods by name: ``rqvae`` (RQ-VAE with the exclusivity loss), ``vanilla`` (RQ-VAE without it)
and ``rkmeans`` (residual k-means)."""

from __future__ import annotations

from fashionrq.errors import InputError
from fashionrq.sid.base import Tokenizer
from fashionrq.sid.kmeans import ResidualKMeans
from fashionrq.sid.names import METHODS
from fashionrq.sid.rqvae import RQVAE


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
