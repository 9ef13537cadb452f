"""Time the construction stage (hierarchy -> queries -> tasks -> release) on the bundled catalog.

Embeddings and SIDs come from their caches (computed first if missing, not timed), so this measures what
``fashionrq build`` spends after them. Target: <= 30 s wall for the 44,446-item catalog.

    python benchmarks/bench_build.py [--sid-method rqvae] [--encoder minilm] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from fashionrq.catalog import bundled_items
from fashionrq.encoders import embed_items
from fashionrq.hierarchy import build_hierarchy
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.tasks import BuildConfig, TaskConfig, build_tasks, semantic_ids, write_release
from fashionrq.tasks.queries import anchor_queries, hidden_phis


class Clock:
    """Wall and process-CPU seconds of named steps."""

    def __init__(self) -> None:
        self.steps: dict[str, dict[str, float]] = {}

    def run(self, name, fn, *args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn(*args, **kwargs)
        self.steps[name] = {"wall_s": round(time.perf_counter() - wall, 2), "cpu_s": round(time.process_time() - cpu, 2)}
        return out


def construct_once(items, sids, out: Path, seed: int, X=None) -> dict:
    clock = Clock()
    frame = clock.run("items_frame", items_frame, items)
    hierarchy = clock.run("hierarchy", build_hierarchy, frame, sids)
    queries, report = clock.run("queries", anchor_queries, hierarchy, frame, "verbalizer", seed)
    tasks = clock.run("tasks", build_tasks, hierarchy, queries, TaskConfig(), seed, X)
    tasks.report["open_depth"] = TaskConfig().open_depth
    phi, _ = clock.run("hidden phi", hidden_phis, queries, tasks.used_queries(), "verbalizer", seed)
    clock.run("write", write_release, BuildConfig(out=out, seed=seed), items, sids, hierarchy, tasks, phi,
              {"report": {"querygen": report}})
    total = {k: round(sum(s[k] for s in clock.steps.values()), 2) for k in ("wall_s", "cpu_s")}
    return {"steps": clock.steps, "total": total, "clusters": hierarchy.level_counts(), "anchor_queries": len(queries),
            "t1": len(tasks.t1), "t2_pairs": len(tasks.t2), "t3": len(tasks.t3), "t4_groups": len(tasks.t4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", default="minilm")
    parser.add_argument("--sid-method", default="rqvae")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    items = bundled_items()
    X = embed_items(items, args.encoder)
    sids, _ = semantic_ids(items, np.asarray(X), args.sid_method, 3, 64, args.seed, {})
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            runs.append(construct_once(items, sids, Path(tmp) / "BENCH", args.seed, X))
    print(json.dumps({"items": items.num_rows, "encoder": args.encoder, "sid_method": args.sid_method, "runs": runs}, indent=2))
    best = min(r["total"]["wall_s"] for r in runs)
    print(f"construction stage: best wall {best:.1f} s (target <= 30 s)")


if __name__ == "__main__":
    main()
