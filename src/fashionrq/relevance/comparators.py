"""The per-attribute comparators m_a(q, p) of the Fashion-RQ spec (§8.0.4).

Each comparator takes the query's value list and the product's prepared value(s) and returns a score in
[0, 1], or ``None`` when the product has no value to compare (the caller turns that into the neutral 0.5).
Soft-text comparators take a :class:`~fashionrq.relevance.similarity.TextSimilarity`; cosine values below 0
are clipped to 0 so every score stays in [0, 1].
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from fashionrq.errors import InputError
from fashionrq.colour import lab_distance, srgb_to_lab
from fashionrq.relevance.similarity import TextSimilarity
from fashionrq.vocab import (
    AGE_SCALE, colour_rgb, gender_group, normalise_age_group, normalise_colour, normalise_price_hint,
)

#: The neutral score for a product that lacks the attribute.
NEUTRAL = 0.5
#: Product-type substring floor.
PRODUCT_TYPE_FLOOR = 0.85
#: Gender scores: exact, unisex against a gender, any other mismatch.
GENDER_EXACT, GENDER_UNISEX, GENDER_MISMATCH = 1.0, 0.7, 0.1
#: Age: score decay per ordinal step, and the score of a value off the scale.
AGE_STEP, AGE_OFF_SCALE = 0.35, 0.3
#: Colour: ΔE at which the score reaches 0.
COLOUR_DELTA_E_ZERO = 120.0
#: Price tier mismatch score.
PRICE_MISMATCH = 0.3


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def product_type_score(query: Sequence[str], levels: Sequence[str], sim: TextSimilarity) -> float | None:
    """Hierarchical match against the category path ``levels`` (master, sub, article type; nulls left out).

    A query string found in the lower-cased path "master > sub > article" scores at least 0.85 (raised by
    sim against the leaf); otherwise the best sim over each level and the full path.
    """
    if not levels:
        return None
    path = " > ".join(levels)
    lowered = path.lower()
    best = 0.0
    for value in query:
        needle = value.strip().lower()
        if needle and needle in lowered:
            best = max(best, PRODUCT_TYPE_FLOOR, sim.sim(value, levels[-1]))
        else:
            best = max(best, sim.max_sim((value,), (*levels, path)))
    return _clip(best)


def gender_score(query: Sequence[str], product: str | None) -> float | None:
    """1.0 for the same gender after synonym normalisation, 0.7 when either side is unisex, else 0.1."""
    target = gender_group(product)
    if target is None:
        return None
    best = 0.0
    for value in query:
        wanted = gender_group(value)
        if wanted == target:
            score = GENDER_EXACT
        elif "unisex" in (wanted, target):
            score = GENDER_UNISEX
        else:
            score = GENDER_MISMATCH
        best = max(best, score)
    return best


def age_score(query: Sequence[str], product: str | None) -> float | None:
    """Ordinal decay max(0, 1 - 0.35 |Δidx|) on baby < toddler < kids < adult; 0.3 for a value off the scale."""
    target = normalise_age_group(product)
    if target is None:
        return None
    best = 0.0
    for value in query:
        wanted = normalise_age_group(value)
        if wanted == target:
            score = 1.0
        elif wanted in AGE_SCALE and target in AGE_SCALE:
            score = max(0.0, 1.0 - AGE_STEP * abs(AGE_SCALE.index(wanted) - AGE_SCALE.index(target)))
        else:
            score = AGE_OFF_SCALE
        best = max(best, score)
    return best


@lru_cache(maxsize=None)
def colour_lab(name: str) -> np.ndarray | None:
    """CIELAB of a named colour, or ``None`` when the name has no single sRGB value."""
    rgb = colour_rgb(name)
    return None if rgb is None else srgb_to_lab(rgb)


@lru_cache(maxsize=1 << 16)  # a verifier or AttrScore compares the same few colour names in every (query, item) pair
def colour_pair_named(query: str, product: str) -> float | None:
    """One query colour against one product colour by name alone: identical 1.0, CIE76 when both resolve, else
    ``None`` (only a text similarity could compare them)."""
    if normalise_colour(query) == normalise_colour(product):
        return 1.0
    a, b = colour_lab(query), colour_lab(product)
    if a is not None and b is not None:
        return max(0.0, 1.0 - float(lab_distance(a, b)) / COLOUR_DELTA_E_ZERO)
    return None


def colour_pair_score(query: str, product: str, sim: TextSimilarity) -> float:
    """One query colour against one product colour: :func:`colour_pair_named`, else sim."""
    named = colour_pair_named(query, product)
    return _clip(sim.sim(query, product)) if named is None else named


def colour_score(
    query: Sequence[str], colours: Sequence[str], description: str | None, sim: TextSimilarity
) -> float | None:
    """Best colour match over query x product colours; without product colours, sim against the description."""
    if colours:
        return max(colour_pair_score(q, p, sim) for q in query for p in colours)
    if description:
        return _clip(sim.max_sim(tuple(query), (description,)))
    return None


def soft_score(
    query: Sequence[str], values: Sequence[str], fallback_text: str | None, sim: TextSimilarity
) -> float | None:
    """Material/occasion/pattern/style: max sim over query x product values, else sim against ``fallback_text``."""
    if values:
        return _clip(sim.max_sim(tuple(query), tuple(values)))
    if fallback_text:
        return _clip(sim.max_sim(tuple(query), (fallback_text,)))
    return None


def brand_score(query: Sequence[str], product: str | None) -> float | None:
    """1.0 when a query brand and the product brand contain one another as whole words, in any case (``Manchester``
    and ``Manchester United FC``), else 0.0: the spec's "either string contains the other" read word by word, so a
    brand named ``W`` or ``ID`` is not found inside ``Wrangler`` or ``ADIDAS``."""
    if not product:
        return None
    target = " ".join(product.lower().split())
    for value in query:
        wanted = " ".join(value.lower().split())
        if wanted and (_holds_words(target, wanted) or _holds_words(wanted, target)):
            return 1.0
    return 0.0


def _holds_words(text: str, part: str) -> bool:
    """Whether ``part`` stands in ``text`` as whole words (no letter or digit right before or after it)."""
    return re.search(rf"(?<!\w){re.escape(part)}(?!\w)", text) is not None


def price_score(query: Sequence[str], tier: str | None) -> float | None:
    """1.0 when the query's price hint names the product's price tier, else 0.3."""
    if tier is None:
        return None
    for value in query:
        wanted = normalise_price_hint(value)
        if wanted is None:
            raise InputError(
                f"phi price_hint '{value}' is not a price tier: use budget, mid-range or premium."
            )
        if wanted == tier:
            return 1.0
    return PRICE_MISMATCH
