"""The speed cost of tie-stable scoring (fashionrq.systems.stable) against the plain float32 products it replaced.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_ties.py [--items 44446] [--dim 384] [--queries 256] [--repeat 5] [--json FILE]
Random unit vectors of the bundled catalog's shape. Times, best of --repeat: building the grid of the item matrix
(once per fit), whole-corpus scores of 64-query blocks (open-corpus search, T2 percentiles), 40-candidate pools
(T1/T3/T4) per query, exact top-100 search, and with faiss an IndexFlatIP search alone and with its exact rescore.
Results go to docs/benchmarks.md ("Tie-stable scoring").
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import numpy as np

from fashionrq.io import atomic_write_json
from fashionrq.systems.base import top_rows
from fashionrq.systems.index import DenseIndex, IndexConfig, exact_search, faiss_module
from fashionrq.exact import Grid, grid_scores
from fashionrq.systems.stable import stable_scores


def _best(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def _unit(rng, n: int, dim: int) -> np.ndarray:
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _float32_search(items, queries, k):
    return [top_rows(s, k) for start in range(0, len(queries), 256) for s in queries[start:start + 256] @ items.T]


def _cases(items, queries, grid, pools):
    blocks = [queries[s:s + 64] for s in range(0, len(queries), 64)]
    return {
        "whole corpus, 64-query blocks": (lambda: [b @ items.T for b in blocks],
                                          lambda: [grid_scores(Grid.of(b), grid) for b in blocks]),
        "40-candidate pools, one per query": (lambda: [items[p] @ q for q, p in zip(queries, pools)],
                                              lambda: [stable_scores(q, grid.take(p)) for q, p in zip(queries, pools)]),
        "exact top-100 search": (lambda: _float32_search(items, queries, 100), lambda: exact_search(grid, queries, 100)),
    }


def _faiss_case(items, queries, repeat: int) -> dict | None:
    faiss = faiss_module()
    if faiss is None:
        return None
    plain = faiss.IndexFlatIP(items.shape[1])
    plain.add(items)
    with tempfile.TemporaryDirectory() as cache:
        index = DenseIndex(items, IndexConfig("exact"), cache)
        return {"float32_s": round(_best(lambda: plain.search(queries, 132), repeat), 4),
                "stable_s": round(_best(lambda: index.search(queries, 100), repeat), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=44_446)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    items, queries = _unit(rng, args.items, args.dim), _unit(rng, args.queries, args.dim)
    pools = [rng.choice(args.items, 40, replace=False) for _ in range(args.queries)]
    grid = Grid.of(items)
    rows = {"grid of the item matrix (once per fit)": {"float32_s": 0.0, "stable_s": round(_best(lambda: Grid.of(items), args.repeat), 4)}}
    for name, (plain, stable) in _cases(items, queries, grid, pools).items():
        rows[name] = {"float32_s": round(_best(plain, args.repeat), 4), "stable_s": round(_best(stable, args.repeat), 4)}
    if (faiss_row := _faiss_case(items, queries, args.repeat)) is not None:
        rows["faiss IndexFlatIP top-100 (rescored: distinct vectors, exact scores)"] = faiss_row
    for row in rows.values():
        row["ratio"] = round(row["stable_s"] / row["float32_s"], 2) if row["float32_s"] else None
    result = {"items": args.items, "dim": args.dim, "queries": args.queries, "repeat": args.repeat,
              "grid_mib": round(grid.values.nbytes / 2**20), "float32_mib": round(items.nbytes / 2**20), "cases": rows}
    print(json.dumps(result, indent=2))
    if args.json:
        atomic_write_json(args.json, result)


if __name__ == "__main__":
    main()
