"""A tree that fits the catalog: the codebook size chosen by the bootstrap units every task gets, oversized leaves split.

docs/benchmark.md ("A tree that fits the catalog") has the measurements behind these rules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa

from fashionrq.hierarchy import Hierarchy
from fashionrq.pinned import pinned_session, run_pinned
from fashionrq.progress import track
from fashionrq.sid import split_leaves
from fashionrq.tasks.sids import semantic_ids
from fashionrq.timing import stage

PAPER_CODEBOOK_SIZE = 64


def auto_codebook_size(n_items: int) -> int:
    """Codes per SID level from the catalog size alone: about one code per 350 items, between 4 and 64.

    64 (the paper's setting) from 22,400 items up; 6 for the 2,181-item test fixture. Below 64 it is the
    centre of the candidates :func:`fit_tree` tries.
    """
    return int(min(PAPER_CODEBOOK_SIZE, max(4, round(n_items / 350))))


#: At most this many codebook sizes are compared below 64 (each is one SID training and one task plan).
CANDIDATES = 6


def codebook_candidates(n_items: int) -> list[int]:
    """The codebook sizes :func:`fit_tree` compares: 64 alone for a large catalog, else up to :data:`CANDIDATES`
    sizes spread evenly from half to one and a half times :func:`auto_codebook_size` (at least 4, below 64);
    integer arithmetic only, so every machine compares the same sizes."""
    k = auto_codebook_size(n_items)
    if k == PAPER_CODEBOOK_SIZE:
        return [k]
    low, high = max(4, k // 2), min(PAPER_CODEBOOK_SIZE - 1, k + k // 2)
    steps = min(CANDIDATES - 1, high - low)
    return sorted({low + (high - low) * i // steps for i in range(steps + 1)}) if steps else [low]


def t1_anchor_capacity(hierarchy: Hierarchy, min_items: int) -> int:
    """Qualified leaves with ``>= min_items`` items and a sibling leaf of ``>= min_items`` items: the most leaves
    that can anchor a full T1 pool (a pool holds two sibling leaves). Leaves that get no query lower the real count."""
    clusters = hierarchy.clusters
    big = {c.cluster_id for c in clusters.values() if c.level == 3 and c.size >= min_items}
    return sum(1 for leaf in big if clusters[leaf].qualified
               and any(s in big for s in clusters[clusters[leaf].parent].children if s != leaf))


def fit_tree(items: pa.Table, X: np.ndarray, method: str, codebook_size: int | None, seed: int, params: dict,
             cache_dir: str | Path | None, min_items: int, units_of: Callable[[np.ndarray], dict[str, int]],
             split: bool = True) -> tuple[np.ndarray, dict, dict]:
    """SIDs for the catalog, the tokenizer's config and the ``construction`` record of how the tree was chosen.

    ``codebook_size=None`` compares :func:`codebook_candidates` and keeps the size whose task plan gives its weakest
    task the most bootstrap units (``units_of(sids)``: units per task; the larger size on a tie). ``split`` splits
    leaves into parts that can both anchor a pool and qualify: parts of at least ``min_items`` items
    (``fashionrq.sid.split_leaves``).
    """
    sizes = [codebook_size] if codebook_size is not None else codebook_candidates(items.num_rows)
    trials = {}
    with pinned_session():  # one pinned child for every candidate's training and leaf split
        for k in track(sizes, f"codebook search over {sizes}", total=len(sizes)) if len(sizes) > 1 else sizes:
            sids, config = semantic_ids(items, X, method, 3, k, seed, params, cache_dir)
            leaf_split = None
            if split:
                with stage("leaf split"):
                    sids, leaf_split = run_pinned(split_leaves, sids, X, min_items, seed)
            trials[k] = (sids, config, leaf_split, units_of(sids) if len(sizes) > 1 else None)
    chosen = max(trials, key=lambda k: (min(trials[k][3].values()), k)) if len(sizes) > 1 else sizes[0]
    sids, config, leaf_split, _ = trials[chosen]
    record = {"codebook": {"size": chosen, "items": items.num_rows,
                           "chosen_by": "--codebook-size" if codebook_size is not None else _rule(sizes),
                           "candidates": {str(k): t[3] for k, t in trials.items()} if len(sizes) > 1 else None},
              "leaf_split": leaf_split}
    return sids, config, record


def _rule(sizes: list[int]) -> str:
    if len(sizes) == 1:
        return "catalog size (64 from 22,400 items up)"
    return f"of {sizes}, the size whose task plan gives the weakest task the most bootstrap units (the larger on a tie)"
