"""Leaf split (``fashionrq.sid.split_leaves``): CPU time, the work it does, and that work against the machine's limits.

    python benchmarks/bench_leaves.py [--items 1000000] [--leaf 39] [--reference 0]

The input is a synthetic last level of ``--items`` items: leaves of log-normal size (median ``--leaf`` items, a
long tail; 15,859 leaves at 10^6, against the synthetic build's 25,593), 64-d vectors clustered by leaf and by a
crossing factor. The 2-means work is
counted in row-iterations (one row in one Lloyd step; k-means++ seeding counts three passes per init), each
reading one 64-d float64 row: 512 bytes and about 4 x 64 flops (a dot product for the label, an add into a sum).
The machine's limits are measured here with numpy: streaming read bandwidth (sum of a 512 MB float64 array) and
float64 matrix-multiply throughput. ``--reference N`` also times the per-leaf scikit-learn reference
(tests/test_leaves.py) and the batched split on the first N items, for the speed-up.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import fashionrq.sid.leaves as leaves


def synthetic_leaves(items: int, leaf: float, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    sizes = np.maximum(1, rng.lognormal(np.log(leaf), 1.0, size=4 * items // int(leaf)).astype(int))
    sizes = sizes[np.cumsum(sizes) <= items]
    leaf_of = np.repeat(np.arange(len(sizes)), sizes)
    sids = np.stack([leaf_of // 4096, (leaf_of // 64) % 64, leaf_of % 64], 1)
    X = (rng.normal(size=(len(sizes), 64))[leaf_of] + rng.normal(scale=0.7, size=(len(leaf_of), 64))
         + rng.normal(size=(16, 64))[rng.integers(0, 16, len(leaf_of))] * 0.4)
    return sids, X.astype(np.float32)


def machine_limits() -> dict:
    """Best of 3: streaming read of a 512 MB float64 array, and a 2048^3 float64 matrix product (numpy's BLAS)."""
    a = np.ones(64 << 20)
    read = min(_timed(lambda: a.sum()) for _ in range(3))
    m = np.random.default_rng(0).normal(size=(2048, 2048))
    gemm = min(_timed(lambda: m @ m) for _ in range(3))
    return {"read_gb_s": round(a.nbytes / read / 1e9, 1), "gemm_f64_gflop_s": round(2 * 2048 ** 3 / gemm / 1e9, 1)}


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def count_row_iterations() -> dict:
    """Wrap the Lloyd update and the seeding distances to count the rows they touch."""
    counts = {"lloyd": 0, "seeding": 0}
    update, sq_dist = leaves._update, leaves._sq_dist

    def counted_update(Xc, *args):
        counts["lloyd"] += len(Xc)
        return update(Xc, *args)

    def counted_sq_dist(Xc, *args):
        counts["seeding"] += len(Xc)
        return sq_dist(Xc, *args)

    leaves._update, leaves._sq_dist = counted_update, counted_sq_dist
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--leaf", type=float, default=39.0)
    parser.add_argument("--reference", type=int, default=0)
    args = parser.parse_args()
    limits = machine_limits()
    sids, X = synthetic_leaves(args.items, args.leaf)
    counts = count_row_iterations()
    wall, cpu = time.perf_counter(), time.process_time()
    _, report = leaves.split_leaves(sids, X, 10, seed=0)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    row_iters = counts["lloyd"] + counts["seeding"]
    out = {"items": len(sids), "report": report, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "limits": limits,
           "row_iterations": counts, "gb_read_once": round(row_iters * 512 / 1e9, 1),
           "gflop": round(row_iters * 4 * 64 / 1e9, 1)}
    out["share_of_read_bandwidth"] = round(out["gb_read_once"] / cpu / limits["read_gb_s"], 3)
    out["share_of_gemm"] = round(out["gflop"] / cpu / limits["gemm_f64_gflop_s"], 4)
    if args.reference:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from test_leaves import reference_split_leaves

        keep = slice(0, min(args.reference, len(sids)))  # the first leaves (the last one may be cut short)
        for name, fn in (("batched", leaves.split_leaves), ("reference", reference_split_leaves)):
            cpu = time.process_time()
            fn(sids[keep], X[keep], 10, 0)
            out[f"{name}_cpu_s_on_{keep.stop}"] = round(time.process_time() - cpu, 2)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
