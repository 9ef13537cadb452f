"""Paired cluster bootstrap speed (a script, not a test).

    python benchmarks/bench_bootstrap.py [--bench BENCH] [--systems random,random/seed=1] [--resamples 10000] [--work DIR]

Builds the release from the bundled catalog when ``--bench`` is not given (``build_release("bundled")``,
cached under ``--work``), runs and commits the systems, scores them (not timed as bootstrap), then
times (median of 3, wall and CPU) ``compare_scored``: 10,000 resamples on every task and metric, every ordered pair. Target: <= 5 s
for two runs.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=None)
    parser.add_argument("--systems", default="random,random/seed=1", help="name[/param=int], comma-separated")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "fashionrq" / "bench_bootstrap")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from fashionrq.protocol.commitment import check_commitment, commit_run
    from fashionrq.protocol.compare import compare_scored, resample_draws
    from fashionrq.protocol.scoring import score_run
    from fashionrq.systems import get_system, run_system
    from fashionrq.tasks import BuildConfig, build_release

    bench = args.bench
    if bench is None:
        bench = args.work / "BENCH"
        if not (bench / "manifest.json").is_file():
            start = time.perf_counter()
            build_release(BuildConfig(catalog="bundled", out=bench, encoder="minilm", seed=0))
            print(f"built {bench} in {time.perf_counter() - start:.1f} s")
    runs = []
    for spec in args.systems.split(","):
        name, _, param = spec.partition("/")
        params = {param.split("=")[0]: int(param.split("=")[1])} if param else {}
        run = args.work / "runs" / spec.replace("/", "_").replace("=", "")
        if not (run / "commitments.jsonl").is_file():
            run_system(bench, get_system(name, **params), run)
            commit_run(run, bench)
        check_commitment(run)
        runs.append(run)
    start = time.perf_counter()
    scored = [score_run(bench, run, relevance=False) for run in runs]
    score_s = time.perf_counter() - start
    def timed(fn):
        """Median wall and CPU seconds of three calls, and the last result."""
        walls, cpus = [], []
        for _ in range(3):
            wall, cpu = time.perf_counter(), time.process_time()
            result = fn()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        return sorted(walls)[1], sorted(cpus)[1], walls, result

    draw_wall, draw_cpu, _, draws = timed(lambda: resample_draws(scored, args.resamples, 0))
    pair_wall, pair_cpu, _, _ = timed(lambda: compare_scored(scored, resamples=args.resamples, seed=0, draws=draws))
    total_wall, total_cpu, walls, result = timed(lambda: compare_scored(scored, resamples=args.resamples, seed=0))
    tasks = {t: {"units": scored[0].report["tasks"][t]["n_units"], "clusters": scored[0].report["tasks"][t]["n_clusters"],
                 "metrics": len(result["pairs"][0]["tasks"][t]["metrics"])} for t in result["headline"]}
    report = {"bench": str(bench), "runs": len(runs), "ordered_pairs": len(result["pairs"]), "resamples": args.resamples,
              "tasks": tasks, "score_s": round(score_s, 2),
              "draws_wall_s": round(draw_wall, 2), "draws_cpu_s": round(draw_cpu, 2),
              "bootstrap_pairs_wall_s": round(pair_wall, 2), "bootstrap_pairs_cpu_s": round(pair_cpu, 2),
              "compare_total_wall_s": round(total_wall, 2), "compare_total_cpu_s": round(total_cpu, 2),
              "compare_total_walls_s": [round(w, 2) for w in walls], "load_average": os.getloadavg(),
              "target_s": 5.0, "ok_wall": total_wall <= 5.0, "ok_cpu": total_cpu <= 5.0}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
