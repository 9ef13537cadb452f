"""Relational context (§3): attribute values that separate a cluster from its parent and from its siblings."""

from __future__ import annotations

import numpy as np

from fashionrq.hierarchy.records import Contrast


def value_counts(groups: np.ndarray, codes: np.ndarray, n_values: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted ``group * n_values + code`` keys of the non-missing items and their counts."""
    valid = codes >= 0
    return np.unique(groups[valid].astype(np.int64) * n_values + codes[valid], return_counts=True)


def _lookup(keys: np.ndarray, counts: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Counts of ``query`` keys in the sorted ``keys`` (0 where absent)."""
    if not len(keys):
        return np.zeros(len(query), dtype=np.int64)
    pos = np.minimum(np.searchsorted(keys, query), len(keys) - 1)
    return np.where(keys[pos] == query, counts[pos], 0)


def contrasts(
    vocab_size: int,
    child_keys: tuple[np.ndarray, np.ndarray],
    parent_keys: tuple[np.ndarray, np.ndarray],
    clusters: np.ndarray,
    parents: np.ndarray,
    child_sizes: np.ndarray,
    parent_sizes: np.ndarray,
    min_lift: float,
) -> tuple[np.ndarray, ...]:
    """Parent and sibling lifts of one attribute (``vocab_size`` values) for the given child clusters.

    Keys are ``cluster * vocab_size + value`` as made by :func:`value_counts`. Every value present in a
    child's parent is compared; the sibling reference is the parent minus the child.
    Returns arrays (cluster, value code, cluster share, parent share, sibling share, has siblings) for the
    values whose parent or sibling |lift| reaches ``min_lift``.
    """
    n_values = max(vocab_size, 1)
    p_keys, p_counts = parent_keys
    p_group, p_code = np.divmod(p_keys, n_values)
    # Expand each selected child by the values present in its parent.
    order = np.argsort(parents, kind="stable")
    sorted_parents = parents[order]
    lo = np.searchsorted(p_group, sorted_parents, side="left")
    hi = np.searchsorted(p_group, sorted_parents, side="right")
    reps = hi - lo
    child = np.repeat(clusters[order], reps)
    child_size = np.repeat(child_sizes[order], reps)
    parent_size = np.repeat(parent_sizes[order], reps)
    idx = np.repeat(lo - np.r_[0, np.cumsum(reps)[:-1]], reps) + np.arange(reps.sum())
    code = p_code[idx]
    parent_count = p_counts[idx]
    child_count = _lookup(child_keys[0], child_keys[1], child.astype(np.int64) * n_values + code)
    share = child_count / child_size
    parent_share = parent_count / parent_size
    rest = parent_size - child_size
    has_siblings = rest > 0
    sibling_share = np.where(has_siblings, (parent_count - child_count) / np.maximum(rest, 1), 0.0)
    keep = (np.abs(share - parent_share) >= min_lift) | (has_siblings & (np.abs(share - sibling_share) >= min_lift))
    return child[keep], code[keep], share[keep], parent_share[keep], sibling_share[keep], has_siblings[keep]


def top_contrasts(
    cluster: np.ndarray,
    attribute: np.ndarray,
    code: np.ndarray,
    share: np.ndarray,
    reference: np.ndarray,
    names: tuple[str, ...],
    vocab: dict[str, list[str]],
    top_k: int,
    min_lift: float,
) -> dict[int, tuple[Contrast, ...]]:
    """Per cluster, the ``top_k`` rows with ``|share - reference| >= min_lift`` as Contrast records, largest
    |lift| first (ties: attribute order of ``names``, then value)."""
    lift = share - reference
    keep = np.abs(lift) >= min_lift - 1e-12
    order = np.lexsort((code, attribute, -np.round(np.abs(lift), 9), cluster))
    order = order[keep[order]]
    ranked = cluster[order]
    starts = np.r_[0, np.flatnonzero(np.diff(ranked)) + 1] if len(order) else np.zeros(0, dtype=np.int64)
    rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    out: dict[int, list[Contrast]] = {}
    for pos in order[rank < top_k].tolist():
        name = names[attribute[pos]]
        out.setdefault(int(cluster[pos]), []).append(Contrast(
            attribute=name, value=vocab[name][code[pos]], cluster_share=round(float(share[pos]), 6),
            reference_share=round(float(reference[pos]), 6), lift=round(float(lift[pos]), 6)))
    return {c: tuple(v) for c, v in out.items()}
