"""Float64 arithmetic that gives the same bits on every x86-64 CPU: the numba decorator for fashionrq's loops, and
elementwise ``exp``, ``log``, ``log2``, ``cos``, ``power`` and ``cbrt``, a vector's length, and what kernels read off a
float's bits (its largest magnitude, binary exponent, a power of two).

numpy's ``exp``, ``log``, ``power`` and ``cbrt`` run loops dispatched by instruction set (AVX2, AVX-512), torch's call
MKL's vector math, and libm picks its own variants: their last bits depend on the CPU. These are built from basic
IEEE operations instead (add, multiply, divide, rounding to an integer, scaling by a power of two), each rounded once
by the standard, in a fixed order: within about 1 ulp of the true value, and identical everywhere. They run as numba
loops compiled by :func:`kernel`, which keeps every operation as written (docs/architecture.md, "What depends on the
CPU").
"""

from __future__ import annotations

import atexit
import math
import shutil
import sys
import tempfile
from pathlib import Path

import llvmlite.ir
import numba
import numpy as np
from numba import types
from numba.core.caching import UserProvidedCacheLocator
from numba.extending import intrinsic

#: ln 2 split so that ``k * LN2_HI`` is exact for |k| < 2**11 (fdlibm's constants).
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e+00
SQRT_HALF = 0.70710678118654752440
#: 1/n! for n = 13 … 0: e**r by Horner's rule on |r| <= ln(2)/2 (the next term is below 2**-57 relative).
EXP_TERMS = np.array([1.0 / math.factorial(n) for n in range(13, -1, -1)])
#: 1/(2n+1) for n = 11 … 0: log(m) = 2 s (1 + s²/3 + s⁴/5 + …) with s = (m-1)/(m+1), |s| <= 0.172.
LOG_TERMS = np.array([1.0 / (2 * n + 1) for n in range(11, -1, -1)])
#: pi/2 split so that ``k * PIO2_HI`` is exact for |k| < 2**20 (fdlibm's pio2_1 and pio2_1t), and 2/pi.
PIO2_HI = 1.57079632673412561417e+00
PIO2_LO = 6.07710050650619224932e-11
TWO_BY_PI = 6.36619772367581382433e-01
#: (-1)**n / (2n)! and (-1)**n / (2n+1)! for n = 10 … 0: cos r and sin r / r by Horner's rule in r² on |r| <= pi/4.
COS_TERMS = np.array([(-1.0) ** n / math.factorial(2 * n) for n in range(10, -1, -1)])
SIN_TERMS = np.array([(-1.0) ** n / math.factorial(2 * n + 1) for n in range(10, -1, -1)])
#: 2**k for k = -1022 … 1023 (index k + 1022): the normal powers of two, so that scaling by one is a single exact
#: multiplication wherever the result is normal.
POWERS_OF_TWO = np.ldexp(1.0, np.arange(-1022, 1024))
#: The bits of a float64: sign, 11 exponent bits (biased by 1023), 52 fraction bits.
EXPONENT_SHIFT, EXPONENT_MASK, EXPONENT_BIAS = 52, 0x7FF, 1023
#: Every bit of a float64 but its sign: ``bits & MAGNITUDE`` are the bits of ``|x|``.
MAGNITUDE = 0x7FFFFFFFFFFFFFFF

_copied_caches: list[Path] = []  # the folder numba caches in when a kernel's own folder is read-only (at most one)
_kernel_modules: set[str] = set()  # the modules whose compiled kernels copy_kernel_cache has looked for


def copy_kernel_cache(module_file: str) -> None:
    """Where the folder of ``module_file`` (a module with :func:`kernel` functions) is read-only, as in a sealed run,
    numba would compile its kernels again in every process (seconds each): it caches only in a folder it can write.
    Then the kernels already compiled beside that module (by the process that started the run) are copied into a
    folder under the temporary folder, which numba then uses (NUMBA_CACHE_DIR) for every module. A kernel missing
    there is compiled and cached in that folder. :func:`kernel` calls it for its module's first kernel (the T2
    calibrator's, which no module copied, were compiled again in every sealed run: about 6 s)."""
    if module_file in _kernel_modules:
        return
    _kernel_modules.add(module_file)
    here = Path(module_file).resolve()
    compiled = here.parent / "__pycache__"
    if not compiled.is_dir() or (numba.config.CACHE_DIR and not _copied_caches):
        return  # nothing compiled yet, or the user chose numba's cache folder
    try:
        tempfile.TemporaryFile(dir=compiled).close()
        return  # writable: numba caches beside the module
    except OSError:
        pass
    if not _copied_caches:
        try:
            _copied_caches.append(Path(tempfile.mkdtemp(prefix="fashionrq-numba-")))
        except OSError:
            return  # no temporary folder either: the kernels are compiled in memory (kernel)
        atexit.register(shutil.rmtree, _copied_caches[0], ignore_errors=True)
        numba.config.CACHE_DIR = str(_copied_caches[0])
    target = _copied_caches[0] / UserProvidedCacheLocator.get_suitable_cache_subpath(str(here))
    target.mkdir(parents=True, exist_ok=True)
    for path in compiled.glob(f"{here.stem}.*.nb[ic]"):
        shutil.copyfile(path, target / path.name)


