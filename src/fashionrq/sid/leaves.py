"""Leaf refinement: split every oversized last-level prefix into parts of at least ``min_items`` items.

A residual quantiser gives each parent prefix at most ``K`` children whatever the parent's size, so on a
small catalog a frequent product type ends in a few huge leaves (the 2,181-item fixture with K = 6 had
T-shirt leaves of 40-70 items) while rare ones end in leaves of one or two items. An anchor leaf needs
``min_items`` items (a quarter of a T1 pool), and a huge leaf anchors one pool where it could anchor several.
:func:`split_leaves` halves such leaves recursively, label-blind, along their own embeddings: a seeded
2-means split whose cut is moved, when needed, so both halves keep ``min_items`` items.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning

from fashionrq.sid.base import normalize_rows


def _bisect(X: np.ndarray, rows: np.ndarray, min_items: int, seed: int) -> list[np.ndarray]:
    """``rows`` cut into parts of ``min_items`` to ``2 * min_items - 1`` rows (fewer rows: one part)."""
    if len(rows) < 2 * min_items:
        return [rows]
    with warnings.catch_warnings():  # a leaf of identical vectors: one cluster, cut in the middle below
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = KMeans(n_clusters=2, n_init=3, random_state=seed).fit(X[rows].astype(np.float64))
    centres = km.cluster_centers_
    order = rows[np.argsort(-(X[rows] @ (centres[0] - centres[1])), kind="stable")]
    cut = int(np.clip((km.labels_ == 0).sum(), min_items, len(rows) - min_items))
    return _bisect(X, order[:cut], min_items, seed) + _bisect(X, order[cut:], min_items, seed)


def split_leaves(sids: np.ndarray, X: np.ndarray, min_items: int, seed: int = 0) -> tuple[np.ndarray, dict]:
    """SIDs whose last-level prefixes of ``>= 2 * min_items`` items are split into parts of ``>= min_items``.

    Coarser levels are unchanged. The last code of every item is renumbered within its parent prefix
    (0, 1, ... in the order of the original code, then of the part), so codes may exceed the codebook size.
    Returns the new SIDs and a report: leaves before and after, and how many were split.
    """
    sids = np.asarray(sids, dtype=np.int64)
    X = normalize_rows(np.asarray(X, dtype=np.float32))
    leaves, leaf_of = np.unique(sids, axis=0, return_inverse=True)
    members = np.split(np.argsort(leaf_of.reshape(-1), kind="stable"), np.cumsum(np.bincount(leaf_of.reshape(-1)))[:-1])
    out = sids.copy()
    parts_of: dict[tuple, int] = {}
    split = after = 0
    for leaf, rows in enumerate(members):  # np.unique sorts the leaves, so parts are numbered in code order
        parts = _bisect(X, rows, min_items, seed)
        parent = tuple(leaves[leaf, :-1].tolist())
        for part in parts:
            out[part, -1] = parts_of.get(parent, 0)
            parts_of[parent] = parts_of.get(parent, 0) + 1
        split += len(parts) > 1
        after += len(parts)
    return out, {"min_items": min_items, "leaves_before": len(leaves), "leaves_after": after, "leaves_split": split}
