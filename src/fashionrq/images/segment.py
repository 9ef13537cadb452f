"""Product/background separation for catalogue photos shot on a light, near-uniform backdrop.

The backdrop colour is the median CIELAB colour of the image border. Pixels within ``threshold`` ΔE76 of it
that are connected to the border are background; the largest remaining connected region, holes filled, is
the product. A white shirt on a white backdrop stays foreground as long as its outline separates it from
the border.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from fashionrq.colour import lab_distance

#: Width in pixels of the border strip that models the backdrop.
BORDER = 3
#: ΔE76 from the backdrop colour under which a border-connected pixel is background.
THRESHOLD = 10.0
#: A mask smaller than this share of the image is no product: the whole image is used instead.
MIN_FOREGROUND = 0.01


def border_pixels(image: np.ndarray, width: int = BORDER) -> np.ndarray:
    """The pixels of the ``width``-pixel strip around ``image`` (any channel count), as ``(n, c)``."""
    channels = image.reshape(image.shape[0], image.shape[1], -1)
    strips = (channels[:width], channels[-width:], channels[:, :width], channels[:, -width:])
    return np.concatenate([s.reshape(-1, channels.shape[2]) for s in strips])


def _touches_border(labels: np.ndarray) -> np.ndarray:
    edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    return np.isin(labels, edge[edge > 0])


def foreground_mask(lab: np.ndarray, threshold: float = THRESHOLD) -> np.ndarray:
    """Boolean ``(h, w)`` mask of the product in a CIELAB image ``(h, w, 3)``."""
    backdrop = np.median(border_pixels(lab), axis=0)
    near = lab_distance(lab, backdrop) < threshold
    labels, _ = ndimage.label(near)
    foreground = ~_touches_border(labels)
    parts, count = ndimage.label(foreground)
    if count == 0:
        return np.ones(lab.shape[:2], dtype=bool)
    sizes = ndimage.sum_labels(foreground, parts, index=np.arange(1, count + 1))
    mask = ndimage.binary_fill_holes(parts == 1 + int(np.argmax(sizes)))
    if mask.mean() < MIN_FOREGROUND:
        return np.ones(lab.shape[:2], dtype=bool)
    return mask
