"""Home advantage: build releases with SIDs from two encoders, evaluate each encoder on both (issue 9, point 6).

Usage: python benchmarks/home_advantage.py --catalog bundled --sample 10000 --encoders minilm-int8,e5-small --out DIR

Ingests the catalog (a seeded subsample of ``--sample`` items when given, written to DIR/catalog/items.parquet),
builds one release per encoder (``fashionrq build`` defaults otherwise), runs each encoder as a dense retriever
label-blind on both releases, commits and scores the four runs, and prints, per registered headline metric, the
2×2 table with Δ = A − B per release and the home advantage H = Δ(A's release) − Δ(B's release) with its
paired-cluster-bootstrap interval (``fashionrq.protocol.home``). DIR/home_advantage.json keeps the numbers.
Quoted in docs/benchmark.md ("Home advantage").
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import numpy as np

from fashionrq.catalog import ingest
from fashionrq.catalog.ingest import write_items
from fashionrq.io import atomic_write_json
from fashionrq.protocol import commit_run
from fashionrq.protocol.home import home_advantage, home_markdown
from fashionrq.protocol.scoring import score_run
from fashionrq.systems import get_system, run_system
from fashionrq.tasks import BuildConfig, build_release


def catalog_items(catalog: str, sample: int, seed: int, out: Path) -> Path:
    """The catalog as an items table in ``out``: all of it, or a seeded subsample of ``sample`` rows in catalog order."""
    table = ingest(catalog).table
    if sample and sample < table.num_rows:
        rows = np.sort(np.random.default_rng(seed).choice(table.num_rows, size=sample, replace=False))
        table = table.take(rows)
    path = out / "catalog" / "items.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_items(table, path)
    return path


def scored_runs(items: Path, encoders: tuple[str, str], seed: int, out: Path) -> dict:
    """Build one release per encoder and score every encoder on every release: ``{(system, release): ScoredRun}``."""
    runs = {}
    for release in encoders:
        bench = out / f"bench-{release}"
        build_release(BuildConfig(catalog=items, out=bench, encoder=release, seed=seed))
        for system in encoders:
            run_dir = out / "runs" / release / system
            run_system(bench, get_system(system), run_dir)
            commit_run(run_dir, bench)
            runs[(system, release)] = score_run(bench, run_dir, relevance=False)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", default="bundled", help="bundled, a catalog folder or an items table.")
    parser.add_argument("--sample", type=int, default=0, help="a seeded subsample of this many items (0: the whole catalog).")
    parser.add_argument("--encoders", default="minilm-int8,e5-small", help="the two encoders, comma-separated.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--out", type=Path, required=True, help="a new folder for the releases and runs.")
    args = parser.parse_args()
    encoders = tuple(e.strip() for e in args.encoders.split(","))
    if len(encoders) != 2 or encoders[0] == encoders[1]:
        parser.error("--encoders takes two different encoder names, e.g. minilm-int8,e5-small.")
    if args.out.exists():
        parser.error(f"{args.out} already exists; choose a new folder for the releases and runs.")
    wall, cpu = time.perf_counter(), time.process_time()
    items = catalog_items(args.catalog, args.sample, args.seed, args.out)
    results = home_advantage(scored_runs(items, encoders, args.seed, args.out), encoders, resamples=args.resamples, seed=args.seed)
    print(home_markdown(results))
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"wall {time.perf_counter() - wall:.0f} s; CPU {time.process_time() - cpu:.0f} s in this process "
          f"+ {usage.ru_utime + usage.ru_stime:.0f} s in sealed runs")
    atomic_write_json(args.out / "home_advantage.json", {"catalog": args.catalog, "sample": args.sample, "seed": args.seed,
                                                         "results": [r.to_dict() for r in results]})


if __name__ == "__main__":
    main()
