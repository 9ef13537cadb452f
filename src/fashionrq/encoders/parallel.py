"""Encode one long list of texts in parallel: in several single-threaded worker processes (shards of whole batches),
or through an engine (``fashionrq.engine``) in length-sorted chunks."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext

import numpy as np
import pyarrow as pa
import scipy.sparse as sp

from fashionrq.encoders.base import Encoder
from fashionrq.encoders.registry import get_encoder
from fashionrq.engine.base import CHUNK_COLUMN, Engine, only_chunk, run_chunked
from fashionrq.engine.tasks import column_vectors, set_threads, vectors_column
from fashionrq.errors import InputError
from fashionrq.progress import track


def _encode_shard(name: str, batch_size: int, texts: list[str], is_query: bool):
    import torch

    torch.set_num_threads(1)
    encoder = get_encoder(name)
    encoder.batch_size = batch_size
    return encoder.encode_queries(texts) if is_query else encoder.encode_documents(texts)


def encoding_workers(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned encoder processes (they start at first use). Kept for every cache chunk of one
    embedding, each process imports torch and loads the model once (about 2 s), not once per chunk."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def encode_in_workers(encoder: Encoder, texts: list[str], is_query: bool, workers: int,
                      pool: ProcessPoolExecutor | None = None):
    """What ``encoder.encode_queries/encode_documents(texts)`` returns, computed by ``workers`` processes (those of
    ``pool`` when given, else started for this call).

    Texts are length-sorted once and cut into the batches a single process would form; batch ``b`` goes to
    worker ``b % workers`` (so every worker gets short and long texts alike), and rows come back in input
    order. The encoder must be a registry name (each worker builds it with ``get_encoder``); each worker runs
    torch with one thread.
    """
    order = np.argsort([len(t) for t in texts], kind="stable")
    size = encoder.batch_size
    starts = range(0, len(texts), size)
    count = max(1, min(workers, len(starts)))
    shards = [np.concatenate([order[s:s + size] for s in starts[k::count]]) for k in range(count)]
    with nullcontext(pool) if pool is not None else encoding_workers(count) as runner:
        futures = [runner.submit(_encode_shard, encoder.name, size, [texts[i] for i in rows], is_query) for rows in shards]
        kind = "queries" if is_query else "documents"
        parts = [f.result() for f in track(futures, f"{encoder.name}: {len(texts):,} {kind} in {count} workers", total=count)]
    encoder.texts_encoded += len(texts)
    rows = np.concatenate(shards)
    inverse = np.empty_like(rows)
    inverse[rows] = np.arange(len(rows))
    if encoder.kind == "sparse":
        return sp.vstack(parts, format="csr", dtype=np.float32)[inverse]
    return np.concatenate(parts, axis=0)[inverse]


class EncodeChunk:
    """A chunk task: dense document/query vectors of a chunk's ``text`` column with the registry encoder ``name``."""

    def __init__(self, name: str, is_query: bool, threads: int = 1) -> None:
        set_threads(threads)
        self.encoder = get_encoder(name)
        self.is_query = is_query

    def __call__(self, chunk: pa.Table) -> pa.Table:
        index = only_chunk(chunk)
        texts = chunk.column("text").to_pylist()
        vectors = self.encoder.encode_queries(texts) if self.is_query else self.encoder.encode_documents(texts)
        return pa.table({CHUNK_COLUMN: np.full(len(texts), index, np.int64), "vector": vectors_column(vectors)})


def encode_with_engine(engine: Engine, encoder, texts: list[str], is_query: bool) -> np.ndarray:
    """What ``encoder.encode_queries/encode_documents(texts)`` returns, computed by ``engine`` in length-sorted chunks.

    Texts are length-sorted (stable) once, as the encoders batch them, and cut into ``engine.chunk_rows`` chunks; a
    chunk size that is a multiple of the encoder's batch size keeps every batch the one an unchunked call forms.
    """
    if encoder.kind != "dense":
        raise InputError(f"--engine {engine.name} encodes with dense encoders only; {encoder.name} is {encoder.kind}: use --engine local.")
    if engine.chunk_rows % encoder.batch_size:
        raise InputError(f"--chunk-rows {engine.chunk_rows} is not a multiple of {encoder.name}'s batch size {encoder.batch_size}; use a multiple such as {encoder.batch_size * 64}.")
    order = np.argsort([len(t) for t in texts], kind="stable")
    table = pa.table({"text": pa.array([texts[i] for i in order], pa.string())})
    vectors = column_vectors(run_chunked(engine, EncodeChunk, (encoder.name, is_query, engine.threads), table).column("vector"))
    encoder.texts_encoded += len(texts)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return vectors[inverse]
