"""How many anchor leaves can fill a T1 pool, per codebook size: ``python scripts/codebook_sweep.py CATALOG METHOD K...``.

Embeds the catalog with minilm (cached), fits METHOD (rqvae, rkmeans, vanilla) with each K, builds the
hierarchy and prints the qualified leaves and those with at least 10 items (a quarter of a 40-item pool).
Quoted in docs/benchmark.md ("A tree that fits the catalog").
"""

from __future__ import annotations

import sys

import numpy as np

from fashionrq.catalog import ingest
from fashionrq.encoders import embed_items, get_encoder
from fashionrq.hierarchy import build_hierarchy
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.tasks import semantic_ids


def main(catalog: str, method: str, sizes: list[int]) -> None:
    items = ingest(catalog).table
    X = embed_items(items, get_encoder("minilm"))
    for k in sizes:
        sids, _ = semantic_ids(items, X, method, 3, k, 0, {}, None)
        leaves = build_hierarchy(items_frame(items), sids).qualified(level=3)
        sizes_ = np.array([c.size for c in leaves])
        print(f"{method} K={k}: {len(leaves)} qualified leaves, {int((sizes_ >= 10).sum())} with >= 10 items")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], [int(k) for k in sys.argv[3:]])
