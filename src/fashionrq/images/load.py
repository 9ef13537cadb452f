"""Read a product photo into an sRGB ``uint8`` array, downscaled so its longer side is at most ``max_side``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fashionrq.errors import InputError


def load_rgb(path: str | Path, max_side: int = 300) -> np.ndarray:
    """``(h, w, 3)`` uint8 sRGB pixels of the image at ``path``; larger images are shrunk (box filter) to ``max_side``."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            image = image.convert("RGB")
            scale = max_side / max(image.size)
            if scale < 1:
                size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
                image = image.resize(size, Image.Resampling.BOX)
            return np.asarray(image, dtype=np.uint8)
    except (OSError, UnidentifiedImageError) as err:
        raise InputError(f"image {path} cannot be read ({type(err).__name__}): replace or remove the file.") from None
