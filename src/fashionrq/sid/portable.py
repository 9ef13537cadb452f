"""Elementwise functions that give the same bits on every x86-64 CPU, for the RQ-VAE's training and codes.

torch's ``exp``, ``log`` and ``sqrt`` call MKL's vector-math library, whose code (and last bit) depends on the CPU
even in MKL's reproducibility mode, and libm picks its own variants. These are built from numpy's basic IEEE
operations instead (add, multiply, divide, ``sqrt``, ``rint``, ``frexp``, ``ldexp``), each rounded once by the
standard, in a fixed order: about 1 ulp from the true value, and identical everywhere (docs/architecture.md, "What
depends on the CPU"). Each is a torch autograd function, so the losses differentiate through them as before.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

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
    p = np.full_like(r, EXP_TERMS[0])
    for term in EXP_TERMS[1:]:
        p = p * r + term
    return np.ldexp(p, k.astype(np.int64))


def log_array(x: np.ndarray) -> np.ndarray:
    """log(x) for a positive float64 array: x = m 2**e with m in [√½, √2), log m by the atanh series."""
    m, e = np.frexp(x)
    low = m < SQRT_HALF
    m = np.where(low, m * 2.0, m)
    e = (e - low).astype(np.float64)
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    p = np.full_like(s, LOG_TERMS[0])
    for term in LOG_TERMS[1:]:
        p = p * s2 + term
    return e * LN2_HI + (e * LN2_LO + 2.0 * s * p)


class _Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        out = torch.from_numpy(exp_array(x.detach().numpy()))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        (out,) = ctx.saved_tensors
        return grad * out


class _Log(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return torch.from_numpy(log_array(x.detach().numpy()))

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad / x


class _Sqrt(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        out = torch.from_numpy(np.sqrt(x.detach().numpy()))  # IEEE sqrt: correctly rounded on every CPU
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        (out,) = ctx.saved_tensors
        return grad / (2.0 * out)


def exp(x: torch.Tensor) -> torch.Tensor:
    return _Exp.apply(x.contiguous())


def log(x: torch.Tensor) -> torch.Tensor:
    return _Log.apply(x.contiguous())


def sqrt(x: torch.Tensor) -> torch.Tensor:
    return _Sqrt.apply(x.contiguous())


def normalize(x: torch.Tensor) -> torch.Tensor:
    """Rows scaled to unit length (as ``F.normalize(x, dim=-1)``)."""
    return x / sqrt((x * x).sum(-1, keepdim=True)).clamp_min(1e-12)


def softmax(logits: torch.Tensor) -> torch.Tensor:
    """Softmax over dim 1, shifted by the (detached) row maximum, which changes neither value nor gradient."""
    e = exp(logits - logits.max(dim=1, keepdim=True).values.detach())
    return e / e.sum(dim=1, keepdim=True)


class SiLU(nn.Module):
    """x · sigmoid(x), with :func:`exp`."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / (1.0 + exp(-x))


class Adam:
    """Adam (Kingma & Ba; torch's defaults) with :func:`sqrt`'s square root: updates ``params`` in place."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
        self.params = [p for p in params]
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, eps
        self.decay1 = self.decay2 = 1.0  # beta ** steps, by repeated products (no libm pow)
        self.first = [torch.zeros_like(p) for p in self.params]
        self.second = [torch.zeros_like(p) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.decay1, self.decay2 = self.decay1 * self.beta1, self.decay2 * self.beta2
        correction1 = 1.0 - self.decay1
        root_correction2 = float(np.sqrt(1.0 - self.decay2))
        for p, m, v in zip(self.params, self.first, self.second):
            if p.grad is None:
                continue
            g = p.grad
            m.mul_(self.beta1).add_(g * (1.0 - self.beta1))
            v.mul_(self.beta2).add_((g * g) * (1.0 - self.beta2))
            denominator = _Sqrt.apply(v) / root_correction2 + self.eps
            p.sub_((m / denominator) * (self.lr / correction1))
