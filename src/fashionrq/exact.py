"""Arithmetic whose result does not depend on the CPU: products of integers on power-of-two grids.

A float matrix product does not promise the same bits on every machine: BLAS kernels block and vectorise by
instruction set and by a row's position, so the same two vectors can get scores that differ in the last bit
(issue 21, on an AVX-512 EPYC). Here every vector is first put on its own power-of-two grid: ``row · 2**e``
rounded to integers of at most :func:`grid_bits` bits, ``e`` chosen from the row's largest entry. The product of
two grids is taken in float64, where every partial sum of such integers is an integer of at most 2**53: every
addition is exact, so any summation order, blocking, batch or CPU gives the same number. It is scaled back by
the two exact powers of two. At 384 dimensions the grid keeps 22 bits of a row's largest entry (a relative step of
2**-22), about float32's own precision.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Exact float64 integers: every partial sum of a grid dot product stays below this.
_EXACT_BITS = 53


def grid_bits(dim: int, exact_bits: int = _EXACT_BITS) -> int:
    """Bits per grid entry at ``dim`` dimensions: ``dim · (2**bits)**2 ≤ 2**exact_bits``, so no partial sum is rounded
    (53 for float64 sums, 62 for int64 ones)."""
    return (exact_bits - math.ceil(math.log2(max(dim, 1)))) // 2


def grid_exponents(vectors: np.ndarray, bits: int, axis: int = -1) -> np.ndarray:
    """Per slice along ``axis``, the power of two that puts the slice's largest entry just under ``2**bits``."""
    _, peak = np.frexp(np.abs(vectors).max(axis=axis, initial=0.0))  # largest entry < 2**peak
    return bits - peak


@dataclass(frozen=True)
class Grid:
    """Rows of vectors as integers: ``values[i] = rint(vector[i] · 2**exponents[i])``, float64, ``|entry| ≤ 2**bits``."""

    values: np.ndarray
    exponents: np.ndarray

    @classmethod
    def of(cls, vectors: np.ndarray) -> Grid:
        """The grid of each row of ``vectors`` (one vector or a matrix); a row's grid depends on that row alone."""
        rows = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
        exponents = grid_exponents(rows, grid_bits(rows.shape[1]))
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


def row_norms(vectors: np.ndarray) -> np.ndarray:
    """The L2 norm of each row, from an exact int64 sum of squares on the row's grid (a relative step of
    2**-26 at 384 entries), then one square root: the same bits for a row wherever it sits, on any CPU."""
    rows = np.asarray(vectors, dtype=np.float64)
    exponents = grid_exponents(rows, grid_bits(rows.shape[-1], exact_bits=62))
    grid = np.rint(np.ldexp(rows, exponents[..., None])).astype(np.int64)
    return np.ldexp(np.sqrt(np.einsum("...i,...i->...", grid, grid).astype(np.float64)), -exponents)
