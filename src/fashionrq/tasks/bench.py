"""Locate a frozen release, read its qrels (:func:`read_qrels`) and its private id map (files: fashionrq.release.Release)."""

from __future__ import annotations

from pathlib import Path

from fashionrq.errors import InputError
from fashionrq.layout import ITEM_IDS, ITEMS, LABELS, MANIFEST, PUBLIC
from fashionrq.metrics import Qrels
from fashionrq.metrics import read_qrels as read_trec_qrels


def read_qrels(path: str | Path) -> Qrels:
    """A release's qrels file as a :class:`~fashionrq.metrics.Qrels` (iterating ``(qid, item, grade)``); the empty
    file of a task with no queries (a weak release, built with ``allow_weak``) reads as no judgment."""
    return read_trec_qrels(path, allow_empty=True)


def release_dir(bench: str | Path) -> Path:
    """The release folder, checked to hold a manifest and public/labels folders."""
    path = Path(bench)
    if not (path / MANIFEST).is_file() or not (path / PUBLIC).is_dir():
        raise InputError(f"{path} is not a benchmark release (no {MANIFEST} or public/); build one with `fashionrq build --out {path}`.")
    return path


def catalog_ids(bench: str | Path) -> dict[str, str]:
    """Public (opaque) item id -> the catalog's own id, from ``labels/item_ids.parquet`` (a label: never give it to a
    system). A release written before opaque ids has no such file and published the catalog ids: they map to themselves."""
    import pyarrow.parquet as pq

    path = Path(bench) / LABELS / ITEM_IDS
    if not path.is_file():
        ids = pq.read_table(Path(bench) / PUBLIC / ITEMS, columns=["item_id"]).column("item_id").to_pylist()
        return dict(zip(ids, ids))
    table = pq.read_table(path)
    return dict(zip(table.column("item_id").to_pylist(), table.column("catalog_id").to_pylist()))
