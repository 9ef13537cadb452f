"""Tie-stable scoring (issue 21): identical items get identical scores whatever their row, batch or summation order,
in every built-in that scores by content, so ties fall only by the documented rule (lower row, or item id)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from fashionrq.systems.base import top_rows
from fashionrq.exact import Grid, grid_bits, grid_scores
from fashionrq.systems.stable import stable_scores

#: Rows that hold a copy of row r: r + 50 (the shape that failed on an AVX-512 EPYC), r + 100 and the far end.
TWIN_SHIFTS = (50, 100, 937)


def _unit_rows(rng, n: int, dim: int) -> np.ndarray:
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _with_twins(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` with rows 0..49 copied to r + every shift of :data:`TWIN_SHIFTS`."""
    out = vectors.copy()
    for shift in TWIN_SHIFTS:
        out[shift:shift + 50] = vectors[:50]
    return out


def _assert_twins_tie(scores: np.ndarray) -> None:
    for shift in TWIN_SHIFTS:
        assert np.array_equal(scores[..., :50], scores[..., shift:shift + 50])


def test_grid_scores_do_not_depend_on_row_batch_or_summation_order():
    rng = np.random.default_rng(0)
    items, queries = _with_twins(_unit_rows(rng, 1200, 384)), _unit_rows(rng, 300, 384)
    grid = Grid.of(items)
    scores = grid_scores(Grid.of(queries), grid)
    _assert_twins_tie(scores)
    for size in (1, 7, 256):  # query batches of other sizes, item subsets in another order
        rows = rng.permutation(len(items))[:500]
        assert np.array_equal(grid_scores(Grid.of(queries[:size]), grid.take(rows)), scores[:size, rows])
    assert all(np.array_equal(stable_scores(q, grid), s) for q, s in zip(queries[:5], scores))
    # any summation order gives the same float: the dimensions reversed and shuffled (float32 products are not)
    for order in (np.arange(384)[::-1], rng.permutation(384)):
        permuted = grid_scores(Grid(Grid.of(queries).values[:, order].copy(), Grid.of(queries).exponents),
                               Grid(grid.values[:, order].copy(), grid.exponents))
        assert np.array_equal(permuted, scores)
    assert not np.array_equal(queries[:, ::-1].copy() @ items[:, ::-1].T.copy(), queries @ items.T)
    exact = queries.astype(np.float64) @ items.astype(np.float64).T
    assert np.abs(scores - exact).max() < 1e-6


def test_grids_keep_every_partial_sum_exact_and_scale_any_magnitude():
    assert grid_bits(384) == 22 and 384 * 4.0 ** grid_bits(384) <= 2.0 ** 53 and grid_bits(1) == 26
    rng = np.random.default_rng(1)
    big = rng.standard_normal((40, 64)) * 1e6
    big[3] = 0.0
    grid = Grid.of(big)
    assert np.abs(grid.values).max() <= 2 ** grid_bits(64) and np.array_equal(grid.values, np.rint(grid.values))
    exact = big @ big.T  # error relative to the norms: 2**-22 of the largest entry per row
    assert np.abs(grid_scores(grid, grid) - exact).max() < 1e-6 * np.abs(exact).max()
    assert not grid_scores(grid, grid)[3].any()


def _twin_items(fixture_items: pa.Table) -> pa.Table:
    """The fixture's first 1,000 items with items 0..49 repeated, under new ids, at every shift of :data:`TWIN_SHIFTS`
    (so the copies fall into other encoder batches too)."""
    rows = np.arange(1000)
    for shift in TWIN_SHIFTS:
        rows[shift:shift + 50] = np.arange(50)
    table = fixture_items.take(rows)
    ids = [f"{item}-copy{row}" for row, item in enumerate(table.column("item_id").to_pylist())]
    return table.set_column(table.column_names.index("item_id"), "item_id", pa.array(ids))


QUERIES = ["red cotton kurta for women", "black leather belt", "white running shoes men", "blue denim jeans",
           "printed t-shirt", "gold watch", "floral dress"]


@pytest.fixture(scope="module")
def twins(fixture_items):
    return _twin_items(fixture_items)


@pytest.mark.parametrize("name", [pytest.param("minilm", marks=pytest.mark.slow), "bm25", "tfidf",
                                  pytest.param("hybrid", marks=pytest.mark.slow)])  # the two dense ones, 20-25 s each: slow
