"""Elementwise float64 functions that give the same bits on every x86-64 CPU.

numpy's ``exp``, ``log``, ``power`` and ``cbrt`` run loops dispatched by instruction set (AVX2, AVX-512), torch's call
MKL's vector math, and libm picks its own variants: their last bits depend on the CPU. These are built from numpy's
basic IEEE operations instead (add, multiply, divide, ``sqrt``, ``rint``, ``frexp``, ``ldexp``), each rounded once
by the standard, in a fixed order: within about 1 ulp of the true value, and identical everywhere
(docs/architecture.md, "What depends on the CPU").
"""

from __future__ import annotations

import math

import numpy as np

#: ln 2 split so that ``k * LN2_HI`` is exact for |k| < 2**11 (fdlibm's constants).
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e+00
SQRT_HALF = 0.70710678118654752440
#: 1/n! for n = 13 … 0: e**r by Horner's rule on |r| <= ln(2)/2 (the next term is below 2**-57 relative).
EXP_TERMS = tuple(1.0 / math.factorial(n) for n in range(13, -1, -1))
#: 1/(2n+1) for n = 11 … 0: log(m) = 2 s (1 + s²/3 + s⁴/5 + …) with s = (m-1)/(m+1), |s| <= 0.172.
LOG_TERMS = tuple(1.0 / (2 * n + 1) for n in range(11, -1, -1))


def exp_array(x: np.ndarray) -> np.ndarray:
    """e**x for a float64 array: x = k ln2 + r, e**r by its Taylor polynomial, scaled by 2**k."""
    x = np.clip(x, -745.0, 709.0)
    k = np.rint(x * INV_LN2)
    r = (x - k * LN2_HI) - k * LN2_LO
    p = r * EXP_TERMS[0] + EXP_TERMS[1]
    for term in EXP_TERMS[2:]:  # in place: the same operations, each rounded once, without a new array per term
        np.multiply(p, r, out=p)
        np.add(p, term, out=p)
    return np.ldexp(p, k.astype(np.int64))


def log_array(x: np.ndarray) -> np.ndarray:
    """log(x) for a positive float64 array: x = m 2**e with m in [√½, √2), log m by the atanh series."""
    m, e = np.frexp(x)
    low = m < SQRT_HALF
    m = np.where(low, m * 2.0, m)
    e = (e - low).astype(np.float64)
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    p = s2 * LOG_TERMS[0] + LOG_TERMS[1]
    for term in LOG_TERMS[2:]:
        np.multiply(p, s2, out=p)
        np.add(p, term, out=p)
    return e * LN2_HI + (e * LN2_LO + 2.0 * s * p)


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