def kernel(function):
    """numba without ``fastmath`` (no reassociation, no fused multiply-adds) and with numpy's error model (no
    per-division zero check), so that element-wise loops vectorise to the same IEEE operations as the scalar code.
    Compiled once and cached beside its module, or (NUMBA_CACHE_DIR) elsewhere, or in a sealed run in a copy of the
    kernels compiled beside it (:func:`copy_kernel_cache`); where no folder is writable, numba has no cache location
    and the loops are compiled in memory (a few seconds per process)."""
    module_file = getattr(sys.modules.get(function.__module__), "__file__", None)
    if module_file:  # not a kernel defined in a notebook or by `python -c`, which numba caches nowhere
        copy_kernel_cache(module_file)
    try:
        return numba.njit(cache=True, nogil=True, error_model="numpy")(function)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return numba.njit(nogil=True, error_model="numpy")(function)


@intrinsic
def float_from_bits(typingctx, bits):
    """The float64 whose 64 bits are the int64 ``bits`` (a reinterpretation, inside kernels)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llvmlite.ir.DoubleType())
    return types.float64(types.int64), codegen


@kernel
def magnitude_peak_bits(values: np.ndarray) -> int:
    """The bits of the largest ``|entry|`` of a contiguous float64 vector without NaN. Non-negative floats are
    ordered as their bits are, so this is an integer maximum: exact in any order, and vectorised."""
    bits = values.view(np.int64)
    top = 0
    for j in range(bits.shape[0]):
        top = max(top, bits[j] & MAGNITUDE)
    return top


@kernel
def binary_exponent(bits: int) -> int:
    """``math.frexp(x)[1]`` of the non-negative float64 ``x`` with these bits (read off them where ``x`` is normal)."""
    biased = bits >> EXPONENT_SHIFT
    return biased - (EXPONENT_BIAS - 1) if biased else math.frexp(float_from_bits(bits))[1]


@kernel
def power_of_two(exponent: int) -> float:
    """``2**exponent``, as ``math.ldexp(1.0, exponent)`` gives it (from a table where it is a normal number)."""
    return POWERS_OF_TWO[exponent + 1022] if -1022 <= exponent <= 1023 else math.ldexp(1.0, exponent)


@kernel
def _exp_reduced(v: float) -> tuple[float, float]:
    """``(p, k)`` with ``e**v = p · 2**k``: v = k ln2 + r with |r| <= ln(2)/2, p = e**r by its Taylor polynomial
    (Horner's rule)."""
    k = np.rint(v * INV_LN2)
    r = (v - k * LN2_HI) - k * LN2_LO
    p = r * EXP_TERMS[0] + EXP_TERMS[1]
    for term in range(2, EXP_TERMS.shape[0]):
        p = p * r + EXP_TERMS[term]
    return p, k


@kernel
def exp_scalar(v: float) -> float:
    """e**v for one float (v clipped to [-745, 709]; NaN stays NaN), also inside other kernels: p · 2**k by one
    exact multiplication where the result is normal, else math.ldexp's single rounding."""
    if v != v:
        return v
    p, k = _exp_reduced(min(max(v, -745.0), 709.0))
    return p * POWERS_OF_TWO[int(k) + 1022] if k >= -1021.0 else math.ldexp(p, int(k))


@kernel
def _exp_into(x: np.ndarray, out: np.ndarray) -> None:
    """``out = e**x`` elementwise, x clipped to [-745, 709]. Where the result is normal (x >= -708), 2**k scales p
    by one exact multiplication, in a loop without branches that numba vectorises; the rest (and NaN) are done
    again one by one (:func:`exp_scalar`)."""
    for i in range(x.shape[0]):
        p, k = _exp_reduced(min(x[i], 709.0))
        out[i] = p * POWERS_OF_TWO[int(max(k, -1021.0)) + 1022]
    for i in range(x.shape[0]):
        if not x[i] >= -708.0:
            out[i] = exp_scalar(x[i])


@kernel
def _log_parts(m: float, exponent: int) -> tuple[float, float]:
    """``(e, t)`` with ``log(m 2**exponent) = e ln2 + t``, for m in [0.5, 1): m is doubled below √½ (e one less),
    then t = log m by the atanh series, 2 s (1 + s²/3 + …) with s = (m-1)/(m+1)."""
    if m < SQRT_HALF:
        m = m * 2.0
        exponent -= 1
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    p = s2 * LOG_TERMS[0] + LOG_TERMS[1]
    for term in range(2, LOG_TERMS.shape[0]):
        p = p * s2 + LOG_TERMS[term]
    return float(exponent), 2.0 * s * p


@kernel
def _log_of_parts(e: float, t: float, binary: bool) -> float:
    """log (``binary``: log2) of ``e ln2 + t``; log2 keeps e exact, so a power of two gets its exponent."""
    return e + t * INV_LN2 if binary else e * LN2_HI + (e * LN2_LO + t)


@kernel
def _log_one(v: float, binary: bool) -> float:
    """log (``binary``: log2) of one float, m and e from math.frexp: zero gives -inf, a negative v or NaN gives NaN,
    inf gives inf."""
    if v == 0.0:
        return -np.inf
    if not v > 0.0:
        return np.nan
    if v == np.inf:
        return v
    m, exponent = math.frexp(v)
    e, t = _log_parts(m, exponent)
    return _log_of_parts(e, t, binary)


@kernel
def log_scalar(v: float) -> float:
    """log(v) for one float, also inside other kernels (the value :func:`log_array` gives)."""
    return _log_one(v, False)


@kernel
def _log_into(x: np.ndarray, bits: np.ndarray, out: np.ndarray, binary: bool) -> None:
    """``out = log(x)`` (``binary``: log2) elementwise (``bits`` is x viewed as int64), with x = m 2**e and m in
    [0.5, 1). Where x is normal and below 2**1022, m and e come from x's bits (m by one exact multiplication), in a
    loop that numba vectorises; the rest are done again one by one (:func:`_log_one`)."""
    top = 2 * EXPONENT_BIAS - 2  # the largest biased exponent whose 2**-e is normal
    for i in range(x.shape[0]):
        exponent = min(max((bits[i] >> EXPONENT_SHIFT) & EXPONENT_MASK, 1), top) - (EXPONENT_BIAS - 1)
        e, t = _log_parts(x[i] * POWERS_OF_TWO[1022 - exponent], exponent)
        out[i] = _log_of_parts(e, t, binary)
    for i in range(x.shape[0]):
        if not 0 < bits[i] >> EXPONENT_SHIFT <= top:  # zero, subnormal, negative, huge, inf or NaN
            out[i] = _log_one(x[i], binary)


@kernel
def _cos_into(x: np.ndarray, out: np.ndarray) -> None:
    """``out = cos(x)`` elementwise for |x| < 2**20 · pi/2: x = k pi/2 + r with |r| <= pi/4, then ±cos r or ±sin r
    (by k mod 4) from their Taylor polynomials."""
    for i in range(x.shape[0]):
        k = np.rint(x[i] * TWO_BY_PI)
        r = (x[i] - k * PIO2_HI) - k * PIO2_LO
        r2 = r * r
        c = r2 * COS_TERMS[0] + COS_TERMS[1]
        s = r2 * SIN_TERMS[0] + SIN_TERMS[1]
        for term in range(2, COS_TERMS.shape[0]):
            c = c * r2 + COS_TERMS[term]
            s = s * r2 + SIN_TERMS[term]
        s = s * r
        quadrant = int(k) & 3
        out[i] = c if quadrant == 0 else (-s if quadrant == 1 else (-c if quadrant == 2 else s))


def exp_array(x: np.ndarray) -> np.ndarray:
    """e**x for a float64 array (arguments clipped to [-745, 709])."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    _exp_into(x.reshape(-1), out.reshape(-1))
    return out


def log_array(x: np.ndarray) -> np.ndarray:
    """log(x) for a float64 array (as numpy: -inf at 0, NaN below)."""
    return _log(x, binary=False)


def log2_array(x: np.ndarray) -> np.ndarray:
    """log2(x) for a float64 array (exact at powers of two; as numpy: -inf at 0, NaN below)."""
    return _log(x, binary=True)


def _log(x: np.ndarray, binary: bool) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    flat = x.reshape(-1)
    _log_into(flat, flat.view(np.int64), out.reshape(-1), binary)
    return out


def cos_array(x: np.ndarray) -> np.ndarray:
    """cos(x) for a float64 array with |x| < 2**20 · pi/2 (enough for angles and windows)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    _cos_into(x.reshape(-1), out.reshape(-1))
    return out


def vector_norm(vector: np.ndarray) -> float:
    """The Euclidean length of a vector: the squares summed exactly rounded (math.fsum), in any order the same."""
    values = np.asarray(vector, dtype=np.float64).ravel()
    return math.sqrt(math.fsum((values * values).tolist()))


def power(x: np.ndarray, exponent: float) -> np.ndarray:
    """x ** exponent for a non-negative float64 array (0 ** exponent = 0 for a positive exponent)."""
    x = np.asarray(x, dtype=np.float64)
    positive = x > 0
    return np.where(positive, exp_array(exponent * log_array(np.where(positive, x, 1.0))), 0.0)


def cbrt(x: np.ndarray) -> np.ndarray:
    """The real cube root of a float64 array: exp(log|x| / 3), refined by one Newton step, with x's sign."""
    x = np.asarray(x, dtype=np.float64)
    size = np.abs(x)
    y = power(size, 1.0 / 3.0)
    safe = np.where(y > 0, y, 1.0)
    y = np.where(y > 0, safe - (safe * safe * safe - size) / (3.0 * safe * safe), 0.0)
    return np.where(x < 0, -y, y)
