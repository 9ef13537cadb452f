"""The Ray engine: chunks as Arrow blocks of a Ray Data pipeline, the chunk task in an actor pool, order preserved."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from fashionrq.engine.base import DEFAULT_CHUNK_ROWS
from fashionrq.errors import InputError

INSTALL_HINT = "--engine ray needs Ray, which is not installed: run pip install fashionrq[ray]."


def import_ray():
    """The ``ray`` module, or one sentence naming the extra to install."""
    try:
        import ray
        import ray.data
    except ImportError:
        raise InputError(INSTALL_HINT) from None
    return ray


def connect(address: str | None):
    """Join the cluster at ``address`` (``auto``, ``HOST:PORT`` or ``ray://HOST:10001``), or start a local one when None."""
    ray = import_ray()
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False, include_dashboard=False if address is None else None)
    return ray


@dataclass(frozen=True)
class RayEngine:
    """Ray Data over chunk blocks: ``map_batches`` with the task class in ``concurrency`` one-CPU actors, one chunk per call.

    Each chunk is one Arrow block of exactly ``chunk_rows`` rows (the last may be shorter) and ``batch_size`` is
    ``chunk_rows``, so every call sees one whole chunk, as the local engine does; actors run torch with
    ``threads`` threads. Outputs come back in chunk order (``preserve_order``).
    """

    address: str | None = None
    chunk_rows: int = DEFAULT_CHUNK_ROWS
    concurrency: int | None = None
    threads: int = 1
    name: str = "ray"

    def actors(self, ray, chunks: int) -> int:
        """The actor-pool size: ``concurrency``, else one per whole CPU of the cluster, never more than the chunks."""
        wanted = self.concurrency or max(1, int(ray.cluster_resources().get("CPU", 1)))
        return max(1, min(wanted, chunks))

    def map_chunks(self, task: type, args: tuple, chunks: Sequence[pa.Table]) -> list[pa.Table]:
        if not chunks:
            return []
        ray = connect(self.address)
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True
        dataset = ray.data.from_arrow(list(chunks)).map_batches(
            task, fn_constructor_args=args, batch_size=self.chunk_rows, batch_format="pyarrow",
            concurrency=self.actors(ray, len(chunks)), num_cpus=1, zero_copy_batch=True)
        return [ray.get(ref) for ref in dataset.to_arrow_refs()]

    def describe(self) -> str:
        return f"ray engine at {self.address or 'a new local cluster'} ({self.chunk_rows:,}-row chunks, one-CPU actors, {self.threads} torch thread)"
