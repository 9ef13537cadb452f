"""The engine protocol, the chunk-task protocol and the chunking every engine shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import pyarrow as pa

from fashionrq.errors import FashionRQError

#: Rows per chunk: a multiple of every encoder's batch size, so chunking never changes a batch.
DEFAULT_CHUNK_ROWS = 4096
#: The column every chunk carries: its index, the same on every row of the chunk.
CHUNK_COLUMN = "chunk"


@runtime_checkable
class ChunkTask(Protocol):
    """A picklable callable class: built once per worker (loads its model), then called on whole chunks."""

    def __call__(self, chunk: pa.Table) -> pa.Table: ...


@runtime_checkable
class Engine(Protocol):
    """Runs a chunk task over chunks and returns the outputs in chunk order."""

    name: str
    chunk_rows: int
    threads: int

    def map_chunks(self, task: type, args: tuple, chunks: Sequence[pa.Table]) -> list[pa.Table]: ...

    def describe(self) -> str: ...


def cut_chunks(table: pa.Table, chunk_rows: int) -> list[pa.Table]:
    """``table`` cut into consecutive chunks of ``chunk_rows`` rows (the last may be shorter), each tagged with its index."""
    starts = range(0, table.num_rows, chunk_rows)
    return [table.slice(start, chunk_rows).append_column(CHUNK_COLUMN, pa.array(np.full(min(chunk_rows, table.num_rows - start), k, np.int64)))
            for k, start in enumerate(starts)]


def only_chunk(batch: pa.Table) -> int:
    """The chunk index of ``batch``, refusing a batch that mixes or splits chunks (it would change the output bytes)."""
    values = np.unique(batch.column(CHUNK_COLUMN).to_numpy())
    if len(values) != 1:
        raise FashionRQError(f"an engine batch mixed chunks {values.tolist()}: the engine must hand each task exactly one chunk.")
    return int(values[0])


def run_chunked(engine: Engine, task: type, args: tuple, table: pa.Table) -> pa.Table:
    """``task(*args)`` over ``table`` cut in ``engine.chunk_rows`` chunks; outputs joined in input order and checked whole.

    Tasks call :func:`only_chunk` on their input, so no call ever sees a partial or mixed chunk; here the joined
    output must carry every chunk's rows, in order.
    """
    chunks = cut_chunks(table, engine.chunk_rows)
    if not chunks:
        return table.slice(0, 0)
    joined = pa.concat_tables(engine.map_chunks(task, args, chunks))
    expected = np.repeat(np.arange(len(chunks)), [c.num_rows for c in chunks])
    got = joined.column(CHUNK_COLUMN).to_numpy()
    if not np.array_equal(got, expected):
        raise FashionRQError(f"engine {engine.name} returned {len(got):,} rows out of chunk order; expected {len(expected):,} rows in {len(chunks)} chunks in order.")
    return joined.drop_columns([CHUNK_COLUMN])
