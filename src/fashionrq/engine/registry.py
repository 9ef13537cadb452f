"""``get_engine(name)``: the engines by name, validated at the boundary."""

from __future__ import annotations

from fashionrq.engine.base import DEFAULT_CHUNK_ROWS, Engine
from fashionrq.engine.local import LocalEngine
from fashionrq.engine.ray_engine import RayEngine, import_ray
from fashionrq.errors import InputError

ENGINES = ("local", "ray")


def get_engine(name: str, address: str | None = None, chunk_rows: int = DEFAULT_CHUNK_ROWS,
               concurrency: int | None = None) -> Engine:
    """The engine called ``name`` (``local`` or ``ray``), validated at the boundary."""
    if name not in ENGINES:
        raise InputError(f"--engine {name!r} is unknown: use local or ray.")
    if chunk_rows < 1:
        raise InputError(f"--chunk-rows must be a positive number of rows, got {chunk_rows}.")
    if name == "local":
        if address is not None:
            raise InputError("--address names a Ray cluster; it needs --engine ray.")
        return LocalEngine(chunk_rows=chunk_rows)
    import_ray()  # fail fast, with the install hint, before any work
    return RayEngine(address=address, chunk_rows=chunk_rows, concurrency=concurrency)
