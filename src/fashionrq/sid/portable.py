"""The RQ-VAE's elementwise functions and matrix products as torch autograd functions that give the same bits on
every x86-64 CPU.

torch's ``exp``, ``log`` and ``sqrt`` call MKL's vector-math library, whose code (and last bit) depends on the CPU
even in MKL's reproducibility mode. These run :mod:`fashionrq.ieee`'s functions (and IEEE ``sqrt``) instead, so
the losses differentiate through them as before. The matrix products run through numpy's OpenBLAS, which the
pinned process holds to one kernel (``OPENBLAS_CORETYPE``): at the RQ-VAE's shapes that kernel is about twice as
fast as MKL's reproducible (``MKL_CBWR=COMPATIBLE``) path that torch's own products take there
(docs/architecture.md, "What depends on the CPU").
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from fashionrq.ieee import exp_array, log_array


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


class _MatMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(a, b)
        return torch.from_numpy(a.detach().numpy() @ b.detach().numpy())

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        a, b = ctx.saved_tensors
        g = grad.detach().numpy()
        grad_a = torch.from_numpy(g @ b.detach().numpy().T) if ctx.needs_input_grad[0] else None
        grad_b = torch.from_numpy(a.detach().numpy().T @ g) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


def exp(x: torch.Tensor) -> torch.Tensor:
    return _Exp.apply(x.contiguous())


def log(x: torch.Tensor) -> torch.Tensor:
    return _Log.apply(x.contiguous())


def sqrt(x: torch.Tensor) -> torch.Tensor:
    return _Sqrt.apply(x.contiguous())


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` for 2-D float64 tensors, forward and backward through numpy's BLAS."""
    return _MatMul.apply(a, b)


class Linear(nn.Linear):
    """``nn.Linear`` (same parameters and initialisation) whose product is :func:`matmul`."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return matmul(x, self.weight.T) + self.bias


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
