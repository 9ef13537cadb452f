"""The typed record of one image's derived attributes."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class ImageAttributes:
    """What the pixels of one product photo say about it.

    ``colours`` are ``(name, share, (L, a, b))`` by decreasing share of the product's (weighted) pixels;
    ``colour`` is the first name. ``texture`` and ``shape`` hold the features behind ``pattern`` and the
    descriptor; ``descriptor`` is the L2-normalised image-side representation.
    """

    item_id: str
    colours: tuple[tuple[str, float, tuple[float, float, float]], ...]
    pattern: str
    texture: dict
    shape: dict
    foreground: float
    descriptor: np.ndarray

    @property
    def colour(self) -> str | None:
        return self.colours[0][0] if self.colours else None

    def to_dict(self) -> dict:
        out = asdict(self)
        out["colours"] = [{"name": n, "share": s, "lab": list(lab)} for n, s, lab in self.colours]
        out["descriptor"] = [float(v) for v in self.descriptor]
        return out
