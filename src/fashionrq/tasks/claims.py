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
    """Owner task of every item row (0: not drawn yet), and which rows are open-corpus anchors' (``open_rows``)."""

    def __init__(self, n_items: int, open_rows: np.ndarray | None = None) -> None:
        self.owner = np.zeros(n_items, dtype=np.int8)
        self.open = np.zeros(n_items, dtype=bool)
        if open_rows is not None:
            self.open[np.asarray(open_rows, dtype=np.int64)] = True

    def free(self, rows: np.ndarray) -> np.ndarray:
        """The rows of ``rows`` that no task has drawn yet."""
        return rows[self.owner[rows] == 0]

    def draw(self, rnd: random.Random, rows: np.ndarray, k: int, task: str, balance: bool = False) -> list[int] | None:
        """``k`` free rows of ``rows`` for ``task`` (seeded order); ``None`` when fewer are free.

        ``balance`` (the Related and Irrelevant tiers): while open-corpus anchors' items sit in fewer public lists, in
        proportion, than the other items, they are drawn first, and the others first once they sit in more. Open-corpus
        anchors are no other task's anchor, so without this their items would be listed less often than the
        catalog's, and "never listed" would point at open-corpus answers (``probe-rarity``)."""
        free = self.free(np.asarray(rows, dtype=np.int64))
        if len(free) < k:
            return None
        order = np.argsort(random_floats(rnd, len(free)), kind="stable")
        if balance and self.open.any() and not self.open.all():
            behind = self._listed_share(self.open) < self._listed_share(~self.open)
            order = order[np.argsort(self.open[free[order]] != behind, kind="stable")]  # the preferred rows first
        chosen = free[order[:k]]
        self.owner[chosen] = OWNERS[task]
        return chosen.tolist()

    def _listed_share(self, mask: np.ndarray) -> float:
        return float(np.count_nonzero(self.owner[mask])) / int(np.count_nonzero(mask))

    def release(self, rows: list[int]) -> None:
        """Give ``rows`` back (an unfillable unit's items), so later draws may use them."""
        self.owner[np.asarray(rows, dtype=np.int64)] = 0


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