def test_built_in_systems_score_identical_items_alike_in_every_batch(twins, name, tmp_path):
    from fashionrq.systems import get_system

    params = {"components": "bm25,minilm"} if name == "hybrid" else {}
    system = get_system(name, **params).fit(twins)
    everything = np.arange(twins.num_rows)
    whole = system.score_batch(QUERIES, [everything] * len(QUERIES))
    pool = np.concatenate([np.arange(10), np.arange(50, 60), np.arange(937, 947), np.arange(300, 310)])
    for query, scores in zip(QUERIES, whole):
        scores = np.asarray(scores)
        _assert_twins_tie(scores)
        pooled = np.asarray(system.score(query, pool))
        assert np.array_equal(pooled[:10], pooled[10:20]) and np.array_equal(pooled[:10], pooled[20:30])
        if name != "hybrid":  # a fused score is a rank within the scored set, not a per-item number
            assert np.array_equal(pooled, scores[pool])
        position = {int(r): i for i, r in enumerate(top_rows(scores, 200))}
        for row in range(50):  # a tie group is listed lower row first
            at = [position[r] for r in (row, *(row + s for s in TWIN_SHIFTS)) if r in position]
            assert at == sorted(at)


def test_the_verifier_and_the_query_blind_probe_score_identical_items_alike(twins):
    from fashionrq.systems.probes.centroid import QueryBlindCentroid
    from fashionrq.systems.probes.view import Pool
    from fashionrq.systems.verifier import VerifierReranker

    verifier = VerifierReranker().fit(twins)
    rows = np.array([3, 53, 103, 940, 7, 57])
    for query in QUERIES:
        scores = verifier.score_pairs([query] * len(rows), rows)
        assert scores[0] == scores[1] == scores[2] == scores[3] and scores[4] == scores[5]
    probe = QueryBlindCentroid()
    probe.vectors_ = _with_twins(_unit_rows(np.random.default_rng(2), 1000, 384))
    probe.row_ = {f"i{r}": r for r in range(1000)}
    for size in (40, 120, 1000):
        scores = probe.primary(Pool("t1", "q", "", tuple(f"i{r}" for r in range(size))))
        for shift in TWIN_SHIFTS:
            if shift + 50 <= size:
                assert np.array_equal(scores[:50], scores[shift:shift + 50])


def test_image_descriptor_scores_identical_photos_alike():
    from fashionrq.systems.imagedesc import ImageDescriptorRetriever

    system = ImageDescriptorRetriever()
    system.documents = _with_twins(np.abs(_unit_rows(np.random.default_rng(3), 1000, 1200)))
    system.grid, system.prototypes, system.items = Grid.of(system.documents), {}, pa.table({"item_id": range(1000)})
    for query in ("red striped shirt", "navy blue and white dress"):
        scores = system.score(query, np.arange(1000))
        assert scores.any()
        _assert_twins_tie(scores)
        assert np.array_equal(system.score(query, np.array([937, 0, 50])), scores[[937, 0, 50]])


def test_engine_search_chunks_score_identical_items_alike(twins):
    """Open-corpus search through an engine's chunk tasks (the path Ray actors run: the cached index loaded by path,
    queries in chunks of 3, 3 and 1): every copy of an item gets its score and is listed after it, lower row first."""
    from fashionrq.engine import get_engine
    from fashionrq.systems import get_system
    from fashionrq.systems.open_search import corpus_search

    hits = corpus_search(get_system("minilm-int8").fit(twins), QUERIES, 60, engine=get_engine("local", chunk_rows=3))
    assert len(hits.rows) == len(QUERIES)
    for rows, scores in zip(hits.rows, hits.scores):
        position = {int(r): i for i, r in enumerate(rows)}
        for row in range(50):
            at = [position[r] for r in (row, *(row + s for s in TWIN_SHIFTS)) if r in position]
            assert at == sorted(at) and len({float(scores[i]) for i in at}) <= 1


def test_a_hard_negative_window_takes_the_lowest_rows_among_tied_items(fixture_items):
    """nearest's window of candidates nearest a leaf's centroid: of the items tied at its edge (copies of one vector),
    the lowest rows, whatever numpy's partition kernel would pick (argpartition chose among ties by CPU)."""
    from fashionrq.encoders import get_encoder, item_texts
    from fashionrq.tasks.claims import nearest

    vectors = get_encoder("minilm-int8").encode_documents(item_texts(fixture_items.slice(0, 300)))
    copies = np.concatenate([vectors, np.repeat(vectors[7:8], 40, axis=0)])  # rows 300..339: 40 copies of row 7
    grid = Grid.of(copies)
    rows = np.arange(8, len(copies))  # row 7 itself is not a candidate: its 40 copies tie for the nearest
    window = nearest(grid, [7], rows, 25)
    assert window.tolist() == list(range(300, 325))
    shuffled = np.random.default_rng(0).permutation(rows)
    assert nearest(grid, [7], shuffled, 25).tolist() == window.tolist()
    assert nearest(grid, [7], rows, 45)[-5:].tolist() == list(range(300, 340))[-5:]
