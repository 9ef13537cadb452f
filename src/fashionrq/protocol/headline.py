"""What the headline is made of: aggregation sensitivity, annotation coverage and gate sensitivity.

Aggregation axes, each ranking the systems twice and flagging every pair whose order flips:

* ``units_vs_clusters`` — each task's headline metric as a mean over units (micro) and as a mean of
  per-cluster means (macro); T2 uses accuracy here, since macro-F1 is not a mean over pairs. Flipped
  pairs get a bootstrap interval under both aggregations, from the same resamples;
* ``classes`` (T2) — accuracy (= micro-F1 for one label per pair) against macro-F1 over the four grades;
* ``attributes`` (with weighted relevance) — AttrScore pooled over every (query, attribute) cell against
  the unweighted mean over attributes.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from fashionrq.protocol.bootstrap import DIFFERENCE_RANGE, paired_mean_bootstrap, summarise, weighted
from fashionrq.protocol.scoring import ScoredRun
from fashionrq.taskspec import TASKS


PLURAL = {"query": "queries", "test pair": "test pairs", "paraphrase group": "paraphrase groups"}


def cluster_macro_bootstrap(diffs: np.ndarray, cluster_index: np.ndarray, n_clusters: int, counts: np.ndarray, level: float):
    """Bootstrap Δ of the mean of per-cluster means: resampled value = counts @ cluster_means / n_clusters."""
    sums = np.bincount(cluster_index, weights=diffs, minlength=n_clusters)
    means = sums / np.bincount(cluster_index, minlength=n_clusters)
    return summarise(means.mean(), weighted(counts, means) / n_clusters, level, np.ones(n_clusters))  # clusters weigh alike


def _flips(values: dict[str, tuple[float, float]]) -> list[tuple[str, str]]:
    """Pairs (x, y) where x beats y under the first aggregation and loses under the second."""
    flips = []
    for x, y in combinations(sorted(values), 2):
        first, second = values[x][0] - values[y][0], values[x][1] - values[y][1]
        if first * second < 0:
            flips.append((x, y) if first > 0 else (y, x))
    return flips


def _ranking(values: dict[str, float]) -> list[str]:
    return sorted(values, key=lambda name: (-values[name], name))


def _axis(label: str, micro_name: str, macro_name: str, values: dict[str, tuple[float, float]]) -> dict:
    flips = _flips(values)
    return {
        "axis": label, "micro": micro_name, "macro": macro_name,
        "values": {name: {"micro": v[0], "macro": v[1]} for name, v in sorted(values.items())},
        "ranking_micro": _ranking({n: v[0] for n, v in values.items()}),
        "ranking_macro": _ranking({n: v[1] for n, v in values.items()}),
        "flips": [{"leads_micro": x, "leads_macro": y} for x, y in flips],
    }


def headline_analysis(scored: list[ScoredRun], comparison: dict, draws: tuple[dict, dict]) -> dict:
    """Aggregation sensitivity, AttrScore with coverage, and which task decides each gate."""
    clusters, counts = draws
    level = comparison["bootstrap"]["level"]
    names = list(comparison["runs"])
    by_name = dict(zip(names, scored))
    headline = comparison["headline"]
    axes, flags = [], []
    for task, metric in headline.items():
        metric = "accuracy" if task == "t2" else metric
        have = {n: s for n, s in by_name.items() if task in s.units and metric in s.units[task].values}
        if len(have) < 2:
            continue
        values = {n: (s.report["tasks"][task]["aggregate"][metric], s.report["tasks"][task]["cluster_macro"][metric]) for n, s in have.items()}
        unit = next(iter(have.values())).units[task].unit
        axis = _axis(f"{TASKS[task].name} {metric}: mean over {PLURAL.get(unit, unit)} vs mean over bootstrap units",
                     "units", "clusters", values)
        for flip in axis["flips"]:
            x, y = flip["leads_micro"], flip["leads_macro"]
            ux, uy = have[x].units[task], have[y].units[task]
            index = ux.cluster_index(clusters[task])
            diff = ux.values[metric] - uy.values[metric]
            micro = paired_mean_bootstrap(diff, index, len(clusters[task]), counts[task], level)[0].within(DIFFERENCE_RANGE)
            macro = cluster_macro_bootstrap(diff, index, len(clusters[task]), counts[task], level).within(DIFFERENCE_RANGE)
            flip["delta"] = f"{x} - {y}"
            flip["micro_interval"] = micro.to_dict()
            flip["macro_interval"] = macro.to_dict()
            flags.append(f"{TASKS[task].name} {metric}: {x} leads {y} over units ({micro.delta:+.4f} [{micro.lower:+.4f}, {micro.upper:+.4f}]) "
                         f"but trails over clusters ({macro.delta:+.4f} [{macro.lower:+.4f}, {macro.upper:+.4f}])")
        axes.append(axis)
    t2 = {n: s for n, s in by_name.items() if "t2" in s.units}
    if len(t2) >= 2:
        agg = {n: s.report["tasks"]["t2"]["aggregate"] for n, s in t2.items()}
        axis = _axis("T2: accuracy (micro over pairs) vs macro-F1 (macro over grades)", "accuracy", "macro_f1",
                     {n: (a["accuracy"], a["macro_f1"]) for n, a in agg.items()})
        flags += [f"T2: {f['leads_micro']} leads {f['leads_macro']} on accuracy but trails on macro-F1" for f in axis["flips"]]
        axes.append(axis)
    attr = {n: s.report["relevance"]["attributes"] for n, s in by_name.items() if "relevance" in s.report}
    coverage = None
    if attr:
        values = {}
        for n, table in attr.items():
            scored_attrs = {a: e for a, e in table.items() if e["attr_score"] is not None}
            total = sum(e["n_queries"] for e in scored_attrs.values())
            micro = sum(e["attr_score"] * e["n_queries"] for e in scored_attrs.values()) / total if total else float("nan")
            macro = float(np.mean([e["attr_score"] for e in scored_attrs.values()])) if scored_attrs else float("nan")
            values[n] = (micro, macro)
        if len(values) >= 2:
            axis = _axis("AttrScore: pooled over (query, attribute) cells vs mean over attributes", "cells", "attributes", values)
            flags += [f"AttrScore: {f['leads_micro']} leads {f['leads_macro']} pooled over cells but trails averaged over attributes" for f in axis["flips"]]
            axes.append(axis)
        coverage = {a: {n: {"attr_score": attr[n][a]["attr_score"], "coverage": attr[n][a]["coverage"], "n_queries": attr[n][a]["n_queries"]}
                        for n in attr} for a in next(iter(attr.values()))}
    gates = []
    for pair in comparison["pairs"]:
        g = pair["gate"]
        lowers = {t: e.get("lower") for t, e in g["tasks"].items()}
        alternatives = []
        for task, entry in pair["tasks"].items():
            for metric, interval in entry["metrics"].items():
                passes = interval["lower"] is not None and interval["lower"] > 0
                if metric != headline[task] and passes != g["tasks"][task]["passes"]:
                    # the pass/fail of this task flips; the verdict flips only if every other task passes
                    alternatives.append({"task": task, "metric": metric, "lower": interval["lower"],
                                         "verdict_changes": all(e["passes"] for t, e in g["tasks"].items() if t != task)})
        gates.append({"b": pair["b"], "a": pair["a"], "promoted": g["promoted"], "binding": g["binding"],
                      "decided_by": g["decided_by"], "lower_bounds": lowers, "failing": g["failing"],
                      "headline_alternatives": alternatives})
    return {"aggregation": axes, "flags": flags, "attr_coverage": coverage, "gate_sensitivity": gates}
