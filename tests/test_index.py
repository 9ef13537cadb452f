"""Open-corpus indexes: faiss exact matches numpy exact top-k, approximate recall is measured, indexes are cached."""

from __future__ import annotations

import numpy as np
import pytest

from fashionrq.errors import InputError
from fashionrq.systems import index as index_module
from fashionrq.systems.index import DenseIndex, IndexConfig, exact_search, recall_at_k

N_ITEMS = 400
QUERIES = ["red cotton kurta for women", "black leather belt", "white running shoes men", "blue denim jeans",
           "printed t-shirt", "gold watch", "floral dress", "sports bra", "silver earrings", "brown wallet"]


@pytest.fixture(scope="module")
def corpus(fixture_items):
    from fashionrq.encoders import embed_items, embed_texts

    items = fixture_items.slice(0, N_ITEMS)
    return items, embed_items(items, "minilm-int8"), embed_texts(QUERIES, "minilm-int8", kind="query")


def _brute_force(vectors, queries, k):
    """Exact top-k by a float64 full sort, ties by the lower row (the reference)."""
    scores = np.asarray(queries, np.float64) @ np.asarray(vectors, np.float64).T
    return [np.lexsort((np.arange(len(s)), -s))[:k] for s in scores]


def test_faiss_exact_gives_the_numpy_exact_rows_and_scores(corpus, tmp_path):
    pytest.importorskip("faiss")
    _, vectors, queries = corpus
    faiss_rows, faiss_scores = DenseIndex(vectors, IndexConfig("exact"), tmp_path).search(queries, 100)
    numpy_rows, numpy_scores = exact_search(vectors, queries, 100)
    for fr, fs, nr, ns, ref in zip(faiss_rows, faiss_scores, numpy_rows, numpy_scores, _brute_force(vectors, queries, 100)):
        assert np.array_equal(fr, nr) and np.array_equal(nr, ref)
        assert np.array_equal(fs, ns) and np.all(np.diff(fs) <= 0)  # faiss candidates are rescored exactly


def _backends():
    """(name, search) for numpy exact search and, with faiss, each faiss index kind."""
    yield "numpy", lambda vectors, queries, k, cache: exact_search(vectors, queries, k)
    if index_module.faiss_module() is not None:
        for kind in ("exact", "hnsw", "ivf"):
            config = IndexConfig(kind, nlist=8, nprobe=8)
            yield f"faiss {kind}", lambda vectors, queries, k, cache, config=config: DenseIndex(vectors, config, cache).search(queries, k)


def test_ties_are_broken_by_the_lower_row(corpus, tmp_path):
    """Issue 21's shape: rows r, r + 50 and r + 100 hold one vector (numpy's float32 product once scored them
    differently on an AVX-512 CPU); they come back with one score, lower row first, in query batches of any size."""
    _, vectors, queries = corpus
    triples = np.concatenate([vectors[:50]] * 3)
    for backend, search in _backends():
        rows, scores = search(triples, queries, 30, tmp_path)
        for r, s in zip(rows, scores):
            assert np.all(r.reshape(10, 3) == r[::3, None] + [0, 50, 100]), backend
            assert np.all(s.reshape(10, 3) == s[::3, None]), backend
        for size in (1, 3):
            again = search(triples, queries[:size], 30, tmp_path)
            assert all(np.array_equal(a, b) for a, b in zip(again[1], scores[:size])), backend


def test_index_is_built_once_and_cached_by_content(corpus, tmp_path):
    pytest.importorskip("faiss")
    _, vectors, queries = corpus
    first = DenseIndex(vectors, IndexConfig("hnsw"), tmp_path)
    again = DenseIndex(vectors.copy(), IndexConfig("hnsw"), tmp_path)
    assert not first.cached and again.cached and again.path == first.path and first.path.is_file()
    assert all(np.array_equal(a, b) for a, b in zip(first.search(queries, 10)[0], again.search(queries, 10)[0]))
    other = DenseIndex(vectors[:-1], IndexConfig("hnsw"), tmp_path)
    assert other.path != first.path and not other.cached
    assert list(tmp_path.glob("indexes/.*partial*")) == []


@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_approximate_indexes_report_recall_against_exact(corpus, tmp_path, kind):
    pytest.importorskip("faiss")
    _, vectors, queries = corpus
    exact = exact_search(vectors, queries, 100)[0]
    approx = DenseIndex(vectors, IndexConfig(kind, nlist=16, nprobe=8), tmp_path).search(queries, 100)[0]
    recall = recall_at_k(approx, exact, 100)
    assert 0.5 < recall <= 1.0
    assert recall_at_k(exact, exact, 100) == 1.0
    assert recall_at_k([r[::-1][:50] for r in exact], exact, 100) == pytest.approx(0.5)


