"""Time ``run_system`` (all four tasks) per system on a release (a script, not a test).

    python benchmarks/bench_systems.py --bench BENCH [--systems random,bm25,tfidf,minilm] [--rerank verifier] [--work DIR]

Runs each system twice in fresh processes: the first run may fill the embedding cache, the second
shows the cached cost. Prints one JSON line per run: wall seconds, CPU seconds and the peak RSS (MiB)
of the largest run so far (getrusage of children).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path


def _one(bench: Path, system: str, rerank: str | None, out: Path) -> dict:
    args = [sys.executable, "-m", "fashionrq", "run", "--bench", str(bench), "--system", system, "--out", str(out)]
    if rerank:
        args += ["--rerank", rerank]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"system": system, "rerank": rerank, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "peak_rss_mib": round(after.ru_maxrss / 1024)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--systems", default="random,bm25,tfidf,minilm")
    parser.add_argument("--rerank", default=None)
    parser.add_argument("--work", type=Path, default=Path("bench-systems-runs"))
    args = parser.parse_args()
    for system in args.systems.split(","):
        for attempt in ("first", "cached"):
            out = args.work / f"{system.replace(':', '_')}-{attempt}"
            print(json.dumps({**_one(args.bench, system, args.rerank, out), "attempt": attempt}), flush=True)


if __name__ == "__main__":
    main()
