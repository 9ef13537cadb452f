"""Engines: the Ray engine on a real multi-process local cluster gives the local engine's bytes."""

from __future__ import annotations

import os
import sys

import numpy as np
import pyarrow as pa
import pytest

from fashionrq.engine import LocalEngine, get_engine
from fashionrq.engine.base import cut_chunks, only_chunk, run_chunked
from fashionrq.errors import FashionRQError, InputError

SLICE = 256  # fixture items encoded per engine: 4 chunks of 64, shared by two worker actors
CHUNK = 64


def test_unknown_engine_and_address_without_ray_are_one_sentence_errors():
    with pytest.raises(InputError, match="local or ray"):
        get_engine("spark")
    with pytest.raises(InputError, match="needs --engine ray"):
        get_engine("local", address="auto")


def test_a_mixed_chunk_batch_is_refused_and_chunks_cover_the_table():
    table = pa.table({"x": np.arange(10)})
    chunks = cut_chunks(table, 4)
    assert [c.num_rows for c in chunks] == [4, 4, 2] and [only_chunk(c) for c in chunks] == [0, 1, 2]
    with pytest.raises(FashionRQError, match="mixed chunks"):
        only_chunk(pa.concat_tables(chunks[:2]))

    class Reversed(LocalEngine):
        def map_chunks(self, task, args, chunks):
            return super().map_chunks(task, args, chunks)[::-1]

    class Identity:
        def __call__(self, chunk):
            return chunk

    assert run_chunked(LocalEngine(chunk_rows=4), Identity, (), table).column("x").to_pylist() == list(range(10))
    with pytest.raises(FashionRQError, match="out of chunk order"):
        run_chunked(Reversed(chunk_rows=4), Identity, (), table)


def test_base_install_never_imports_ray_or_faiss_unless_asked():
    import subprocess

    code = ("import sys; from fashionrq.cli import main\n"
            "import fashionrq.engine, fashionrq.systems.index, fashionrq.systems.open_search\n"
            "try:\n    main(['embed', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('ray', 'faiss') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_ray_engine_without_ray_is_one_sentence_naming_the_extra(monkeypatch, fixture_items, tmp_path, capsys):
    from fashionrq.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    with pytest.raises(InputError, match=r"pip install fashionrq\[ray\]"):
        get_engine("ray").map_chunks(object, (), [pa.table({"x": [1]})])
    fixture = tmp_path / "items.parquet"
    import pyarrow.parquet as pq

    pq.write_table(fixture_items.slice(0, 8), fixture)
    with pytest.raises(SystemExit) as exit_info:
        main(["embed", str(fixture), "--engine", "ray", "--cache", str(tmp_path / "cache")])
    printed = capsys.readouterr()
    assert exit_info.value.code != 0 and "pip install fashionrq[ray]" in printed.out + printed.err
    assert "Traceback" not in printed.out + printed.err


@pytest.fixture(scope="module")
def ray_cluster():
    """A head and two worker nodes (separate raylet processes on loopback, one CPU each); shut down at the end."""
    pytest.importorskip("ray", reason="ray is not installed (pip install fashionrq[ray])")
    from ray.cluster_utils import Cluster

    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(sys.path)  # the worker processes import this tree
    small = {"num_cpus": 1, "object_store_memory": 100_000_000}
    cluster = Cluster(initialize_head=True, head_node_args={**small, "include_dashboard": False})
    try:
        for _ in range(2):
            cluster.add_node(**small)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        import ray

        ray.shutdown()
        cluster.shutdown()
        os.environ.pop("PYTHONPATH") if saved is None else os.environ.update(PYTHONPATH=saved)


@pytest.mark.slow
def test_ray_cluster_embed_search_and_sid_assign_are_byte_identical_to_local(ray_cluster, fixture_items, tmp_path):
    import ray

    from fashionrq.encoders import embed_items
    from fashionrq.engine.stages import assign_with_engine
    from fashionrq.encoders import item_text
    from fashionrq.sid import make_tokenizer
    from fashionrq.systems.dense import EncoderRetriever
    from fashionrq.systems.index import IndexConfig
    from fashionrq.systems.open_search import corpus_search

    items = fixture_items.slice(0, SLICE)
    local, distributed = LocalEngine(chunk_rows=CHUNK), get_engine("ray", ray_cluster, CHUNK, concurrency=2)
    local_vectors = embed_items(items, "minilm", tmp_path / "local-cache", engine=local)
    ray_vectors = embed_items(items, "minilm", tmp_path / "ray-cache", engine=distributed)
    assert len(ray.nodes()) == 3 and all(node["Alive"] for node in ray.nodes())
    assert local_vectors.shape == (SLICE, 384) and local_vectors.tobytes() == ray_vectors.tobytes()

    system = EncoderRetriever("minilm", cache_dir=tmp_path / "local-cache").fit(items)
    queries = [item_text(row) for row in fixture_items.slice(SLICE, 150).to_pylist()]  # 3 query chunks
    local_hits = corpus_search(system, queries, 20, IndexConfig("hnsw"), engine=local)
    ray_hits = corpus_search(system, queries, 20, IndexConfig("hnsw"), engine=distributed)
    assert local_hits.index == ray_hits.index and local_hits.index["recall@20_vs_exact"] > 0.5
    assert b"".join(r.tobytes() + s.tobytes() for r, s in zip(local_hits.rows, local_hits.scores)) == \
        b"".join(r.tobytes() + s.tobytes() for r, s in zip(ray_hits.rows, ray_hits.scores))

    tokenizer = make_tokenizer("rkmeans", codebook_size=8, seed=0, dedup=True).fit(local_vectors)
    local_sids = assign_with_engine(local, tokenizer, local_vectors)
    assert local_sids.tobytes() == assign_with_engine(distributed, tokenizer, local_vectors).tobytes()
    assert np.array_equal(local_sids, tokenizer.transform(local_vectors))


@pytest.mark.slow
def test_ray_cluster_run_is_byte_identical_to_local(ray_cluster, small_bench, tmp_path):
    """`fashionrq run --engine ray` (open-corpus search in Ray actors, from inside the sealed child) writes the same
    run folder, byte for byte, as `--engine local`."""
    import json

    from fashionrq.systems import run_system
    from fashionrq.taskspec import run_files

    for engine, address in (("local", None), ("ray", ray_cluster)):
        run_system(small_bench, "minilm", tmp_path / engine, engine=engine, address=address, chunk_rows=64, index="hnsw")
    for name in run_files().values():
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes(), name
    local, ray = (json.loads((tmp_path / engine / "run.json").read_text()) for engine in ("local", "ray"))
    assert ray["isolation"].pop("network") == "open (asked for: --engine ray)"  # Ray's actors are reached over it
    local["isolation"].pop("network")
    assert local == ray
    index = ray["config"]["open_corpus_index"]
    assert index["kind"] == "hnsw" and index["recall@100_vs_exact"] > 0.5
