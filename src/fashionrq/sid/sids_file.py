"""``sids.parquet``: item ids and their semantic IDs (``item_id, sid_1 … sid_L``, int16), as ``fashionrq sid assign``
writes it and a release keeps it under labels/."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fashionrq.errors import InputError
from fashionrq.io import atomic_writer


def write_sids(item_ids: list[str], sids: np.ndarray, path: str | Path) -> Path:
    """Write ``item_id, sid_1 … sid_L`` (int16) as Parquet."""
    sids = np.asarray(sids)
    if sids.max(initial=0) > np.iinfo(np.int16).max:
        raise InputError(f"a code of {int(sids.max())} does not fit sids.parquet's int16 columns; use a codebook size below 32768.")
    columns = {"item_id": pa.array(item_ids, pa.string())}
    for level in range(sids.shape[1]):
        columns[f"sid_{level + 1}"] = pa.array(sids[:, level].astype(np.int16), pa.int16())
    path = Path(path)
    with atomic_writer(path, "wb") as handle:
        pq.write_table(pa.table(columns), handle, compression="zstd", write_statistics=False)
    return path


def read_sids(path: str | Path) -> tuple[list[str], np.ndarray]:
    """Read ``sids.parquet`` into item ids and an ``(N, L)`` int64 array."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"SID file {path} does not exist; create it with `fashionrq sid assign`.")
    table = pq.read_table(path)
    names = sorted((c for c in table.column_names if c.startswith("sid_")), key=lambda c: int(c[4:]))
    if "item_id" not in table.column_names or not names:
        raise InputError(f"{path} lacks item_id or sid_1… columns; write it with `fashionrq sid assign`.")
    sids = np.column_stack([table.column(c).to_numpy().astype(np.int64) for c in names])
    return table.column("item_id").to_pylist(), sids
