"""Read a frozen release: locate it and parse its JSONL and qrels files."""

from __future__ import annotations

from pathlib import Path

from fashionrq.errors import InputError
from fashionrq.io import read_jsonl
from fashionrq.tasks.release import MANIFEST


def release_dir(bench: str | Path) -> Path:
    """The release folder, checked to hold a manifest and public/labels folders."""
    path = Path(bench)
    if not (path / MANIFEST).is_file() or not (path / "public").is_dir():
        raise InputError(f"{path} is not a benchmark release (no {MANIFEST} or public/); build one with `fashionrq build --out {path}`.")
    return path


def read_qrels(path: Path) -> list[tuple[str, str, int]]:
    """TREC qrels lines ``qid 0 item_id grade`` as tuples."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if parts:
                rows.append((parts[0], parts[2], int(parts[3])))
    return rows
