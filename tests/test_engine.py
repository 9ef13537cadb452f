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
def test_ray_cluster_embed_and_sid_assign_are_byte_identical_to_local(ray_cluster, fixture_items, tmp_path):
    import ray

    from fashionrq.encoders import embed_items
    from fashionrq.engine.stages import assign_with_engine
    from fashionrq.sid import make_tokenizer

    items = fixture_items.slice(0, SLICE)
    local, distributed = LocalEngine(chunk_rows=CHUNK), get_engine("ray", ray_cluster, CHUNK, concurrency=2)
    local_vectors = embed_items(items, "minilm", tmp_path / "local-cache", engine=local)
    ray_vectors = embed_items(items, "minilm", tmp_path / "ray-cache", engine=distributed)
    assert len(ray.nodes()) == 3 and all(node["Alive"] for node in ray.nodes())
    assert local_vectors.shape == (SLICE, 384) and local_vectors.tobytes() == ray_vectors.tobytes()

    tokenizer = make_tokenizer("rkmeans", codebook_size=8, seed=0, dedup=True).fit(local_vectors)
    local_sids = assign_with_engine(local, tokenizer, local_vectors)
    assert local_sids.tobytes() == assign_with_engine(distributed, tokenizer, local_vectors).tobytes()
    assert np.array_equal(local_sids, tokenizer.transform(local_vectors))
