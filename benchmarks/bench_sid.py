"""Benchmark the default RQ-VAE tokenizer on the bundled catalog: training time against the machine's matrix-multiply
bound, assignment throughput, peak memory.

Usage: python benchmarks/bench_sid.py [--items bundled|ITEMS] [--encoder minilm-int8] [--native] [--json FILE]
The release trains in the pinned-kernel process (fashionrq.pinned: one code path on every CPU); this script times
it there, with that process's own float64 GEMM rate (numpy's BLAS, which the RQ-VAE's products use) as the
bound, and with ``--native`` also in this process with every library's fastest kernels, for what the pinning costs.
Targets: training <= 120 s on 2 cores; assignment >= 200k items/s; results go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
import tracemalloc
from pathlib import Path

import numpy as np

from fashionrq.catalog import BUNDLED, bundled_items, load_items
from fashionrq.encoders import embed_items
from fashionrq.pinned import run_pinned
from fashionrq.sid import DEFAULT_LEVEL_ATTRIBUTES, RQVAE, ResidualKMeans, attributes_from_items


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def training_flop(model: RQVAE, items: int) -> float:
    """Floating-point operations of the RQ-VAE's training: per row and epoch, the encoder's and decoder's matrix
    products forward and twice that backward (3 x 2 x weights), and the quantizer's distances to every code."""
    sizes = [model.dim_, *model.hidden_dims, model.latent_dim]
    weights = 2 * sum(a * b for a, b in zip(sizes[:-1], sizes[1:], strict=False))  # encoder and decoder
    quantizer = model.levels * model.codebook_size * model.latent_dim
    epochs = model.epochs + model.warmup_epochs
    return 3 * 2 * (weights + quantizer) * items * epochs


def gemm_rate(n: int = 2048) -> float:
    """float64 GEMM GFLOP/s (n^3, best of 3) of this process's numpy BLAS, which the RQ-VAE's products use
    (fashionrq.sid.portable.matmul), at one thread (set by the caller)."""
    a = np.random.default_rng(0).random((n, n))
    best = min(_timed(lambda: a @ a) for _ in range(3))
    return 2 * n**3 / best / 1e9


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def fit_and_time(X: np.ndarray, attributes: dict, repeats: int) -> dict:
    """Training time, its FLOP and rate, the GEMM bound and the assignment rate, measured in this process."""
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(1)
    threadpool_limits(1)  # numpy's BLAS too (the pinned process sets one thread through its environment)
    rss_before = _peak_rss_mib()
    tracemalloc.start()
    start = time.perf_counter()
    model = RQVAE(seed=0).fit(X, attributes)
    train_s = time.perf_counter() - start
    _, train_py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_after_training = _peak_rss_mib()
    big = np.tile(X, (-(-200_000 // len(X)), 1))  # >= 200k rows so call overhead does not dominate the timing
    model.transform(big[:1000])
    assign_s = min(_timed(lambda: model.transform(big)) for _ in range(repeats))
    flop = training_flop(model, len(X))
    return {"rqvae_train_s": round(train_s, 1), "training_gflop": round(flop / 1e9), "training_gflop_per_s": round(flop / train_s / 1e9, 2),
            "gemm_gflop_per_s_one_thread": round(gemm_rate(), 1), "rqvae_assign_items_per_s": round(len(big) / assign_s),
            "train_python_peak_mib": round(train_py_peak / 2**20, 1), "peak_rss_mib_before_training": round(rss_before),
            "peak_rss_mib_after_training": round(rss_after_training), "peak_rss_mib_with_assignment": round(_peak_rss_mib()),
            "config": model.config()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", default=BUNDLED, help="items.parquet (or folder) or 'bundled'.")
    parser.add_argument("--encoder", default="minilm-int8")
    parser.add_argument("--repeats", type=int, default=5, help="Timed transform repeats (best is reported).")
    parser.add_argument("--native", action="store_true", help="Also train in this process with the fastest kernels.")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    items = bundled_items() if args.items == BUNDLED else load_items(args.items)
    X = np.asarray(embed_items(items, args.encoder))
    attributes = attributes_from_items(items, DEFAULT_LEVEL_ATTRIBUTES)
    # the pinned child imports this file as the module bench_sid (a function of __main__ cannot be sent to it)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent), os.environ.get("PYTHONPATH")]))
    import bench_sid

    result = {"items": len(X), "dim": int(X.shape[1]), "pinned": run_pinned(bench_sid.fit_and_time, X, attributes, args.repeats)}
    if args.native:
        result["native"] = fit_and_time(X, attributes, args.repeats)
    start = time.perf_counter()
    ResidualKMeans(seed=0).fit(X)
    result["rkmeans_train_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps(result, indent=2))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)


if __name__ == "__main__":
    main()
