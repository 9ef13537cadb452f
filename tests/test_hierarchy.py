"""Hierarchy stage on the Myntra fixture: qualification, signatures, contrasts, checked against direct recomputation."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from fashionrq.errors import InputError
from fashionrq.hierarchy import (
    DISTRIBUTION_ATTRIBUTES,
    attribute_frame,
    build_hierarchy,
)


@pytest.fixture(scope="module")
def sids(fixture_items):
    from fashionrq.encoders import embed_items
    from fashionrq.sid import make_tokenizer

    X = embed_items(fixture_items, "minilm-int8")
    return make_tokenizer("rkmeans", levels=3, codebook_size=16, seed=0).fit(X).transform(X)


@pytest.fixture(scope="module")
def frame(fixture_items):
    return fixture_items.to_pandas()


@pytest.fixture(scope="module")
def hierarchy(frame, sids):
    return build_hierarchy(frame, sids)


@pytest.fixture(scope="module")
def attrs(frame):
    return attribute_frame(frame)


def _members(sids: np.ndarray, prefix: str) -> np.ndarray:
    codes = [int(c) for c in prefix.split("-")]
    return np.flatnonzero((sids[:, : len(codes)] == codes).all(axis=1))


def test_every_prefix_is_a_cluster_with_direct_purity_and_qualification(hierarchy, sids, frame):
    for level in (1, 2, 3):
        prefixes = {"-".join(map(str, row)) for row in sids[:, :level].tolist()}
        got = {c.cluster_id for c in hierarchy.clusters.values() if c.level == level}
        assert got == prefixes
    for c in hierarchy.clusters.values():
        rows = _members(sids, c.cluster_id)
        assert list(c.item_rows) == rows.tolist() and c.size == len(rows)
        purity = frame["article_type"].iloc[rows].value_counts().max() / len(rows)
        assert c.purity == pytest.approx(purity, abs=1e-6)
        assert c.qualified == (purity >= 0.80 and len(rows) >= 2)
        assert c.parent == (None if c.level == 1 else c.cluster_id.rsplit("-", 1)[0])
        assert all(hierarchy.clusters[ch].parent == c.cluster_id for ch in c.children)
    counts = hierarchy.level_counts()
    assert sum(v["qualified"] for v in counts.values()) == len(hierarchy.qualified()) > 0


def test_thresholds_are_configurable(frame, sids, hierarchy):
    strict = build_hierarchy(frame, sids, min_purity=0.95, min_size=5)
    for c in strict.clusters.values():
        assert c.qualified == (c.purity >= 0.95 and c.size >= 5)
    assert len(strict.qualified()) < len(hierarchy.qualified())


def test_distributions_and_primary_axis_match_direct_counts(hierarchy, attrs):
    for c in list(hierarchy.clusters.values())[::7]:
        sub = attrs.iloc[list(c.item_rows)]
        for a in DISTRIBUTION_ATTRIBUTES:
            counts = sub[a].dropna().value_counts()
            expected = {v: n / c.size for v, n in counts.items()}
            got = dict(c.distributions.get(a, ()))
            assert got.keys() == expected.keys()
            assert all(got[v] == pytest.approx(expected[v], abs=1e-6) for v in got)
            shares = [s for _, s in c.distributions.get(a, ())]
            assert shares == sorted(shares, reverse=True)
        for axis in ("article_type", "sub_category", "master_category"):
            top = sub[axis].value_counts()
            if len(top) and top.iloc[0] / c.size >= 0.80:
                assert (c.primary_axis, c.primary_value) == (axis, top.index[0]) or top.iloc[0] == top.iloc[min(1, len(top) - 1)]
                break
        else:
            assert c.primary_axis == "master_category"


def _matches(attrs: pd.DataFrame, tokens: list[set[str]], signature) -> np.ndarray:
    mask = np.ones(len(attrs), dtype=bool)
    for attribute, value in signature.attributes:
        if attribute == "name_term":
            mask &= np.array([value in t for t in tokens])
        else:
            mask &= (attrs[attribute] == value).to_numpy()
    return mask


def test_signatures_meet_thresholds_on_independent_recount(hierarchy, attrs, frame):
    checked = 0
    tokens = [set(re.findall(r"[a-z][a-z'-]+", name.lower())) if isinstance(name, str) else set() for name in frame["name"]]
    for c in hierarchy.qualified():
        in_cluster = np.zeros(len(attrs), dtype=bool)
        in_cluster[list(c.item_rows)] = True
        assert len(c.discriminating) <= 8 and len(c.coverage_signatures) <= 20
        for sigs, min_cov, min_prec in ((c.discriminating, 0.10, 0.90), (c.coverage_signatures, 0.05, 0.50)):
            for sig in sigs:
                mask = _matches(attrs, tokens, sig)
                support = int((mask & in_cluster).sum())
                assert sig.support == support
                assert sig.coverage == pytest.approx(support / c.size)
                assert sig.precision == pytest.approx(support / mask.sum())
                assert sig.coverage >= min_cov - 1e-9 and sig.precision >= min_prec - 1e-9
                assert 1 <= len(sig.attributes) <= 3
                checked += 1
        ranks = [(-s.precision, -s.coverage) for s in c.discriminating]
        assert ranks == sorted(ranks)
        assert [-s.coverage for s in c.coverage_signatures] == sorted(-s.coverage for s in c.coverage_signatures)
    assert checked > 100
    assert all(c.discriminating == () and c.parent_contrast == () for c in hierarchy.clusters.values() if not c.qualified)


def test_single_attribute_discriminators_are_found(hierarchy, attrs):
    """Every single catalog value with >= 10 % coverage and >= 90 % precision is listed, unless the list is full."""
    for c in hierarchy.qualified()[:60]:
        if len(c.discriminating) == 8:
            continue
        rows = list(c.item_rows)
        listed = {s.attributes for s in c.discriminating}
        for a in ("master_category", "sub_category", "article_type", "brand", "base_colour", "gender", "usage", "price_tier"):
            inside = attrs[a].iloc[rows].value_counts()
            overall = attrs[a].value_counts()
            for value, n in inside.items():
                if n / c.size >= 0.10 and n / overall[value] >= 0.90:
                    # present itself, or an equivalent signature matching the same items was kept instead
                    assert ((a, value),) in listed or any(s.support == n for s in c.discriminating)


def test_contrasts_recomputed_against_parent_and_siblings(hierarchy, attrs):
    for c in hierarchy.qualified()[::3]:
        rows = list(c.item_rows)
        parent_rows = list(hierarchy.clusters[c.parent].item_rows) if c.parent else list(range(len(attrs)))
        sibling_rows = sorted(set(parent_rows) - set(rows))
        for contrast, ref in [(x, parent_rows) for x in c.parent_contrast] + [(x, sibling_rows) for x in c.sibling_contrast]:
            share = (attrs[contrast.attribute].iloc[rows] == contrast.value).mean()
            reference = (attrs[contrast.attribute].iloc[ref] == contrast.value).mean()
            assert contrast.cluster_share == pytest.approx(share, abs=1e-5)
            assert contrast.reference_share == pytest.approx(reference, abs=1e-5)
            assert contrast.lift == pytest.approx(share - reference, abs=1e-5)
        lifts = [abs(x.lift) for x in c.parent_contrast]
        assert lifts == sorted(lifts, reverse=True) and len(lifts) <= 8
        if not sibling_rows:
            assert c.sibling_contrast == ()


def test_price_tiers_are_the_catalogs_own(fixture_items, attrs, frame):
    """The hierarchy's price_tier column uses the bounds ingestion recorded on the catalog (its rounded tertiles),
    compared here one price at a time."""
    from fashionrq.catalog.tiers import price_tiers_of

    low, high = price_tiers_of(fixture_items).bounds
    expected = [None if p != p else "budget" if p < low else "mid-range" if p <= high else "premium"
                for p in frame["price"].to_numpy(dtype=float, na_value=np.nan)]
    assert attrs["price_tier"].tolist() == expected
    assert {"budget", "mid-range", "premium", None} == set(expected)


def test_misaligned_sids_are_rejected(frame, sids):
    with pytest.raises(InputError, match="one \\(N, L\\) row"):
        build_hierarchy(frame, sids[:-1])
