"""Coarse shape of the product mask: aspect ratio, fill ratio, extent in the frame and left-right symmetry."""

from __future__ import annotations

import numpy as np

SHAPE_KEYS = ("aspect_ratio", "fill_ratio", "extent", "symmetry")


def shape_features(mask: np.ndarray) -> dict:
    """``aspect_ratio`` (bounding-box height / width), ``fill_ratio`` (mask / box area), ``extent`` (box / frame
    area) and ``symmetry`` (IoU of the mask and its mirror image about the box's vertical axis)."""
    ys, xs = np.nonzero(mask)
    if len(ys) == 0:
        return dict.fromkeys(SHAPE_KEYS, 0.0)
    box = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    height, width = box.shape
    mirrored = box[:, ::-1]
    union = np.logical_or(box, mirrored).sum()
    return {
        "aspect_ratio": round(height / width, 6),
        "fill_ratio": round(float(box.mean()), 6),
        "extent": round(height * width / mask.size, 6),
        "symmetry": round(float(np.logical_and(box, mirrored).sum() / union) if union else 0.0, 6),
    }
