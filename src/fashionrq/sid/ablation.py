"""Seed-averaged comparisons of tokenizers and codebook sizes (the paper's Tables 5-6 and the method ablation)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
from rich.table import Table

from fashionrq.sid.base import attributes_from_items
from fashionrq.sid.methods import make_tokenizer
from fashionrq.sid.report import REPORT_ATTRIBUTES, purity_text, sid_report
from fashionrq.sid.rqvae import DEFAULT_LEVEL_ATTRIBUTES


def run_ablation(X: np.ndarray, items: pa.Table, methods: Sequence[str] = ("rqvae",), sizes: Sequence[int] = (64,),
                 seeds: Sequence[int] = (0,), **params) -> list[dict]:
    """Fit every (method, codebook size, seed) on ``X`` and return one row with its ``sid_report`` each."""
    names = tuple(name for name in params.get("level_attributes", DEFAULT_LEVEL_ATTRIBUTES) if name)
    attributes = attributes_from_items(items, names)
    rows = []
    for method in methods:
        for size in sizes:
            for seed in seeds:
                model = make_tokenizer(method, codebook_size=size, seed=seed, **params).fit(X, attributes)
                report = sid_report(model.transform(X), items, X, model)
                rows.append({"method": method, "codebook_size": size, "seed": seed, "report": report})
    return rows


def summarize(rows: list[dict]) -> list[dict]:
    """Average the rows' reports over seeds: one entry per (method, codebook size) with per-level means."""
    groups: dict[tuple[str, int], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["method"], row["codebook_size"]), []).append(row["report"])
    summary = []
    for (method, size), reports in groups.items():
        levels = []
        for level in range(len(reports[0]["levels"])):
            entries = [r["levels"][level] for r in reports]
            mean = lambda key: float(np.mean([e[key] for e in entries]))  # noqa: E731
            levels.append({
                "level": level + 1,
                "codebook_usage": mean("codebook_usage"),
                "mean_cluster_size": mean("mean_cluster_size"),
                "clusters": mean("clusters"),
                "purity": {name: {kind: _mean_or_none([e["purity"][name][kind] for e in entries]) for kind in ("weighted", "unweighted")}
                           for name in entries[0]["purity"]},
            })
        summary.append({"method": method, "codebook_size": size, "seeds": len(reports), "levels": levels,
                        "colliding_fraction": float(np.mean([r["collisions"]["colliding_fraction"] for r in reports])),
                        "reconstruction_error": float(np.mean([r.get("reconstruction_error", np.nan) for r in reports]))})
    return summary


def _mean_or_none(values: list[float | None]) -> float | None:
    """The mean of a purity over seeds; ``None`` for an attribute no item has (every seed's ``None``)."""
    return None if None in values else float(np.mean(values))


def purity_table(summary: list[dict], attributes: Sequence[str] = REPORT_ATTRIBUTES, kind: str = "weighted") -> Table:
    """Paper Table 5: weighted (or unweighted) purity per attribute, one row per (method, codebook size, level)."""
    table = Table(title=f"{kind} purity per attribute and level (mean over seeds)", show_edge=False)
    for column in ("method", "K", "level", *attributes):
        table.add_column(column, justify="left" if column == "method" else "right")
    for entry in summary:
        for lvl in entry["levels"]:
            table.add_row(entry["method"], str(entry["codebook_size"]), str(lvl["level"]),
                          *(purity_text(lvl["purity"][name][kind]) for name in attributes))
    return table


def fragmentation_table(summary: list[dict]) -> Table:
    """Paper Table 6: clusters and mean cluster size per level, with codebook usage, collisions and reconstruction error."""
    table = Table(title="cluster fragmentation (mean over seeds)", show_edge=False)
    for column in ("method", "K", "level", "clusters", "mean size", "usage", "colliding", "recon err"):
        table.add_column(column, justify="left" if column == "method" else "right")
    for entry in summary:
        for lvl in entry["levels"]:
            first = lvl["level"] == 1
            table.add_row(entry["method"], str(entry["codebook_size"]), str(lvl["level"]), f"{lvl['clusters']:,.1f}",
                          f"{lvl['mean_cluster_size']:.2f}", f"{lvl['codebook_usage']:.0%}",
                          f"{entry['colliding_fraction']:.1%}" if first else "", f"{entry['reconstruction_error']:.4f}" if first else "")
    return table
