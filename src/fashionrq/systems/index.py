"""Whole-corpus search indexes for open-corpus retrieval, built once and cached on disk (content-keyed).

Dense systems search a faiss index when ``faiss-cpu`` is installed (``pip install fashionrq[scale]``) and exact
numpy search otherwise: ``exact`` (``IndexFlatIP``, the default: the rows of exact numpy top-k) or ``hnsw`` /
``ivf`` (approximate; their recall@k against exact is measured by :func:`recall_at_k`). Lexical systems keep a
bm25s index. Every result is ordered by descending score, ties by the lower row, as :func:`~fashionrq.systems.base.top_k`.

Scores are tie-stable (:mod:`fashionrq.systems.stable`): a faiss index holds each distinct vector once, and its
candidates are rescored exactly, so identical item vectors get one score and come back lower row first.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from fashionrq.encoders.cache import texts_hash
from fashionrq.errors import InputError
from fashionrq.io import atomic_directory, atomic_write_bytes
from fashionrq.layout import default_cache_dir
from fashionrq.systems.base import top_rows
from fashionrq.exact import Grid, grid_scores
from fashionrq.systems.stable import stable_scores

INDEX_KINDS = ("exact", "hnsw", "ivf")
#: Extra distinct vectors a faiss index returns beyond k, so near-ties at the k-th score are ordered by the exact rescore.
TIE_MARGIN = 32
#: Queries scored per matrix product by the numpy exact search.
QUERY_BLOCK = 256


@dataclass(frozen=True)
class IndexConfig:
    """How a dense index is built and searched (``kind``: exact, hnsw or ivf)."""

    kind: str = "exact"
    hnsw_m: int = 32
    ef_construction: int = 80
    ef_search: int = 256
    nlist: int | None = None  # IVF lists; default 4·sqrt(n)
    nprobe: int = 16
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in INDEX_KINDS:
            raise InputError(f"--index {self.kind!r} is unknown: use exact, hnsw or ivf.")


def faiss_module():
    """The faiss module, or None when the ``scale`` extra is not installed."""
    try:
        import faiss
    except ImportError:
        return None
    return faiss


def order_hits(rows: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best of candidate ``rows`` by descending score, ties by the lower row."""
    order = np.lexsort((rows, -scores))[:k]
    return rows[order], scores[order]


