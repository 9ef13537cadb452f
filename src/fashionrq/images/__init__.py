"""Weight-free image-derived attributes (MCMR §3 without a VLM): colours, pattern, shape and an image descriptor."""

from fashionrq.images.colours import COLOUR_FAMILIES, ColourVocabulary, colour_family
from fashionrq.images.extract import extract_image
from fashionrq.images.records import ImageAttributes

__all__ = ["COLOUR_FAMILIES", "ColourVocabulary", "ImageAttributes", "colour_family", "extract_image"]
