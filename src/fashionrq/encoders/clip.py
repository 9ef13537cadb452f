"""``open_clip:<model id>``: text and image embeddings from an open_clip model (e.g. Marqo-FashionSigLIP).

open_clip is imported lazily. The model, tokenizer and image preprocess come from one factory
(:func:`load_open_clip` by default), so the adapter's batching, normalisation and image loading can be
exercised with any model that has ``encode_text(tokens)`` and ``encode_image(pixels)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path

import numpy as np

from fashionrq.encoders.base import Encoder, l2_normalise
from fashionrq.errors import FashionRQError
from fashionrq.progress import track

#: factory(model_id) -> (model, tokenizer, preprocess)
Factory = Callable[[str], tuple]


def load_open_clip(model_id: str) -> tuple:
    """``(model, tokenizer, preprocess)`` for an open_clip model id such as ``hf-hub:Marqo/marqo-fashionSigLIP``."""
    try:
        import open_clip
    except ImportError:
        raise FashionRQError(
            f"encoder 'open_clip:{model_id}' needs open_clip: pip install open-clip-torch (it also installs torchvision)."
        ) from None
    try:
        model, _, preprocess = open_clip.create_model_and_transforms(model_id, device="cpu")
        tokenizer = open_clip.get_tokenizer(model_id)
    except (OSError, RuntimeError, ValueError) as err:
        raise FashionRQError(
            f"open_clip model '{model_id}' could not be loaded ({type(err).__name__}): check the id and that its "
            "weights are downloadable (network) or already in the Hugging Face cache."
        ) from None
    return model, tokenizer, preprocess


def open_clip_version() -> str:
    try:
        import open_clip
    except ImportError:
        return "missing"
    return getattr(open_clip, "__version__", "unknown")


class OpenClipEncoder(Encoder):
    """Texts through ``model.encode_text``, images through ``preprocess`` + ``model.encode_image``; both normalised."""

    kind = "dense"

    def __init__(self, model_id: str, factory: Factory = load_open_clip, batch_size: int = 32) -> None:
        super().__init__()
        self.model_id = model_id
        self.name = f"open_clip:{model_id}"
        self.factory = factory
        self.batch_size = batch_size
        self._dim: int | None = None

    @property
    def identity(self) -> str:
        source = "open_clip=" + open_clip_version() if self.factory is load_open_clip else f"factory={self.factory.__qualname__}"
        return f"open_clip|{self.model_id}|{source}"

    @cached_property
    def parts(self) -> tuple:
        import torch

        torch.manual_seed(0)
        model, tokenizer, preprocess = self.factory(self.model_id)
        return model.eval(), tokenizer, preprocess

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.encode_queries(["a"]).shape[1])
        return self._dim

    def _encode_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        import torch

        model, tokenizer, _ = self.parts
        with torch.inference_mode():
            return model.encode_text(tokenizer(texts)).float().numpy()

    def encode_images(self, paths: Sequence[str | Path]) -> np.ndarray:
        """L2-normalised image embeddings, one row per path, in order."""
        import torch
        from PIL import Image, UnidentifiedImageError

        model, _, preprocess = self.parts
        paths = [Path(p) for p in paths]
        starts = range(0, len(paths), self.batch_size)
        if len(starts) >= 4:
            starts = track(starts, f"{self.name}: encoding {len(paths):,} images", total=len(starts))
        parts = []
        for start in starts:
            pixels = []
            for path in paths[start:start + self.batch_size]:
                try:
                    with Image.open(path) as image:
                        pixels.append(preprocess(image.convert("RGB")))
                except (OSError, UnidentifiedImageError) as err:
                    raise FashionRQError(f"image {path} cannot be read ({type(err).__name__}): fix or remove it.") from None
            with torch.inference_mode():
                parts.append(model.encode_image(torch.stack(pixels)).float().numpy())
        if not parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return l2_normalise(np.concatenate(parts))
