"""Item claims: which task owns each item and in how many candidate lists it sits.

Every item belongs to at most one task (T1/T4, T2 or T3), so no public file of one task can be
cross-referenced with another. Within a task, draws take the least-used items first, so an item is used
once wherever the catalog allows and recurrence stays flat across tiers where it does not.
"""

from __future__ import annotations

import random

import numpy as np

OWNERS = {"t1": 1, "t2": 2, "t3": 3}


class ItemClaims:
    """Owner task and use count of every item row."""

    def __init__(self, n_items: int) -> None:
        self.owner = np.zeros(n_items, dtype=np.int8)
        self.count = np.zeros(n_items, dtype=np.int64)

    def free(self, rows: np.ndarray, task: str, reuse: bool) -> np.ndarray:
        """The rows of ``rows`` that ``task`` may draw: unowned ones, plus its own when ``reuse``."""
        owner = self.owner[rows]
        ok = owner == 0
        if reuse:
            ok |= owner == OWNERS[task]
        return rows[ok]

    def draw(self, rnd: random.Random, rows: np.ndarray, k: int, task: str, reuse: bool = False) -> list[int] | None:
        """``k`` rows of ``rows`` for ``task``, least-used first (seeded tie-break); ``None`` when fewer are free."""
        free = self.free(np.asarray(rows, dtype=np.int64), task, reuse)
        if len(free) < k:
            return None
        noise = random_floats(rnd, len(free))
        chosen = free[np.lexsort((noise, self.count[free]))[:k]]
        self.take(chosen, task)
        return chosen.tolist()

    def take(self, rows, task: str) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        self.owner[rows] = OWNERS[task]
        np.add.at(self.count, rows, 1)


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


def nearest(embeddings: np.ndarray | None, own: list[int], rows: np.ndarray, window: int) -> np.ndarray:
    """The ``window`` rows of ``rows`` nearest the centroid of ``own`` (cosine); all of ``rows`` without embeddings."""
    if embeddings is None or len(rows) <= window:
        return rows
    centroid = embeddings[own].mean(axis=0)
    sims = (embeddings @ centroid)[rows]  # one pass over the matrix, no copy of its rows
    keep = np.argpartition(-sims, window - 1)[:window]
    return np.sort(rows[keep])
