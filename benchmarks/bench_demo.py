"""README command 1, timed per stage: `fashionrq demo` cold (empty cache) and warm (same cache again).

    python benchmarks/bench_demo.py [--catalog bundled] [--resamples 10000] [--write docs/benchmarks.md]

Each run is a fresh process, ``python -m fashionrq demo --out <temp> --verbose``, with ``FASHIONRQ_CACHE``
pointing at a new, empty temporary folder for the cold run and at the same folder for the warm run. The
per-stage table (wall, CPU, peak RSS) comes from each run's ``stages.json`` (``fashionrq.timing``); the
whole-process wall time, CPU time (user + system, children included) and peak RSS are measured here, with
the load average before and after, because the machine may be shared. ``--write`` replaces the section
between the ``bench_demo`` markers of that Markdown file with the tables.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

START, END = "<!-- bench_demo:start -->", "<!-- bench_demo:end -->"


def run_demo(out: Path, cache: Path, catalog: str, resamples: int) -> dict:
    """One demo in a fresh process; returns its stages and whole-process measurements."""
    env = {**os.environ, "FASHIONRQ_CACHE": str(cache)}
    cmd = [sys.executable, "-m", "fashionrq", "demo", "--out", str(out), "--catalog", catalog,
           "--resamples", str(resamples), "--verbose"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    wall = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stages = json.loads((out / "stages.json").read_text())
    # the demo resets its high-water mark per stage, so its exit ru_maxrss is only the last stage's peak
    peak = max([after.ru_maxrss / 1024] + [s["peak_rss_mib"] for s in stages])
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
        "peak_rss_mib": round(peak),
        "load_before": round(load, 1), "load_after": round(os.getloadavg()[0], 1),
        "stages": stages,
    }


def stage_table(cold: dict, warm: dict) -> str:
    """Cold and warm side by side, one row per stage (in the cold run's order)."""
    warm_by = {s["stage"]: s for s in warm["stages"]}
    lines = ["| stage | cold wall (s) | cold CPU (s) | cold peak RSS (MiB) | warm wall (s) | warm CPU (s) | warm peak RSS (MiB) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for s in cold["stages"]:
        w = warm_by.get(s["stage"], {})
        name = "↳ " * s.get("depth", 0) + s["stage"]
        lines.append(f"| {name} | {s['wall_s']:,.1f} | {s['cpu_s']:,.1f} | {s['peak_rss_mib']:,.0f} | "
                     f"{w.get('wall_s', 0):,.1f} | {w.get('cpu_s', 0):,.1f} | {w.get('peak_rss_mib', 0):,.0f} |")
    lines.append(f"| **whole process** | **{cold['wall_s']:,.1f}** | **{cold['cpu_s']:,.1f}** | **{cold['peak_rss_mib']:,}** | "
                 f"**{warm['wall_s']:,.1f}** | **{warm['cpu_s']:,.1f}** | **{warm['peak_rss_mib']:,}** |")
    return "\n".join(lines)


def section(cold: dict, warm: dict, catalog: str, resamples: int) -> str:
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"{START}\n`python benchmarks/bench_demo.py --catalog {catalog} --resamples {resamples}`, measured {when} "
        f"on {os.cpu_count()} cores; load average {cold['load_before']} → {cold['load_after']} (cold), "
        f"{warm['load_before']} → {warm['load_after']} (warm). Set-up (`scripts/setup.sh`) is not included.\n\n"
        f"{stage_table(cold, warm)}\n{END}"
    )


def write_section(path: Path, text: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from fashionrq.io import atomic_write_text

    doc = path.read_text(encoding="utf-8")
    if START in doc and END in doc:
        doc = doc[:doc.index(START)] + text + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n## Demo: per-stage budget, cold and warm\n\n" + text + "\n"
    atomic_write_text(path, doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catalog", default="bundled")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--write", type=Path, default=None, help="Markdown file whose bench_demo section is replaced")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fashionrq-bench-demo-") as scratch:
        cache = Path(scratch) / "cache"
        cache.mkdir()
        cold = run_demo(Path(scratch) / "cold", cache, args.catalog, args.resamples)
        print(json.dumps({"cold": cold}), flush=True)
        warm = run_demo(Path(scratch) / "warm", cache, args.catalog, args.resamples)
        print(json.dumps({"warm": warm}), flush=True)
    text = section(cold, warm, args.catalog, args.resamples)
    print(text)
    if args.write:
        write_section(args.write, text)


if __name__ == "__main__":
    main()
