"""Exports load in the libraries people already use: datasets (MTEB layout), BEIR's loader, ranx and ir_measures."""

from __future__ import annotations

import pytest

from fashionrq.errors import InputError
from fashionrq.metrics import evaluate, read_qrels, read_run
from fashionrq.tasks import export_beir, export_hf


@pytest.fixture(scope="module")
def random_run(small_bench, tmp_path_factory):
    from fashionrq.systems import get_system, run_system

    out = tmp_path_factory.mktemp("export-runs") / "random"
    run_system(small_bench, get_system("random"), out)
    return out


def test_hf_export_loads_with_datasets(small_bench, tmp_path):
    datasets = pytest.importorskip("datasets")
    from fashionrq.release import release_hash

    out = export_hf(small_bench, tmp_path / "hf")
    cache = tmp_path / "hf-cache"
    qrels = datasets.load_dataset(str(out), cache_dir=str(cache))["test"]
    corpus = datasets.load_dataset(str(out), "corpus", cache_dir=str(cache))["corpus"]
    queries = datasets.load_dataset(str(out), "queries", cache_dir=str(cache))["queries"]
    truth = list(read_qrels(small_bench / "labels" / "t1o.qrels"))
    assert qrels.num_rows == len(truth) and (qrels[0]["query-id"], qrels[0]["corpus-id"], qrels[0]["score"]) == truth[0]
    assert corpus.num_rows == 2181 and set(corpus.column_names) == {"_id", "title", "text"} and all(corpus["text"])
    assert set(queries["_id"]) == {q for q, _, _ in truth}
    assert f"fashionrq_release_sha256: {release_hash(small_bench)}" in (out / "README.md").read_text()
    with pytest.raises(InputError, match="already exists"):
        export_hf(small_bench, out)


def test_beir_export_loads_with_beirs_own_loader(small_bench, tmp_path):
    pytest.importorskip("beir")
    from beir.datasets.data_loader import GenericDataLoader

    out = export_beir(small_bench, tmp_path / "beir")
    corpus, queries, qrels = GenericDataLoader(data_folder=str(out)).load(split="test")
    truth = read_qrels(small_bench / "labels" / "t1o.qrels").to_dict()
    assert len(corpus) == 2181 and set(queries) == set(truth)
    assert qrels == truth


@pytest.mark.slow  # ranx compiles its numba kernels on first use: ~35 s
def test_run_files_load_in_ir_measures_and_ranx(small_bench, random_run):
    ir_measures = pytest.importorskip("ir_measures")
    ranx = pytest.importorskip("ranx")
    qrels_path, run_path = small_bench / "labels" / "t1.qrels", random_run / "t1.run"
    ours = evaluate(read_qrels(qrels_path), read_run(run_path), ["ndcg_cut.10", "recip_rank"])
    measured = ir_measures.calc_aggregate([ir_measures.nDCG @ 10, ir_measures.RR],
                                          ir_measures.read_trec_qrels(str(qrels_path)), ir_measures.read_trec_run(str(run_path)))
    assert measured[ir_measures.nDCG @ 10] == pytest.approx(ours["ndcg_cut.10"], abs=1e-9)
    assert measured[ir_measures.RR] == pytest.approx(ours["recip_rank"], abs=1e-9)
    qrels, run = ranx.Qrels.from_file(str(qrels_path), kind="trec"), ranx.Run.from_file(str(run_path), kind="trec")
    queries = (small_bench / "public" / "t1_queries.jsonl").read_text().count("\n")
    assert len(run) == len(read_run(run_path).query_ids) == queries > 0
    assert ranx.evaluate(qrels, run, "ndcg@10") == pytest.approx(ours["ndcg_cut.10"], abs=0.01)  # ranx breaks score ties its own way
