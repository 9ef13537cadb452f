"""Derive :class:`ImageAttributes` from one product photo: load, segment, colours, pattern, shape, descriptor."""

from __future__ import annotations

from pathlib import Path

from fashionrq.images.colours import ColourVocabulary, dominant_colours, pixel_weights, skin_tone
from fashionrq.images.descriptor import colour_histogram, image_descriptor
from fashionrq.images.load import load_rgb
from fashionrq.images.pattern import classify_pattern, garment_region, texture_features
from fashionrq.images.records import ImageAttributes
from fashionrq.images.segment import foreground_mask
from fashionrq.images.shape import shape_features
from fashionrq.colour import srgb_to_lab

#: Longer side, in pixels, images are analysed at (the bundled photos are 225 x 300, so 150 x 200).
MAX_SIDE = 200


def extract_image(path: str | Path, item_id: str, vocabulary: ColourVocabulary, seed: int = 0,
                  max_side: int = MAX_SIDE) -> ImageAttributes:
    """The derived attributes of the photo at ``path`` (deterministic for a given ``seed``)."""
    rgb = load_rgb(path, max_side=max_side)
    lab = srgb_to_lab(rgb)
    mask = foreground_mask(lab)
    weights = pixel_weights(rgb, mask)
    texture = texture_features(lab, garment_region(mask, skin_tone(rgb)))
    shape = shape_features(mask)
    return ImageAttributes(
        item_id=item_id,
        colours=tuple(dominant_colours(lab, weights, vocabulary, seed=seed)),
        pattern=classify_pattern(texture),
        texture=texture,
        shape=shape,
        foreground=round(float(mask.mean()), 6),
        descriptor=image_descriptor(colour_histogram(lab, weights), texture, shape),
    )
