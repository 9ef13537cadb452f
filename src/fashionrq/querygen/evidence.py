"""What a cluster's items support: per φ attribute, the share of items holding a set of values.

Faithfulness rule (docs/querygen.md): a query may assert attribute ``a`` with value set ``V`` only when at
least :data:`MIN_SUPPORT` of the cluster's items hold a value in ``V`` (missing values count against it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

import fashionrq.querygen.surface as surface
from fashionrq.catalog.language import names_in_english
from fashionrq.catalog.tiers import price_tiers_of
from fashionrq.hierarchy import Cluster, attribute_frame
from fashionrq.vocab import VALUELESS

MIN_SUPPORT = 0.9
#: A query tells its cluster apart from a sibling leaf when its conditions hold for at most this share of the
#: sibling's items (docs/querygen.md, "Telling siblings apart"; the tasks check the same on their candidates).
MAX_SIBLING_SHARE = 0.1
SUBTYPE_SHARE = 0.05
PRODUCT_AXES = ("article_type", "sub_category", "master_category")  # finest first

#: φ key -> the catalog attribute columns (of ``fashionrq.hierarchy.attribute_frame``) an item's values come from.
PHI_SOURCES: dict[str, tuple[str, ...]] = {
    "product_type": PRODUCT_AXES,
    "gender": ("gender",),
    "age_group": ("age_group",),
    "color": ("base_colour",),
    "pattern": ("Pattern",),
    "material": ("Fabric",),
    "occasion": ("usage", "Occasion"),
    "brand": ("brand",),
    "price_hint": ("price_tier",),
    "style_tags": ("Fit", "Sleeve Length", "Neck"),
}
#: φ keys a catalog with one value of them in every item that has one never asserts: that value tells no item
#: apart, and no shopper of a one-brand store names its brand.
ONE_VALUE_SAYS_NOTHING = ("brand",)
#: Catalog attribute -> φ key (for reading signatures and contrasts).
ATTRIBUTE_TO_PHI = {attr: key for key, attrs in PHI_SOURCES.items() for attr in attrs}

#: Myntra ``Occasion`` article-attribute spellings folded into the ``usage`` vocabulary; ``Western`` is a
#: style, not an occasion, and is dropped.
OCCASION_CANON = {"Everyday": "Casual", "Daily": "Casual", "General": "Casual", "Work": "Formal",
                  "Semiformal": "Smart Casual", "Western": None}


def _canonical_occasion(value: object) -> object:
    if value is None or (isinstance(value, float) and value != value):
        return None
    return OCCASION_CANON.get(value, value)


def _asserted(value: object) -> object:
    """``value``, or None for one that names no value (:data:`fashionrq.vocab.VALUELESS`: "Other")."""
    return None if isinstance(value, str) and value.strip().lower() in VALUELESS else value


class CatalogValues:
    """Every item's φ-attribute values as integer codes (built once per items table, sliced per cluster), and the
    catalog's price tiers (``price_hint`` values are tiers under its own bounds)."""

    def __init__(self, items: pd.DataFrame) -> None:
        self.price_tiers = price_tiers_of(items)
        self.english_names = names_in_english(items)
        frame = attribute_frame(items.reset_index(drop=True))
        self.n = len(frame)
        self.codes: dict[str, np.ndarray] = {}  # φ key -> (N, k) int32 codes, -1 when missing
        self.vocab: dict[str, list[str]] = {}
        for key, attrs in PHI_SOURCES.items():
            cols = []
            for attr in attrs:
                col = frame[attr].astype(object).to_numpy()
                if attr == "Occasion":
                    col = np.array([_canonical_occasion(v) for v in col], dtype=object)
                if key != "product_type":
                    col = np.array([_asserted(v) for v in col], dtype=object)
                cols.append(pd.Series(col, dtype=object).where(pd.notna(col), None))
            stacked = pd.concat(cols, ignore_index=True)
            codes, uniques = pd.factorize(stacked, sort=True, use_na_sentinel=True)
            if key in ONE_VALUE_SAYS_NOTHING and len(uniques) == 1:
                codes[:] = -1  # a retailer's own catalog (every item by Zara): no query names the brand
            self.codes[key] = codes.reshape(len(attrs), self.n).T.astype(np.int32)
            self.vocab[key] = [str(u) for u in uniques]
        self.index = {key: {v: i for i, v in enumerate(vocab)} for key, vocab in self.vocab.items()}
        article_codes = np.unique(self.codes["product_type"][:, 0])
        self.article_types = tuple(self.vocab["product_type"][c] for c in article_codes if c >= 0)
        self.article_spellings = frozenset(form for value in self.article_types for form in self.type_forms(value))

    def type_forms(self, value: str) -> tuple[str, ...]:
        """Spellings of a product-type value (:func:`fashionrq.querygen.surface.type_forms`), as the catalog's
        language has them."""
        return surface.type_forms(value, self.english_names)

    def evidence(self, rows) -> Evidence:
        """The evidence of the items at ``rows``."""
        rows = np.asarray(list(rows), dtype=np.int64)
        return Evidence(self, {key: codes[rows] for key, codes in self.codes.items()})


