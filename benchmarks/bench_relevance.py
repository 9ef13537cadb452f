"""Time AttributeMatcher.score_run: R@10 over the top-10 of 2,500 synthesised queries on the bundled catalog.

Rankings are 10 seeded items of each query's article type (a plausible retriever's output). Three timings:
the first call (cold when the string-embedding store is empty), the same matcher again (hot), and a new
matcher reading the store from disk (warm).
Usage: python benchmarks/bench_relevance.py [--queries 2500] [--cache DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from fashionrq.catalog import bundled_items
from fashionrq.encoders import get_encoder
from fashionrq.relevance import AttributeMatcher
from fashionrq.relevance.weights import synthesise_queries


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=2500)
    parser.add_argument("--cache", default=None, help="string-embedding store (default: a fresh temporary folder)")
    parser.add_argument("--encoder", default="minilm-int8", help="sim() encoder (the AttributeMatcher default is minilm-int8)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    items = bundled_items()
    cache = args.cache or tempfile.mkdtemp(prefix="frq-rel-")
    matcher = AttributeMatcher(items, encoder=args.encoder, cache_dir=cache)
    queries = synthesise_queries(matcher, range(items.num_rows), args.queries, seed=0)
    types = np.asarray(items.column("article_type").to_pylist(), dtype=object)
    rng = np.random.default_rng(0)
    by_type = {t: np.flatnonzero(types == t) for t in set(types)}
    phis = {q["qid"]: q["phi"] for q in queries}
    ranked = {q["qid"]: rng.choice(by_type[types[q["anchor"]]], size=10).tolist() for q in queries}
    encoder = get_encoder(args.encoder)
    stored = any((Path(cache) / "relevance").glob("strings-*.npz"))
    first = "warm (store on disk)" if stored else "cold (empty store)"
    for label, m in ((first, matcher), ("hot (same matcher)", matcher), ("new matcher, store on disk", AttributeMatcher(items, encoder=args.encoder, cache_dir=cache))):
        before = encoder.texts_encoded
        start, cpu = time.perf_counter(), time.process_time()
        out = m.score_run(phis, ranked, k=10)
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"{label}: {took:.2f} s wall, {cpu:.2f} CPU-s, {encoder.texts_encoded - before} strings embedded ({args.encoder}), "
              f"R@10 {out['R@k']:.4f}")
    print("coverage", {a: None if v is None else round(v, 3) for a, v in out["coverage"].items()})
    print("attr_score", {a: None if v is None else round(v, 3) for a, v in out["attr_score"].items()})


if __name__ == "__main__":
    main()
