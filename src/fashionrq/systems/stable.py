"""Tie-stable inner products: the score of a (query, item) pair depends on those two vectors alone.

A float32 matrix product does not guarantee that: BLAS kernels block and vectorise rows by their position, so
two identical item vectors at rows r and r + 50 can get scores that differ in the last bit (issue 21, on an
AVX-512 EPYC), and ties then fall by the kernel, not by the documented rule (lower row, or item id). Here every
vector is first put on its own power-of-two grid: ``row · 2**e`` rounded to integers of at most
:func:`grid_bits` bits, ``e`` chosen from the row's largest entry. The product of two grids is taken in float64,
where every partial sum of such integers is an integer of at most 2**53: every addition is exact, so any summation
order, blocking, batch or CPU gives the same number. It is scaled back by the two exact powers of two and
rounded once to float32. Systems that encode item texts give items of one text one vector (:func:`item_vectors`),
so "identical items" means identical texts, whatever encoder batch they fell into. The grid keeps 22 bits of the
row's largest entry at 384 dimensions (a relative step of 2**-22), about float32's own precision.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

#: Exact float64 integers: every partial sum of a grid dot product stays below this.
_EXACT_BITS = 53


def grid_bits(dim: int) -> int:
    """Bits per grid entry at ``dim`` dimensions: ``dim · (2**bits)**2 ≤ 2**53``, so no partial sum is rounded."""
    return (_EXACT_BITS - math.ceil(math.log2(max(dim, 1)))) // 2


@dataclass(frozen=True)
class Grid:
    """Rows of vectors as integers: ``values[i] = rint(vector[i] · 2**exponents[i])``, float64, ``|entry| ≤ 2**bits``."""

    values: np.ndarray
    exponents: np.ndarray

    @classmethod
    def of(cls, vectors: np.ndarray) -> Grid:
        """The grid of each row of ``vectors`` (one vector or a matrix); a row's grid depends on that row alone."""
        rows = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
        _, peak = np.frexp(np.abs(rows).max(axis=1, initial=0.0))  # largest entry < 2**peak
        exponents = grid_bits(rows.shape[1]) - peak
        return cls(np.rint(np.ldexp(rows, exponents[:, None])), exponents)

    def __len__(self) -> int:
        return len(self.values)

    def take(self, rows: np.ndarray) -> Grid:
        """The grid of the given rows."""
        return Grid(self.values[rows], self.exponents[rows])


def grid_scores(queries: Grid, items: Grid) -> np.ndarray:
    """``(queries, items)`` float32 inner products, each the rounded exact dot product of the two grids."""
    exact = queries.values @ items.values.T
    return (exact * np.ldexp(1.0, -queries.exponents)[:, None] * np.ldexp(1.0, -items.exponents)[None, :]).astype(np.float32)


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
    from fashionrq.encoders import embed_texts, item_texts

    texts = item_texts(items)
    return embed_texts(texts, encoder, kind="document", cache_dir=cache_dir)[first_rows(texts)]
