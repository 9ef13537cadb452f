"""Attribute exclusivity loss: the conditional entropy H(attribute | prefix) under soft code assignments."""

from __future__ import annotations

import torch

from fashionrq.sid import portable


def soft_assignments(distances: torch.Tensor, temperature: float) -> torch.Tensor:
    """``p(code k | x_i) = softmax(-d_ik / tau)`` with ``tau = temperature * mean(d)`` (not detached, so the loss is scale-free)."""
    tau = temperature * distances.mean().clamp_min(1e-8)
    return portable.softmax(-distances / tau)


def conditional_entropy(p: torch.Tensor, labels: torch.Tensor, parents: torch.Tensor | None = None) -> torch.Tensor:
    """``H(a | parent, code) = -sum_{g,k,v} n_gkv / N * log(n_gkv / n_gk)`` with soft counts
    ``n_gkv = sum_i [parent_i = g] p_ik [a_i = v]``.

    ``p`` is ``(B, K)`` soft assignments, ``labels`` ``(B,)`` attribute value ids (-1 = missing, ignored) and
    ``parents`` ``(B,)`` ids of the items' hard prefix above this level (None: one parent). Returns 0 when no
    row has a value.
    """
    keep = labels >= 0
    if not bool(keep.any()):
        return p.sum() * 0.0
    p, labels = p[keep], labels[keep]
    parents = torch.zeros_like(labels) if parents is None else parents[keep]
    # One int64 key per (parent, value) pair; sorting keys sorts the pairs lexicographically.
    span = int(labels.max()) + 1
    pairs, pair_of_row = torch.unique(parents.long() * span + labels.long(), return_inverse=True)
    joint = torch.zeros(len(pairs), p.shape[1], dtype=p.dtype).index_add(0, pair_of_row, p)  # n_(g,v),k
    groups, group_of_pair = torch.unique(torch.div(pairs, span, rounding_mode="floor"), return_inverse=True)
    per_child = torch.zeros(len(groups), p.shape[1], dtype=p.dtype).index_add(0, group_of_pair, joint)  # n_g,k
    eps = 1e-12
    return -(joint * (portable.log(joint + eps) - portable.log(per_child[group_of_pair] + eps))).sum() / joint.sum()
