"""The two partial rankings that replace full sorts over the catalog: ``top_rows`` (runs) and ``top_tie_broken``
(probes) give exactly the top of the full ranking they stand for, ties included."""

from __future__ import annotations

import numpy as np
import pytest

from fashionrq.systems.base import top_rows
from fashionrq.systems.probes.view import tie_broken, top_tie_broken


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


@pytest.mark.parametrize("kind", ["ties", "distinct", "constant"])
def test_top_tie_broken_is_the_head_of_tie_broken(kind):
    rng = np.random.default_rng(1)
    for n, depth in [(1, 1), (7, 0), (50, 10), (2000, 100), (300, 500)]:
        primary = _scores(kind, n, rng)
        full = tie_broken(primary, 3, f"{kind}:{n}")
        head = np.argsort(-full)[:depth]
        rows, scores = top_tie_broken(primary, 3, f"{kind}:{n}", depth)
        assert np.array_equal(rows, head) and np.array_equal(scores, full[head])
