"""Shared input checks, attribute encoding and the TIGER-style de-duplication level for every tokenizer."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import numpy as np
import pyarrow as pa

from fashionrq.errors import InputError
from fashionrq.exact import row_norms
from fashionrq.seeding import stream


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run torch with ``n`` intra-op threads and float64 as the default dtype, then restore both (small matmuls: 1
    thread is fastest on a shared box). float64 alone does not make the codes the same on every CPU: a release's SID
    stage runs in the pinned-kernel process (fashionrq.pinned; docs/architecture.md, "What depends on the CPU")."""
    import torch

    previous, dtype = torch.get_num_threads(), torch.get_default_dtype()
    torch.set_num_threads(n)
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
        torch.set_default_dtype(dtype)


def check_embeddings(X: np.ndarray, codebook_size: int, n_rows: int | None = None) -> np.ndarray:
    """Return ``X`` as a finite 2-D float32 array, or raise one-sentence InputErrors for bad input."""
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] == 0:
        raise InputError(f"embeddings must be a non-empty (N, d) array, got shape {X.shape}; pass one embedding row per item.")
    X = X.astype(np.float32, copy=False)
    bad = ~np.isfinite(X).all(axis=1)
    if bad.any():
        raise InputError(f"embeddings contain NaN or infinite values in {int(bad.sum())} row(s), first at row {int(np.argmax(bad))}; re-compute or drop those items.")
    if n_rows is not None and X.shape[0] != n_rows:
        raise InputError(f"embeddings have {X.shape[0]} rows but the items/attributes have {n_rows}; embed exactly the items table, in its order.")
    if X.shape[0] < codebook_size:
        raise InputError(f"only {X.shape[0]} items for {codebook_size} codes per level; use a codebook size of at most {X.shape[0]} or add items.")
    return X


def normalize_rows(X: np.ndarray) -> np.ndarray:
    """L2-normalise rows (zero rows stay zero) so every tokenizer sees unit vectors; the norms are exact grid sums
    (:func:`fashionrq.exact.row_norms`), the same on every CPU."""
    return (X / np.maximum(row_norms(X), 1e-12)[:, None]).astype(np.float32)


def attributes_from_items(table: pa.Table, names: Sequence[str]) -> dict[str, np.ndarray]:
    """Pick attribute columns from an items table as ``{name: (N,) object array}`` (nulls become None)."""
    missing = [name for name in names if name not in table.column_names]
    if missing:
        raise InputError(f"the items table has no column {', '.join(missing)}; choose level attributes among {', '.join(table.column_names)}.")
    return {name: np.asarray(table.column(name).to_pylist(), dtype=object) for name in names}


def encode_attribute(values: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Map attribute values to ints ``0..V-1`` (sorted vocabulary); None/NaN/empty become -1."""
    values = np.asarray(values, dtype=object)
    keys = np.array([v if isinstance(v, str) and v != "" else (None if v is None or v != v else str(v)) for v in values], dtype=object)
    present = np.array([k is not None for k in keys], dtype=bool)
    vocab = sorted(set(keys[present].tolist()))
    codes = np.full(len(keys), -1, dtype=np.int64)
    if vocab:
        codes[present] = np.searchsorted(np.array(vocab, dtype=object), keys[present])
    return codes, vocab


def check_attributes(attributes: Mapping[str, np.ndarray] | None, names: Sequence[str], n_rows: int) -> dict[str, np.ndarray]:
    """Check that every level attribute is present with one value per item; return ``{name: int codes}``."""
    if not names:
        return {}
    if attributes is None:
        raise InputError(f"fit needs the level attributes {', '.join(names)}; pass attributes=attributes_from_items(table, {tuple(names)!r}).")
    encoded = {}
    for name in names:
        if name not in attributes:
            raise InputError(f"attribute column {name!r} is missing from the attributes passed to fit; add it or change level_attributes.")
        values = np.asarray(attributes[name], dtype=object)
        if values.shape != (n_rows,):
            raise InputError(f"attribute {name!r} has {values.shape[0] if values.ndim else 0} values but the embeddings have {n_rows} rows; pass one value per item.")
        encoded[name] = encode_attribute(values)[0]
    return encoded


def dedup_level(sids: np.ndarray) -> np.ndarray:
    """TIGER-style extra code: the 0-based rank of each item among the earlier items sharing its full SID."""
    _, inverse = np.unique(sids, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    sorted_groups = inverse[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_groups)) + 1]
    counts = np.diff(np.r_[starts, len(sorted_groups)])
    rank = np.arange(len(sorted_groups)) - np.repeat(starts, counts)
    out = np.empty(len(sids), dtype=np.int64)
    out[order] = rank
    return out


def nearest_codes(residual: np.ndarray, codebook: np.ndarray) -> np.ndarray:
    """Index of the nearest codeword for every row (vectorised squared-distance argmin)."""
    scores = residual @ codebook.T
    scores *= -2.0
    scores += (codebook * codebook).sum(axis=1)
    return scores.argmin(axis=1)


class Tokenizer:
    """Common contract: ``fit(X, attributes)``, ``transform(X) -> (N, levels [+1]) int64``, ``reconstruction_error(X)``."""

    method = ""
    levels: int
    codebook_size: int
    dedup: bool

    def fit(self, X: np.ndarray, attributes: Mapping[str, np.ndarray] | None = None) -> Tokenizer:
        raise NotImplementedError

    def codes(self, X: np.ndarray) -> np.ndarray:
        """The ``(N, levels)`` codes of ``X`` without the de-duplication level."""
        raise NotImplementedError

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Semantic IDs of ``X``: ``(N, levels)``, or ``(N, levels + 1)`` with ``dedup=True``."""
        X = check_embeddings(X, 0)
        sids = self.codes(X)
        if self.dedup:
            sids = np.column_stack([sids, dedup_level(sids)])
        return sids

    def fit_transform(self, X: np.ndarray, attributes: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
        return self.fit(X, attributes).transform(X)

    def _check_fitted(self) -> None:
        if not getattr(self, "fitted_", False):
            raise InputError(f"this {type(self).__name__} is not fitted; call fit(X, attributes) or load a saved model first.")


def training_rows(n: int, sample: int | None, seed: int) -> np.ndarray:
    """Rows a tokenizer is fitted on: all ``n`` of them, or a seeded sorted sample of ``sample`` when there are more.

    Training cost then stops growing with the catalog; assignment (``transform``) still covers every row.
    """
    if sample is None or n <= sample:
        return np.arange(n)
    return np.sort(stream(seed, "sid-sample").choice(n, sample, replace=False))
