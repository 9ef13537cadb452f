"""Vectorised paired cluster bootstrap.

A resample draws as many clusters as there are, with replacement; it is stored as a row of counts
(how often each cluster was drawn). Per-cluster sufficient statistics (sums of per-unit values and
unit counts, or confusion-matrix counts) times the ``(resamples, clusters)`` count matrix give every
resampled statistic at once.

Every interval and p-value is few-cluster corrected (:func:`few_cluster_bounds`): Δ̂ ± t_df · SE · √(G/(G−1)),
SE the standard deviation of the resampled statistic, G the number of clusters and df = G − 1 for equal clusters
(fewer for unequal ones, :func:`degrees_of_freedom`; Cameron, Gelbach & Miller 2008), because a percentile interval is
too narrow when G is small (docs/protocol.md, "Paired comparison").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from scipy.special import stdtr, stdtrit  # Student's t: what scipy.stats.t calls, without importing scipy.stats (0.6 s)

from fashionrq.ieee import kernel


#: The range of every metric the protocol scores (rates, gains, F1 and shares all lie in [0, 1]) and of a difference of
#: two. A few-cluster interval on few units can reach past it; it is cut there (docs/protocol.md, "Paired comparison").
METRIC_RANGE = (0.0, 1.0)
DIFFERENCE_RANGE = (-1.0, 1.0)


def within(bound: float, span: tuple[float, float]) -> float:
    """``bound`` cut to ``span``; an unbounded one (below two clusters) stays unbounded."""
    return min(max(bound, span[0]), span[1]) if math.isfinite(bound) else bound


def draw_dtype(n_clusters: int) -> type:
    """Integer type of the cluster draws (and counts): uint16 below 65,536 clusters, else int64."""
    return np.uint16 if n_clusters < 2**16 else np.int64


#: Count matrices up to this size are kept by :func:`resample_counts` and handed to every later caller (a probe
#: table scores fourteen runs over the same clusters).
KEPT_COUNTS_BYTES = 64 * 2**20


def resample_counts(n_clusters: int, resamples: int, seed: int) -> np.ndarray:
    """``(resamples, n_clusters)`` read-only integer matrix: row r counts how often each cluster is drawn in resample r.

    Resample r draws ``rng.integers(0, n_clusters, size=n_clusters, dtype=draw_dtype(n_clusters))`` from
    ``rng = np.random.default_rng(seed)``, one call per resample in order. Use :func:`weighted` to
    multiply the matrix with per-cluster statistics. A matrix of at most :data:`KEPT_COUNTS_BYTES` is drawn once per
    process and shared.
    """
    if n_clusters < 1 or resamples < 1:
        raise ValueError("the bootstrap needs at least one cluster and one resample")
    if resamples * n_clusters * np.dtype(draw_dtype(n_clusters)).itemsize <= KEPT_COUNTS_BYTES:
        return _kept_counts(n_clusters, resamples, seed)
    return _draw_counts(n_clusters, resamples, seed)


@lru_cache(maxsize=16)
def _kept_counts(n_clusters: int, resamples: int, seed: int) -> np.ndarray:
    return _draw_counts(n_clusters, resamples, seed)


def _draw_counts(n_clusters: int, resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dtype = draw_dtype(n_clusters)
    counts = np.empty((resamples, n_clusters), dtype=dtype)
    for row in counts:
        row[:] = np.bincount(rng.integers(0, n_clusters, size=n_clusters, dtype=dtype), minlength=n_clusters)
    counts.flags.writeable = False
    return counts


def weighted(counts: np.ndarray, stats: np.ndarray) -> np.ndarray:
    """``counts @ stats`` in float64, each resample's clusters added in cluster order (:func:`_weighted_into`): the
    same bits on every CPU, where BLAS's order of the sum is its kernel's (OpenBLAS's Sandy Bridge kernel gave
    other last bits than its Haswell, SkylakeX and Zen ones)."""
    stats = np.ascontiguousarray(stats, dtype=np.float64)
    out = np.empty((counts.shape[0], math.prod(stats.shape[1:])))
    _weighted_into(counts, stats.reshape(len(stats), -1), out)
    return out.reshape((counts.shape[0],) + stats.shape[1:])


@kernel
def _weighted_into(counts: np.ndarray, stats: np.ndarray, out: np.ndarray) -> None:
    """``out[r] = sum over c of counts[r, c] * stats[c]``, c in order; a cluster not drawn (count 0) adds nothing.
    Each output column keeps its own running sum, so numba vectorises across the columns, never within a sum."""
    for r in range(counts.shape[0]):
        row = out[r]
        row[:] = 0.0
        for c in range(counts.shape[1]):
            drawn = counts[r, c]
            if drawn != 0:
                for m in range(stats.shape[1]):
                    row[m] += drawn * stats[c, m]


def cluster_sums(values: np.ndarray, cluster_index: np.ndarray, n_clusters: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sums of ``values`` (``(units, metrics)``) and per-cluster unit counts."""
    values = np.asarray(values, dtype=np.float64).reshape(len(values), -1)
    sums = np.column_stack([np.bincount(cluster_index, weights=values[:, m], minlength=n_clusters)
                            for m in range(values.shape[1])])
    return sums, np.bincount(cluster_index, minlength=n_clusters).astype(np.float64)


