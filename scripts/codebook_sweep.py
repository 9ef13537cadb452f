"""T1 anchor leaves per codebook size, with and without leaf splitting: ``python scripts/codebook_sweep.py CATALOG METHOD K...``.

Embeds the catalog with minilm (cached), fits METHOD (rqvae, rkmeans, vanilla) with each K, and for the raw
tree and the tree with oversized leaves split (``fashionrq.sid.split_leaves``) prints: leaves, qualified
leaves (article-type purity >= 0.8), qualified leaves of >= 10 items, the T1 capacity (qualified leaves of
>= 10 items with a sibling leaf of >= 10 items, ``t1_anchor_capacity``) and, building the tasks with the
verbalizer's queries and default settings, the T1 anchor leaves with full pools, the unfillable T1 units and
the leaves left to open-corpus T1, T2 and T3. Quoted in docs/benchmark.md ("A tree that fits the catalog").
"""

from __future__ import annotations

import sys

import numpy as np

from fashionrq.catalog import ingest
from fashionrq.encoders import embed_items, get_encoder
from fashionrq.hierarchy import build_hierarchy
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.sid import split_leaves
from fashionrq.tasks import TaskConfig, build_tasks, semantic_ids, t1_anchor_capacity
from fashionrq.tasks.queries import anchor_queries


def row(frame, X, sids, label: str) -> str:
    hierarchy = build_hierarchy(frame, sids)
    leaves = [c for c in hierarchy.clusters.values() if c.level == 3]
    qualified = [c for c in leaves if c.qualified]
    queries, _ = anchor_queries(hierarchy, frame, backend="verbalizer", seed=0)
    report = build_tasks(hierarchy, queries, TaskConfig(), seed=0, embeddings=X).report
    per_task = report["leaves_per_task"]
    return (f"| {label} | {len(leaves)} | {len(qualified)} | {sum(c.size >= 10 for c in qualified)} | "
            f"{t1_anchor_capacity(hierarchy, 10)} | **{per_task['t1']}** | {report['t1_units']['unfillable']} | "
            f"{per_task['t1o']} / {per_task['t2']} / {per_task['t3']} |")


def main(catalog: str, method: str, sizes: list[int]) -> None:
    items = ingest(catalog).table
    X = embed_items(items, get_encoder("minilm"))
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    frame = items_frame(items)
    print("| tree | leaves | qualified | qualified, >= 10 items | T1 capacity | T1 anchors (full pools) | unfillable units | open / T2 / T3 leaves |")
    print("|---|---|---|---|---|---|---|---|")
    for k in sizes:
        sids, _ = semantic_ids(items, X, method, 3, k, 0, {}, None)
        print(row(frame, X, sids, f"{method} K = {k}"), flush=True)
        print(row(frame, X, split_leaves(sids, X, 10, seed=0)[0], f"{method} K = {k}, split"), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], [int(k) for k in sys.argv[3:]])
