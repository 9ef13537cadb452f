"""Article-type purity against mean cluster size, per SID method, as the codebook size K varies (issue 9, point 8).

``python scripts/purity_curves.py [--catalog bundled] [--encoder minilm-int8] [--sizes 8,16,32,64,128] [--out docs/img/sid-purity-curves.png]``

Purity rises as clusters get finer, so methods are compared at matched granularity: for each method
(RQ-VAE + exclusivity, RQ-VAE without the exclusivity loss, residual k-means) and each K, the script fits
the tokenizer on the catalog's (cached) embeddings, then plots weighted article-type purity against mean
cluster size at levels 2 and 3 and prints the table. SIDs are cached by content like ``fashionrq build``'s,
so a rerun only redraws. Quoted in docs/sid.md ("Purity at matched granularity").
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from fashionrq.catalog import ingest
from fashionrq.encoders import embed_items, get_encoder
from fashionrq.io import atomic_writer
from fashionrq.sid.report import sid_report
from fashionrq.tasks import semantic_ids

#: (tokenizer name, legend label) of the compared methods.
METHODS = (("rqvae", "RQ-VAE + exclusivity"), ("vanilla", "RQ-VAE, no exclusivity loss"), ("rkmeans", "residual k-means"))
LEVELS = (2, 3)


def curve_points(items, X, sizes: list[int], seed: int) -> list[dict]:
    """One row per (method, K, level): mean cluster size and weighted article-type purity."""
    rows = []
    for method, label in METHODS:
        for k in sizes:
            start = time.process_time()
            sids, _ = semantic_ids(items, X, method, 3, k, seed, {}, None)
            report = sid_report(sids, items, attributes=("article_type",))
            for entry in report["levels"]:
                if entry["level"] in LEVELS:
                    rows.append({"method": label, "K": k, "level": entry["level"], "clusters": entry["clusters"],
                                 "mean_cluster_size": entry["mean_cluster_size"],
                                 "purity": entry["purity"]["article_type"]["weighted"]})
            print(f"  {label} K={k}: {time.process_time() - start:.1f} s CPU (near 0 when the SIDs were cached)", flush=True)
    return rows


def table(rows: list[dict]) -> str:
    """The points as a Markdown table."""
    lines = ["| method | K | level | clusters | mean cluster size | articleType purity |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['method']} | {r['K']} | L{r['level']} | {r['clusters']:,} | {r['mean_cluster_size']:.2f} | {r['purity']:.3f} |"
              for r in sorted(rows, key=lambda r: (r["level"], r["method"], r["K"]))]
    return "\n".join(lines)


def plot(rows: list[dict], out: Path, title: str) -> None:
    """Two panels (L2, L3): purity against mean cluster size (log scale), one line per method, points labelled by K."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(LEVELS), figsize=(11, 4.2))
    for ax, level in zip(axes, LEVELS):
        for _, label in METHODS:
            points = sorted((r["mean_cluster_size"], r["purity"], r["K"]) for r in rows if r["level"] == level and r["method"] == label)
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
            for x, y, k in points:
                ax.annotate(f"K={k}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
        ax.set_xscale("log")
        ax.invert_xaxis()  # finer clusters to the right
        ax.set_xlabel("mean cluster size (items, log scale; finer →)")
        ax.set_ylabel("weighted articleType purity")
        ax.set_title(f"level {level}")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    with atomic_writer(out, "wb") as handle:
        fig.savefig(handle, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", default="bundled")
    parser.add_argument("--encoder", default="minilm-int8")
    parser.add_argument("--sizes", default="8,16,32,64,128")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("docs/img/sid-purity-curves.png"))
    args = parser.parse_args()
    items = ingest(args.catalog).table
    X = embed_items(items, get_encoder(args.encoder))
    rows = curve_points(items, X, [int(k) for k in args.sizes.split(",")], args.seed)
    plot(rows, args.out, f"{args.catalog} catalog ({items.num_rows:,} items), {args.encoder} embeddings, seed {args.seed}")
    print(table(rows))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
