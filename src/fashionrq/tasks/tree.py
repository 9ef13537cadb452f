"""A tree that fits the catalog: the codebook size chosen by the T1 anchor leaves it gives, oversized leaves split.

docs/benchmark.md ("A tree that fits the catalog") has the measurements behind these rules.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from fashionrq.hierarchy import Hierarchy, build_hierarchy
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.progress import track
from fashionrq.timing import stage

PAPER_CODEBOOK_SIZE = 64


def auto_codebook_size(n_items: int) -> int:
    """Codes per SID level from the catalog size alone: about one code per 350 items, between 4 and 64.

    64 (the paper's setting) from 22,400 items up; 6 for the 2,181-item test fixture. Below 64 it is the
    centre of the candidates :func:`fit_tree` tries.
    """
    return int(min(PAPER_CODEBOOK_SIZE, max(4, round(n_items / 350))))


def codebook_candidates(n_items: int) -> list[int]:
    """The codebook sizes :func:`fit_tree` compares: 64 alone for a large catalog, else ``auto - 2 .. auto + 1`` (>= 4)."""
    k = auto_codebook_size(n_items)
    if k == PAPER_CODEBOOK_SIZE:
        return [k]
    return sorted({max(4, c) for c in range(k - 2, k + 2)})


def t1_anchor_capacity(hierarchy: Hierarchy, min_items: int) -> int:
    """Qualified leaves with ``>= min_items`` items and a sibling leaf of ``>= min_items`` items: the most leaves
    that can anchor a full T1 pool (a pool holds two sibling leaves). Leaves that get no query lower the real count."""
    clusters = hierarchy.clusters
    big = {c.cluster_id for c in clusters.values() if c.level == 3 and c.size >= min_items}
    return sum(1 for leaf in big if clusters[leaf].qualified
               and any(s in big for s in clusters[clusters[leaf].parent].children if s != leaf))


def fit_tree(items: pa.Table, X: np.ndarray, method: str, codebook_size: int | None, seed: int, params: dict,
             cache_dir: str | Path | None, hierarchy_options: dict, min_items: int, anchor_target: int,
             split: bool = True) -> tuple[np.ndarray, dict, dict]:
    """SIDs for the catalog, the tokenizer's config and the ``construction`` record of how the tree was chosen.

    ``codebook_size=None`` compares :func:`codebook_candidates` and keeps the largest size whose tree has at
    least ``anchor_target`` T1-capable leaves (:func:`t1_anchor_capacity`), or the most capable one when none
    reaches it. ``split`` splits leaves into parts that can both anchor a pool and qualify: parts of at least
    ``min_items`` and the hierarchy's ``min_size`` items (``fashionrq.sid.split_leaves``).
    """
    from fashionrq.sid import split_leaves
    from fashionrq.tasks.release import semantic_ids

    frame = items_frame(items)
    sizes = [codebook_size] if codebook_size is not None else codebook_candidates(items.num_rows)
    trials = {}
    for k in track(sizes, f"codebook search over {sizes}", total=len(sizes)) if len(sizes) > 1 else sizes:
        sids, config = semantic_ids(items, X, method, 3, k, seed, params, cache_dir)
        leaf_split = None
        if split:
            with stage("leaf split"):
                sids, leaf_split = split_leaves(sids, X, max(min_items, hierarchy_options.get("min_size", 1)), seed)
        capacity = t1_anchor_capacity(build_hierarchy(frame, sids, **hierarchy_options), min_items) if len(sizes) > 1 else None
        trials[k] = (sids, config, leaf_split, capacity)
    chosen = _choose(trials, anchor_target) if len(sizes) > 1 else sizes[0]
    sids, config, leaf_split, _ = trials[chosen]
    record = {"codebook": {"size": chosen, "items": items.num_rows,
                           "chosen_by": "--codebook-size" if codebook_size is not None else _rule(sizes, anchor_target),
                           "candidates": {str(k): t[3] for k, t in trials.items()} if len(sizes) > 1 else None},
              "leaf_split": leaf_split}
    return sids, config, record


def _choose(trials: dict, target: int) -> int:
    reaching = [k for k, t in trials.items() if t[3] >= target]
    return max(reaching) if reaching else max(trials, key=lambda k: (trials[k][3], k))


def _rule(sizes: list[int], target: int) -> str:
    if len(sizes) == 1:
        return "catalog size (64 from 22,400 items up)"
    return f"largest of {sizes} with >= {target} T1-capable leaves (else the most capable)"
