"""The image-side representation: a weighted CIELAB colour histogram plus texture and shape features.

Three blocks, each L2-normalised and scaled by its weight, then the whole vector L2-normalised, so the
inner product of two descriptors is a cosine similarity in [0, 1]:

* colour: ``L_BINS x A_BINS x B_BINS`` histogram of the product pixels (pixel weights of
  :func:`fashionrq.images.colours.pixel_weights`), square-rooted (Hellinger);
* texture: the orientation histogram and the scalar texture statistics of :mod:`fashionrq.images.pattern`;
* shape: the features of :mod:`fashionrq.images.shape`.
"""

from __future__ import annotations

import numpy as np

from fashionrq.ieee import vector_norm
from fashionrq.images.pattern import TEXTURE_KEYS
from fashionrq.images.shape import SHAPE_KEYS

L_BINS, A_BINS, B_BINS = 4, 6, 6
#: Block weights: colour dominates, texture and shape refine.
WEIGHTS = {"colour": 1.0, "texture": 0.5, "shape": 0.3}
DIM = L_BINS * A_BINS * B_BINS + 8 + len(TEXTURE_KEYS) + len(SHAPE_KEYS)


def unit_vector(vector: np.ndarray) -> np.ndarray:
    """``vector`` scaled to length 1 (unchanged when 0), its length from :func:`fashionrq.ieee.vector_norm`."""
    norm = vector_norm(vector)
    return vector / norm if norm > 0 else vector


def lab_bin(lab: np.ndarray) -> np.ndarray:
    """Histogram cell of each CIELAB row (L in 0..100, a and b clipped to -90..90)."""
    lab = np.asarray(lab, dtype=np.float64).reshape(-1, 3)
    li = np.clip((lab[:, 0] / 100.0 * L_BINS).astype(int), 0, L_BINS - 1)
    ai = np.clip(((lab[:, 1] + 90) / 180.0 * A_BINS).astype(int), 0, A_BINS - 1)
    bi = np.clip(((lab[:, 2] + 90) / 180.0 * B_BINS).astype(int), 0, B_BINS - 1)
    return (li * A_BINS + ai) * B_BINS + bi


def colour_histogram(lab: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted CIELAB histogram (sums to 1) of an image's pixels."""
    hist = np.bincount(lab_bin(lab), weights=weights.ravel(), minlength=L_BINS * A_BINS * B_BINS)
    return hist / hist.sum() if hist.sum() > 0 else hist


def image_descriptor(histogram: np.ndarray, texture: dict, shape: dict) -> np.ndarray:
    """The L2-normalised float32 descriptor of one image (length :data:`DIM`)."""
    texture_block = np.concatenate([texture["orientations"], [texture[k] for k in TEXTURE_KEYS]])
    shape_block = np.array([shape[k] for k in SHAPE_KEYS], dtype=np.float64)
    blocks = [
        WEIGHTS["colour"] * unit_vector(np.sqrt(histogram)),
        WEIGHTS["texture"] * unit_vector(texture_block),
        WEIGHTS["shape"] * unit_vector(shape_block),
    ]
    return unit_vector(np.concatenate(blocks)).astype(np.float32)
