"""Scale: build a release from SYNTHETIC catalogs of growing size with given embeddings; time and memory per stage.

Each size runs in its own process (so peak RSS is that size's own): ``fashionrq synth`` draws the catalog and its
attribute-clustered embeddings (not timed), then the build runs stage by stage exactly as ``fashionrq build
--catalog DIR/items.parquet --embeddings DIR/embeddings.parquet`` does. The growth exponent of each stage is the
least-squares slope of log(wall seconds) against log(items); 10^7 and 10^8 are extrapolated with it.

    python benchmarks/bench_scale.py [--sizes 100000,300000,1000000] [--out results.json]
    python benchmarks/bench_scale.py --one 1000000 > 1e6.json        # one size, e.g. to run sizes side by side
    python benchmarks/bench_scale.py --from 1e5.json 3e5.json 1e6.json  # tabulate saved sizes
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

def build_stages(catalog_dir: Path, out: Path, seed: int, cache_dir: Path) -> dict:
    """Ingest, then ``build_release`` with the given embeddings, every stage timed by the pipeline's own StageTimer.

    ``cache_dir`` is an empty cache, so the SIDs are trained, not read from an earlier run's cache."""
    from fashionrq.catalog import ingest
    from fashionrq.tasks import BuildConfig, build_release
    from fashionrq.timing import StageTimer, stage

    timer = StageTimer()
    with timer.active():
        with stage("ingest"):
            result = ingest(catalog_dir / "items.parquet")
        build_release(BuildConfig(catalog=catalog_dir / "items.parquet", out=out, embeddings=catalog_dir / "embeddings.parquet",
                                  seed=seed, cache_dir=cache_dir), ingested=result)
    stages = {s.stage: {"wall_s": round(s.wall_s, 2), "cpu_s": round(s.cpu_s, 2), "peak_rss_gb": round(s.peak_rss_mib / 1024, 3)}
              for s in timer.stages if s.depth == 0}
    top = [s for s in timer.stages if s.depth == 0]
    stages["build total"] = {"wall_s": round(sum(s.wall_s for s in top), 2), "cpu_s": round(sum(s.cpu_s for s in top), 2),
                             "peak_rss_gb": round(timer.peak_rss_mib / 1024, 3)}
    nested: dict[str, dict] = {}
    for s in (s for s in timer.stages if s.depth > 0):  # e.g. the leaf split inside SID training
        cell = nested.setdefault(s.stage, {"wall_s": 0.0, "cpu_s": 0.0})
        cell["wall_s"], cell["cpu_s"] = round(cell["wall_s"] + s.wall_s, 2), round(cell["cpu_s"] + s.cpu_s, 2)
    manifest = json.loads((out / "manifest.json").read_text())
    return {"items": result.table.num_rows, "stages": stages, "substages": nested, "counts": manifest["counts"]}


PARITY_METRICS = {"ndcg_cut.10": "ndcg_cut_10", "recall.100": "recall_100", "recip_rank": "recip_rank", "map": "map"}


def open_corpus_scores(bench: Path, systems: list[str], runs: Path) -> dict:
    """Run each system on ``bench`` (``fashionrq run``, sealed), time it, and score open-corpus T1 with fashionrq's
    metrics and with pytrec_eval; the largest per-query difference over every metric is reported."""
    import pytrec_eval

    from fashionrq.metrics import evaluate, read_qrels, read_run
    from fashionrq.systems import run_system

    qrels = read_qrels(bench / "labels" / "t1o.qrels")
    reference_qrels = qrels.to_dict()
    out = {}
    for system in systems:
        start, cpu = time.perf_counter(), _children_cpu()
        run_system(bench, system, runs / system)
        wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
        run = read_run(runs / system / "t1o.run")
        ours = evaluate(qrels, run, list(PARITY_METRICS), per_query=True)
        theirs = pytrec_eval.RelevanceEvaluator(reference_qrels, list(PARITY_METRICS)).evaluate(run.to_dict())
        gap = max(abs(ours[q][m] - theirs[q][key]) for q in theirs for m, key in PARITY_METRICS.items())
        means = {m: round(float(np.mean([ours[q][m] for q in ours])), 4) for m in PARITY_METRICS}
        out[system] = {"run_wall_s": round(wall, 1), "run_cpu_s": round(cpu, 1), "queries": len(theirs),
                       "judged": sum(len(v) for v in reference_qrels.values()), "max_abs_diff_vs_pytrec_eval": gap,
                       "t1o": means}
    return out


def _children_cpu() -> float:
    usage = os.times()
    return usage.children_user + usage.children_system + usage.user + usage.system


def one_size(n: int, seed: int, systems: list[str] | None = None) -> dict:
    from fashionrq.catalog.synth import synthesize

    with tempfile.TemporaryDirectory(prefix="fashionrq-scale-") as tmp:
        start = time.perf_counter()
        synthesize(n, seed=seed).write(Path(tmp) / "catalog")
        synth_s = round(time.perf_counter() - start, 2)
        load = os.getloadavg()[0]
        result = build_stages(Path(tmp) / "catalog", Path(tmp) / "BENCH", seed, Path(tmp) / "cache")
        result["load_average"] = [round(load, 1), round(os.getloadavg()[0], 1)]
        if systems:
            result["open_corpus"] = open_corpus_scores(Path(tmp) / "BENCH", systems, Path(tmp) / "runs")
    result["synth_wall_s"] = synth_s
    return result


