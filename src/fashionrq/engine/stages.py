"""Semantic-ID assignment through an engine, chunked the same way on every engine (item/query encoding through an
engine is ``fashionrq.encoders.parallel.encode_with_engine``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from fashionrq.engine.base import Engine, run_chunked
from fashionrq.engine.tasks import AssignChunk, column_vectors, vectors_column
from fashionrq.sid.base import check_embeddings, dedup_level


def assign_with_engine(engine: Engine, tokenizer, X: np.ndarray) -> np.ndarray:
    """``tokenizer.transform(X)`` with the per-row codes computed by ``engine`` in chunks; the de-duplication level,
    which needs every row, is added here."""
    X = check_embeddings(X, 0)
    table = pa.table({"vector": vectors_column(X)})
    codes = column_vectors(run_chunked(engine, AssignChunk, (tokenizer, engine.threads), table).column("codes"), np.int64)
    return np.column_stack([codes, dedup_level(codes)]) if tokenizer.dedup else codes
