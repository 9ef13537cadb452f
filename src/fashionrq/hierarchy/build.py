"""Build the cluster hierarchy: every SID prefix becomes a Cluster record (§3, §4, §8.0.2)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from fashionrq.errors import InputError
from fashionrq.hierarchy.attributes import (
    DISTRIBUTION_ATTRIBUTES,
    NAME_TERM,
    PRODUCT_AXES,
    SIGNATURE_ATTRIBUTES,
    attribute_frame,
    items_frame,
    name_terms,
)
from fashionrq.hierarchy.context import contrasts, top_contrasts, value_counts
from fashionrq.hierarchy.records import Cluster
from fashionrq.hierarchy.signatures import COVERAGE, DISCRIMINATING, SignatureRule, score_signatures


def prefix_string(codes) -> str:
    """The prefix id ``"12-5-33"`` of a sequence of codes."""
    return "-".join(str(int(c)) for c in codes)


@dataclass
class Hierarchy:
    """All cluster records of a catalog, keyed by prefix id, plus the per-level item groups."""

    clusters: dict[str, Cluster]
    sids: np.ndarray  # (N, L) int
    groups: list[np.ndarray] = field(repr=False)  # per level: each item's cluster index
    prefixes: list[list[str]] = field(repr=False)  # per level: cluster index -> prefix id
    config: dict = field(default_factory=dict)

    @property
    def levels(self) -> int:
        return self.sids.shape[1]

    def level_counts(self) -> dict[str, dict[str, int]]:
        """Clusters per level: all prefixes and the qualified ones."""
        out: dict[str, dict[str, int]] = {}
        for c in self.clusters.values():
            entry = out.setdefault(str(c.level), {"prefixes": 0, "qualified": 0})
            entry["prefixes"] += 1
            entry["qualified"] += int(c.qualified)
        return out

    def qualified(self, level: int | None = None) -> list[Cluster]:
        """Qualified clusters (of one level, or all), in prefix order."""
        return [c for c in self.clusters.values() if c.qualified and (level is None or c.level == level)]

    def to_frame(self) -> pd.DataFrame:
        """Cluster records as a flat table (nested fields as JSON strings) for ``clusters.parquet``."""

        def sigs(items) -> str:
            return json.dumps([{"attributes": [list(a) for a in s.attributes], "coverage": s.coverage,
                                "precision": s.precision, "support": s.support} for s in items])

        def cons(items) -> str:
            return json.dumps([{"attribute": x.attribute, "value": x.value, "cluster_share": x.cluster_share,
                                "reference_share": x.reference_share, "lift": x.lift} for x in items])

        rows = [{
            "cluster_id": c.cluster_id, "level": c.level, "size": c.size, "purity": c.purity,
            "qualified": c.qualified, "parent": c.parent, "children": list(c.children),
            "primary_axis": c.primary_axis, "primary_value": c.primary_value, "item_rows": list(c.item_rows),
            "distributions": json.dumps(c.distributions, sort_keys=True),
            "discriminating": sigs(c.discriminating), "coverage_signatures": sigs(c.coverage_signatures),
            "parent_contrast": cons(c.parent_contrast), "sibling_contrast": cons(c.sibling_contrast),
        } for c in self.clusters.values()]
        return pd.DataFrame(rows)


def _codes(frame: pd.DataFrame, names) -> tuple[dict[str, np.ndarray], dict[str, list[str]]]:
    """Integer codes (-1 missing) over a sorted vocabulary for each attribute column."""
    codes, vocab = {}, {}
    for name in names:
        values, uniques = pd.factorize(frame[name], sort=True, use_na_sentinel=True)
        codes[name] = values.astype(np.int64)
        vocab[name] = [str(v) for v in uniques]
    return codes, vocab


def build_hierarchy(
    items: pa.Table | pd.DataFrame,
    sids: np.ndarray,
    min_purity: float = 0.80,
    min_size: int = 2,
    discriminating: SignatureRule = DISCRIMINATING,
    coverage: SignatureRule = COVERAGE,
    min_term_count: int = 20,
    top_contrasts_k: int = 8,
    min_lift: float = 0.05,
) -> Hierarchy:
    """Cluster records for every SID prefix of ``sids`` (``(N, L)`` ints aligned with ``items`` rows).

    A prefix qualifies when its article-type purity is >= ``min_purity`` and it has >= ``min_size`` items.
    Signatures and parent/sibling contrasts are computed for qualified clusters only (they feed query
    generation); every cluster gets its size, purity, distributions and primary product-type axis.
    """
    frame = items_frame(items)
    sids = np.asarray(sids)
    if sids.ndim != 2 or sids.shape[0] != len(frame):
        raise InputError(f"semantic ids have shape {sids.shape} but the items table has {len(frame)} rows; pass one (N, L) row of codes per item.")
    n, levels = sids.shape
    attrs = attribute_frame(frame)
    codes, vocab = _codes(attrs, DISTRIBUTION_ATTRIBUTES)
    term_rows, term_codes, term_vocab = name_terms(frame["name"], min_term_count)
    sig_codes = {k: codes[k] for k in SIGNATURE_ATTRIBUTES}
    sig_vocab = {**{k: vocab[k] for k in SIGNATURE_ATTRIBUTES}, NAME_TERM: term_vocab}

    groups: list[np.ndarray] = []
    prefixes: list[list[str]] = []
    uniques: list[np.ndarray] = []
    for level in range(1, levels + 1):
        unique, inverse = np.unique(sids[:, :level], axis=0, return_inverse=True)
        groups.append(inverse.reshape(-1).astype(np.int64))
        uniques.append(unique)
        prefixes.append([prefix_string(u) for u in unique])

    # Per level and attribute: (group, value) counts.
    counts = [{a: value_counts(groups[lv], codes[a], max(len(vocab[a]), 1)) for a in DISTRIBUTION_ATTRIBUTES} for lv in range(levels)]
    catalog_counts = {a: value_counts(np.zeros(n, dtype=np.int64), codes[a], max(len(vocab[a]), 1)) for a in DISTRIBUTION_ATTRIBUTES}

    level_data = []
    for lv in range(levels):
        g = groups[lv]
        sizes = np.bincount(g, minlength=len(prefixes[lv]))
        axis_purity = {}
        axis_value = {}
        for axis in PRODUCT_AXES:
            keys, cnt = counts[lv][axis]
            nv = max(len(vocab[axis]), 1)
            grp, code = np.divmod(keys, nv)
            best = np.zeros(len(sizes), dtype=np.int64)
            best_code = np.full(len(sizes), -1, dtype=np.int64)
            # keys are sorted by group then code: take the max count per group (first code on ties)
            order = np.lexsort((code, -cnt, grp))
            first = order[np.r_[True, np.diff(grp[order]) != 0]] if len(order) else order
            best[grp[first]] = cnt[first]
            best_code[grp[first]] = code[first]
            axis_purity[axis] = best / sizes
            axis_value[axis] = best_code
        purity = axis_purity["article_type"]
        qualified = (purity >= min_purity - 1e-12) & (sizes >= min_size)
        level_data.append((sizes, purity, qualified, axis_purity, axis_value))

    # Signatures of qualified clusters.
    signatures = [
        score_signatures(sig_codes, sig_vocab, term_rows, term_codes, groups[lv], level_data[lv][0], level_data[lv][2],
                         rules=(discriminating, coverage))
        for lv in range(levels)
    ]

    # Contrasts of qualified clusters against parent (catalog for level 1) and siblings (parent minus cluster).
    parent_contrast: list[dict[int, tuple]] = [dict() for _ in range(levels)]
    sibling_contrast: list[dict[int, tuple]] = [dict() for _ in range(levels)]
    for lv in range(levels):
        sizes, _, qualified, _, _ = level_data[lv]
        chosen = np.flatnonzero(qualified)
        if not len(chosen):
            continue
        if lv == 0:
            parents = np.zeros(len(chosen), dtype=np.int64)
            parent_sizes = np.full(len(chosen), n)
        else:
            parent_of = np.zeros(len(sizes), dtype=np.int64)
            parent_of[groups[lv]] = groups[lv - 1]
            parents = parent_of[chosen]
            parent_sizes = level_data[lv - 1][0][parents]
        parts = []
        for ai, a in enumerate(DISTRIBUTION_ATTRIBUTES):
            ref = catalog_counts[a] if lv == 0 else counts[lv - 1][a]
            rows = contrasts(len(vocab[a]), counts[lv][a], ref, chosen, parents, sizes[chosen], parent_sizes, min_lift)
            parts.append((np.full(len(rows[0]), ai), *rows))
        attr, child, code, share, p_share, s_share, has_sib = (np.concatenate(x) for x in zip(*parts))
        parent_contrast[lv] = top_contrasts(child, attr, code, share, p_share, DISTRIBUTION_ATTRIBUTES, vocab, top_contrasts_k, min_lift)
        sib = has_sib.astype(bool)
        sibling_contrast[lv] = top_contrasts(child[sib], attr[sib], code[sib], share[sib], s_share[sib],
                                             DISTRIBUTION_ATTRIBUTES, vocab, top_contrasts_k, min_lift)

    # Distributions: per level, per attribute, each cluster's (value, share) sorted by share desc.
    clusters: dict[str, Cluster] = {}
    members = [np.split(np.argsort(groups[lv], kind="stable"), np.cumsum(level_data[lv][0])[:-1]) for lv in range(levels)]
    for lv in range(levels):
        sizes, purity, qualified, axis_purity, axis_value = level_data[lv]
        dist: list[dict[str, tuple]] = [dict() for _ in range(len(sizes))]
        for a in DISTRIBUTION_ATTRIBUTES:
            keys, cnt = counts[lv][a]
            nv = max(len(vocab[a]), 1)
            grp, code = np.divmod(keys, nv)
            order = np.lexsort((code, -cnt, grp))
            names = vocab[a]
            for gi, ci, k in zip(grp[order].tolist(), code[order].tolist(), cnt[order].tolist()):
                dist[gi].setdefault(a, []).append((names[ci], round(k / int(sizes[gi]), 6)))
        children: list[list[str]] = [[] for _ in range(len(sizes))]
        if lv + 1 < levels:
            child_parent = uniques[lv + 1][:, : lv + 1]
            parent_index = {tuple(u): i for i, u in enumerate(uniques[lv].tolist())}
            for ci, row in enumerate(child_parent.tolist()):
                children[parent_index[tuple(row)]].append(prefixes[lv + 1][ci])
        for gi, pid in enumerate(prefixes[lv]):
            axis = next((ax for ax in PRODUCT_AXES if axis_purity[ax][gi] >= min_purity - 1e-12), PRODUCT_AXES[-1])
            code = axis_value[axis][gi]
            sig = signatures[lv].get(gi, ((), ()))
            clusters[pid] = Cluster(
                cluster_id=pid,
                level=lv + 1,
                size=int(sizes[gi]),
                item_rows=tuple(members[lv][gi].tolist()),
                purity=round(float(purity[gi]), 6),
                qualified=bool(qualified[gi]),
                parent=pid.rsplit("-", 1)[0] if lv > 0 else None,
                children=tuple(children[gi]),
                primary_axis=axis,
                primary_value=vocab[axis][code] if code >= 0 else "",
                distributions={a: tuple(v) for a, v in dist[gi].items()},
                discriminating=sig[0],
                coverage_signatures=sig[1],
                parent_contrast=parent_contrast[lv].get(gi, ()),
                sibling_contrast=sibling_contrast[lv].get(gi, ()),
            )
    config = {"min_purity": min_purity, "min_size": min_size, "discriminating": vars(discriminating),
              "coverage": vars(coverage), "min_term_count": min_term_count, "top_contrasts": top_contrasts_k,
              "min_lift": min_lift}
    return Hierarchy(clusters=clusters, sids=sids, groups=groups, prefixes=prefixes, config=config)
