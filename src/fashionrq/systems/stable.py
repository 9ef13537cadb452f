"""Tie-stable inner products: the score of a (query, item) pair depends on those two vectors alone.

Scores are exact grid products (:mod:`fashionrq.exact`) rounded once to float32, so identical items get identical
scores and ties fall by the documented rule (lower row, or item id), not by the BLAS kernel. Systems that encode
item texts give items of one text one vector (:func:`item_vectors`), so "identical items" means identical texts,
whatever encoder batch they fell into.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from fashionrq.encoders import embed_texts, item_texts
from fashionrq.exact import Grid, grid_scores


def stable_scores(query: np.ndarray, items: Grid) -> np.ndarray:
    """Scores of one query vector against the rows of ``items`` (see :func:`grid_scores`)."""
    return grid_scores(Grid.of(query), items)[0]


def first_rows(keys: Sequence[Hashable]) -> np.ndarray:
    """For each position, the first position holding an equal key."""
    first: dict = {}
    return np.array([first.setdefault(key, i) for i, key in enumerate(keys)], dtype=np.int64)


def item_vectors(items, encoder, cache_dir=None):
    """The ``encoder``'s document vector of every item (cached, :func:`fashionrq.encoders.embed_items`), one per
    distinct item text: an encoder that batches (torch minilm) can encode a repeated text slightly differently."""
    texts = item_texts(items)
    return embed_texts(texts, encoder, kind="document", cache_dir=cache_dir)[first_rows(texts)]