def test_without_faiss_exact_falls_back_to_numpy_and_approximate_names_the_extra(corpus, tmp_path, monkeypatch):
    _, vectors, queries = corpus
    monkeypatch.setattr(index_module, "faiss_module", lambda: None)
    fallback = DenseIndex(vectors, IndexConfig("exact"), tmp_path)
    assert fallback.backend == "numpy" and fallback.path.suffix == ".npy" and not fallback.cached
    assert all(np.array_equal(a, b) for a, b in zip(fallback.search(queries, 30)[0], _brute_force(vectors, queries, 30)))
    # an engine's chunk tasks open the cached vectors by path (--engine local|ray needs no faiss)
    again = DenseIndex(vectors, IndexConfig("exact"), tmp_path)
    loaded = DenseIndex.load(fallback.path, IndexConfig("exact"))
    assert again.cached and loaded.backend == "numpy"
    for searched in (again.search(queries, 30), loaded.search(queries, 30)):
        assert all(np.array_equal(a, b) for a, b in zip(searched[0], fallback.search(queries, 30)[0]))
    with pytest.raises(InputError, match=r"pip install fashionrq\[scale\]"):
        DenseIndex(vectors, IndexConfig("hnsw"), tmp_path)
    with pytest.raises(InputError, match="exact, hnsw or ivf"):
        IndexConfig("annoy")


def test_bm25_index_is_cached_and_scores_like_a_fresh_one(corpus, tmp_path):
    import bm25s

    from fashionrq.encoders import item_texts
    from fashionrq.systems.lexical import BM25Retriever, tokenize

    items, _, _ = corpus
    first = BM25Retriever(cache_dir=tmp_path).fit(items)
    assert len(list(tmp_path.glob("indexes/bm25-*"))) == 1
    again = BM25Retriever(cache_dir=tmp_path).fit(items)
    fresh = bm25s.BM25(k1=1.2, b=0.75)
    fresh.index([tokenize(t) for t in item_texts(items)], show_progress=False)
    for query in QUERIES:
        tokens = [t for t in tokenize(query) if t in fresh.vocab_dict]
        expected = np.asarray(fresh.get_scores(tokens), np.float32) if tokens else np.zeros(N_ITEMS, np.float32)
        assert np.array_equal(first.corpus_scores(query), expected) and np.array_equal(again.corpus_scores(query), expected)
    BM25Retriever(k1=1.5, cache_dir=tmp_path).fit(items)
    assert len(list(tmp_path.glob("indexes/bm25-*"))) == 2


def test_open_search_dense_equals_scoring_every_item(corpus, tmp_path):
    from fashionrq.systems.dense import EncoderRetriever
    from fashionrq.systems.open_search import _scored, corpus_search

    items, _, _ = corpus
    system = EncoderRetriever("minilm-int8", cache_dir=tmp_path).fit(items)
    indexed = corpus_search(system, QUERIES, 100)
    scored = _scored(system, QUERIES, 100, N_ITEMS)
    assert indexed.pairs()[0][:3] == [(int(r), float(v)) for r, v in zip(scored.rows[0][:3], indexed.scores[0][:3])]
    assert indexed.index["kind"] == "exact" and all(np.array_equal(a, b) for a, b in zip(indexed.rows, scored.rows))
    for a, b in zip(indexed.scores, scored.scores):
        np.testing.assert_allclose(a, b, atol=1e-5)
    pytest.importorskip("faiss")  # the approximate index needs the `scale` extra; exact search above needs nothing
    hnsw = corpus_search(system, QUERIES, 100, IndexConfig("hnsw"))
    assert 0.5 < hnsw.index["recall@100_vs_exact"] <= 1.0


def _trec_hits(path) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        qid, _, item, _, score, _ = line.split()
        out.setdefault(qid, {})[item] = float(score)
    return out


@pytest.mark.slow  # three sealed minilm runs: ~25 s
def test_run_searches_the_open_corpus_through_the_chosen_index_and_engine(small_bench, tmp_path):
    """`fashionrq run --engine local --index ...`: the in-process search's hits for exact (query vectors may differ in
    the last bits: one torch thread in the engine), the index record in run.json, approximate recall against exact
    measured, and a bad --index refused in one sentence."""
    from conftest import main_code

    from fashionrq.io import read_json

    runs = {}
    for name, extra in (("plain", []), ("local", ["--engine", "local", "--chunk-rows", "64"]), ("hnsw", ["--index", "hnsw"])):
        if name == "hnsw" and index_module.faiss_module() is None:
            continue
        assert main_code(["run", "--bench", str(small_bench), "--system", "minilm-int8", "--out", str(tmp_path / name), *extra]) == 0
        runs[name] = tmp_path / name
    plain = read_json(runs["plain"] / "run.json")["config"]["open_corpus_index"]
    assert plain["kind"] == "exact" and read_json(runs["local"] / "run.json")["config"]["open_corpus_index"] == plain
    hits = {name: _trec_hits(runs[name] / "t1o.run") for name in ("plain", "local")}
    assert hits["plain"].keys() == hits["local"].keys() and len(hits["plain"]) > 10
    for qid, plain_hits in hits["plain"].items():
        common = plain_hits.keys() & hits["local"][qid].keys()
        assert len(common) >= 98 and max(abs(plain_hits[i] - hits["local"][qid][i]) for i in common) < 1e-4
    if "hnsw" in runs:
        hnsw = read_json(runs["hnsw"] / "run.json")["config"]["open_corpus_index"]
        assert hnsw["kind"] == "hnsw" and 0.5 < hnsw["recall@100_vs_exact"] <= 1.0
    assert main_code(["run", "--bench", str(small_bench), "--system", "bm25", "--out", str(tmp_path / "bad"), "--index", "flat"]) == 2
    assert not (tmp_path / "bad").exists()
