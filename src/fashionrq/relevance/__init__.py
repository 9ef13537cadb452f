"""Weighted query relevance R(q, p), per-attribute comparators m_a(q, p), AttrScore and weight estimation."""

from fashionrq.colour import delta_e76, srgb_to_lab
from fashionrq.relevance.comparators import NEUTRAL
from fashionrq.relevance.matcher import (
    ATTRIBUTES, AttributeMatcher, check_weights, default_weights, expressed, load_weights,
)
from fashionrq.relevance.similarity import TextSimilarity

__all__ = [
    "ATTRIBUTES", "NEUTRAL", "AttributeMatcher", "TextSimilarity", "check_weights", "default_weights", "delta_e76",
    "expressed", "load_weights", "srgb_to_lab",
]
