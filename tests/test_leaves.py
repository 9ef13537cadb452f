"""The batched leaf split gives the bytes of the per-leaf scikit-learn split it replaced (kept here as the reference)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning

from fashionrq.catalog import ingest
from fashionrq.encoders import embed_items
from fashionrq.sid import ResidualKMeans, split_leaves
from fashionrq.sid.base import normalize_rows

FIXTURE = "tests/fixtures/myntra_small"


def _reference_bisect(X, rows, min_items, seed):
    if len(rows) < 2 * min_items:
        return [rows]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = KMeans(n_clusters=2, n_init=3, random_state=seed).fit(X[rows].astype(np.float64))
    centres = km.cluster_centers_
    order = rows[np.argsort(-(X[rows] @ (centres[0] - centres[1])), kind="stable")]
    cut = int(np.clip((km.labels_ == 0).sum(), min_items, len(rows) - min_items))
    return _reference_bisect(X, order[:cut], min_items, seed) + _reference_bisect(X, order[cut:], min_items, seed)


def reference_split_leaves(sids, X, min_items, seed=0):
    """The implementation before the batched one (one scikit-learn KMeans per part, recursively), verbatim."""
    sids = np.asarray(sids, dtype=np.int64)
    X = normalize_rows(np.asarray(X, dtype=np.float32))
    leaves, leaf_of = np.unique(sids, axis=0, return_inverse=True)
    members = np.split(np.argsort(leaf_of.reshape(-1), kind="stable"), np.cumsum(np.bincount(leaf_of.reshape(-1)))[:-1])
    out = sids.copy()
    parts_of: dict[tuple, int] = {}
    split = after = 0
    for leaf, rows in enumerate(members):
        parts = _reference_bisect(X, rows, min_items, seed)
        parent = tuple(leaves[leaf, :-1].tolist())
        for part in parts:
            out[part, -1] = parts_of.get(parent, 0)
            parts_of[parent] = parts_of.get(parent, 0) + 1
        split += len(parts) > 1
        after += len(parts)
    return out, {"min_items": min_items, "leaves_before": len(leaves), "leaves_after": after, "leaves_split": split}


def assert_same_split(sids, X, min_items, seed):
    out, report = split_leaves(sids, X, min_items, seed)
    expected, expected_report = reference_split_leaves(sids, X, min_items, seed)
    assert report == expected_report and report["leaves_split"] > 0
    assert out.dtype == expected.dtype and out.tobytes() == expected.tobytes()


@pytest.fixture(scope="module")
def fixture_vectors():
    X = embed_items(ingest(FIXTURE).table, "minilm-int8")
    return ResidualKMeans(levels=3, codebook_size=4, seed=0).fit(X).transform(X), X


@pytest.mark.parametrize("min_items, seed", [(10, 0), (25, 3)])
def test_split_is_byte_identical_to_the_per_leaf_reference_on_the_fixture(fixture_vectors, min_items, seed):
    sids, X = fixture_vectors
    assert_same_split(sids, X, min_items, seed)


def test_split_is_byte_identical_with_duplicate_vectors_and_big_leaves(fixture_vectors):
    """Leaves of over 512 rows (scikit-learn sums them in blocks of 256-row chunks per OpenMP thread), a leaf of one
    repeated vector (scikit-learn relocates an emptied cluster) and a leaf where half the rows repeat one vector."""
    _, X = fixture_vectors
    rng = np.random.default_rng(0)
    X = np.concatenate([X[:1200], X[rng.integers(0, 1200, 400)]])  # 400 exact duplicates of fixture items
    sids = np.zeros((len(X), 3), np.int64)
    sids[:, 2] = rng.choice(4, len(X), p=[0.05, 0.45, 0.4, 0.1])
    sids[sids[:, 2] == 3, 1] = 1
    X[sids[:, 2] == 0] = X[0]
    X[(sids[:, 2] == 1) & (rng.random(len(X)) < 0.5)] = X[1]
    assert_same_split(sids, X, 30, 0)


@pytest.mark.slow
def test_split_is_byte_identical_on_a_synthetic_20k_catalog():
    """A 20,000-item shape: 96 leaves of about 200 items (a few over 256), vectors clustered by leaf and by a
    second, crossing factor (the reference takes about half a minute here)."""
    rng = np.random.default_rng(1)
    sids = np.stack([rng.integers(0, k, 20_000) for k in (4, 4, 6)], 1)
    X = rng.normal(size=(96, 64))[np.ravel_multi_index(sids.T, (4, 4, 6))] + rng.normal(scale=0.8, size=(20_000, 64))
    X += rng.normal(size=(8, 64))[rng.integers(0, 8, 20_000)] * 0.5
    assert_same_split(sids, X.astype(np.float32), 10, 0)
