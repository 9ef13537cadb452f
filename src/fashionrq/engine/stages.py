"""Stage work through an engine: item/query encoding and semantic-ID assignment, chunked the same way on every engine."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from fashionrq.engine.base import Engine, run_chunked
from fashionrq.engine.tasks import AssignChunk, EncodeChunk, column_vectors, vectors_column
from fashionrq.errors import InputError


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


def assign_with_engine(engine: Engine, tokenizer, X: np.ndarray) -> np.ndarray:
    """``tokenizer.transform(X)`` with the per-row codes computed by ``engine`` in chunks; the de-duplication level,
    which needs every row, is added here."""
    from fashionrq.sid.base import check_embeddings, dedup_level

    X = check_embeddings(X, 0)
    table = pa.table({"vector": vectors_column(X)})
    codes = column_vectors(run_chunked(engine, AssignChunk, (tokenizer, engine.threads), table).column("codes"), np.int64)
    return np.column_stack([codes, dedup_level(codes)]) if tokenizer.dedup else codes
