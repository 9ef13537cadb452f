"""Multiple-comparison control: Holm-corrected verdicts across all system pairs and across per-attribute breakdowns.

Every test is the two-sided few-cluster t test of the paired cluster bootstrap, p = 2 · P(T_df > |Δ̂| / SE'), with
SE' = SE · √(G/(G−1)) and df = G − 1 for equal clusters (:func:`~fashionrq.protocol.bootstrap.few_cluster_p`):
p ≤ 1 − level exactly when the gate's interval excludes 0. A pair's gate is conjunctive
over the headline metrics, so its p-value is the largest of its tasks' (an intersection–union test needs
no correction inside the pair). Holm's step-down procedure (Holm 1979) then controls the family-wise error
rate at α = 1 − level over the family: the unordered system pairs, or the (pair, attribute) cells.
"""

from __future__ import annotations

import numpy as np

from fashionrq.protocol.bootstrap import (
    DIFFERENCE_RANGE,
    cluster_sums,
    degrees_of_freedom,
    few_cluster_bounds,
    few_cluster_p,
    holm_adjust,
    json_bound,
    weighted,
    within,
)

CORRECTION = "Holm-Bonferroni step-down"


def _pair_p(gate: dict) -> float:
    """A pair's p-value: the largest over its headline tasks (1 when a task is missing)."""
    return max((entry.get("p_value", 1.0) for entry in gate["tasks"].values()), default=1.0)


def holm_pairs(pairs: list[dict], level: float) -> dict:
    """Add ``p_value``, ``p_holm`` and ``promoted_holm`` to every ordered pair's gate; return the correction record.

    A pair's two directions share one two-sided p-value, the largest of its gate's headline tasks.
    """
    alpha = 1.0 - level
    family = {tuple(sorted((p["b"], p["a"]))): _pair_p(p["gate"]) for p in pairs}
    keys = sorted(family)
    adjusted = dict(zip(keys, holm_adjust([family[k] for k in keys])))
    for pair in pairs:
        key = tuple(sorted((pair["b"], pair["a"])))
        gate = pair["gate"]
        gate["p_value"] = family[key]
        gate["p_holm"] = adjusted[key]
        gate["promoted_holm"] = bool(gate["promoted"] and adjusted[key] <= alpha)
    return {"method": CORRECTION, "family": f"{len(keys)} unordered system pairs", "alpha": alpha,
            "test": "two-sided few-cluster t test of the paired cluster bootstrap (t(G-1), SE·sqrt(G/(G-1))); "
                    "a pair's p-value is the largest over its headline metrics",
            "rule": "row promoted over column (Holm) only if promoted and its Holm-adjusted p-value <= alpha"}


def _subset_draws(diff: np.ndarray, index: np.ndarray, n_clusters: int, counts: np.ndarray) -> np.ndarray:
    sums, sizes = cluster_sums(diff, index, n_clusters)
    both = weighted(counts, np.column_stack([sums, sizes]))
    with np.errstate(invalid="ignore", divide="ignore"):
        return both[:, 0] / both[:, 1]


def _cell_test(delta: float, resampled: np.ndarray, sizes: np.ndarray, level: float) -> dict:
    """Δ, its few-cluster interval (``None`` bounds below two clusters) and two-sided p over the attribute's clusters
    (``sizes``: the attribute's queries per cluster)."""
    lower, upper = (within(bound, DIFFERENCE_RANGE) for bound in few_cluster_bounds(delta, resampled, sizes, level))
    return {"delta": delta + 0.0, "lower": json_bound(lower), "upper": json_bound(upper),
            "n_clusters": degrees_of_freedom(sizes)[0], "p_value": float(few_cluster_p(delta, resampled, sizes))}


def attribute_comparisons(scored: list, names: list[str], clusters: list[str], counts: np.ndarray, metric: str,
                          level: float) -> dict:
    """T1 ``metric`` per φ attribute for every unordered pair: Δ, interval, p and Holm-adjusted p over all cells."""
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
                cells.append({"b": names[i], "a": names[j], "attribute": attr, "n": int(present.sum()),
                              **_cell_test(float(diff.mean()), resampled, np.bincount(index[present], minlength=len(clusters)), level)})
    for cell, adjusted in zip(cells, holm_adjust([c["p_value"] for c in cells])):
        cell["p_holm"] = adjusted
        better = cell["b"] if cell["delta"] > 0 else cell["a"]
        cell["verdict"] = f"{better} better" if adjusted <= 1.0 - level else "no difference"
    return {"task": "t1", "metric": metric, "method": CORRECTION, "alpha": 1.0 - level,
            "family": f"{len(cells)} (pair, attribute) cells", "delta": "b - a over the T1 queries whose φ(q) expresses the attribute",
            "cells": cells}
