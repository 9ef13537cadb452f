"""Cluster records: the typed output of the hierarchy stage, read by querygen and tasks.

Note for the querygen contributor: every SID prefix at levels 1-3 becomes one frozen ``Cluster``.
``item_rows`` are row indices into the items table the hierarchy was built from (so
``items.iloc[list(cluster.item_rows)]`` gives the cluster's products). ``primary_axis`` /
``primary_value`` name the product type the cluster is about (e.g. ``"article_type"``, ``"Tshirts"``).
``distributions`` maps an attribute name to ``(value, share)`` pairs sorted by share descending; the
attributes are ``master_category, sub_category, article_type, brand, base_colour, gender, usage,
season, age_group, price_tier`` (``budget`` < low <= ``mid-range`` <= high < ``premium``, the catalog's own
bounds from ``fashionrq.catalog.tiers``) plus the article attributes ``Fabric, Pattern, Occasion, Fit,
Sleeve Length, Neck`` taken from the items' ``attributes`` map. A ``Signature`` is a conjunction of
1-3 ``(attribute, value)`` pairs (attributes as above plus ``name_term`` for frequent
productDisplayName tokens) with its coverage of the cluster and precision over the catalog;
``discriminating`` holds those with coverage >= 10 % and precision >= 90 % (best first, at most 8),
``coverage_signatures`` those with coverage >= 5 % and precision >= 50 % (at most 20).
``parent_contrast`` / ``sibling_contrast`` list the attribute values whose share in the cluster differs
most from the parent cluster / the union of the sibling clusters (``lift = cluster_share -
reference_share``, sorted by ``|lift|`` descending). Only ``qualified`` clusters (article-type purity
>= 0.80 and size >= 2 by default) are used as anchors; leaves are level 3.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Signature:
    """A conjunction of attribute values that describes a cluster."""

    attributes: tuple[tuple[str, str], ...]  # e.g. (("article_type", "Tshirts"), ("gender", "Men"))
    coverage: float  # share of cluster items matching
    precision: float  # share of catalog items matching that are in the cluster
    support: int  # number of cluster items matching


@dataclass(frozen=True)
class Contrast:
    """How much more (or less) common one attribute value is in a cluster than in a reference set."""

    attribute: str
    value: str
    cluster_share: float
    reference_share: float
    lift: float  # cluster_share - reference_share


@dataclass(frozen=True)
class Cluster:
    """One SID prefix and everything the later stages need to know about it."""

    cluster_id: str  # prefix "12-5-33"
    level: int
    size: int
    item_rows: tuple[int, ...]  # row indices into the items table
    purity: float  # article_type purity
    qualified: bool
    parent: str | None
    children: tuple[str, ...]
    primary_axis: str  # attribute name
    primary_value: str
    distributions: dict[str, tuple[tuple[str, float], ...]] = field(hash=False)
    discriminating: tuple[Signature, ...] = ()
    coverage_signatures: tuple[Signature, ...] = ()
    parent_contrast: tuple[Contrast, ...] = ()
    sibling_contrast: tuple[Contrast, ...] = ()
