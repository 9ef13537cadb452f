"""Label-blind access to a release: BENCH/public/ only (a sealed run sees a private copy of it, see systems/sealed.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from fashionrq.errors import FashionRQError, InputError
from fashionrq.protocol.manifest import release_hash, verify_release

PUBLIC = "public"
LABELS = "labels"
#: Folder of public/ holding every photo under its public item id (``image_path`` is relative to public/).
PHOTOS = "images"


class LabelAccessError(FashionRQError):
    """A system reached for a file outside its sealed view (BENCH/labels/, the release, the SID cache)."""

    exit_code = 3


class PublicBench:
    """The public half of a release: items and task files from ``BENCH/public/`` and the release hash.

    A sealed child passes its staged folder (which holds ``public/`` only) with ``verify=False`` and the
    ``release`` hash the parent computed.
    """

    def __init__(self, bench: str | Path, verify: bool = True, release: str | None = None) -> None:
        self.root = Path(bench)
        self.public = self.root / PUBLIC
        if not self.public.is_dir():
            raise InputError(f"{self.public} does not exist; pass the release folder written by `fashionrq build` as BENCH.")
        self.release = release or release_hash(self.root)
        if verify:
            verify_release(self.root, under=PUBLIC, strict=True)

    def path(self, name: str) -> Path:
        """``BENCH/public/<name>``; names with a folder part are refused."""
        if Path(name).name != name or name in {"", ".", ".."}:
            raise InputError(f"'{name}' is not a file name in {self.public}; systems read only files directly in BENCH/public/.")
        return self.public / name

    def items(self) -> pa.Table:
        """The items table (``public/items.parquet``), each ``image_path`` resolved to its photo in ``public/images/``."""
        path = self.path("items.parquet")
        if not path.is_file():
            raise InputError(f"{path} is missing; the release is incomplete, rebuild it with `fashionrq build`.")
        items = pq.read_table(path)
        if "image_path" not in items.column_names:
            return items
        index = items.schema.get_field_index("image_path")
        photos = [None if p is None else str(self.public / p) for p in items.column(index).to_pylist()]
        return items.set_column(index, items.schema.field(index), pa.array(photos, pa.string()))

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