def _slope(sizes: np.ndarray, values: list[float]) -> float:
    return float(np.polyfit(sizes, np.log(values), 1)[0]) if len(values) > 1 else float("nan")


def exponents(results: list[dict]) -> dict[str, dict]:
    """Per stage: growth exponents of wall and CPU seconds (log-log least squares) and CPU extrapolated to 10^7 / 10^8
    with the CPU exponent; peak RSS (a stage's own high-water mark) fitted as base + bytes per item (least squares:
    memory is a fixed base of imports and models plus per-item arrays, not a power law) and extrapolated with that.
    The build total's extrapolation is the sum of its stages'."""
    n = np.array([r["items"] for r in results], dtype=np.float64)
    out = {}
    for stage in results[-1]["stages"]:
        cells = [r["stages"].get(stage, {}) for r in results]
        walls = [max(c.get("wall_s", 0.0), 0.01) for c in cells]
        cpus = [max(c.get("cpu_s", 0.0), 0.01) for c in cells]
        rss = [c.get("peak_rss_gb", 0.0) for c in cells]
        cpu_exp = _slope(np.log(n), cpus)
        per_item, base = np.polyfit(n, rss, 1) if len(n) > 1 else (0.0, rss[-1])
        out[stage] = {"wall_exponent": round(_slope(np.log(n), walls), 2), "cpu_exponent": round(cpu_exp, 2),
                      "rss_kb_per_item": round(per_item * 1e6, 3), "wall_s": walls, "cpu_s": cpus, "peak_rss_gb": rss}
        for power in (7, 8):
            out[stage][f"cpu_s_1e{power}"] = round(cpus[-1] * (10 ** power / n[-1]) ** cpu_exp, 1)
            out[stage][f"peak_rss_gb_1e{power}"] = round(base + per_item * 10 ** power, 1)
    stages = [s for s in out if s != "build total"]
    if "build total" in out:
        for power in (7, 8):
            out["build total"][f"cpu_s_1e{power}"] = round(sum(out[s][f"cpu_s_1e{power}"] for s in stages), 1)
            out["build total"][f"peak_rss_gb_1e{power}"] = max(out[s][f"peak_rss_gb_1e{power}"] for s in stages)
    return out


def markdown(results: list[dict], fits: dict[str, dict]) -> str:
    sizes = [r["items"] for r in results]
    head = ("| stage | " + " | ".join(f"{n:,}: wall s / CPU s / peak RSS GB" for n in sizes)
            + " | exponent wall / CPU | RSS KB per item | 10^7: CPU s / RSS GB | 10^8: CPU s / RSS GB |")
    lines = [head, "|---|" + "---:|" * (len(sizes) + 4)]
    for stage, fit in fits.items():
        cells = " | ".join(f"{w:,.1f} / {c:,.1f} / {m:.2f}" for w, c, m in zip(fit["wall_s"], fit["cpu_s"], fit["peak_rss_gb"]))
        lines.append(f"| {stage} | {cells} | {fit['wall_exponent']:.2f} / {fit['cpu_exponent']:.2f} | {fit['rss_kb_per_item']:.2f} | "
                     f"{fit['cpu_s_1e7']:,.0f} / {fit['peak_rss_gb_1e7']:.1f} | {fit['cpu_s_1e8']:,.0f} / {fit['peak_rss_gb_1e8']:.1f} |")
    loads = ", ".join(f"{r['items']:,}: {r['load_average'][0]} → {r['load_average'][1]}" for r in results if "load_average" in r)
    return "\n".join(lines) + f"\n\nLoad average (1 min) at start → end of each size: {loads}."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,300000,1000000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="Also write the raw results as JSON here.")
    parser.add_argument("--systems", default="", help="Also run these systems (comma-separated, e.g. bm25) on the largest "
                        "size and check their open-corpus T1 metrics against pytrec_eval.")
    parser.add_argument("--one", type=int, default=None, help="Measure one size in this process; print its JSON line.")
    parser.add_argument("--from", dest="saved", type=Path, nargs="+", default=None,
                        help="Tabulate saved --one outputs instead of measuring.")
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one_size(args.one, args.seed, args.systems.split(",") if args.systems else None)))
        return
    results = [json.loads(p.read_text().strip().splitlines()[-1]) for p in args.saved or []]
    sizes = [] if args.saved else [int(s) for s in args.sizes.split(",")]
    for n in sizes:
        scored = ["--systems", args.systems] if args.systems and n == sizes[-1] else []
        done = subprocess.run([sys.executable, __file__, "--one", str(n), "--seed", str(args.seed), *scored],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"size {n:,} failed:\n{done.stderr[-3000:]}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"{n:,} items: build {results[-1]['stages']['build total']}", flush=True)
    fits = exponents(results)
    print(markdown(results, fits))
    for r in results:
        for system, scores in r.get("open_corpus", {}).items():
            print(f"{r['items']:,} items, {system}: {scores}")
    if args.out:
        args.out.write_text(json.dumps({"results": results, "fits": fits}, indent=2) + "\n")


if __name__ == "__main__":
    main()
