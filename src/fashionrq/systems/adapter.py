"""Turn a minimal plug-in (``fit`` + ``score``, or ``fit`` + ``search``) into the full retriever the runner drives."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from fashionrq.errors import FashionRQError
from fashionrq.systems.base import top_k

FULL_INTERFACE = ("name", "fit", "score", "score_batch", "search")


class RetrieverAdapter:
    """Supplies ``name``, ``score_batch`` and ``search`` around a plug-in that has only some of them.

    * ``fit(items)`` + ``score(query, rows)``: batches loop over ``score``; ``search`` scores the whole corpus.
    * ``fit(items)`` + ``search(query, k)``: ``score`` ranks the whole corpus once per query and reads the
      candidates' scores; a candidate outside the returned list scores below every returned one.
    """

    def __init__(self, system) -> None:
        self.system = system
        self.name = str(getattr(system, "name", None) or type(system).__name__)
        self.n_items = 0

    def fit(self, items: pa.Table) -> RetrieverAdapter:
        self.n_items = items.num_rows
        self.system.fit(items)
        return self

    def score(self, query: str, candidate_rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(candidate_rows, dtype=np.int64)
        if hasattr(self.system, "score"):
            return np.asarray(self.system.score(query, rows), dtype=np.float64)
        found = dict(self.system.search(query, self.n_items))
        floor = min(found.values(), default=0.0) - 1.0
        return np.array([found.get(int(r), floor) for r in rows], dtype=np.float64)

    def score_batch(self, queries: Sequence[str], candidate_rows: Sequence[np.ndarray]) -> list[np.ndarray]:
        if hasattr(self.system, "score_batch"):
            return self.system.score_batch(queries, candidate_rows)
        return [self.score(q, rows) for q, rows in zip(queries, candidate_rows)]

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        if hasattr(self.system, "search"):
            return self.system.search(query, k)
        return top_k(self.score(query, np.arange(self.n_items)), k)

    def config(self) -> dict:
        return self.system.config() if hasattr(self.system, "config") else {}

    def __repr__(self) -> str:
        return f"<RetrieverAdapter {self.name}: {self.system!r}>"


def as_retriever(system, spec: str | None = None):
    """``system`` itself when it has the full interface, else a :class:`RetrieverAdapter` around it.

    A pool system (``fit`` + ``score_pool``, such as the label-blind probes) scores whole pools and is returned
    as it is. Refuses (one sentence) an object with neither ``fit`` + ``score`` nor ``fit`` + ``search``.
    """
    label = spec or type(system).__name__
    if hasattr(system, "score_pool"):
        missing = [m for m in ("name", "fit") if not hasattr(system, m)]
        if missing:
            raise FashionRQError(f"pool system '{label}' lacks {', '.join(missing)}; give it a name and fit(items) beside score_pool.")
        return system
    if all(hasattr(system, m) for m in FULL_INTERFACE):
        return system
    if not hasattr(system, "fit") or not (hasattr(system, "score") or hasattr(system, "search")):
        raise FashionRQError(
            f"system '{label}' needs fit(items) and score(query, candidate_rows) (or search(query, k) for open-corpus "
            f"retrieval); it has {', '.join(m for m in ('fit', 'score', 'search') if hasattr(system, m)) or 'none of them'}."
        )
    return RetrieverAdapter(system)
