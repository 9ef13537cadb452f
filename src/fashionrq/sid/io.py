"""Save/load tokenizers (JSON config + torch state dict) and read/write ``sids.parquet``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import torch

from fashionrq.io import atomic_write_text, atomic_writer
from fashionrq.errors import InputError
from fashionrq.sid.base import Tokenizer
from fashionrq.sid.methods import make_tokenizer

CONFIG_FILE = "config.json"
STATE_FILE = "state.pt"


def save_tokenizer(model: Tokenizer, out_dir: str | Path) -> Path:
    """Write ``config.json`` and ``state.pt`` for a fitted tokenizer into ``out_dir``."""
    model._check_fitted()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / CONFIG_FILE, json.dumps(model.config(), indent=2, sort_keys=True) + "\n")
    state = {k: torch.as_tensor(np.asarray(v)) if isinstance(v, np.ndarray) else v for k, v in model.state().items()}
    with atomic_writer(out / STATE_FILE, "wb") as handle:
        torch.save(state, handle)
    return out


def load_tokenizer(model_dir: str | Path) -> Tokenizer:
    """Load a tokenizer written by ``save_tokenizer``."""
    path = Path(model_dir)
    if not (path / CONFIG_FILE).is_file() or not (path / STATE_FILE).is_file():
        raise InputError(f"{path} is not a semantic-ID model folder (it needs {CONFIG_FILE} and {STATE_FILE}); create one with `fashionrq sid train`.")
    config = json.loads((path / CONFIG_FILE).read_text())
    model = make_tokenizer(config.pop("method"), **config)
    state = torch.load(path / STATE_FILE, map_location="cpu", weights_only=True)
    model.load_state({k: v.numpy() if model.method == "rkmeans" else v for k, v in state.items()})
    return model


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
