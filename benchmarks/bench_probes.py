"""The demo's probes stage alone: ``probe_release`` on a built release, real runs as ``--against``. A script, not a test.

    FASHIONRQ_CACHE=CACHE python benchmarks/bench_probes.py BENCH OUT [--against RUN ...] [--encoder minilm-int8]

Times ``probe_release(BENCH, out=OUT, ...)`` (wall-clock, and CPU seconds of this process plus its sealed child) and
prints the sha256 of every run file, run.json and probe.json under OUT, so that two code versions can be compared
byte for byte (``diff`` the printed lines). For the demo's cold probes stage, CACHE holds only ``embeddings/`` and
``models/`` (the query-blind baseline reads the item vectors the demo's encode stage wrote), so every run and score
is computed.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

from fashionrq.io import sha256_file
from fashionrq.pipeline.probes import probe_release

HASHED = ("t1o.run", "t1.run", "t3.run", "t4.run", "t2.jsonl", "run.json", "probe.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--against", type=Path, nargs="*", default=[])
    parser.add_argument("--encoder", default="minilm-int8", help="the query-blind baseline's encoder (the demo's)")
    args = parser.parse_args()
    start = time.perf_counter()
    report = probe_release(args.bench, out=args.out, against=args.against, query_blind_encoder=args.encoder)
    wall = time.perf_counter() - start
    own, child = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    cpu_own, cpu_child = own.ru_utime + own.ru_stime, child.ru_utime + child.ru_stime
    print(f"probe_release: {wall:.1f} s wall, {cpu_own + cpu_child:.1f} CPU-s ({cpu_own:.1f} this process, "
          f"{cpu_child:.1f} sealed child); passed={report.passed}")
    for path in sorted(p for p in args.out.rglob("*") if p.name in HASHED):
        print(sha256_file(path), path.relative_to(args.out))


if __name__ == "__main__":
    main()
