"""Save/load tokenizers (JSON config + torch state dict); ``sids.parquet`` is :mod:`fashionrq.sid.sids_file`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
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
