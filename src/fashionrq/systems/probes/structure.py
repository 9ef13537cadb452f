"""The query-blind structure classifier: a candidate set's own cluster structure, re-derived from the public items.

It re-tokenizes the public items with a residual k-means of its own (another seed than any build's, on the same
kind of item vectors the construction embeds), and describes each candidate of a pool by how many of the other
candidates share its level-1, level-2 and level-3 code prefix, and by its closeness to the pool's centroid. On T2
these features go, like every system's, to the dev-label calibrator (:mod:`fashionrq.systems.t2`). The query is
never read. A T2 set holds two items of each grade around one anchor leaf, so its structure alone tells the
anchor's neighbourhood (Exact and Sibling) from the far items (Related, Irrelevant): issue 25 measured such a
classifier at 0.54-0.56 macro-F1 on a release where the built-in systems read 0.50-0.54. Every real system must
score above it on every headline, or the task does not measure reading the query.
"""

from __future__ import annotations

import numpy as np

from fashionrq.sid.kmeans import ResidualKMeans
from fashionrq.systems.probes.centroid import QueryBlindCentroid
from fashionrq.systems.probes.view import Pool, PublicView

#: The re-derived tokenizer's seed: none of a build's (builds seed their tokenizer with the construction seed).
STRUCTURE_SEED = 7919
#: Codes per level: about one per 350 items, as the build's default search, between 4 and 64.
ITEMS_PER_CODE = 350


def codebook_size(n_items: int) -> int:
    return int(np.clip(round(n_items / ITEMS_PER_CODE), 4, 64))


class QueryBlindStructure(QueryBlindCentroid):
    """Per candidate: the share of the pool's other candidates sharing its level-1/2/3 prefix under a residual
    k-means re-trained on the public item vectors, and its closeness to the pool's centroid; ranks by their sum."""

    name = "query-blind-structure"
    attack = ("the candidate set's own cluster structure: shared code prefixes under a tokenizer re-trained on the public "
              "items, and closeness to the set's centroid; the query is never read")

    def fit(self, view: PublicView) -> QueryBlindStructure:
        super().fit(view)
        tokenizer = ResidualKMeans(levels=3, codebook_size=codebook_size(len(self.vectors_)), seed=STRUCTURE_SEED)
        codes = tokenizer.fit(self.vectors_).codes(self.vectors_)
        self.prefixes_ = np.stack([np.unique(codes[:, :level + 1], axis=0, return_inverse=True)[1].ravel()
                                   for level in range(3)], axis=1)
        return self

    def _structure(self, pool: Pool) -> np.ndarray:
        """``(n, 3)``: the share of the other candidates with the candidate's level-1, -2, -3 prefix."""
        prefixes = self.prefixes_[[self.row_[c] for c in pool.candidates]]
        same = np.empty(prefixes.shape, dtype=np.float64)
        for level in range(prefixes.shape[1]):  # by counting, not pairwise: an open-corpus pool is the whole catalog
            _, inverse, counts = np.unique(prefixes[:, level], return_inverse=True, return_counts=True)
            same[:, level] = counts[inverse.ravel()] - 1
        return same / max(len(prefixes) - 1, 1)

    def primary(self, pool: Pool) -> np.ndarray:
        return self._structure(pool).sum(axis=1) + super().primary(pool)

    def t2_features(self, pool: Pool) -> np.ndarray:
        closeness = super().primary(pool)
        return np.column_stack([self._structure(pool), closeness, self._ranked(pool, self.attack_scores(pool)) / len(closeness)])

    def config(self) -> dict:
        return {**super().config(), "tokenizer": "rkmeans", "tokenizer_seed": STRUCTURE_SEED}
