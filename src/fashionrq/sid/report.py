"""Diagnostics of a semantic-ID assignment: codebook usage, fragmentation, collisions and attribute purity."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from rich.console import Group
from rich.table import Table

from fashionrq.errors import InputError
from fashionrq.ieee import exp_scalar, log_array
from fashionrq.sid.base import encode_attribute

REPORT_ATTRIBUTES = ("article_type", "sub_category", "base_colour", "gender")


def prefix_ids(sids: np.ndarray, level: int) -> np.ndarray:
    """Dense cluster id of every item's length-``level`` prefix."""
    return np.unique(np.asarray(sids)[:, :level], axis=0, return_inverse=True)[1].reshape(-1)


def purity(clusters: np.ndarray, values: np.ndarray) -> tuple[float | None, float | None]:
    """(weighted, unweighted) majority-value purity of ``clusters`` for attribute ``values``; missing values are skipped,
    and an attribute no item has (a catalog without colours) has none: ``(None, None)``, JSON's ``null``.

    weighted = sum_c max_v n_cv / sum_c n_c; unweighted = mean over clusters of max_v n_cv / n_c.
    """
    labels, vocab = encode_attribute(values)
    keep = labels >= 0
    if not keep.any():
        return None, None
    c, v = clusters[keep], labels[keep]
    pairs, counts = np.unique(c * (len(vocab) + 1) + v, return_counts=True)
    pair_cluster = pairs // (len(vocab) + 1)
    sizes = np.bincount(c)
    best = np.zeros(len(sizes), dtype=np.int64)
    np.maximum.at(best, pair_cluster, counts)
    present = sizes > 0
    return float(best.sum() / sizes.sum()), float((best[present] / sizes[present]).mean())


def collisions(sids: np.ndarray) -> dict:
    """Items that share their full SID with at least one other item."""
    sids = np.asarray(sids)
    _, inverse, counts = np.unique(sids, axis=0, return_inverse=True, return_counts=True)
    shared = counts[inverse.reshape(-1)] > 1
    return {
        "colliding_items": int(shared.sum()),
        "colliding_fraction": float(shared.mean()),
        "shared_ids": int((counts > 1).sum()),
        "largest_group": int(counts.max()),
    }


def sid_report(sids: np.ndarray, items_table: pa.Table, X: np.ndarray | None = None, model=None,
               codebook_size: int | None = None, attributes: tuple[str, ...] = REPORT_ATTRIBUTES) -> dict:
    """Per-level diagnostics of ``sids`` (N, L) against ``items_table``; reconstruction error when ``X`` and ``model`` are given."""
    sids = np.asarray(sids)
    if sids.ndim != 2 or len(sids) != items_table.num_rows:
        raise InputError(f"the SIDs have shape {sids.shape} but the items table has {items_table.num_rows} rows; assign SIDs to exactly these items.")
    missing = [name for name in attributes if name not in items_table.column_names]
    if missing:
        raise InputError(f"the items table has no column {', '.join(missing)}; pass a canonical items table (fashionrq ingest).")
    if codebook_size is None:
        codebook_size = model.codebook_size if model is not None else int(sids.max()) + 1
    values = {name: np.asarray(items_table.column(name).to_pylist(), dtype=object) for name in attributes}
    n = len(sids)
    levels = []
    for level in range(1, sids.shape[1] + 1):
        clusters = prefix_ids(sids, level)
        sizes = np.bincount(clusters)
        code_counts = np.bincount(sids[:, level - 1], minlength=codebook_size)
        share = code_counts[code_counts > 0] / n
        entry = {
            "level": level,
            "clusters": int(len(sizes)),
            "codebook_usage": float((code_counts > 0).sum() / codebook_size),
            "codes_used": int((code_counts > 0).sum()),
            "perplexity": float(exp_scalar(-(share * log_array(share)).sum())),
            "unique_fraction": float((sizes[clusters] == 1).mean()),
            "mean_cluster_size": float(sizes.mean()),
            "median_cluster_size": float(np.median(sizes)),
            "purity": {},
        }
        for name in attributes:
            weighted, unweighted = purity(clusters, values[name])
            entry["purity"][name] = {"weighted": weighted, "unweighted": unweighted}
        levels.append(entry)
    report = {"items": n, "levels_count": sids.shape[1], "codebook_size": codebook_size, "levels": levels,
              "collisions": collisions(sids)}
    if model is not None and X is not None:
        report["reconstruction_error"] = model.reconstruction_error(X)
    return report


def purity_text(value: float | None) -> str:
    """A purity to three decimals, or ``–`` for an attribute no item has."""
    return "–" if value is None else f"{value:.3f}"


def report_table(report: dict) -> Group:
    """A readable rich rendering of a ``sid_report`` dict: a structure table and a purity table, one row per level."""
    structure = Table(title=f"semantic IDs: {report['items']:,} items, K={report['codebook_size']}", show_edge=False)
    for column in ("level", "clusters", "usage", "perplexity", "unique", "mean size", "median size"):
        structure.add_column(column, justify="right")
    for entry in report["levels"]:
        structure.add_row(
            str(entry["level"]), f"{entry['clusters']:,}", f"{entry['codebook_usage']:.0%}", f"{entry['perplexity']:.1f}",
            f"{entry['unique_fraction']:.1%}", f"{entry['mean_cluster_size']:.2f}", f"{entry['median_cluster_size']:g}",
        )
    c = report["collisions"]
    caption = f"{c['colliding_items']:,} items ({c['colliding_fraction']:.1%}) share {c['shared_ids']:,} full SIDs (largest {c['largest_group']})"
    if "reconstruction_error" in report:
        caption += f"; reconstruction error {report['reconstruction_error']:.4f}"
    structure.caption = caption
    purity_table = Table(title="purity, weighted / unweighted", show_edge=False)
    purity_table.add_column("level", justify="right")
    names = list(report["levels"][0]["purity"]) if report["levels"] else []
    for name in names:
        purity_table.add_column(name, justify="right")
    for entry in report["levels"]:
        purity_table.add_row(str(entry["level"]), *(f"{purity_text(entry['purity'][n]['weighted'])} / {purity_text(entry['purity'][n]['unweighted'])}" for n in names))
    return Group(structure, purity_table)
