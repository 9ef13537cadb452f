"""Encoder benchmarks (a script, not a test).

    python benchmarks/bench_encoders.py throughput [--n 2000] [--encoders minilm,minilm-int8,e5-small,splade-tiny]
    python benchmarks/bench_encoders.py full [--encoder minilm] [--cache DIR] [--workers 4]

``throughput``: items/s (wall and per CPU-second of this process, all threads) of ``encode_documents`` on a
seeded sample of bundled items (no cache).
``full``: ingest + embed of the whole bundled catalog, each in a fresh process: cold (an empty scratch
cache dir), then the entry is copied into the default cache dir (or ``--cache``) so others reuse it, then
warm (reading it from there).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _threads(n: int) -> None:
    import torch

    torch.set_num_threads(n)
    os.environ.setdefault("OMP_NUM_THREADS", str(n))


def throughput(n: int, encoders: list[str], threads: int) -> None:
    import numpy as np

    from fashionrq.catalog import bundled_items
    from fashionrq.encoders import get_encoder, item_texts

    _threads(threads)
    table = bundled_items()
    rows = np.random.default_rng(0).choice(table.num_rows, size=n, replace=False)
    texts = item_texts(table.take(np.sort(rows)))
    for name in encoders:
        encoder = get_encoder(name)
        start = time.perf_counter()
        encoder.encode_documents(texts[:8])  # loads the model
        load = time.perf_counter() - start
        start, cpu = time.perf_counter(), time.process_time()
        vectors = encoder.encode_documents(texts)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(json.dumps({"encoder": name, "n": n, "threads": threads, "load_s": round(load, 2),
                          "seconds": round(seconds, 2), "items_per_s": round(n / seconds, 1),
                          "cpu_s": round(cpu, 2), "items_per_cpu_s": round(n / cpu, 1),
                          "shape": list(vectors.shape)}), flush=True)


def full_child(encoder: str, cache: str | None, threads: int, workers: int) -> None:
    """One ingest + embed of the bundled catalog; prints a JSON line with timings."""
    start = time.perf_counter()
    _threads(threads)
    from fashionrq.catalog import bundled_items
    from fashionrq.encoders import cache_path, embed_items, get_encoder, item_texts

    table = bundled_items()
    ingest_s = time.perf_counter() - start
    enc = get_encoder(encoder)
    path = cache_path(enc, item_texts(table), "document", Path(cache) if cache else None)
    hit = path.exists()
    vectors = embed_items(table, encoder, Path(cache) if cache else None, workers=workers)
    total = time.perf_counter() - start
    print(json.dumps({"encoder": encoder, "items": table.num_rows, "workers": workers, "cache_hit": hit, "texts_encoded": enc.texts_encoded,
                      "ingest_s": round(ingest_s, 2), "total_s": round(total, 2), "shape": list(vectors.shape),
                      "cache_file": str(path)}), flush=True)


def publish(src: Path, cache: str | None) -> Path:
    """Copy a cache entry computed in a scratch dir into ``cache`` (default: the shared cache), atomically."""
    from fashionrq.encoders import default_cache_dir

    root = Path(cache) if cache else default_cache_dir()
    dest = root / src.relative_to(src.parents[2])
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not dest.exists():
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
        shutil.copyfile(src, tmp)
        os.replace(tmp, dest)
    return dest


def full(encoder: str, cache: str | None, threads: int, workers: int) -> None:
    """Cold: a fresh, empty cache dir. The entry is then published to ``cache`` (default: shared cache) and
    the warm run reads it from there."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="fashionrq-cold-") as scratch:
        for label, where in (("cold", scratch), ("warm", cache)):
            cmd = [sys.executable, __file__, "_full_child", "--encoder", encoder, "--threads", str(threads),
                   "--workers", str(workers)]
            if where:
                cmd += ["--cache", where]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
            result = json.loads(out)
            runs.append(result)
            print(label, json.dumps(result), flush=True)
            if label == "cold":
                print("published", publish(Path(result["cache_file"]), cache), flush=True)
    if runs[0]["cache_hit"] or not runs[1]["cache_hit"]:
        print("note: cold run hit or warm run missed the cache", flush=True)
    print(f"speed-up warm vs cold: {runs[0]['total_s'] / runs[1]['total_s']:.1f}x", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["throughput", "full", "_full_child"])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--encoders", default="minilm,minilm-int8,e5-small,splade-tiny")
    parser.add_argument("--encoder", default="minilm")
    parser.add_argument("--cache", default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes for a cache miss (full mode)")
    args = parser.parse_args()
    if args.mode == "throughput":
        throughput(args.n, args.encoders.split(","), args.threads)
    elif args.mode == "full":
        full(args.encoder, args.cache, args.threads, args.workers)
    else:
        full_child(args.encoder, args.cache, args.threads, args.workers)


if __name__ == "__main__":
    main()