def resampled_means(counts: np.ndarray, sums: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Mean over units in every resample, ``(resamples, metrics)``: ``(counts @ sums) / (counts @ sizes)``."""
    both = weighted(counts, np.column_stack([sums, sizes]))
    return both[:, :-1] / both[:, -1:]


def macro_f1_from_confusions(confusions: np.ndarray, n_classes: int) -> np.ndarray:
    """Macro-F1 of flattened ``(..., n_classes * n_classes)`` confusion counts (row = true, column = predicted).

    Averages F1 = 2TP / (2TP + FP + FN) over all ``n_classes`` classes; a class with no true positive has
    F1 0 (as ``fashionrq.metrics.macro_f1``).
    """
    conf = confusions.reshape(confusions.shape[:-1] + (n_classes, n_classes))
    tp = np.diagonal(conf, axis1=-2, axis2=-1)
    denom = conf.sum(axis=-2) + conf.sum(axis=-1)
    f1 = np.divide(2 * tp, denom, out=np.zeros(tp.shape), where=tp > 0)
    return f1.mean(axis=-1)


def degrees_of_freedom(sizes: np.ndarray) -> tuple[int, float]:
    """``(G, df)`` of the few-cluster t: G the clusters holding a unit, df = G_eff − 1 with G_eff = (Σ m²)² / Σ m⁴
    over the clusters' unit counts m (Satterthwaite's effective number of clusters of a size-weighted mean; G for
    equal clusters, fewer when sizes differ: in seeded null simulations with 2-11 units per cluster, t(G−1) alone
    rejected in up to 6.5% of trials at level 0.95, in 9% with very unequal clusters; docs/protocol.md)."""
    m = np.asarray(sizes, dtype=np.float64)
    m = m[m > 0]
    return len(m), float((m ** 2).sum() ** 2 / (m ** 4).sum() - 1.0) if len(m) else 0.0


def cluster_se(resampled: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """SE · √(G/(G−1)) of a statistic from its resamples (axis 0, non-finite resamples dropped), G the non-empty
    clusters of ``sizes`` (units per cluster); inf below two clusters.

    With equal clusters and R → ∞ this is the usual s / √G of the G cluster means, so the t interval built on it
    is exact for normal cluster means.
    """
    values = np.asarray(resampled, dtype=np.float64)
    g, _ = degrees_of_freedom(sizes)
    if g < 2:
        return np.full(values.shape[1:], math.inf)
    with np.errstate(invalid="ignore"):
        se = np.nanstd(np.where(np.isfinite(values), values, np.nan), axis=0, ddof=1)
    return se * math.sqrt(g / (g - 1))


def few_cluster_bounds(point, resampled: np.ndarray, sizes: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` = ``point`` ± t_df(½ + level/2) · :func:`cluster_se`, df from :func:`degrees_of_freedom`:
    the few-cluster interval at ``level`` (Cameron, Gelbach & Miller 2008); unbounded below two clusters."""
    se = cluster_se(resampled, sizes)
    g, df = degrees_of_freedom(sizes)
    half = se * (float(stdtrit(df, 0.5 + level / 2)) if g >= 2 else 1.0)
    return point - half + 0.0, point + half + 0.0  # "+ 0.0" turns a negated zero (-0.0) into 0.0


