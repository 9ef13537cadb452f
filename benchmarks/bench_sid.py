"""Benchmark the default RQ-VAE tokenizer on the bundled catalog: training time, assignment throughput, peak memory.

Usage: python benchmarks/bench_sid.py [--items bundled|ITEMS] [--threads 1] [--encoder minilm] [--json FILE]
Targets: training <= 120 s on 2 cores; assignment >= 200k items/s; results go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
import tracemalloc

import numpy as np
import torch

from fashionrq.catalog import BUNDLED, bundled_items, load_items
from fashionrq.encoders import embed_items
from fashionrq.sid import DEFAULT_LEVEL_ATTRIBUTES, RQVAE, ResidualKMeans, attributes_from_items


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", default=BUNDLED, help="items.parquet (or folder) or 'bundled'.")
    parser.add_argument("--threads", type=int, default=1, help="torch threads for RQ-VAE training and assignment.")
    parser.add_argument("--encoder", default="minilm")
    parser.add_argument("--repeats", type=int, default=5, help="Timed transform repeats (best is reported).")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    items = bundled_items() if args.items == BUNDLED else load_items(args.items)
    X = embed_items(items, args.encoder)
    attributes = attributes_from_items(items, DEFAULT_LEVEL_ATTRIBUTES)
    rss_before = _peak_rss_mib()

    tracemalloc.start()
    start = time.perf_counter()
    model = RQVAE(seed=0, num_threads=args.threads).fit(X, attributes)
    train_s = time.perf_counter() - start
    _, train_py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_after_training = _peak_rss_mib()

    big = np.tile(X, (-(-200_000 // len(X)), 1))  # >= 200k rows so call overhead does not dominate the timing
    model.transform(big[:1000])
    timings = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        model.transform(big)
        timings.append(time.perf_counter() - start)
    assign_rate = len(big) / min(timings)

    start = time.perf_counter()
    km = ResidualKMeans(seed=0).fit(X)
    km_train_s = time.perf_counter() - start
    start = time.perf_counter()
    km.transform(big)
    km_rate = len(big) / (time.perf_counter() - start)

    result = {
        "items": len(X), "dim": int(X.shape[1]), "threads": args.threads, "config": model.config(),
        "rqvae_train_s": round(train_s, 1), "rqvae_assign_items_per_s": round(assign_rate),
        "rkmeans_train_s": round(km_train_s, 1), "rkmeans_assign_items_per_s": round(km_rate),
        "train_python_peak_mib": round(train_py_peak / 2**20, 1),
        "peak_rss_mib_before_training": round(rss_before), "peak_rss_mib_after_training": round(rss_after_training),
        "peak_rss_mib_with_assignment": round(_peak_rss_mib()),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)


if __name__ == "__main__":
    main()
