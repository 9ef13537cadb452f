"""The local engine: every chunk in this process, in order, with a fixed torch thread count."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from fashionrq.engine.base import DEFAULT_CHUNK_ROWS
from fashionrq.sid.base import torch_threads


@dataclass(frozen=True)
class LocalEngine:
    """Runs a chunk task on each chunk in turn, in this process, with ``threads`` torch threads (as each Ray actor does)."""

    chunk_rows: int = DEFAULT_CHUNK_ROWS
    threads: int = 1
    name: str = "local"

    def map_chunks(self, task: type, args: tuple, chunks: Sequence[pa.Table]) -> list[pa.Table]:
        with torch_threads(self.threads):
            worker = task(*args)
            return [worker(chunk) for chunk in chunks]

    def describe(self) -> str:
        return f"local engine ({self.chunk_rows:,}-row chunks, {self.threads} torch thread)"
