"""Execution engines: where chunked stage work (encoding, SID assignment) runs.

``local`` runs the chunks one after another in this process; ``ray`` runs them as a Ray Data pipeline with the
stage's model in an actor pool. Both cut the same fixed-size chunks and run each with the same torch thread
count, so their outputs are byte-identical. Ray is imported only when the ``ray`` engine is asked for.
"""

from fashionrq.engine.base import DEFAULT_CHUNK_ROWS, ChunkTask, Engine, run_chunked
from fashionrq.engine.local import LocalEngine
from fashionrq.engine.registry import ENGINES, get_engine

__all__ = ["DEFAULT_CHUNK_ROWS", "ENGINES", "ChunkTask", "Engine", "LocalEngine", "get_engine", "run_chunked"]
