"""The query-blind baseline: rank a pool's candidates by closeness to the pool's own centroid, never reading the query."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fashionrq.encoders import get_encoder
from fashionrq.systems.probes.attacks import Probe
from fashionrq.systems.probes.view import Pool, PublicView
from fashionrq.exact import Grid
from fashionrq.ieee import vector_norm
from fashionrq.systems.stable import item_vectors, stable_scores


class QueryBlindCentroid(Probe):
    """Cosine of each candidate's item vector to the mean vector of its pool (minilm item vectors by default),
    tie-stable (:mod:`fashionrq.systems.stable`): identical candidates of a pool get one score.

    It measures how much of a score the shape of a pool gives away: when relevant items cluster and
    negatives come from anywhere, the centroid sits among the relevant items.
    """

    name = "query-blind"
    attack = "closeness of the candidate to its pool's centroid in item-embedding space; the query is never read"
    query_free = True

    def __init__(self, encoder: str = "minilm", seed: int = 0, cache_dir: str | Path | None = None) -> None:
        super().__init__(seed)
        self.encoder = encoder
        self.cache_dir = cache_dir

    def fit(self, view: PublicView) -> QueryBlindCentroid:
        super().fit(view)
        encoder = get_encoder(self.encoder)
        if encoder.kind == "sparse":
            raise ValueError(f"query-blind needs a dense encoder, not {self.encoder}")
        self.vectors_ = np.asarray(item_vectors(view.items, encoder, cache_dir=self.cache_dir), dtype=np.float32)
        self.row_ = {str(item): i for i, item in enumerate(view.items.column("item_id").to_pylist())}
        return self

    def primary(self, pool: Pool) -> np.ndarray:
        vectors = self.vectors_[[self.row_[c] for c in pool.candidates]]
        centroid = vectors.mean(axis=0)
        norm = vector_norm(centroid)
        return stable_scores(centroid / norm, Grid.of(vectors)) if norm > 0 else np.zeros(len(vectors))

    def config(self) -> dict:
        return {**super().config(), "encoder": self.encoder}
