"""Chunk tasks: picklable callable classes that an engine builds once per worker and calls on whole chunks."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from fashionrq.engine.base import CHUNK_COLUMN, only_chunk
from fashionrq.sid.base import check_embeddings


def set_threads(threads: int) -> None:
    """Run torch with ``threads`` intra-op threads in this worker (engines fix it, so every engine computes alike)."""
    import torch

    torch.set_num_threads(threads)


def vectors_column(vectors: np.ndarray) -> pa.FixedSizeListArray:
    """An (n, d) float32 array as a fixed-size-list column (no copy)."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    return pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), vectors.shape[1])


def column_vectors(column: pa.ChunkedArray | pa.Array, dtype=np.float32) -> np.ndarray:
    """A fixed-size-list column back as an (n, d) array of ``dtype``."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return array.flatten().to_numpy(zero_copy_only=False).reshape(len(array), array.type.list_size).astype(dtype, copy=False)


class AssignChunk:
    """Semantic-ID codes (without the de-duplication level) of a chunk's ``vector`` column with a fitted tokenizer."""

    def __init__(self, tokenizer, threads: int = 1) -> None:
        set_threads(threads)
        self.tokenizer = tokenizer

    def __call__(self, chunk: pa.Table) -> pa.Table:
        index = only_chunk(chunk)
        codes = np.asarray(self.tokenizer.codes(check_embeddings(column_vectors(chunk.column("vector")), 0)), dtype=np.int64)
        flat = pa.FixedSizeListArray.from_arrays(pa.array(codes.reshape(-1)), codes.shape[1])
        return pa.table({CHUNK_COLUMN: np.full(len(codes), index, np.int64), "codes": flat})
