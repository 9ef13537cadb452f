"""Whole-corpus search indexes for open-corpus retrieval, built once and cached on disk (content-keyed).

Dense systems search a faiss index when ``faiss-cpu`` is installed (``pip install fashionrq[scale]``) and exact
numpy search otherwise: ``exact`` (``IndexFlatIP``, the default: the rows of exact numpy top-k) or ``hnsw`` /
``ivf`` (approximate; their recall@k against exact is measured by :func:`recall_at_k`). Lexical systems keep a
bm25s index. Every result is ordered by descending score, ties by the lower row, as :func:`~fashionrq.systems.base.top_k`.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from fashionrq.errors import InputError
from fashionrq.io import atomic_directory, atomic_write_bytes
from fashionrq.systems.base import top_rows

INDEX_KINDS = ("exact", "hnsw", "ivf")
#: Extra candidates an index returns beyond k, so ties at the k-th score are broken by row, not by the index.
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
    """The ``k`` best of candidate ``rows`` by descending score, ties by the lower row (invalid rows < 0 dropped)."""
    keep = rows >= 0
    rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores))[:k]
    return rows[order], scores[order]


def exact_search(vectors: np.ndarray, queries: np.ndarray, k: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Exact inner-product top-``k`` per query with numpy (float32 products, ties by the lower row)."""
    k = min(k, len(vectors))
    rows_out, scores_out = [], []
    for start in range(0, len(queries), QUERY_BLOCK):
        block = queries[start:start + QUERY_BLOCK] @ vectors.T
        for scores in block:
            rows = top_rows(scores, k)
            rows_out.append(rows)
            scores_out.append(scores[rows])
    return rows_out, scores_out


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
    """Content key of an index: the vectors' bytes and shape, the build settings and the backend version."""
    digest = hashlib.sha256(np.ascontiguousarray(vectors, dtype=np.float32).tobytes())
    digest.update(json.dumps({"shape": vectors.shape, "config": asdict(config), "backend": backend}, sort_keys=True).encode())
    return digest.hexdigest()[:32]


class DenseIndex:
    """Inner-product search over L2-normalised item vectors, cached under ``cache_dir/indexes/``: a faiss index, or
    without faiss the vectors themselves (``.npy``, searched exactly with numpy), so engine chunks load it by path."""

    def __init__(self, vectors: np.ndarray, config: IndexConfig = IndexConfig(), cache_dir: str | Path | None = None) -> None:
        from fashionrq.encoders.cache import default_cache_dir

        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.config = config
        faiss = faiss_module()
        self.backend = f"faiss-{faiss.__version__}" if faiss else "numpy"
        if faiss is None and config.kind != "exact":
            raise InputError(f"--index {config.kind} needs faiss, which is not installed: run pip install fashionrq[scale], or use --index exact.")
        suffix = "faiss" if faiss else "npy"
        self.path = Path(cache_dir or default_cache_dir()) / "indexes" / f"{config.kind}-{index_key(self.vectors, config, self.backend)}.{suffix}"
        self.cached = self.path.is_file()
        if faiss is None:
            self.index = None
            if not self.cached:
                buffer = io.BytesIO()
                np.save(buffer, self.vectors, allow_pickle=False)
                atomic_write_bytes(self.path, buffer.getvalue())
            return
        if self.cached:
            self.index = faiss.read_index(str(self.path))
        else:
            self.index = _build_faiss(faiss, self.vectors, config)
            atomic_write_bytes(self.path, faiss.serialize_index(self.index).tobytes())
        configure_search(self.index, config)

    @classmethod
    def load(cls, path: str | Path, config: IndexConfig) -> DenseIndex:
        """An index a :class:`DenseIndex` cached at ``path`` (how an engine's chunk tasks open it)."""
        loaded = cls.__new__(cls)
        loaded.config, loaded.path, loaded.cached = config, Path(path), True
        if loaded.path.suffix == ".npy":
            loaded.vectors, loaded.index, loaded.backend = np.load(loaded.path, mmap_mode="r"), None, "numpy"
            return loaded
        faiss = faiss_module()
        loaded.index, loaded.backend = faiss.read_index(str(path)), f"faiss-{faiss.__version__}"
        loaded.vectors = None
        configure_search(loaded.index, config)
        return loaded

    def search(self, queries: np.ndarray, k: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Top-``k`` rows and scores per query, best first, ties by the lower row."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        if self.index is None:
            return exact_search(self.vectors, queries, k)
        depth = min(self.index.ntotal, k + TIE_MARGIN)
        scores, rows = self.index.search(queries, depth)
        hits = [order_hits(r, s, k) for r, s in zip(rows, scores)]
        return [h[0] for h in hits], [h[1] for h in hits]

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

    from fashionrq.encoders.cache import default_cache_dir, texts_hash

    recipe = [texts_hash(texts), f"{tokenize.__module__}.{tokenize.__qualname__}", k1, b, bm25s.__version__]
    path = Path(cache_dir or default_cache_dir()) / "indexes" / f"bm25-{hashlib.sha256(json.dumps(recipe).encode()).hexdigest()[:32]}"
    if path.is_dir():
        return bm25s.BM25.load(str(path))
    index = bm25s.BM25(k1=k1, b=b)
    index.index([tokenize(text) for text in texts], show_progress=False)
    with atomic_directory(path, force=True, what="bm25 index") as tmp:
        index.save(str(tmp))
    return index
