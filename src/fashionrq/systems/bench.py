"""Label-blind access to a release: read BENCH/public/ only, and refuse any file access under BENCH/labels/."""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from fashionrq.errors import FashionRQError, InputError
from fashionrq.protocol.manifest import release_hash, verify_release

PUBLIC = "public"
LABELS = "labels"

#: Folders no code may touch while a system runs (see :func:`labels_guard`).
_FORBIDDEN: list[str] = []
_HOOKED = False
_EVENTS = {"open", "os.listdir", "os.scandir", "os.chdir", "shutil.copyfile", "shutil.copytree"}


class LabelAccessError(FashionRQError):
    """Something opened BENCH/labels/ during a label-blind run."""

    exit_code = 3


def _audit(event: str, args: tuple) -> None:
    if not _FORBIDDEN or event not in _EVENTS or not args:
        return
    target = args[0]
    if isinstance(target, int) or target is None:
        return
    try:
        path = os.path.realpath(os.fsdecode(target))
    except (TypeError, ValueError):
        return
    for folder in _FORBIDDEN:
        if path == folder or path.startswith(folder + os.sep):
            raise LabelAccessError(
                f"{path} was opened during a label-blind run; systems may read only BENCH/{PUBLIC}/, so remove that access."
            )


@contextmanager
def labels_guard(bench: str | Path):
    """While active, any open/list of a path under ``BENCH/labels/`` raises :class:`LabelAccessError`."""
    global _HOOKED
    if not _HOOKED:
        sys.addaudithook(_audit)
        _HOOKED = True
    folder = os.path.realpath(Path(bench) / LABELS)
    _FORBIDDEN.append(folder)
    try:
        yield
    finally:
        _FORBIDDEN.remove(folder)


class PublicBench:
    """The public half of a release: items and task files from ``BENCH/public/`` and the release hash."""

    def __init__(self, bench: str | Path, verify: bool = True) -> None:
        self.root = Path(bench)
        self.public = self.root / PUBLIC
        if not self.public.is_dir():
            raise InputError(f"{self.public} does not exist; pass the release folder written by `fashionrq build` as BENCH.")
        self.release = release_hash(self.root)
        if verify:
            verify_release(self.root, under=PUBLIC, strict=True)

    def path(self, name: str) -> Path:
        """``BENCH/public/<name>``; names with a folder part are refused."""
        if Path(name).name != name or name in {"", ".", ".."}:
            raise InputError(f"'{name}' is not a file name in {self.public}; systems read only files directly in BENCH/public/.")
        return self.public / name

    def items(self) -> pa.Table:
        """The items table (``public/items.parquet``)."""
        path = self.path("items.parquet")
        if not path.is_file():
            raise InputError(f"{path} is missing; the release is incomplete, rebuild it with `fashionrq build`.")
        return pq.read_table(path)

    def jsonl(self, name: str, required: bool = True) -> list[dict]:
        """The records of ``public/<name>`` (``[]`` when absent and not ``required``)."""
        path = self.path(name)
        if not path.is_file():
            if required:
                raise InputError(f"{path} is missing; the release is incomplete, rebuild it with `fashionrq build`.")
            return []
        records = []
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    records.append(json.loads(line))
                except ValueError:
                    raise InputError(f"{path} line {number} is not JSON; restore the file from the release.") from None
        return records
