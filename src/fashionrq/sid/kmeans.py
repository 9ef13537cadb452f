"""Seeded k-means (codebook initialisation) and the residual k-means baseline tokenizer."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from sklearn.cluster import KMeans

from fashionrq.sid.base import Tokenizer, check_embeddings, nearest_codes, normalize_rows


def kmeans_codebook(X: np.ndarray, k: int, seed: int, sample: int = 16384, max_iter: int = 50) -> np.ndarray:
    """``k`` centroids of (a seeded sample of at most ``sample`` rows of) ``X`` by k-means++ / Lloyd."""
    rng = np.random.default_rng(seed)
    if len(X) > sample:
        X = X[np.sort(rng.choice(len(X), sample, replace=False))]
    km = KMeans(n_clusters=k, n_init=1, max_iter=max_iter, random_state=seed, algorithm="lloyd")
    return km.fit(X.astype(np.float64)).cluster_centers_


class ResidualKMeans(Tokenizer):
    """Residual k-means on unit-normalised embeddings: level l clusters the residual left by levels < l."""

    method = "rkmeans"

    def __init__(self, levels: int = 3, codebook_size: int = 64, seed: int = 0, sample: int = 16384, dedup: bool = False) -> None:
        self.levels = levels
        self.codebook_size = codebook_size
        self.seed = seed
        self.sample = sample
        self.dedup = dedup

    def config(self) -> dict:
        return {"method": self.method, "levels": self.levels, "codebook_size": self.codebook_size, "seed": self.seed,
                "sample": self.sample, "dedup": self.dedup}

    def fit(self, X: np.ndarray, attributes: Mapping[str, np.ndarray] | None = None) -> ResidualKMeans:
        """Fit one k-means codebook per level on the residuals (``attributes`` is accepted and ignored)."""
        residual = normalize_rows(check_embeddings(X, self.codebook_size))
        books = []
        for level in range(self.levels):
            book = kmeans_codebook(residual, self.codebook_size, self.seed + level, self.sample)
            residual = residual - book[nearest_codes(residual, book)]
            books.append(book)
        self.codebooks_ = np.stack(books)
        self.dim_ = residual.shape[1]
        self.fitted_ = True
        return self

    def codes(self, X: np.ndarray) -> np.ndarray:
        self._check_fitted()
        residual = normalize_rows(X)
        out = np.empty((len(residual), self.levels), dtype=np.int64)
        for level, book in enumerate(self.codebooks_):
            out[:, level] = nearest_codes(residual, book)
            residual -= book[out[:, level]]
        return out

    def reconstruction_error(self, X: np.ndarray) -> float:
        """Mean squared distance between the unit-normalised rows and the sum of their codewords."""
        X = normalize_rows(check_embeddings(X, 0))
        codes = self.codes(X)
        recon = sum(self.codebooks_[level][codes[:, level]] for level in range(self.levels))
        return float(((X - recon) ** 2).sum(axis=1).mean())

    def state(self) -> dict:
        return {"codebooks": self.codebooks_}

    def load_state(self, state: Mapping[str, np.ndarray]) -> None:
        self.codebooks_ = np.asarray(state["codebooks"], dtype=np.float32)
        self.dim_ = self.codebooks_.shape[2]
        self.fitted_ = True
