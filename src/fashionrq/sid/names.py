"""The names of the semantic-ID methods, importable without the libraries that train them (torch, scikit-learn)."""

from __future__ import annotations

#: ``rqvae`` (RQ-VAE with the exclusivity loss), ``vanilla`` (RQ-VAE without it), ``rkmeans`` (residual k-means).
METHODS = ("rqvae", "vanilla", "rkmeans")
