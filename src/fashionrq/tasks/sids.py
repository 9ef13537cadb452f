"""SIDs of a catalog, fitted by a tokenizer and cached on disk by the content of the vectors and the tokenizer's config."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow as pa

from fashionrq.io import atomic_writer
from fashionrq.layout import SIDS_CACHE, default_cache_dir
from fashionrq.pinned import run_pinned
from fashionrq.progress import console
from fashionrq.sid import attributes_from_items, make_tokenizer


#: Part of every SID cache key, changed whenever the training's arithmetic changes: SIDs cached before training ran
#: with pinned kernels depended on the CPU, and since stop 40 the RQ-VAE's matrix products go through OpenBLAS.
KERNELS = "pinned-kernels-openblas-products"


def sha256_array(array: np.ndarray) -> str:
    """sha256 of an array's dtype, shape and bytes."""
    array = np.ascontiguousarray(array)
    digest = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    digest.update(array.tobytes())
    return digest.hexdigest()


def semantic_ids(items: pa.Table, X: np.ndarray, method: str, levels: int, codebook_size: int, seed: int,
                 params: dict, cache_dir: str | Path | None = None) -> tuple[np.ndarray, dict]:
    """Fit the tokenizer on ``X`` and return the SIDs and the tokenizer's config, cached on disk by content."""
    tokenizer = make_tokenizer(method, levels=levels, codebook_size=codebook_size, seed=seed, **params)
    config = tokenizer.config() if hasattr(tokenizer, "config") else {"method": method}
    key = hashlib.sha256((sha256_array(np.asarray(X)) + json.dumps(config, sort_keys=True) + KERNELS).encode()).hexdigest()[:32]
    path = Path(cache_dir or default_cache_dir()) / SIDS_CACHE / f"{method}-{key}.npy"
    sids = _cached_sids(path, len(X))
    if sids is None:
        names = [a for a in getattr(tokenizer, "level_attributes", ()) if a]
        sids = run_pinned(fitted_codes, tokenizer, X, attributes_from_items(items, names) if names else None)
        with atomic_writer(path, "wb") as handle:
            np.save(handle, sids)
    return sids, {"config": config, "cache_key": key}


def fitted_codes(tokenizer, X: np.ndarray, attributes: dict | None) -> np.ndarray:
    """The SIDs of ``X`` from ``tokenizer`` fitted on it (run in the pinned-kernel process)."""
    return tokenizer.fit(X, attributes).transform(X)


def _cached_sids(path: Path, rows: int) -> np.ndarray | None:
    """The cached SIDs at ``path``, or None when absent; an unreadable or wrong-sized file is reported and recomputed."""
    if not path.is_file():
        return None
    try:
        sids = np.load(path, allow_pickle=False)
        if sids.ndim == 2 and len(sids) == rows:
            return sids
    except (OSError, ValueError, EOFError):
        pass
    console.print(f"SID cache file {path} is damaged (an interrupted write?); recomputing it.", soft_wrap=True)
    return None
