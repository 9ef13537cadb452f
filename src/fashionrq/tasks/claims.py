"""Item claims: which task owns each item.

Every item sits in at most one candidate list of one task (T1/T4, T2 or T3), so no public file of one task
can be cross-referenced with another, and how often an item appears says nothing about its grade. A
catalog too small for disjoint lists gets fewer lists (reported as unfillable), never reused items.
"""

from __future__ import annotations

import random

import numpy as np

from fashionrq.exact import Grid, grid_scores

OWNERS = {"t1": 1, "t2": 2, "t3": 3}


class ItemClaims:
    """Owner task of every item row (0: not drawn yet), and ``open_grades``: per row, how many open-corpus queries
    grade it 1, 2 and 3 (a column each)."""

    def __init__(self, n_items: int, open_grades: np.ndarray | None = None) -> None:
        self.owner = np.zeros(n_items, dtype=np.int8)
        self.grades = np.zeros((n_items, 3), dtype=np.int64) if open_grades is None else np.asarray(open_grades, dtype=np.int64)
        self.graded = [int(total) for total in self.grades.sum(axis=0)]  # integers: the same on every CPU
        self.listed = 0
        self.listed_graded = [0, 0, 0]

    def free(self, rows: np.ndarray) -> np.ndarray:
        """The rows of ``rows`` that no task has drawn yet."""
        return rows[self.owner[rows] == 0]

    def draw(self, rnd: random.Random, rows: np.ndarray, k: int, task: str, balance: bool = False) -> list[int] | None:
        """``k`` free rows of ``rows`` for ``task`` (seeded order); ``None`` when fewer are free.

        ``balance`` (the Related and Irrelevant tiers) draws first the rows that bring the share of each open-corpus
        grade's (query, item) pairs whose item sits in a public list closest to the share of items listed
        (:meth:`_benefit`). Open-corpus anchors are no other task's anchor, and the draws avoid items that fully
        match many queries, so without this an open-corpus query's items (its leaf's, its siblings' and cousins',
        its full matches) would be listed less often than the catalog's, and "never listed" would point at
        open-corpus answers (``probe-rarity``)."""
        free = self.free(np.asarray(rows, dtype=np.int64))
        if len(free) < k:
            return None
        order = np.argsort(random_floats(rnd, len(free)), kind="stable")
        if balance and any(self.graded):
            order = order[np.argsort(-self._benefit(free[order]), kind="stable")]  # the preferred rows first
        chosen = free[order[:k]]
        self._count(chosen, 1)
        self.owner[chosen] = OWNERS[task]
        return chosen.tolist()

    def _benefit(self, rows: np.ndarray) -> np.ndarray:
        """How much listing each row brings every grade's listed share of pairs towards the items' listed share (the
        descent direction of the sum of their squared gaps; a row that no open query grades brings 0). Elementwise
        float operations in a fixed order, so the same bits on every CPU."""
        items = len(self.owner)
        benefit = np.zeros(len(rows))
        for g, (graded, listed) in enumerate(zip(self.graded, self.listed_graded)):
            if graded:
                benefit += self.grades[rows, g] * ((self.listed / items - listed / graded) / graded)
        return benefit

    def _count(self, rows: np.ndarray, sign: int) -> None:
        self.listed += sign * len(rows)
        for g in range(3):
            self.listed_graded[g] += sign * int(self.grades[rows, g].sum())

    def release(self, rows: list[int]) -> None:
        """Give ``rows`` back (an unfillable unit's items), so later draws may use them."""
        rows = np.asarray(rows, dtype=np.int64)
        held = rows[self.owner[rows] != 0]
        self._count(held, -1)
        self.owner[held] = 0


def random_floats(rnd: random.Random, n: int) -> np.ndarray:
    """``[rnd.random() for _ in range(n)]`` as an array, bit for bit, without a Python call per number.

    ``random()`` takes two 32-bit Mersenne Twister words a, b and returns ``((a >> 5) * 2**26 + (b >> 6)) / 2**53``;
    ``getrandbits(64 n)`` draws the same 2n words in the same order (first word least significant) and leaves the
    generator in the same state.
    """
    if n == 0:
        return np.zeros(0)
    words = np.frombuffer(rnd.getrandbits(64 * n).to_bytes(8 * n, "little"), dtype="<u4").astype(np.uint64)
    return ((words[0::2] >> 5) * 67108864 + (words[1::2] >> 6)) / 9007199254740992.0


def nearest(vectors: Grid | None, own: list[int], rows: np.ndarray, window: int) -> np.ndarray:
    """The ``window`` rows of ``rows`` nearest the centroid of ``own`` (inner products of the items' grids,
    :mod:`fashionrq.exact`: exact, so the window is the same on every CPU, ties included); all of ``rows``
    without vectors."""
    if vectors is None or len(rows) <= window:
        return rows
    centroid = np.ldexp(vectors.values[own], -vectors.exponents[own][:, None]).mean(axis=0)
    sims = grid_scores(Grid.of(centroid), vectors.take(rows))[0]
    # the window-th highest score, every row above it, and of the rows tied at it the lowest: argpartition's choice
    # among ties depends on numpy's sorting kernel, which differs between AVX2 and AVX-512 CPUs
    cut = np.partition(sims, len(sims) - window)[len(sims) - window]
    above, tied = np.flatnonzero(sims > cut), np.flatnonzero(sims == cut)
    tied = tied[np.argsort(rows[tied], kind="stable")][:window - len(above)]
    return np.sort(rows[np.concatenate([above, tied])])
