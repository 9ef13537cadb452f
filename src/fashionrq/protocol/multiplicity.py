"""Multiple-comparison control: Holm-corrected verdicts across all system pairs and across per-attribute breakdowns.

Every test is a two-sided paired cluster-bootstrap test with p = min(1, 2 · min(p₊, p₋)), where
p₊ = (1 + #{Δ* ≤ 0}) / (1 + R) is the one-sided p-value of "B is better". A pair's gate is conjunctive
over the headline metrics, so its p-value is the largest of its tasks' (an intersection–union test needs
no correction inside the pair). Holm's step-down procedure (Holm 1979) then controls the family-wise error
rate at α = 1 − level over the family: the unordered system pairs, or the (pair, attribute) cells.
"""

from __future__ import annotations

import numpy as np

from fashionrq.protocol.bootstrap import bootstrap_p_value, cluster_sums, holm_adjust, weighted

CORRECTION = "Holm-Bonferroni step-down"


def two_sided_p(resampled: np.ndarray) -> float:
    """Two-sided bootstrap p-value of Δ = 0 from resampled Δ values (NaN resamples dropped)."""
    values = np.asarray(resampled, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return 1.0
    return min(1.0, 2.0 * min(bootstrap_p_value(values), bootstrap_p_value(-values)))


def holm_pairs(pairs: list[dict], pair_draws: dict, heads: dict[str, str], index_of: dict[str, int], level: float) -> dict:
    """Add ``p_value``, ``p_holm`` and ``promoted_holm`` to every ordered pair's gate; return the correction record.

    ``pair_draws[(i, j, task)]`` holds ``{metric: (point, resampled Δ of run i − run j)}`` for i < j.
    """
    alpha = 1.0 - level
    family: dict[tuple[int, int], float] = {}
    for i, j in {tuple(sorted((index_of[p["b"]], index_of[p["a"]]))) for p in pairs}:
        tasks = [t for t in heads if (i, j, t) in pair_draws]
        if len(tasks) < len(heads):
            family[(i, j)] = 1.0
            continue
        family[(i, j)] = max(two_sided_p(pair_draws[(i, j, t)][heads[t]][1]) for t in tasks)
    keys = sorted(family)
    adjusted = dict(zip(keys, holm_adjust([family[k] for k in keys])))
    for pair in pairs:
        key = tuple(sorted((index_of[pair["b"]], index_of[pair["a"]])))
        gate = pair["gate"]
        gate["p_value"] = family[key]
        gate["p_holm"] = adjusted[key]
        gate["promoted_holm"] = bool(gate["promoted"] and adjusted[key] <= alpha)
    return {"method": CORRECTION, "family": f"{len(keys)} unordered system pairs", "alpha": alpha,
            "test": "two-sided paired cluster bootstrap; a pair's p-value is the largest over its headline metrics",
            "rule": "row promoted over column (Holm) only if promoted and its Holm-adjusted p-value <= alpha"}


def _subset_draws(diff: np.ndarray, index: np.ndarray, n_clusters: int, counts: np.ndarray) -> np.ndarray:
    sums, sizes = cluster_sums(diff, index, n_clusters)
    both = weighted(counts, np.column_stack([sums, sizes]))
    with np.errstate(invalid="ignore", divide="ignore"):
        return both[:, 0] / both[:, 1]


def attribute_comparisons(scored: list, names: list[str], clusters: list[str], counts: np.ndarray, metric: str,
                          level: float) -> dict:
    """T1 ``metric`` per φ attribute for every unordered pair: Δ, interval, p and Holm-adjusted p over all cells."""
    tail = 100.0 * (1.0 - level) / 2.0
    cells = []
    for i in range(len(scored)):
        for j in range(i + 1, len(scored)):
            ui, uj = scored[i].units.get("t1"), scored[j].units.get("t1")
            if ui is None or uj is None or metric not in ui.values:
                continue
            index = ui.cluster_index(clusters)
            expressed = scored[i].expressed
            for attr in sorted({a for q in ui.ids for a in expressed.get(q, [])}):
                present = np.array([attr in expressed.get(q, []) for q in ui.ids])
                diff = (ui.values[metric] - uj.values[metric])[present]
                resampled = _subset_draws(diff, index[present], len(clusters), counts)
                finite = resampled[np.isfinite(resampled)]
                lower, upper = np.percentile(finite, [tail, 100.0 - tail]) if finite.size else (np.nan, np.nan)
                cells.append({"b": names[i], "a": names[j], "attribute": attr, "n": int(present.sum()),
                              "delta": float(diff.mean()) + 0.0, "lower": float(lower) + 0.0, "upper": float(upper) + 0.0,
                              "p_value": two_sided_p(resampled)})
    for cell, adjusted in zip(cells, holm_adjust([c["p_value"] for c in cells])):
        cell["p_holm"] = adjusted
        better = cell["b"] if cell["delta"] > 0 else cell["a"]
        cell["verdict"] = f"{better} better" if adjusted <= 1.0 - level else "no difference"
    return {"task": "t1", "metric": metric, "method": CORRECTION, "alpha": 1.0 - level,
            "family": f"{len(cells)} (pair, attribute) cells", "delta": "b - a over the T1 queries whose φ(q) expresses the attribute",
            "cells": cells}
