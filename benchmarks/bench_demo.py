"""README command 1, timed per stage: set-up in a fresh clone, then `fashionrq demo` cold and warm.

    python benchmarks/bench_demo.py [--catalog bundled] [--resamples 10000] [--no-setup] [--write docs/benchmarks.md] [--keep DIR]

Cold: ``git clone`` of this checkout's committed HEAD into a temporary folder, ``bash scripts/setup.sh`` there
(a new ``.venv``), then ``.venv/bin/fashionrq demo --out demo-out --verbose`` with ``FASHIONRQ_CACHE`` a new,
empty temporary folder. Warm: README command 1 again in the same clone and cache — ``bash scripts/setup.sh``
(nothing to install) and ``fashionrq demo --out demo-out --force --verbose`` (a rerun into the same folder
needs ``--force``). ``--no-setup`` skips the clone and set-up and runs ``python -m fashionrq`` of this
interpreter instead. The per-stage table (wall, CPU, peak RSS) comes from each run's ``stages.json``
(``fashionrq.timing``); set-up and the whole demo process (wall, CPU = user + system with children, peak RSS)
are measured here, with the load average before and after, because the machine may be shared. ``--write``
replaces the section between the ``bench_demo`` markers of that Markdown file with the tables.
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
from datetime import datetime, timezone
from pathlib import Path

START, END = "<!-- bench_demo:start -->", "<!-- bench_demo:end -->"


def timed(cmd: list[str], cwd: Path | None = None, env: dict | None = None) -> dict:
    """Run ``cmd`` to completion; its wall time, CPU time (user + system, its waited-for descendants included) and
    peak RSS, all from ``wait4`` of that one child: ``RUSAGE_CHILDREN`` would report the largest child so far, so a
    warm set-up measured after a cold demo would show the demo's peak."""
    load = os.getloadavg()[0]
    wall = time.perf_counter()
    child = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - wall
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, cmd)
    return {"wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_rss_mib": round(usage.ru_maxrss / 1024), "load_before": round(load, 1), "load_after": round(os.getloadavg()[0], 1)}


def set_up(clone: Path) -> dict:
    """``bash scripts/setup.sh`` in ``clone`` (a fresh clone: a new .venv; again: nothing to install)."""
    return timed(["bash", "scripts/setup.sh"], cwd=clone)


def run_demo(fashionrq: list[str], cwd: Path, out: str, cache: Path, catalog: str, resamples: int, force: bool) -> dict:
    """One demo in a fresh process; returns its stages and whole-process measurements."""
    env = {**os.environ, "FASHIONRQ_CACHE": str(cache)}
    cmd = [*fashionrq, "demo", "--out", out, "--catalog", catalog, "--resamples", str(resamples), "--verbose", *(["--force"] if force else [])]
    result = timed(cmd, cwd=cwd, env=env)
    stages = json.loads((cwd / out / "stages.json").read_text())
    # the demo resets its high-water mark per stage, so its exit ru_maxrss is only the last stage's peak
    result["peak_rss_mib"] = round(max([result["peak_rss_mib"]] + [s["peak_rss_mib"] for s in stages]))
    return {**result, "stages": stages}


def stage_table(cold: dict, warm: dict) -> str:
    """Cold and warm side by side: set-up, one row per stage (in the cold run's order; – where the warm run skipped
    it), the demo process, and set-up + demo."""
    warm_by = {s["stage"]: s for s in warm["stages"]}
    lines = ["| stage | cold wall (s) | cold CPU (s) | cold peak RSS (MiB) | warm wall (s) | warm CPU (s) | warm peak RSS (MiB) |",
             "|---|---:|---:|---:|---:|---:|---:|"]

    def row(name: str, c: dict, w: dict, bold: bool = False) -> str:
        b = "**" if bold else ""
        cells = ["–" if k not in x else f"{b}{x[k]:,.1f}{b}" if k != "peak_rss_mib" else f"{b}{x[k]:,.0f}{b}"
                 for x in (c, w) for k in ("wall_s", "cpu_s", "peak_rss_mib")]  # – : the stage did not run
        return f"| {b}{name}{b} | " + " | ".join(cells) + " |"

    if cold.get("setup"):
        lines.append(row("set-up (`bash scripts/setup.sh`)", cold["setup"], warm["setup"]))
    for s in cold["stages"]:
        lines.append(row("↳ " * s.get("depth", 0) + s["stage"], s, warm_by.get(s["stage"], {})))
    lines.append(row("demo process", cold, warm, bold=True))
    if cold.get("setup"):
        total = [{k: x["setup"][k] + x[k] for k in ("wall_s", "cpu_s")} | {"peak_rss_mib": x["peak_rss_mib"]} for x in (cold, warm)]
        lines.append(row("README command 1 (set-up + demo)", *total, bold=True))
    return "\n".join(lines)


def section(cold: dict, warm: dict, catalog: str, resamples: int) -> str:
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    setup = "Set-up ran in a fresh clone with a new `.venv` (cold) and again (warm)." if cold.get("setup") else \
        "Set-up (`scripts/setup.sh`) is not included (`--no-setup`)."
    return (
        f"{START}\n`python benchmarks/bench_demo.py --catalog {catalog} --resamples {resamples}`, measured {when} "
        f"on {os.cpu_count()} cores; load average {cold['load_before']} → {cold['load_after']} (cold), "
        f"{warm['load_before']} → {warm['load_after']} (warm). {setup}\n\n"
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
    parser.add_argument("--no-setup", action="store_true", help="run this interpreter's fashionrq; no clone, no set-up")
    parser.add_argument("--write", type=Path, default=None, help="Markdown file whose bench_demo section is replaced")
    parser.add_argument("--keep", type=Path, default=None, help="a new folder that receives the cold demo's output (report.md, ...)")
    args = parser.parse_args()
    if args.keep is not None and args.keep.exists():
        parser.error(f"--keep {args.keep} exists; name a new folder.")
    repo = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="fashionrq-bench-demo-") as scratch:
        cache = Path(scratch) / "cache"
        cache.mkdir()
        if args.no_setup:
            clone, fashionrq = Path(scratch), [sys.executable, "-m", "fashionrq"]
        else:
            clone = Path(scratch) / "clone"
            subprocess.run(["git", "clone", "--quiet", str(repo), str(clone)], check=True)
            fashionrq = [str(clone / ".venv" / "bin" / "fashionrq")]
        runs = {}
        for label, force in (("cold", False), ("warm", True)):
            setup = None if args.no_setup else set_up(clone)
            runs[label] = {**run_demo(fashionrq, clone, "demo-out", cache, args.catalog, args.resamples, force), "setup": setup}
            print(json.dumps({label: runs[label]}), flush=True)
            if label == "cold" and args.keep is not None:
                shutil.copytree(clone / "demo-out", args.keep)
    text = section(runs["cold"], runs["warm"], args.catalog, args.resamples)
    print(text)
    if args.write:
        write_section(args.write, text)


if __name__ == "__main__":
    main()
