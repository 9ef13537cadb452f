"""The retriever interface every system implements, and a base class that fills in the batch and search parts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import pyarrow as pa

from fashionrq.errors import FashionRQError


@runtime_checkable
class Retriever(Protocol):
    """What a plug-in must implement: index a corpus and score candidates. Nothing else is required.

    Rows are integer positions in the items table given to :meth:`fit`. Higher scores mean more
    relevant; every score must be finite. ``name`` is optional (default: the class name). Batching and
    whole-corpus search are supplied by :class:`fashionrq.systems.adapter.RetrieverAdapter` unless the
    system has its own (:class:`BatchRetriever`).
    """

    def fit(self, items: pa.Table) -> Retriever:
        """Index the corpus ``items`` (the canonical items table) and return ``self``."""

    def score(self, query: str, candidate_rows: np.ndarray) -> np.ndarray:
        """Scores of ``query`` against the items at ``candidate_rows``, a float array of the same length."""


@runtime_checkable
class SearchRetriever(Protocol):
    """An open-corpus plug-in: index a corpus and return its best rows for a query (no candidate scoring)."""

    def fit(self, items: pa.Table) -> SearchRetriever:
        """Index the corpus ``items`` and return ``self``."""

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` best ``(row, score)`` pairs of the whole corpus, best first."""


@runtime_checkable
class BatchRetriever(Protocol):
    """A full retriever, as the runner uses it: scoring, batched scoring and whole-corpus search."""

    name: str

    def fit(self, items: pa.Table) -> BatchRetriever:
        """Index the corpus ``items`` and return ``self``."""

    def score(self, query: str, candidate_rows: np.ndarray) -> np.ndarray:
        """Scores of ``query`` against the items at ``candidate_rows``."""

    def score_batch(self, queries: Sequence[str], candidate_rows: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``[score(q, rows) for q, rows in zip(queries, candidate_rows)]``, possibly faster."""

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` best ``(row, score)`` pairs of the whole corpus, best first."""


def _recording_fit(fit):
    """Wrap a subclass's ``fit`` so the corpus is recorded on the instance before the subclass indexes it."""
    def wrapped(self, items: pa.Table, *args, **kwargs):
        self.items = items
        self.n_items = items.num_rows
        return fit(self, items, *args, **kwargs)

    wrapped.__doc__, wrapped.__name__, wrapped.__qualname__ = fit.__doc__, fit.__name__, fit.__qualname__
    return wrapped


def top_rows(scores: np.ndarray, k: int) -> np.ndarray:
    """The rows of the ``k`` highest scores, best first, ties broken by the lower row first.

    A partition finds the k-th score, and only the rows at or above it are sorted (O(n) rather than a full sort of
    the corpus per query); scores that are not all finite take the full sort, which puts NaN last.
    """
    scores = np.asarray(scores)
    n = len(scores)
    k = max(0, min(k, n))
    if k < n and k and np.isfinite(scores).all():
        candidates = np.flatnonzero(scores >= np.partition(scores, n - k)[n - k])
    else:
        candidates = np.arange(n)
    return candidates[np.lexsort((candidates, -scores[candidates]))][:k]


def top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``k`` highest ``(row, score)`` pairs, ties broken by the lower row first (see :func:`top_rows`)."""
    return [(int(row), float(scores[row])) for row in top_rows(scores, k)]


def ranking_order(scores: np.ndarray, keys: Sequence) -> np.ndarray:
    """Positions by descending score, ties by ascending key: the one ranking rule of every written run.

    A run ranks with the item id as key; a second stage with the first-stage rank (``fashionrq.systems.twostage``).
    """
    keys = np.asarray(keys)
    return np.lexsort((keys.astype(str) if keys.dtype == object else keys, -np.asarray(scores, dtype=np.float64)))


class BaseRetriever:
    """Implements :meth:`score_batch` and :meth:`search` on top of :meth:`score` (override them for speed).

    Subclasses set ``name`` and implement :meth:`fit` and :meth:`score`. Every subclass's ``fit`` records
    the corpus (``items``, ``n_items``) before its own body runs, so a subclass never does it by hand.
    """

    name: str = "base"
    items: pa.Table | None = None

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "fit" in cls.__dict__:
            cls.fit = _recording_fit(cls.__dict__["fit"])

    def _check_fitted(self) -> None:
        if self.items is None:
            raise FashionRQError(f"system '{self.name}' was used before fit(items): call fit with the items table first.")

    def fit(self, items: pa.Table) -> BaseRetriever:
        raise NotImplementedError

    def score(self, query: str, candidate_rows: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def score_batch(self, queries: Sequence[str], candidate_rows: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [self.score(q, np.asarray(rows, dtype=np.int64)) for q, rows in zip(queries, candidate_rows)]

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        self._check_fitted()
        return top_k(self.score(query, np.arange(self.n_items)), k)

    def config(self) -> dict:
        """The parameters that define this system (written to ``RUN/run.json``)."""
        return {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
