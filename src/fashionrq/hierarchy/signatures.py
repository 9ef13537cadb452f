"""Attribute signatures (§8.0.2): conjunctions of 1-3 attribute values scored by coverage and precision.

Every combination is counted with one ``np.unique`` over integer keys per level, so the whole catalog is
scored in a couple of seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from fashionrq.hierarchy.attributes import NAME_TERM, PRODUCT_AXES
from fashionrq.hierarchy.records import Signature


@dataclass(frozen=True)
class SignatureRule:
    """Thresholds and list length of one signature set."""

    min_coverage: float
    min_precision: float
    top_k: int


DISCRIMINATING = SignatureRule(min_coverage=0.10, min_precision=0.90, top_k=8)
COVERAGE = SignatureRule(min_coverage=0.05, min_precision=0.50, top_k=20)


def attribute_combinations(attributes: tuple[str, ...], max_size: int = 3) -> list[tuple[str, ...]]:
    """Combinations of 1..``max_size`` attributes, with at most one product-type axis (they nest)."""
    combos = []
    for size in range(1, max_size + 1):
        for combo in combinations(attributes, size):
            if sum(name in PRODUCT_AXES for name in combo) <= 1:
                combos.append(combo)
    return combos


def _span(combo: tuple[str, ...], radices: dict[str, int]) -> int:
    return int(np.prod([radices[name] for name in combo], dtype=np.float64))


def _combo_keys(codes: list[np.ndarray], radices: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Mixed-radix key of several code columns, and the mask of rows where none is missing (-1)."""
    key = np.zeros(len(codes[0]), dtype=np.int64)
    valid = np.ones(len(codes[0]), dtype=bool)
    for column, radix in zip(codes, radices):
        key = key * radix + np.maximum(column, 0)
        valid &= column >= 0
    return key, valid


def count_keys(keys: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_counts=True)`` for non-negative keys below ``span``: one ``bincount`` pass when the
    key space is small next to the keys (no sort), else the sort."""
    if span <= max(4 * len(keys), 1 << 16):
        counts = np.bincount(keys, minlength=span)
        present = np.flatnonzero(counts)
        return present, counts[present]
    return np.unique(keys, return_counts=True)


def score_signatures(
    codes: dict[str, np.ndarray],
    vocab: dict[str, list[str]],
    term_rows: np.ndarray,
    term_codes: np.ndarray,
    groups: np.ndarray,
    sizes: np.ndarray,
    selected: np.ndarray,
    rules: tuple[SignatureRule, SignatureRule] = (DISCRIMINATING, COVERAGE),
    max_attributes: int = 3,
) -> dict[int, tuple[tuple[Signature, ...], tuple[Signature, ...]]]:
    """Discriminating and coverage signatures of every selected cluster at one level.

    ``codes`` maps an attribute to its ``(N,)`` int codes (-1 missing) over ``vocab[attribute]``; name terms
    come as (row, term) pairs in ``term_rows``/``term_codes``. ``groups`` gives each item's cluster index at this
    level, ``sizes`` the cluster sizes and ``selected`` (bool per cluster) which clusters to describe.
    Returns cluster index -> (discriminating, coverage) signatures, best first.
    """
    names = tuple(codes) + (NAME_TERM,)
    radices = {name: max(len(vocab[name]), 1) for name in names}
    floor = min(rule.min_coverage for rule in rules), min(rule.min_precision for rule in rules)
    found: list[tuple[np.ndarray, ...]] = []
    combos = attribute_combinations(names, max_attributes)
    for combo_index, combo in enumerate(combos):
        if NAME_TERM in combo:
            rows = term_rows
            columns = [codes[name][rows] if name != NAME_TERM else term_codes for name in combo]
        else:
            rows = None
            columns = [codes[name] for name in combo]
        key, valid = _combo_keys(columns, [radices[name] for name in combo])
        item_groups = groups if rows is None else groups[rows]
        key, item_groups = key[valid], item_groups[valid]
        if not len(key):
            continue
        catalog_keys, catalog_counts = count_keys(key, _span(combo, radices))
        keep = selected[item_groups]
        key, item_groups = key[keep], item_groups[keep]
        if not len(key):
            continue
        span = int(catalog_keys[-1]) + 1
        pair, support = count_keys(item_groups.astype(np.int64) * span + key, len(sizes) * span)
        group, combo_key = np.divmod(pair, span)
        coverage = support / sizes[group]
        precision = support / catalog_counts[np.searchsorted(catalog_keys, combo_key)]
        ok = (coverage >= floor[0] - 1e-12) & (precision >= floor[1] - 1e-12)
        if ok.any():
            n = int(ok.sum())
            catalog = support[ok] / precision[ok]
            found.append((group[ok], np.full(n, combo_index), combo_key[ok], support[ok], coverage[ok], precision[ok],
                          np.full(n, len(combo)), np.rint(catalog).astype(np.int64)))
    if not found:
        return {}
    group, combo_index, combo_key, support, coverage, precision, n_attrs, catalog = (np.concatenate(parts) for parts in zip(*found))
    # A longer combination matching exactly as many cluster and catalog items as a shorter one adds nothing:
    # keep the first (fewest attributes) of every (cluster, support, catalog count) class.
    order = np.lexsort((combo_key, combo_index, n_attrs, catalog, support, group))
    triple = np.stack([group[order], support[order], catalog[order]], axis=1)
    first = np.r_[True, np.any(np.diff(triple, axis=0) != 0, axis=1)]
    keep = np.sort(order[first])
    group, combo_index, combo_key, support, coverage, precision, n_attrs = (
        a[keep] for a in (group, combo_index, combo_key, support, coverage, precision, n_attrs))
    result: dict[int, list[list[Signature]]] = {}
    for rule_index, rule in enumerate(rules):
        ok = (coverage >= rule.min_coverage - 1e-12) & (precision >= rule.min_precision - 1e-12)
        if rule_index == 0:  # exclusivity first: precision, then coverage, then shorter, then combo order
            order = np.lexsort((combo_key, combo_index, n_attrs, -coverage, -precision, group))
        else:  # coverage first
            order = np.lexsort((combo_key, combo_index, n_attrs, -precision, -coverage, group))
        order = order[ok[order]]
        ranked_groups = group[order]
        starts = np.r_[0, np.flatnonzero(np.diff(ranked_groups)) + 1]
        rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
        for pos in order[rank < rule.top_k]:
            combo = combos[combo_index[pos]]
            values = []
            rest = int(combo_key[pos])
            for name in reversed(combo):
                rest, code = divmod(rest, radices[name])
                values.append((name, vocab[name][code]))
            signature = Signature(
                attributes=tuple(reversed(values)),
                coverage=float(coverage[pos]),
                precision=float(precision[pos]),
                support=int(support[pos]),
            )
            result.setdefault(int(group[pos]), [[], []])[rule_index].append(signature)
    return {g: (tuple(lists[0]), tuple(lists[1])) for g, lists in result.items()}
