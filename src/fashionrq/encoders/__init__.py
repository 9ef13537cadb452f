"""Text (and image) encoders behind one registry, the item-text template and the on-disk embedding cache."""

from fashionrq.encoders.base import Encoder, l2_normalise
from fashionrq.encoders.cache import (
    cache_path, clear_memory_cache, embed_items, embed_texts, item_texts, texts_hash,
)
from fashionrq.encoders.registry import DEFAULT_ENCODER, encoder_model, encoder_names, get_encoder
from fashionrq.encoders.text import KEY_ATTRIBUTES, item_text

__all__ = [
    "DEFAULT_ENCODER", "KEY_ATTRIBUTES", "Encoder", "cache_path", "clear_memory_cache", "embed_items", "embed_texts",
    "encoder_model", "encoder_names", "get_encoder", "item_text", "item_texts", "l2_normalise", "texts_hash",
]