def few_cluster_p(point, resampled: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Two-sided p-value of Δ = 0, 2 · P(T_df > |Δ̂| / :func:`cluster_se`): at most 1 − level exactly when the
    :func:`few_cluster_bounds` interval excludes 0 (1 below two clusters; 0 for a constant nonzero Δ)."""
    se, point = cluster_se(resampled, sizes), np.abs(np.asarray(point, dtype=np.float64))
    g, df = degrees_of_freedom(sizes)
    if g < 2:
        return np.ones(np.shape(se))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(se > 0, point / se, np.where(point > 0, np.inf, 0.0))
    return np.minimum(1.0, 2.0 * stdtr(df, -ratio))


def json_bound(value: float) -> float | None:
    """An interval bound as JSON: ``None`` when unbounded (fewer than two clusters) or undefined."""
    return float(value) if math.isfinite(value) else None


@dataclass(frozen=True)
class Interval:
    """A bootstrap summary of Δ = B − A: the few-cluster interval at ``level``, its two-sided ``p_value``, the share
    of resamples above 0, and the clusters and t degrees of freedom behind it."""

    delta: float
    lower: float
    upper: float
    p_positive: float
    level: float
    p_value: float
    n_clusters: int
    df: float
    clipped: bool = False  # a bound was cut to the statistic's range (:meth:`within`)

    def within(self, span: tuple[float, float]) -> Interval:
        """The interval with its bounds cut to ``span`` (``clipped`` says whether that moved one)."""
        lower, upper = within(self.lower, span), within(self.upper, span)
        return replace(self, lower=lower, upper=upper, clipped=(lower, upper) != (self.lower, self.upper))

    def to_dict(self) -> dict:
        """The summary as JSON values (an unbounded interval, below two clusters, as ``None``; ``clipped`` only when
        a bound was cut to the statistic's range)."""
        return {"delta": self.delta, "lower": json_bound(self.lower), "upper": json_bound(self.upper), "p_positive": self.p_positive,
                "level": self.level, "p_value": self.p_value, "n_clusters": self.n_clusters, "df": round(self.df, 4),
                **({"clipped": True} if self.clipped else {})}


def summarise(delta: float, resampled: np.ndarray, level: float, sizes: np.ndarray) -> Interval:
    """Point Δ, its few-cluster interval and p-value at ``level`` over clusters of ``sizes`` units, and P(Δ* > 0)."""
    lower, upper = few_cluster_bounds(float(delta), resampled, sizes, level)
    p = float(few_cluster_p(delta, resampled, sizes))
    return Interval(float(delta) + 0.0, float(lower), float(upper), float(np.mean(np.asarray(resampled) > 0)), level, p,
                    *degrees_of_freedom(sizes))


def mean_diff_draws(diffs: np.ndarray, cluster_index: np.ndarray, n_clusters: int, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Point mean and resampled means of per-unit differences ``(units,)`` or ``(units, metrics)``.

    Returns ``(point (metrics,), resampled (resamples, metrics))``.
    """
    flat = np.asarray(diffs, dtype=np.float64).reshape(len(diffs), -1)
    sums, sizes = cluster_sums(flat, cluster_index, n_clusters)
    return flat.mean(axis=0), resampled_means(counts, sums, sizes)


def _confusions(truth: np.ndarray, pred: np.ndarray, cluster_index: np.ndarray, n_clusters: int, n_classes: int) -> np.ndarray:
    cells = n_classes * n_classes
    return np.bincount(cluster_index * cells + truth * n_classes + pred, minlength=n_clusters * cells).reshape(n_clusters, cells)


def confusion_draws(truth: np.ndarray, pred: np.ndarray, cluster_index: np.ndarray, n_clusters: int, counts: np.ndarray,
                    n_classes: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """One system's flattened confusion counts: the point ``(n_classes²,)`` and every resample ``(resamples, n_classes²)``."""
    conf = _confusions(truth, pred, cluster_index, n_clusters, n_classes)
    return conf.sum(axis=0).astype(np.float64), weighted(counts, conf)


def balanced_accuracy_from_confusions(confusions: np.ndarray, n_classes: int) -> np.ndarray:
    """Mean recall over the classes present in the truth (row = true); chance level is 1 / classes whatever is predicted."""
    conf = confusions.reshape(confusions.shape[:-1] + (n_classes, n_classes))
    true = conf.sum(axis=-1)
    recall = np.divide(np.diagonal(conf, axis1=-2, axis2=-1), true, out=np.zeros(true.shape), where=true > 0)
    return recall.sum(axis=-1) / np.maximum((true > 0).sum(axis=-1), 1)


def macro_f1_diff_draws(truth: np.ndarray, pred_a: np.ndarray, pred_b: np.ndarray, cluster_index: np.ndarray,
                        n_clusters: int, counts: np.ndarray, n_classes: int = 4) -> tuple[float, np.ndarray]:
    """Point and resampled Δ macro-F1 (B − A) from per-cluster confusion counts of both systems."""
    cells = n_classes * n_classes
    stats = [_confusions(truth, pred, cluster_index, n_clusters, n_classes) for pred in (pred_a, pred_b)]
    delta = macro_f1_from_confusions(stats[1].sum(axis=0), n_classes) - macro_f1_from_confusions(stats[0].sum(axis=0), n_classes)
    pooled = weighted(counts, np.hstack(stats))
    resampled = macro_f1_from_confusions(pooled[:, cells:], n_classes) - macro_f1_from_confusions(pooled[:, :cells], n_classes)
    return float(delta), resampled


def t2_diff_draws(diffs: np.ndarray, truth: np.ndarray, pred_a: np.ndarray, pred_b: np.ndarray, cluster_index: np.ndarray,
                  n_clusters: int, counts: np.ndarray, n_classes: int = 4) -> tuple[np.ndarray, np.ndarray, tuple[float, np.ndarray]]:
    """:func:`mean_diff_draws` of ``diffs`` and :func:`macro_f1_diff_draws` in one pass over the count matrix."""
    cells = n_classes * n_classes
    flat = np.asarray(diffs, dtype=np.float64).reshape(len(diffs), -1)
    sums, sizes = cluster_sums(flat, cluster_index, n_clusters)
    conf = [_confusions(truth, pred, cluster_index, n_clusters, n_classes) for pred in (pred_a, pred_b)]
    pooled = weighted(counts, np.hstack([sums, sizes[:, None], *conf]))
    m = flat.shape[1]
    means = pooled[:, :m] / pooled[:, m:m + 1]
    f1 = macro_f1_from_confusions(pooled[:, m + 1 + cells:], n_classes) - macro_f1_from_confusions(pooled[:, m + 1:m + 1 + cells], n_classes)
    delta = macro_f1_from_confusions(conf[1].sum(axis=0), n_classes) - macro_f1_from_confusions(conf[0].sum(axis=0), n_classes)
    return flat.mean(axis=0), means, (float(delta), f1)


def paired_mean_bootstrap(diffs: np.ndarray, cluster_index: np.ndarray, n_clusters: int, counts: np.ndarray,
                          level: float = 0.95) -> list[Interval]:
    """Bootstrap the mean per-unit difference (``(units,)`` or ``(units, metrics)``) clustered by ``cluster_index``."""
    point, resampled = mean_diff_draws(diffs, cluster_index, n_clusters, counts)
    sizes = np.bincount(cluster_index, minlength=n_clusters)
    return [summarise(point[m], resampled[:, m], level, sizes) for m in range(len(point))]


def paired_macro_f1_bootstrap(truth: np.ndarray, pred_a: np.ndarray, pred_b: np.ndarray, cluster_index: np.ndarray,
                              n_clusters: int, counts: np.ndarray, n_classes: int = 4, level: float = 0.95) -> Interval:
    """Bootstrap Δ macro-F1 (B − A) from per-cluster confusion counts of both systems."""
    return summarise(*macro_f1_diff_draws(truth, pred_a, pred_b, cluster_index, n_clusters, counts, n_classes), level,
                     np.bincount(cluster_index, minlength=n_clusters))


def mean_interval_bounds(values: np.ndarray, cluster_index: np.ndarray, n_clusters: int, counts: np.ndarray,
                         level: float, span: tuple[float, float]) -> list[tuple[float, float]]:
    """Few-cluster interval at ``level`` of the mean of ``values`` (``(units,)`` or ``(units, metrics)``), clustered,
    cut to ``span`` (:data:`METRIC_RANGE` for scores, :data:`DIFFERENCE_RANGE` for differences of two)."""
    flat = np.asarray(values, dtype=np.float64).reshape(len(values), -1)
    sums, sizes = cluster_sums(flat, cluster_index, n_clusters)
    lower, upper = few_cluster_bounds(flat.mean(axis=0), resampled_means(counts, sums, sizes), sizes, level)
    return [(within(float(lo), span), within(float(up), span)) for lo, up in zip(lower, upper)]


def macro_f1_interval_bounds(truth: np.ndarray, pred: np.ndarray, cluster_index: np.ndarray, n_clusters: int,
                             counts: np.ndarray, level: float, n_classes: int = 4) -> tuple[float, float]:
    """Few-cluster interval at ``level`` of one system's macro-F1, from per-cluster confusion counts, cut to [0, 1]."""
    point, resampled = confusion_draws(truth, pred, cluster_index, n_clusters, counts, n_classes)
    lower, upper = few_cluster_bounds(macro_f1_from_confusions(point, n_classes), macro_f1_from_confusions(resampled, n_classes),
                                      np.bincount(cluster_index, minlength=n_clusters), level)
    return within(float(lower), METRIC_RANGE), within(float(upper), METRIC_RANGE)


def holm_adjust(p_values: list[float]) -> list[float]:
    """Holm–Bonferroni step-down adjusted p-values, in the input order (Holm 1979)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted, running = [0.0] * m, 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p_values[i]))
        adjusted[i] = running
    return adjusted