def exact_search(vectors: np.ndarray | Grid, queries: np.ndarray, k: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Exact inner-product top-``k`` per query (tie-stable grid products, :mod:`fashionrq.systems.stable`; ties by the
    lower row); ``vectors`` may be given as their :class:`~fashionrq.exact.Grid`."""
    items = vectors if isinstance(vectors, Grid) else Grid.of(vectors)
    k = min(k, len(items))
    rows_out, scores_out = [], []
    for start in range(0, len(queries), QUERY_BLOCK):
        for scores in grid_scores(Grid.of(queries[start:start + QUERY_BLOCK]), items):
            rows = top_rows(scores, k)
            rows_out.append(rows)
            scores_out.append(scores[rows])
    return rows_out, scores_out


def distinct_groups(vectors: np.ndarray) -> list[np.ndarray]:
    """The rows holding each distinct vector (equal bytes), ascending; groups in the order of their first row."""
    flat = np.ascontiguousarray(vectors)
    keys = flat.view(np.dtype((np.void, flat.dtype.itemsize * flat.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    group = rank[inverse.ravel()]
    return np.split(np.argsort(group, kind="stable"), np.cumsum(np.bincount(group))[:-1])


def _build_faiss(faiss, vectors: np.ndarray, config: IndexConfig):
    dim = vectors.shape[1]
    if config.kind == "exact":
        index = faiss.IndexFlatIP(dim)
    elif config.kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, config.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = config.ef_construction
    else:
        nlist = config.nlist or max(1, int(4 * np.sqrt(len(vectors))))
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
        index.cp.seed = config.seed
        index.train(vectors)
    index.add(vectors)
    return index


def configure_search(index, config: IndexConfig) -> None:
    """Set the search-time knobs (efSearch, nprobe) a built or loaded faiss index does not store."""
    if config.kind == "hnsw":
        index.hnsw.efSearch = config.ef_search
    elif config.kind == "ivf":
        index.nprobe = config.nprobe


def index_key(vectors: np.ndarray, config: IndexConfig, backend: str) -> str:
    """Content key of an index: the vectors' bytes and shape, the build settings, the backend version and the layout."""
    digest = hashlib.sha256(np.ascontiguousarray(vectors, dtype=np.float32).tobytes())
    recipe = {"shape": vectors.shape, "config": asdict(config), "backend": backend, "layout": "distinct vectors"}
    digest.update(json.dumps(recipe, sort_keys=True).encode())
    return digest.hexdigest()[:32]


def _save_vectors(path: Path, vectors: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, vectors, allow_pickle=False)
    atomic_write_bytes(path, buffer.getvalue())


class DenseIndex:
    """Inner-product search over L2-normalised item vectors, cached under ``cache_dir/indexes/``: the vectors
    themselves (``.npy``, searched exactly with numpy) and, with faiss, an index of each distinct vector once
    (``.faiss`` beside them), so engine chunks load it by path."""

    def __init__(self, vectors: np.ndarray, config: IndexConfig = IndexConfig(), cache_dir: str | Path | None = None) -> None:

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.config = config
        faiss = faiss_module()
        self.backend = f"faiss-{faiss.__version__}" if faiss else "numpy"
        if faiss is None and config.kind != "exact":
            raise InputError(f"--index {config.kind} needs faiss, which is not installed: run pip install fashionrq[scale], or use --index exact.")
        suffix = "faiss" if faiss else "npy"
        self.path = Path(cache_dir or default_cache_dir()) / "indexes" / f"{config.kind}-{index_key(vectors, config, self.backend)}.{suffix}"
        self.cached = self.path.is_file() and self.path.with_suffix(".npy").is_file()
        if not self.path.with_suffix(".npy").is_file():
            _save_vectors(self.path.with_suffix(".npy"), vectors)
        self._attach(vectors)
        if faiss is None:
            self.index = None
            return
        if self.cached:
            self.index = faiss.read_index(str(self.path))
        else:
            self.index = _build_faiss(faiss, vectors[[rows[0] for rows in self.groups]], config)
            atomic_write_bytes(self.path, faiss.serialize_index(self.index).tobytes())
        configure_search(self.index, config)

    def _attach(self, vectors: np.ndarray) -> None:
        """Keep the vectors, their grid (exact scores) and the rows of each distinct vector (a faiss index's entries)."""
        self.vectors, self.grid = vectors, Grid.of(vectors)
        self.groups = distinct_groups(vectors) if self.path.suffix == ".faiss" else None

    @classmethod
    def load(cls, path: str | Path, config: IndexConfig) -> DenseIndex:
        """An index a :class:`DenseIndex` cached at ``path`` (how an engine's chunk tasks open it)."""
        loaded = cls.__new__(cls)
        loaded.config, loaded.path, loaded.cached = config, Path(path), True
        loaded._attach(np.load(loaded.path.with_suffix(".npy")))
        if loaded.path.suffix == ".npy":
            loaded.index, loaded.backend = None, "numpy"
            return loaded
        faiss = faiss_module()
        loaded.index, loaded.backend = faiss.read_index(str(path)), f"faiss-{faiss.__version__}"
        configure_search(loaded.index, config)
        return loaded

    def search(self, queries: np.ndarray, k: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Top-``k`` rows and scores per query, best first, ties by the lower row (exact tie-stable scores)."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        if self.index is None:
            return exact_search(self.grid, queries, k)
        _, hits = self.index.search(queries, min(self.index.ntotal, k + TIE_MARGIN))
        rows_out, scores_out = [], []
        for query, distinct in zip(queries, hits):
            rows = np.concatenate([self.groups[d] for d in distinct if d >= 0] or [np.zeros(0, np.int64)])
            rows, scores = order_hits(rows, stable_scores(query, self.grid.take(rows)), k)
            rows_out.append(rows)
            scores_out.append(scores)
        return rows_out, scores_out

    def describe(self) -> dict:
        """What run.json records about the index."""
        knobs = {"exact": (), "hnsw": ("hnsw_m", "ef_construction", "ef_search"), "ivf": ("nlist", "nprobe", "seed")}[self.config.kind]
        settings = {name: getattr(self.config, name) for name in knobs}
        if "nlist" in settings and settings["nlist"] is None:
            settings["nlist"] = getattr(self.index, "nlist", None)
        return {"kind": self.config.kind, "backend": self.backend, **settings}


def recall_at_k(approx: list[np.ndarray], exact: list[np.ndarray], k: int) -> float:
    """Mean share of the exact top-``k`` rows that the approximate top-``k`` finds."""
    if not exact:
        return 1.0
    return float(np.mean([len(np.intersect1d(a[:k], e[:k])) / max(1, min(k, len(e))) for a, e in zip(approx, exact)]))


def bm25_index(texts: list[str], tokenize, k1: float, b: float, cache_dir: str | Path | None = None):
    """A bm25s index of ``texts`` tokenised by ``tokenize``, loaded from ``cache_dir/indexes/`` when built before
    (keyed by the texts' content hash, the tokenizer, k1, b and the bm25s version)."""
    import bm25s

    recipe = [texts_hash(texts), f"{tokenize.__module__}.{tokenize.__qualname__}", k1, b, bm25s.__version__]
    path = Path(cache_dir or default_cache_dir()) / "indexes" / f"bm25-{hashlib.sha256(json.dumps(recipe).encode()).hexdigest()[:32]}"
    if path.is_dir():
        return bm25s.BM25.load(str(path))
    index = bm25s.BM25(k1=k1, b=b)
    index.index([tokenize(text) for text in texts], show_progress=False)
    with atomic_directory(path, force=True, what="bm25 index") as tmp:
        index.save(str(tmp))
    return index
