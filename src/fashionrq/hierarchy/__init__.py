"""Hierarchy stage: SID prefixes -> cluster records with purity, signatures and parent/sibling context."""

from fashionrq.hierarchy.attributes import (
    ARTICLE_ATTRIBUTES,
    CATALOG_ATTRIBUTES,
    DISTRIBUTION_ATTRIBUTES,
    SIGNATURE_ATTRIBUTES,
    attribute_frame,
)
from fashionrq.hierarchy.build import Hierarchy, build_hierarchy, prefix_string
from fashionrq.hierarchy.records import Cluster, Contrast, Signature
from fashionrq.hierarchy.signatures import COVERAGE, DISCRIMINATING, SignatureRule

__all__ = [
    "ARTICLE_ATTRIBUTES", "CATALOG_ATTRIBUTES", "COVERAGE", "DISCRIMINATING", "DISTRIBUTION_ATTRIBUTES",
    "SIGNATURE_ATTRIBUTES", "Cluster", "Contrast", "Hierarchy", "Signature", "SignatureRule",
    "attribute_frame", "build_hierarchy", "prefix_string",
]
