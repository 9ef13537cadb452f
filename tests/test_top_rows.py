"""The two partial rankings that replace full sorts over the catalog: ``top_rows`` (runs) and ``top_tie_broken``
(probes) give exactly the top of the full ranking they stand for, ties included."""

from __future__ import annotations

import numpy as np
import pytest

from fashionrq.systems.base import top_rows
from fashionrq.systems.probes.view import Head, _tie_rng, shuffle_tail, tie_broken, top_tie_broken


def _scores(kind: str, n: int, rng) -> np.ndarray:
    return {"ties": rng.integers(0, 5, n).astype(float), "distinct": rng.random(n), "constant": np.zeros(n),
            "nan": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 3, n).astype(float))}[kind]


@pytest.mark.parametrize("kind", ["ties", "distinct", "constant", "nan"])
def test_top_rows_is_the_head_of_the_full_sort(kind):
    rng = np.random.default_rng(0)
    for n, k in [(1, 1), (7, 0), (50, 10), (2000, 100), (300, 500)]:
        scores = _scores(kind, n, rng)
        full = np.lexsort((np.arange(n), -scores))[:k]  # descending score, ties by the lower row, NaN last
        assert np.array_equal(top_rows(scores, k), full)


def _probe_like(kind: str, n: int, rng) -> np.ndarray:
    """Open-corpus probe scores: mostly zero with a few counts (tied or not), a shared count, or symmetric distances."""
    scores, k = np.zeros(n), min(n, 40)
    if kind == "sparse-ties":
        scores[rng.choice(n, k, replace=False)] = rng.integers(1, 4, k)
    elif kind == "sparse-distinct":
        scores[rng.choice(n, k, replace=False)] = rng.permutation(k) + 1.0
    elif kind == "symmetric":
        scores = -np.abs(np.arange(n) - n // 2).astype(float)
    return scores


@pytest.mark.parametrize("kind", ["ties", "distinct", "constant", "sparse-ties", "sparse-distinct", "symmetric"])
def test_top_tie_broken_is_the_head_of_tie_broken(kind):
    rng = np.random.default_rng(1)
    for n, depth in [(1, 1), (7, 0), (50, 10), (2000, 100), (300, 500), (20_000, 100), (20_000, 300)]:
        primary = _scores(kind, n, rng) if kind in ("ties", "distinct", "constant") else _probe_like(kind, n, rng)
        full = tie_broken(primary, 3, f"{kind}:{n}")
        head = np.argsort(-full)[:depth]
        rows, scores = top_tie_broken(primary, 3, f"{kind}:{n}", depth)
        assert np.array_equal(rows, head) and np.array_equal(scores, full[head])
        if depth:  # a head computed once serves every key (a query-free probe ranks the same scores for every query)
            shared = Head.of(primary, min(depth, n))
            again = tie_broken(primary, 4, kind)
            assert np.array_equal(top_tie_broken(primary, 4, kind, depth, shared)[0], np.argsort(-again)[:depth])


def test_the_shuffle_tail_is_the_permutation_read_backwards():
    for seed, n in [(0, 1), (1, 2), (2, 3), (3, 17), (4, 1000), (5, 44_446), (6, 70_000)]:
        shuffle = _tie_rng(seed, f"key{n}").permutation(n)
        k = min(n, 600)
        tail = shuffle_tail(seed, f"key{n}", n)
        assert [next(tail) for _ in range(k)] == shuffle[::-1][:k].tolist()
    assert list(shuffle_tail(7, "all", 300)) == _tie_rng(7, "all").permutation(300)[::-1].tolist()
