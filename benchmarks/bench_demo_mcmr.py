"""Time the demo's MCMR part alone: ``build --mcmr`` on the photographed items and its runs in every regime.

Usage: FASHIONRQ_CACHE=$(mktemp -d) python benchmarks/bench_demo_mcmr.py OUT

Ingests the bundled catalog into ``OUT/catalog`` (not timed, the demo has done it by then), then times
``fashionrq.pipeline.mcmr.photographed_ablation`` with the default ``DemoConfig``: wall time, CPU of this process and of its
finished children (the sealed runs). With an empty ``FASHIONRQ_CACHE`` every cache is cold (embeddings of the
2,946 photographed items, the int8 model, image attributes, indexes). Prints the section-9 text, the stage table
(report section 8's rows for this part) and one timing line.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

from rich.console import Console

from fashionrq.catalog import ingest, save_ingest
from fashionrq.pipeline.demo import DemoConfig
from fashionrq.pipeline.mcmr import photographed_ablation
from fashionrq.report.demo import mcmr_markdown
from fashionrq.timing import StageTimer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="a new folder")
    out = parser.parse_args().out
    out.mkdir(parents=True)
    save_ingest(ingest("bundled"), out / "catalog", force=True)
    load = os.getloadavg()[0]
    wall, cpu = time.time(), time.process_time()
    timer = StageTimer()
    with timer.active():
        config = DemoConfig()
        result = photographed_ablation(out / "catalog", out / "mcmr-bench", out / "mcmr-runs", encoder=config.encoder,
                                       seed=config.seed, systems=config.mcmr_systems, console=Console(stderr=True))
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(mcmr_markdown(result))
    print(timer.to_markdown())
    print(f"wall {time.time() - wall:.1f} s, CPU {time.process_time() - cpu:.1f} s (this process) + "
          f"{children.ru_utime + children.ru_stime:.1f} s (children); load average {load:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
