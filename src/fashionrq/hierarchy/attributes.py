"""The attribute columns the hierarchy describes clusters with, derived from the items table."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa

from fashionrq.catalog.language import language_attrs
from fashionrq.catalog.tiers import FRAME_KEY, price_tiers_of

CATALOG_ATTRIBUTES = (
    "master_category", "sub_category", "article_type", "brand", "base_colour",
    "gender", "usage", "season", "age_group", "price_tier",
)
ARTICLE_ATTRIBUTES = ("Fabric", "Pattern", "Occasion", "Fit", "Sleeve Length", "Neck")
DISTRIBUTION_ATTRIBUTES = CATALOG_ATTRIBUTES + ARTICLE_ATTRIBUTES
# Attributes combined into signatures (§8.0.2), plus frequent product-name terms.
SIGNATURE_ATTRIBUTES = (
    "master_category", "sub_category", "article_type", "brand", "base_colour", "gender", "usage", "price_tier",
)
NAME_TERM = "name_term"
PRODUCT_AXES = ("article_type", "sub_category", "master_category")  # most specific first

_TOKEN = re.compile(r"[a-z][a-z'-]+")
_STOP_TERMS = frozenset({"and", "with", "for", "the", "of", "in", "set", "pack", "men", "women", "boys", "girls", "unisex", "kids", "men's", "women's"})


def items_frame(items: pa.Table | pd.DataFrame) -> pd.DataFrame:
    """The items table as a pandas frame with a fresh 0..N-1 index, carrying the catalog's price tiers
    (:func:`fashionrq.catalog.tiers.price_tiers_of`) and, for names in another language, that record
    (:mod:`fashionrq.catalog.language`) in its ``attrs``."""
    frame = (items.to_pandas() if isinstance(items, pa.Table) else items).reset_index(drop=True)
    frame.attrs[FRAME_KEY] = price_tiers_of(items).to_dict()
    frame.attrs.update(language_attrs(items))
    return frame


def attribute_frame(items: pd.DataFrame) -> pd.DataFrame:
    """One object column per distribution attribute (missing values are None), row-aligned with ``items``;
    ``price_tier`` under the catalog's own bounds (:func:`fashionrq.catalog.tiers.price_tiers_of`)."""
    columns: dict[str, np.ndarray] = {}
    for name in CATALOG_ATTRIBUTES:
        if name == "price_tier":
            columns[name] = price_tiers_of(items).tiers(items["price"].to_numpy(dtype=float, na_value=np.nan))
        else:
            values = items[name].to_numpy(dtype=object)
            columns[name] = np.where(pd.isna(values), None, values)
    maps = [dict(pairs) if pairs is not None else {} for pairs in items["attributes"]]
    for name in ARTICLE_ATTRIBUTES:
        columns[name] = np.array([m.get(name) for m in maps], dtype=object)
    block = np.empty((len(items), len(columns)), dtype=object)
    for j, values in enumerate(columns.values()):
        block[:, j] = values
    return pd.DataFrame(block, index=items.index, columns=list(columns), dtype=object)


def name_terms(names: pd.Series, min_count: int = 20) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Frequent product-name tokens: (item row, term code) pairs and the term vocabulary.

    A token is a lower-cased word of >= 3 letters that is not a stop word and occurs in at least ``min_count``
    items; each item contributes each of its tokens once.
    """
    rows: list[int] = []
    tokens: list[str] = []
    for row, name in enumerate(names.fillna("")):
        for token in sorted(set(_TOKEN.findall(name.lower()))):
            if len(token) >= 3 and token not in _STOP_TERMS:
                rows.append(row)
                tokens.append(token)
    codes, vocab = pd.factorize(pd.Series(tokens, dtype=object), sort=True)
    counts = np.bincount(codes, minlength=len(vocab))
    keep_term = counts >= min_count
    keep = keep_term[codes] if len(codes) else np.zeros(0, dtype=bool)
    remap = np.cumsum(keep_term) - 1
    return np.asarray(rows, dtype=np.int64)[keep], remap[codes[keep]], [str(t) for t in np.asarray(vocab)[keep_term]]
