"""Item claims: which task owns each item.

Every item sits in at most one candidate list of one task (T1/T4, T2 or T3), so no public file of one task
can be cross-referenced with another, and how often an item appears says nothing about its grade. A
catalog too small for disjoint lists gets fewer lists (reported as unfillable), never reused items.
"""

from __future__ import annotations

import random

import numpy as np

OWNERS = {"t1": 1, "t2": 2, "t3": 3}


class ItemClaims:
    """Owner task of every item row (0: not drawn yet)."""

    def __init__(self, n_items: int) -> None:
        self.owner = np.zeros(n_items, dtype=np.int8)

    def free(self, rows: np.ndarray) -> np.ndarray:
        """The rows of ``rows`` that no task has drawn yet."""
        return rows[self.owner[rows] == 0]

    def draw(self, rnd: random.Random, rows: np.ndarray, k: int, task: str) -> list[int] | None:
        """``k`` free rows of ``rows`` for ``task`` (seeded order); ``None`` when fewer are free."""
        free = self.free(np.asarray(rows, dtype=np.int64))
        if len(free) < k:
            return None
        noise = np.array([rnd.random() for _ in range(len(free))])
        chosen = free[np.argsort(noise, kind="stable")[:k]]
        self.owner[chosen] = OWNERS[task]
        return chosen.tolist()


def nearest(embeddings: np.ndarray | None, own: list[int], rows: np.ndarray, window: int) -> np.ndarray:
    """The ``window`` rows of ``rows`` nearest the centroid of ``own`` (cosine); all of ``rows`` without embeddings."""
    if embeddings is None or len(rows) <= window:
        return rows
    centroid = embeddings[own].mean(axis=0)
    sims = embeddings[rows] @ centroid
    keep = np.argpartition(-sims, window - 1)[:window]
    return np.sort(rows[keep])
