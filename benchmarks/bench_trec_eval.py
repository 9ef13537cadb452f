"""trec-eval speed: fashionrq (read files + evaluate) against pytrec_eval (parse files + evaluate). A script, not a test.

    python benchmarks/bench_trec_eval.py [--queries 20000] [--depth 100] [--repeats 3]

Writes a seeded run (``--queries`` x ``--depth`` documents, real Myntra item ids from the bundled catalog,
scores rounded to one decimal so ties are common) and graded qrels (30 judged documents per query:
20 retrieved, 10 others; grades 0-3) into a temporary folder, then times, alternating the two, median of
``--repeats``:

* ``fashionrq``: ``read_qrels`` + ``read_run`` + ``evaluate`` (ndcg_cut.10, recall.10, recip_rank)
* ``pytrec_eval``: ``parse_qrel`` + ``parse_run`` + ``RelevanceEvaluator(...).evaluate`` (same measures)

both in this process (imports done), as wall-clock and CPU seconds, then both cold in a fresh process:
``fashionrq trec-eval QRELS RUN -m ... -q`` and a ``python -c`` doing the pytrec_eval path and printing
per-query lines the same way. It also checks that the two give the same per-query values.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

METRICS = ["ndcg_cut.10", "recall.10", "recip_rank"]
PYTREC_KEYS = {"ndcg_cut.10": "ndcg_cut_10", "recall.10": "recall_10", "recip_rank": "recip_rank"}

PYTREC_CLI = """
import sys, pytrec_eval
with open(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
res = pytrec_eval.RelevanceEvaluator(qrels, {'ndcg_cut.10', 'recall.10', 'recip_rank'}).evaluate(run)
out = []
for q in sorted(res):
    out += ['%-22s\\t%s\\t%6.4f\\n' % (m, q, res[q][m]) for m in ('recip_rank', 'recall_10', 'ndcg_cut_10')]
sys.stdout.write(''.join(out))
"""


def write_files(folder: Path, n_queries: int, depth: int, seed: int = 0) -> tuple[Path, Path]:
    from fashionrq.catalog import bundled_items

    ids = np.asarray(bundled_items().column("item_id").to_pylist())
    rng = np.random.default_rng(seed)
    run_lines, qrels_lines = [], []
    for q in range(n_queries):
        qid = f"q{q}"
        docs = ids[rng.choice(len(ids), depth, replace=False)]
        scores = np.round(rng.normal(size=depth), 1)
        order = np.argsort(-scores, kind="stable")
        run_lines += [f"{qid} Q0 {docs[j]} {r + 1} {scores[j]} bench\n" for r, j in enumerate(order)]
        judged = np.unique(np.concatenate([docs[rng.choice(depth, 20, replace=False)], ids[rng.choice(len(ids), 10)]]))
        grades = rng.choice(4, len(judged), p=[0.4, 0.3, 0.2, 0.1])
        qrels_lines += [f"{qid} 0 {d} {g}\n" for d, g in zip(judged, grades)]
    run_path, qrels_path = folder / "bench.run", folder / "bench.qrels"
    run_path.write_text("".join(run_lines))
    qrels_path.write_text("".join(qrels_lines))
    return qrels_path, run_path


def fashionrq_path(qrels_path: Path, run_path: Path) -> dict:
    from fashionrq.metrics import evaluate, read_qrels, read_run

    return evaluate(read_qrels(qrels_path), read_run(run_path), METRICS, per_query=True)


def pytrec_path(qrels_path: Path, run_path: Path) -> dict:
    import pytrec_eval

    with qrels_path.open() as handle:
        qrels = pytrec_eval.parse_qrel(handle)
    with run_path.open() as handle:
        run = pytrec_eval.parse_run(handle)
    return pytrec_eval.RelevanceEvaluator(qrels, METRICS).evaluate(run)


def timed(function, *args) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    return time.perf_counter() - wall, time.process_time() - cpu, result


def timed_process(command: list[str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import pytrec_eval  # noqa: F401  (imports done before timing, for both)

    import fashionrq.metrics  # noqa: F401

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        qrels_path, run_path = write_files(Path(tmp), args.queries, args.depth)
        print(f"wrote {args.queries} x {args.depth} run and qrels in {time.perf_counter() - start:.1f}s", file=sys.stderr)
        samples: dict[str, list[tuple[float, float]]] = {"fashionrq": [], "pytrec_eval": []}
        for _ in range(args.repeats):
            wall, cpu, ours = timed(fashionrq_path, qrels_path, run_path)
            samples["fashionrq"].append((wall, cpu))
            wall, cpu, theirs = timed(pytrec_path, qrels_path, run_path)
            samples["pytrec_eval"].append((wall, cpu))
        worst = max(abs(ours[q][m] - theirs[q][PYTREC_KEYS[m]]) for q in theirs for m in METRICS)
        assert set(ours) == set(theirs) and worst < 1e-9, worst
        cli = [sys.executable, "-m", "fashionrq", "trec-eval", str(qrels_path), str(run_path), "-q", *[f"-m{m}" for m in METRICS]]
        cold = {"fashionrq trec-eval": [], "python -c pytrec_eval": []}
        for _ in range(args.repeats):
            wall, cpu, ours_out = timed_process(cli)
            cold["fashionrq trec-eval"].append((wall, cpu))
            wall, cpu, theirs_out = timed_process([sys.executable, "-c", PYTREC_CLI, str(qrels_path), str(run_path)])
            cold["python -c pytrec_eval"].append((wall, cpu))
        assert ours_out.splitlines()[:-3] == theirs_out.splitlines(), "per-query CLI lines differ from pytrec_eval"
    for label, group in (("in-process (load + evaluate)", samples), ("cold process (CLI)", cold)):
        for name, values in group.items():
            print(json.dumps({
                "path": label, "tool": name, "queries": args.queries, "depth": args.depth, "repeats": args.repeats,
                "median_wall_s": round(statistics.median(w for w, _ in values), 3),
                "median_cpu_s": round(statistics.median(c for _, c in values), 3),
                "walls_s": [round(w, 3) for w, _ in values],
            }), flush=True)
    print(json.dumps({"max_abs_difference": worst}))


if __name__ == "__main__":
    main()
