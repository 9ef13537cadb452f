"""Read a frozen release: locate it; its JSONL and qrels readers are fashionrq.io.read_jsonl and fashionrq.metrics.read_qrels."""

from __future__ import annotations

from pathlib import Path

from fashionrq.errors import InputError
from fashionrq.io import read_jsonl
from fashionrq.metrics import read_qrels  # noqa: F401  (the one qrels reader: a Qrels, iterating (qid, item, grade))
from fashionrq.tasks.release import MANIFEST


def release_dir(bench: str | Path) -> Path:
    """The release folder, checked to hold a manifest and public/labels folders."""
    path = Path(bench)
    if not (path / MANIFEST).is_file() or not (path / "public").is_dir():
        raise InputError(f"{path} is not a benchmark release (no {MANIFEST} or public/); build one with `fashionrq build --out {path}`.")
    return path
