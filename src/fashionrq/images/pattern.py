"""Texture statistics of the product region and a rule-based pattern class: solid, striped, checked or printed.

Features (all on the CIELAB lightness of the eroded product mask, so the outline does not count as texture):

* ``edge_density``: share of pixels whose Sobel gradient exceeds :data:`EDGE`;
* ``orientations``: a magnitude-weighted histogram of the strong gradients' orientations in
  :data:`ORIENTATION_BINS` bins over 0-180°;
* ``axis_share`` / ``cross_share``: the weight of the strongest orientation bin, and of the bin at 90° to it;
* ``periodicity``: the strongest non-DC peak of the windowed power spectrum of a central patch, as a share of
  the non-DC power (stripes and checks are periodic, prints are not);
* ``colour_entropy``: entropy (bits) of the product's colours quantised to a coarse CIELAB grid.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from fashionrq.ieee import cos_array, log2_array

ORIENTATION_BINS = 8
#: Sobel magnitude (lightness units) of a strong gradient.
EDGE = 24.0
#: Side of the central patch whose power spectrum measures periodicity.
PATCH = 48
#: Thresholds of :func:`classify_pattern`, chosen on the even-indexed half of the labelled Myntra photos
#: (balanced accuracy; docs/images.md reports the other half).
SOLID_EDGES = 0.15
SOLID_ENTROPY = 2.5
CHECKED_EDGES = 0.55
STRIPED_AXIS = 0.3
PERIODIC = 0.03

#: The orientation bins' lower edges (radians, 0-180°; bins centred on multiples of 180° / ORIENTATION_BINS, so on
#: 0° and 90°), and their cosines and sines from fashionrq.ieee: a gradient's bin is found by the sign of its cross
#: product with each edge, without an arctangent (numpy's arctan2 is dispatched by instruction set).
BIN_EDGES = (np.arange(ORIENTATION_BINS) + 0.5) * (np.pi / ORIENTATION_BINS)
BIN_EDGE_COS, BIN_EDGE_SIN = cos_array(BIN_EDGES), cos_array(BIN_EDGES - np.pi / 2)

PATTERNS = ("solid", "striped", "checked", "printed")
TEXTURE_KEYS = ("edge_density", "axis_share", "cross_share", "periodicity", "colour_entropy")


def garment_region(mask: np.ndarray, skin: np.ndarray) -> np.ndarray:
    """The eroded product pixels in the middle of its bounding box (rows 25-75 %, columns 20-80 %), skin
    excluded: on a model that is the torso and hips, away from face, hands and feet."""
    inner = ndimage.binary_erosion(mask, iterations=3) & ~ndimage.binary_dilation(skin, iterations=2)
    ys, xs = np.nonzero(mask)
    if len(ys) == 0:
        return mask
    top, height, left, width = ys.min(), np.ptp(ys) + 1, xs.min(), np.ptp(xs) + 1
    box = np.zeros_like(mask)
    box[top + height // 4:top + 3 * height // 4, left + width // 5:left + 4 * width // 5] = True
    region = inner & box
    return region if region.sum() >= 64 else mask


def orientation_bins(gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """The orientation bin of each gradient ``(gx, gy)``: its direction folded into 0-180°, then the number of bin
    edges at or below it (modulo the bin count, so the last half-bin joins bin 0)."""
    flip = (gy < 0) | ((gy == 0) & (gx < 0))
    x, y = np.where(flip, -gx, gx)[:, None], np.where(flip, -gy, gy)[:, None]
    return (y * BIN_EDGE_COS[None] - x * BIN_EDGE_SIN[None] >= 0).sum(axis=1) % ORIENTATION_BINS


def hann(size: int) -> np.ndarray:
    """numpy's Hann window (``np.hanning``) with the cosine from fashionrq.ieee."""
    if size < 2:
        return np.ones(size)
    return 0.5 + 0.5 * cos_array(np.pi * np.arange(1 - size, size, 2) / (size - 1))


def _orientation_histogram(lightness: np.ndarray, region: np.ndarray) -> tuple[float, np.ndarray]:
    gx, gy = ndimage.sobel(lightness, axis=1), ndimage.sobel(lightness, axis=0)
    magnitude = np.sqrt(gx * gx + gy * gy)
    strong = region & (magnitude > EDGE)
    density = float(strong.sum() / max(region.sum(), 1))
    hist = np.bincount(orientation_bins(gx[strong], gy[strong]), weights=magnitude[strong], minlength=ORIENTATION_BINS)
    return density, hist / hist.sum() if hist.sum() > 0 else hist


def _periodicity(lightness: np.ndarray, region: np.ndarray) -> float:
    ys, xs = np.nonzero(region)
    if len(ys) == 0:
        return 0.0
    cy, cx = int(np.median(ys)), int(np.median(xs))
    half = PATCH // 2
    patch = lightness[max(cy - half, 0):cy + half, max(cx - half, 0):cx + half]
    if min(patch.shape) < 16:
        return 0.0
    window = np.outer(hann(patch.shape[0]), hann(patch.shape[1]))
    spectrum = np.fft.fftshift(np.fft.fft2((patch - patch.mean()) * window))
    power = spectrum.real * spectrum.real + spectrum.imag * spectrum.imag
    fy, fx = np.indices(power.shape)
    ac = power[(fy - power.shape[0] // 2) ** 2 + (fx - power.shape[1] // 2) ** 2 >= 9]  # 3 or more bins from DC
    return float(ac.max() / ac.sum()) if ac.sum() > 0 else 0.0


def _colour_entropy(lab: np.ndarray, region: np.ndarray) -> float:
    pixels = lab[region]
    if len(pixels) == 0:
        return 0.0
    cells = np.floor((pixels + [0, 128, 128]) / [20, 32, 32]).astype(int)
    _, counts = np.unique(cells, axis=0, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * log2_array(p)).sum())


def texture_features(lab: np.ndarray, region: np.ndarray) -> dict:
    """The texture statistics of ``region`` (see :func:`garment_region` and the module docstring): floats plus
    ``orientations``."""
    lightness = lab[..., 0]
    density, hist = _orientation_histogram(lightness, region)
    axis = int(np.argmax(hist)) if hist.sum() > 0 else 0
    return {
        "edge_density": round(density, 6),
        "axis_share": round(float(hist[axis]), 6),
        "cross_share": round(float(hist[(axis + ORIENTATION_BINS // 2) % ORIENTATION_BINS]), 6),
        "periodicity": round(_periodicity(lightness, region), 6),
        "colour_entropy": round(_colour_entropy(lab, region), 6),
        "orientations": [round(float(v), 6) for v in hist],
    }


def classify_pattern(features: dict) -> str:
    """``solid`` for few edges and few colours; ``checked`` for a dense grid of edges; ``striped`` for a
    periodic patch with one dominant orientation; ``printed`` otherwise."""
    if features["edge_density"] < SOLID_EDGES and features["colour_entropy"] < SOLID_ENTROPY:
        return "solid"
    if features["edge_density"] >= CHECKED_EDGES:
        return "checked"
    if features["periodicity"] >= PERIODIC and features["axis_share"] >= STRIPED_AXIS:
        return "striped"
    return "printed"
