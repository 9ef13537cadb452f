"""sRGB -> CIELAB (D65) and the CIE76 colour difference."""

from __future__ import annotations

import numpy as np

#: sRGB (linear) -> CIE XYZ, D65 white point (IEC 61966-2-1).
_RGB_TO_XYZ = np.array(
    [
        [0.4124564, 0.3575761, 0.1804375],
        [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
)
#: D65 reference white (Y = 1).
_WHITE_D65 = np.array([0.95047, 1.0, 1.08883])


def _linearise(c: np.ndarray) -> np.ndarray:
    """sRGB companding undone: channel values in [0, 1] to linear light."""
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


_LINEAR = _linearise(np.arange(256, dtype=np.float64) / 255.0)


def srgb_to_lab(rgb) -> np.ndarray:
    """CIELAB (L*, a*, b*) of sRGB colours given as 0-255 triples; accepts shape (3,) or (n, 3)."""
    rgb = np.asarray(rgb)
    if rgb.dtype == np.uint8:  # images: one table look-up per pixel instead of a power per channel
        linear = _LINEAR[rgb]
    else:
        linear = _linearise(rgb.astype(np.float64) / 255.0)
    xyz = linear @ _RGB_TO_XYZ.T / _WHITE_D65
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    fx, fy, fz = f[..., 0], f[..., 1], f[..., 2]
    return np.stack([116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)], axis=-1)


def delta_e76(rgb_a, rgb_b) -> float:
    """CIE76 ΔE: Euclidean distance between two sRGB colours in CIELAB."""
    return float(np.linalg.norm(srgb_to_lab(rgb_a) - srgb_to_lab(rgb_b)))