@dataclass
class Evidence:
    """Per-item attribute values of one cluster's products, for support queries."""

    catalog: CatalogValues = field(repr=False)
    codes: dict[str, np.ndarray] = field(repr=False)  # φ key -> (n, k) codes into catalog.vocab[key]
    _masks: dict = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return len(next(iter(self.codes.values())))

    def values(self, key: str) -> list[str]:
        """Distinct values of φ key ``key`` among the items, sorted."""
        present = np.unique(self.codes[key])
        return [self.catalog.vocab[key][c] for c in present if c >= 0]

    def mask(self, key: str, asserted) -> np.ndarray:
        """Items holding at least one of the ``asserted`` values for φ key ``key`` (read-only array)."""
        cache_key = (key, frozenset(asserted))
        if cache_key not in self._masks:
            index = self.catalog.index[key]
            wanted = [index[v] for v in cache_key[1] if v in index]
            self._masks[cache_key] = np.isin(self.codes[key], wanted).any(axis=1) if wanted else np.zeros(self.n, dtype=bool)
        return self._masks[cache_key]

    def support(self, key: str, asserted) -> float:
        """Share of items holding one of ``asserted`` (0 for an empty cluster)."""
        return float(self.mask(key, asserted).mean()) if self.n else 0.0

    def clause_support(self, expressed: dict[str, list[str]]) -> dict[str, float]:
        """Support of every asserted attribute; ``style_tags`` values are each asserted, so the minimum counts."""
        out = {}
        for key, asserted in expressed.items():
            if key == "style_tags":
                out[key] = min(self.support(key, [v]) for v in asserted)
            else:
                out[key] = self.support(key, asserted)
        return out

    def shares(self, key: str, column: int = 0) -> list[tuple[str, float]]:
        """(value, share) of one source column of a φ key, sorted by share desc then value."""
        col = self.codes[key][:, column]
        col = col[col >= 0]
        if not self.n or not len(col):
            return []
        counts = np.bincount(col)
        vocab = self.catalog.vocab[key]
        pairs = [(vocab[c], counts[c] / self.n) for c in np.flatnonzero(counts)]
        return sorted(pairs, key=lambda t: (-t[1], t[0]))

    def axis_shares(self, axis: str) -> list[tuple[str, float]]:
        """(value, share) of a product-type axis (``article_type``, ``sub_category``, ``master_category``)."""
        return self.shares("product_type", PRODUCT_AXES.index(axis))


@dataclass
class Siblings:
    """The items of a cluster's sibling leaves as one :class:`Evidence`, with each row's sibling index."""

    evidence: Evidence
    group: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, catalog: CatalogValues, leaves) -> Siblings | None:
        """``leaves``: the item rows of each sibling leaf (``None`` when there are none)."""
        leaves = [np.asarray(rows, dtype=np.int64) for rows in leaves if len(rows)]
        if not leaves:
            return None
        sizes = np.array([len(rows) for rows in leaves])
        return cls(catalog.evidence(np.concatenate(leaves)), np.repeat(np.arange(len(leaves)), sizes), sizes)

    def matched(self, mask: np.ndarray) -> np.ndarray:
        """Per sibling: whether more than :data:`MAX_SIBLING_SHARE` of its items are in ``mask``."""
        return np.bincount(self.group, weights=mask, minlength=len(self.sizes)) > MAX_SIBLING_SHARE * self.sizes


def subtype_axis(cluster: Cluster) -> str:
    """The axis whose values are the cluster's sub-types: the next finer product-type axis below the
    cluster's primary axis, and ``article_type`` when the primary axis already is the finest."""
    primary = cluster.primary_axis if cluster.primary_axis in PRODUCT_AXES else "master_category"
    index = PRODUCT_AXES.index(primary)
    return PRODUCT_AXES[max(index - 1, 0)]


def required_subtypes(cluster: Cluster, evidence: Evidence) -> list[tuple[str, float]]:
    """Sub-types holding >= 5 % of the cluster, largest first: each needs a query of its own."""
    return [(v, s) for v, s in evidence.axis_shares(subtype_axis(cluster)) if s >= SUBTYPE_SHARE - 1e-12]
