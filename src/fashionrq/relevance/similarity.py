"""sim(.,.): cosine similarity of text embeddings, with every distinct string embedded once.

Strings are few (attribute values, category paths) except product descriptions, so vectors are kept per
string in memory and in one file per encoder on disk (``$FASHIONRQ_CACHE/relevance/``) so that later runs
(other systems scored on the same catalog) do not re-embed descriptions. Only batches of at least
:data:`PERSIST_MIN` new strings are written to disk (one-off strings stay in memory).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from fashionrq.encoders import get_encoder
from fashionrq.errors import FashionRQError
from fashionrq.exact import Grid, grid_scores
from fashionrq.layout import default_cache_dir


#: A batch adds this many new strings or more before the on-disk store is rewritten.
PERSIST_MIN = 32


#: The text model of the soft comparators' sim(.,.) when none is named (relevance labels R(q, p) use it).
SIMILARITY_ENCODER = "minilm-int8"


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class TextSimilarity:
    """Cosine similarity between strings under one text encoder (``fashionrq.encoders.get_encoder`` name).

    ``cache_dir``: root of the on-disk store (default ``fashionrq.layout.default_cache_dir()``); ``False``
    keeps vectors in memory only.
    """

    def __init__(self, encoder: str = SIMILARITY_ENCODER, cache_dir: str | Path | bool | None = None) -> None:

        self.encoder_name = encoder
        if cache_dir is False:
            self.cache_dir = None
        else:
            self.cache_dir = default_cache_dir() if cache_dir is None or cache_dir is True else Path(cache_dir)
        self._encoder = None
        self._index: dict[str, int] = {}
        self._rows: list[np.ndarray] = []
        self._matrix: np.ndarray | None = None
        self._disk: dict[str, np.ndarray] | None = None
        self._pairs: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = {}

    @property
    def encoder(self):
        """The underlying encoder, loaded on first use."""
        if self._encoder is None:
            self._encoder = get_encoder(self.encoder_name)
            if getattr(self._encoder, "kind", "dense") != "dense":
                raise FashionRQError(
                    f"relevance encoder '{self.encoder_name}' is sparse: sim() needs a dense text encoder such as minilm."
                )
        return self._encoder

    def _disk_path(self) -> Path:
        return self.cache_dir / "relevance" / f"strings-v2-{self.encoder.fingerprint[:16]}.npz"

    def _load_disk(self) -> dict[str, np.ndarray]:
        if self._disk is None:
            self._disk = {}
            if self.cache_dir is not None and self._disk_path().is_file():
                try:
                    with np.load(self._disk_path()) as data:
                        self._disk = dict(zip(data["keys"].tolist(), data["vectors"]))
                except (OSError, ValueError, KeyError) as err:
                    raise FashionRQError(
                        f"string-embedding cache {self._disk_path()} is unreadable ({err}): delete it and run again."
                    ) from None
        return self._disk

    def _save_disk(self) -> None:
        path = self._disk_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self._disk), dtype="U40")
        vectors = np.stack(list(self._disk.values())).astype(np.float32)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez(handle, keys=keys, vectors=vectors)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def add(self, texts: Iterable[str]) -> None:
        """Embed every string in ``texts`` not seen yet, in one batch."""
        new = sorted({t for t in texts if t not in self._index})
        if not new:
            return
        disk = self._load_disk() if self.cache_dir is not None else {}
        missing = [t for t in new if _key(t) not in disk]
        if missing:
            vectors = np.asarray(self.encoder.encode_queries(missing), dtype=np.float32)
            fresh = dict(zip(missing, vectors))
            if self.cache_dir is not None and len(missing) >= PERSIST_MIN:
                disk.update((_key(t), v) for t, v in fresh.items())
                self._save_disk()
        else:
            fresh = {}
        for text in new:
            self._index[text] = len(self._rows)
            self._rows.append(fresh[text] if text in fresh else disk[_key(text)])
        self._matrix = None

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """The (n, d) unit vectors of ``texts`` (embedded on demand)."""
        self.add(texts)
        if self._matrix is None:
            self._matrix = np.stack(self._rows)
        return self._matrix[[self._index[t] for t in texts]]

    def max_sim(self, left: Sequence[str], right: Sequence[str]) -> float:
        """max over left x right of the cosine similarity (memoised per pair of string tuples)."""
        key = (tuple(left), tuple(right))
        value = self._pairs.get(key)
        if value is None:
            value = float(grid_scores(Grid.of(self.vectors(key[0])), Grid.of(self.vectors(key[1]))).max())  # exact: any CPU
            self._pairs[key] = value
        return value

    def sim(self, a: str, b: str) -> float:
        """Cosine similarity of two strings."""
        return self.max_sim((a,), (b,))
