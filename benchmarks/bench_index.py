"""Open-corpus dense indexes: build and search time and recall@k of hnsw / ivf against exact, on a synthetic catalog.

Usage: python benchmarks/bench_index.py [--items 50000] [--dim 384] [--queries 200] [--k 100] [--catalog PATH] [--json FILE]
Synthetic (default): queries are the embeddings of a second synthetic catalog (another seed), so they cluster
like the items. With --catalog: real minilm item vectors of that catalog, and the names of every
(items/queries)-th item encoded as queries. A cost and recall measurement, never a retrieval-quality claim.
Results go to docs/scale.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time

from fashionrq.catalog.synth import synthesize
from fashionrq.io import atomic_write_json
from fashionrq.systems.index import DenseIndex, IndexConfig, recall_at_k


def _timed(call):
    wall, cpu = time.perf_counter(), os.times()
    result = call()
    end = os.times()
    return result, round(time.perf_counter() - wall, 2), round(end.user + end.system - cpu.user - cpu.system, 2)


def _synthetic(items: int, dim: int, queries: int):
    return synthesize(items, seed=0, dim=dim).embeddings, synthesize(queries, seed=1, dim=dim).embeddings


def _real(catalog: str, queries: int):
    from fashionrq.catalog import ingest
    from fashionrq.encoders import embed_items, embed_texts

    items = ingest(catalog).table
    names = items.column("name").to_pylist()[::max(1, items.num_rows // queries)][:queries]
    return embed_items(items, "minilm"), embed_texts(names, "minilm", kind="query")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--catalog", default=None, help="A catalog folder or items.parquet: real minilm vectors instead of synthetic ones.")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    vectors, queries = _real(args.catalog, args.queries) if args.catalog else _synthetic(args.items, args.dim, args.queries)
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        exact_hits = None
        for config in (IndexConfig("exact"), IndexConfig("hnsw"), IndexConfig("ivf")):
            index, build_s, build_cpu = _timed(lambda: DenseIndex(vectors, config, cache))
            (hits, _), search_s, search_cpu = _timed(lambda: index.search(queries, args.k))
            exact_hits = exact_hits or hits
            _, load_s, _ = _timed(lambda: DenseIndex(vectors, config, cache))
            rows.append({**index.describe(), "build_s": build_s, "build_cpu_s": build_cpu, "cached_load_s": load_s,
                         "search_ms_per_query": round(1000 * search_s / len(queries), 3), "search_cpu_s": search_cpu,
                         f"recall@{args.k}": round(recall_at_k(hits, exact_hits, args.k), 4)})
    result = {"vectors": args.catalog or "synthetic", "items": len(vectors), "dim": int(vectors.shape[1]), "queries": args.queries, "k": args.k,
              "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), "indexes": rows,
              "note": f"{'real minilm' if args.catalog else 'synthetic'} vectors; shared 2-core machine, timings noisy"}
    print(json.dumps(result, indent=2))
    if args.json:
        atomic_write_json(args.json, result)


if __name__ == "__main__":
    main()
