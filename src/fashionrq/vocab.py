"""Curated fashion vocabularies shared by query generation, the φ(q) parser and relevance scoring.

Everything here is lower-case. Gender and age spellings come from :mod:`fashionrq.catalog.schema`
(``GENDER_SYNONYMS``, ``AGE_SCALE``), the named colours from :mod:`fashionrq.colour` (``COLOURS``) and the pattern,
material, occasion and style terms from :mod:`fashionrq.terms`, and are reused, not copied; the price tiers' names and bounds from
:mod:`fashionrq.catalog.tiers` (each catalog has its own bounds, in its own currency).
"""

from __future__ import annotations

import re
from functools import lru_cache

from fashionrq.catalog.schema import AGE_SCALE, GENDER_SYNONYMS, normalise_age_group, normalise_gender
from fashionrq.catalog.tiers import PRICE_TIERS
from fashionrq.colour import COLOURS
from fashionrq.terms import MATERIAL_TERMS, OCCASION_TERMS, PATTERN_TERMS, STYLE_TERMS

__all__ = [
    "AGE_SCALE", "COLOURS", "GENDER_SYNONYMS", "MATERIAL_TERMS", "NON_RESOLVABLE_COLOURS", "OCCASION_TERMS",
    "PATTERN_TERMS", "PRICE_TIERS", "STYLE_TERMS", "VALUELESS", "colour_rgb", "find_terms",
    "gender_group", "normalise_age_group", "normalise_colour", "normalise_price_hint",
]

#: Attribute values that name no value (a catalog's catch-all "Other" colour, fabric or pattern): no query asserts
#: one, and the comparators pass over them.
VALUELESS: frozenset[str] = frozenset({"other", "others"})

#: Colour names without one representative sRGB: the colour comparator falls back to text similarity.
NON_RESOLVABLE_COLOURS: frozenset[str] = frozenset(name for name, rgb in COLOURS.items() if rgb is None)

_PRICE_HINT_SYNONYMS = {
    "budget": "budget", "cheap": "budget", "affordable": "budget", "inexpensive": "budget", "low-cost": "budget",
    "low cost": "budget", "economy": "budget", "value": "budget",
    "mid-range": "mid-range", "mid range": "mid-range", "midrange": "mid-range", "mid": "mid-range",
    "moderate": "mid-range", "mid-priced": "mid-range", "mid priced": "mid-range",
    "premium": "premium", "luxury": "premium", "expensive": "premium", "high-end": "premium", "high end": "premium",
    "designer": "premium",
}

_GENDER_GROUP = {"Men": "male", "Boys": "male", "Women": "female", "Girls": "female", "Unisex": "unisex"}


def normalise_colour(name: str) -> str:
    """Lower-case a colour name, turn hyphens/underscores into spaces and squeeze whitespace."""
    return " ".join(re.sub(r"[-_]", " ", name.lower()).split())


def colour_rgb(name: str) -> tuple[int, int, int] | None:
    """The representative sRGB of a colour name, or ``None`` when unknown or non-resolvable (e.g. ``Multi``)."""
    return COLOURS.get(normalise_colour(name))


def gender_group(value: str | None) -> str | None:
    """Normalise a gender spelling to ``male``/``female``/``unisex`` (``boys`` -> male); other text is lower-cased."""
    canonical = normalise_gender(value)
    if canonical is None:
        return None
    return _GENDER_GROUP.get(canonical, canonical.lower())


def normalise_price_hint(value: str) -> str | None:
    """Map a price hint spelling (``cheap``, ``mid range``, ``luxury`` ...) to a tier; ``None`` if unrecognised."""
    return _PRICE_HINT_SYNONYMS.get(" ".join(value.lower().split()))


@lru_cache(maxsize=None)
def _term_pattern(terms: tuple[str, ...]) -> re.Pattern:
    ordered = sorted({t.lower() for t in terms}, key=lambda t: (-len(t), t))
    alternatives = "|".join(re.escape(t).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]?") for t in ordered)
    return re.compile(rf"(?<![a-z0-9])({alternatives})(?:e?s)?(?![a-z0-9])")  # applied to lower-cased text


@lru_cache(maxsize=None)
def _canonical(terms: tuple[str, ...]) -> dict[str, str]:
    """Spelling with spaces and hyphens removed -> the vocabulary term (first one wins)."""
    out: dict[str, str] = {}
    for term in terms:
        out.setdefault(re.sub(r"[\s-]+", "", term.lower()), term)
    return out


def find_terms(text: str | None, terms: tuple[str, ...]) -> list[str]:
    """Vocabulary ``terms`` found in ``text`` as whole words (plural ``s``/``es`` allowed), in first-seen order.

    Spaces and hyphens are interchangeable and a hyphen may be left out ("v neck", "vneck" -> "v-neck").
    Longer terms win over their prefixes at the same position ("floral print" before "floral"). The returned
    strings are the vocabulary spellings.
    """
    if not text:
        return []
    canonical = _canonical(terms)
    found: list[str] = []
    for match in _term_pattern(terms).finditer(text.lower()):
        term = canonical[re.sub(r"[\s-]+", "", match.group(1))]
        if term not in found:
            found.append(term)
    return found
