"""Scale: build a release from SYNTHETIC catalogs of growing size with given embeddings; time and memory per stage.

Each size runs in its own process (so peak RSS is that size's own): ``fashionrq synth`` draws the catalog and its
attribute-clustered embeddings (not timed), then the build runs stage by stage exactly as ``fashionrq build
--catalog DIR/items.parquet --embeddings DIR/embeddings.parquet`` does. The growth exponent of each stage is the
least-squares slope of log(wall seconds) against log(items); 10^7 and 10^8 are extrapolated with it.

    python benchmarks/bench_scale.py [--sizes 100000,300000,1000000] [--out docs/scale_results.json] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: What a stage may spend before it "breaks" on this 2-core, 24 GB machine.
LIMITS = {"wall_s": 3600.0, "rss_gb": 24.0}


def build_stages(catalog_dir: Path, out: Path, seed: int, cache_dir: Path) -> dict:
    """Ingest, then ``build_release`` with the given embeddings, every stage timed by the pipeline's own StageTimer.

    ``cache_dir`` is an empty cache, so the SIDs are trained, not read from an earlier run's cache."""
    from fashionrq.catalog import ingest
    from fashionrq.tasks import build_release
    from fashionrq.timing import StageTimer, stage

    timer = StageTimer()
    with timer.active():
        with stage("ingest"):
            result = ingest(catalog_dir / "items.parquet")
        build_release(catalog_dir / "items.parquet", out, embeddings=catalog_dir / "embeddings.parquet", seed=seed,
                      ingested=result, cache_dir=cache_dir)
    stages = {s.stage: {"wall_s": round(s.wall_s, 2), "cpu_s": round(s.cpu_s, 2), "peak_rss_gb": round(s.peak_rss_mib / 1024, 3)}
              for s in timer.stages if s.depth == 0}
    top = [s for s in timer.stages if s.depth == 0]
    stages["build total"] = {"wall_s": round(sum(s.wall_s for s in top), 2), "cpu_s": round(sum(s.cpu_s for s in top), 2),
                             "peak_rss_gb": round(timer.peak_rss_mib / 1024, 3)}
    manifest = json.loads((out / "manifest.json").read_text())
    return {"items": result.table.num_rows, "stages": stages, "counts": manifest["counts"]}


def one_size(n: int, seed: int) -> dict:
    from fashionrq.catalog.synth import synthesize

    with tempfile.TemporaryDirectory(prefix="fashionrq-scale-") as tmp:
        start = time.perf_counter()
        synthesize(n, seed=seed).write(Path(tmp) / "catalog")
        synth_s = round(time.perf_counter() - start, 2)
        load = os.getloadavg()[0]
        result = build_stages(Path(tmp) / "catalog", Path(tmp) / "BENCH", seed, Path(tmp) / "cache")
        result["load_average"] = [round(load, 1), round(os.getloadavg()[0], 1)]
    result["synth_wall_s"] = synth_s
    return result


def exponents(results: list[dict]) -> dict[str, dict]:
    """Per stage: growth exponent of wall time and of peak RSS, and the 10^7 / 10^8 extrapolations."""
    sizes = np.log([r["items"] for r in results])
    out = {}
    for stage in results[-1]["stages"]:
        walls = [max(r["stages"].get(stage, {}).get("wall_s", 0.0), 0.01) for r in results]
        rss = [r["stages"].get(stage, {}).get("peak_rss_gb", 0.0) for r in results]
        slope = float(np.polyfit(sizes, np.log(walls), 1)[0]) if len(results) > 1 else float("nan")
        last_n, last_wall = results[-1]["items"], walls[-1]
        out[stage] = {
            "exponent": round(slope, 2),
            "wall_s": walls,
            "peak_rss_gb": rss,
            "wall_s_1e7": round(last_wall * (1e7 / last_n) ** slope, 1),
            "wall_s_1e8": round(last_wall * (1e8 / last_n) ** slope, 1),
        }
    return out


def markdown(results: list[dict], fits: dict[str, dict]) -> str:
    sizes = [r["items"] for r in results]
    head = "| stage | exponent | " + " | ".join(f"{n:,} items: wall s (peak RSS GB)" for n in sizes) + " | 10^7 wall s | 10^8 wall s |"
    lines = [head, "|" + "---|" * (len(sizes) + 4)]
    for stage, fit in fits.items():
        cells = " | ".join(f"{w:.1f} ({m:.2f})" for w, m in zip(fit["wall_s"], fit["peak_rss_gb"]))
        lines.append(f"| {stage} | {fit['exponent']:.2f} | {cells} | {fit['wall_s_1e7']:,.0f} | {fit['wall_s_1e8']:,.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,300000,1000000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="Also write the raw results as JSON here.")
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)  # child-process mode
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one_size(args.one, args.seed)))
        return
    results = []
    for n in (int(s) for s in args.sizes.split(",")):
        done = subprocess.run([sys.executable, __file__, "--one", str(n), "--seed", str(args.seed)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"size {n:,} failed:\n{done.stderr[-3000:]}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"{n:,} items: build {results[-1]['stages']['build total']}", flush=True)
    fits = exponents(results)
    print(markdown(results, fits))
    if args.out:
        args.out.write_text(json.dumps({"results": results, "fits": fits}, indent=2) + "\n")


if __name__ == "__main__":
    main()
