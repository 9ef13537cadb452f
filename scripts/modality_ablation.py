"""Candidate-side modality ablation (MCMR Table 3): every offline system in the text, image and fused regimes.

Usage: python scripts/modality_ablation.py --bench BENCH --out runs/ [--systems bm25,minilm,image-descriptor,hybrid]

Each (system, regime) is run label-blind, committed and scored; a system that refuses a regime (the
image-descriptor has nothing to read in ``text``) is left out. ``hybrid`` fuses bm25 with the image
descriptor where photos are visible and is plain bm25 + minilm in ``text``. Prints a Markdown table of
T1 nDCG@10, Recall@10 and MRR@10 of Exact items and T3 nDCG@3 (tasks are not averaged) and writes it to OUT/ablation.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fashionrq.errors import InputError
from fashionrq.io import atomic_write_text
from fashionrq.protocol.commitment import commit_run
from fashionrq.protocol.scoring import score_run
from fashionrq.systems import REGIMES, get_system, run_system

COLUMNS = (("t1", "ndcg@10"), ("t1", "recall@10(rel=3)"), ("t1", "mrr@10(rel=3)"), ("t3", "ndcg@3"))


def system_for(name: str, regime: str):
    if name == "hybrid":
        return get_system("hybrid", components="bm25,minilm" if regime == "text" else "bm25,image-descriptor")
    return get_system(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--systems", default="random,bm25,minilm,image-descriptor,hybrid")
    args = parser.parse_args()
    rows = []
    for name in args.systems.split(","):
        for regime in REGIMES:
            run = args.out / f"{name}-{regime}"
            try:
                run_system(args.bench, system_for(name, regime), run, regime=regime)
            except InputError as err:
                print(f"{name} / {regime}: skipped ({err})")
                continue
            commit_run(run, args.bench)
            aggregate = {t: score_run(args.bench, run, relevance=False).report["tasks"][t]["aggregate"] for t in ("t1", "t3")}
            values = [aggregate[t].get(m) for t, m in COLUMNS]
            rows.append(f"| {name} | {regime} | " + " | ".join("-" if v is None else f"{100 * v:.1f}" for v in values) + " |")
            print(rows[-1], flush=True)
    header = "| system | candidates | " + " | ".join(f"{t.upper()} {m}" for t, m in COLUMNS) + " |"
    table = "\n".join([header, "|---|---|" + "---:|" * len(COLUMNS), *rows]) + "\n"
    atomic_write_text(args.out / "ablation.md", table)
    print(table)


if __name__ == "__main__":
    main()
