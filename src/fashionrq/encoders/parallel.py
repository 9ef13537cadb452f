"""Encode one long list of texts in several single-threaded worker processes (shards of whole batches)."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import scipy.sparse as sp

from fashionrq.encoders.base import Encoder
from fashionrq.encoders.registry import get_encoder
from fashionrq.progress import track


def _encode_shard(name: str, batch_size: int, texts: list[str], is_query: bool):
    import torch

    torch.set_num_threads(1)
    encoder = get_encoder(name)
    encoder.batch_size = batch_size
    return encoder.encode_queries(texts) if is_query else encoder.encode_documents(texts)


def encode_in_workers(encoder: Encoder, texts: list[str], is_query: bool, workers: int):
    """What ``encoder.encode_queries/encode_documents(texts)`` returns, computed by ``workers`` processes.

    Texts are length-sorted once and cut into the batches a single process would form; batch ``b`` goes to
    worker ``b % workers`` (so every worker gets short and long texts alike), and rows come back in input
    order. The encoder must be a registry name (each worker builds it with ``get_encoder``); each worker runs
    torch with one thread.
    """
    order = np.argsort([len(t) for t in texts], kind="stable")
    size = encoder.batch_size
    starts = range(0, len(texts), size)
    count = max(1, min(workers, len(starts)))
    shards = [np.concatenate([order[s:s + size] for s in starts[k::count]]) for k in range(count)]
    with ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_encode_shard, encoder.name, size, [texts[i] for i in rows], is_query) for rows in shards]
        kind = "queries" if is_query else "documents"
        parts = [f.result() for f in track(futures, f"{encoder.name}: {len(texts):,} {kind} in {count} workers", total=count)]
    encoder.texts_encoded += len(texts)
    rows = np.concatenate(shards)
    inverse = np.empty_like(rows)
    inverse[rows] = np.arange(len(rows))
    if encoder.kind == "sparse":
        return sp.vstack(parts, format="csr", dtype=np.float32)[inverse]
    return np.concatenate(parts, axis=0)[inverse]
