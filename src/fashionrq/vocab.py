"""Curated fashion vocabularies shared by query generation, the φ(q) parser and relevance scoring.

Everything here is lower-case. Gender and age spellings come from :mod:`fashionrq.catalog.schema`
(``GENDER_SYNONYMS``, ``AGE_SCALE``) and are reused, not copied; the price tiers' names and bounds from
:mod:`fashionrq.catalog.tiers` (each catalog has its own bounds, in its own currency).
"""

from __future__ import annotations

import re
from functools import lru_cache

from fashionrq.catalog.schema import AGE_SCALE, GENDER_SYNONYMS, normalise_age_group, normalise_gender
from fashionrq.catalog.tiers import PRICE_TIERS

__all__ = [
    "AGE_SCALE", "COLOURS", "GENDER_SYNONYMS", "MATERIAL_TERMS", "NON_RESOLVABLE_COLOURS", "OCCASION_TERMS",
    "PATTERN_TERMS", "PRICE_TIERS", "STYLE_TERMS", "colour_rgb", "find_terms",
    "gender_group", "normalise_age_group", "normalise_colour", "normalise_price_hint",
]

#: ~90 named colours -> a representative sRGB triple (0-255). Covers every Myntra ``baseColour`` value
#: plus common query spellings. ``None`` marks names with no single colour (see :data:`NON_RESOLVABLE_COLOURS`).
COLOURS: dict[str, tuple[int, int, int] | None] = {
    # Myntra baseColour values (all 46 in the bundled catalog)
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "blue": (0, 87, 183),
    "brown": (121, 72, 38),
    "grey": (128, 128, 128),
    "red": (204, 0, 0),
    "green": (0, 128, 0),
    "pink": (255, 160, 190),
    "navy blue": (0, 0, 128),
    "purple": (112, 41, 150),
    "silver": (192, 192, 192),
    "yellow": (255, 221, 0),
    "beige": (225, 205, 165),
    "gold": (212, 175, 55),
    "maroon": (128, 0, 32),
    "orange": (255, 128, 0),
    "olive": (107, 112, 40),
    "multi": None,
    "cream": (255, 248, 220),
    "steel": (122, 130, 138),
    "charcoal": (54, 69, 79),
    "peach": (255, 203, 164),
    "off white": (250, 247, 238),
    "skin": (233, 196, 166),
    "lavender": (190, 170, 225),
    "grey melange": (178, 178, 178),
    "khaki": (195, 176, 145),
    "magenta": (202, 31, 123),
    "teal": (0, 128, 128),
    "tan": (210, 180, 140),
    "mustard": (225, 173, 1),
    "bronze": (205, 127, 50),
    "copper": (184, 115, 51),
    "turquoise blue": (0, 199, 210),
    "rust": (183, 65, 14),
    "burgundy": (128, 0, 48),
    "metallic": None,
    "coffee brown": (75, 54, 33),
    "mauve": (184, 134, 160),
    "rose": (227, 88, 120),
    "nude": (227, 188, 154),
    "sea green": (46, 139, 87),
    "mushroom brown": (168, 148, 128),
    "taupe": (139, 122, 108),
    "lime green": (50, 205, 50),
    "fluorescent green": (57, 255, 20),
    # Further names and spellings seen in queries
    "navy": (0, 0, 128),
    "gray": (128, 128, 128),
    "light grey": (200, 200, 200),
    "dark grey": (80, 80, 80),
    "charcoal grey": (54, 69, 79),
    "light blue": (150, 200, 240),
    "sky blue": (135, 206, 235),
    "dark blue": (0, 40, 110),
    "royal blue": (65, 105, 225),
    "denim blue": (21, 96, 189),
    "indigo": (63, 0, 133),
    "turquoise": (64, 224, 208),
    "aqua": (0, 200, 200),
    "cyan": (0, 255, 255),
    "mint": (170, 240, 209),
    "mint green": (152, 230, 180),
    "olive green": (107, 112, 40),
    "dark green": (0, 90, 40),
    "bottle green": (0, 106, 78),
    "emerald": (0, 155, 119),
    "army green": (75, 83, 32),
    "light green": (144, 238, 144),
    "neon green": (57, 255, 20),
    "lime": (191, 255, 0),
    "violet": (143, 0, 255),
    "lilac": (200, 162, 200),
    "plum": (142, 69, 133),
    "wine": (114, 47, 55),
    "crimson": (220, 20, 60),
    "scarlet": (255, 36, 0),
    "coral": (255, 127, 80),
    "salmon": (250, 128, 114),
    "baby pink": (244, 194, 194),
    "hot pink": (255, 105, 180),
    "fuchsia": (255, 0, 255),
    "ivory": (255, 255, 240),
    "camel": (193, 154, 107),
    "chocolate": (90, 50, 20),
    "chocolate brown": (90, 50, 20),
    "dark brown": (92, 64, 51),
    "light brown": (181, 135, 90),
    "mustard yellow": (225, 173, 1),
    "lemon yellow": (255, 244, 79),
    "champagne": (247, 231, 206),
    "gunmetal": (83, 86, 92),
    "multicolour": None,
    "multicolor": None,
    "multicoloured": None,
    "assorted": None,
    "transparent": None,
}

#: Colour names without one representative sRGB: the colour comparator falls back to text similarity.
NON_RESOLVABLE_COLOURS: frozenset[str] = frozenset(name for name, rgb in COLOURS.items() if rgb is None)

#: Pattern terms, longest first within families so "floral print" wins over "print".
PATTERN_TERMS: tuple[str, ...] = (
    "floral print", "floral", "polka dot", "striped", "stripes", "pinstripe", "checked", "check", "plaid", "tartan", "gingham", "houndstooth", "solid", "plain", "printed", "print", "graphic print",
    "graphic", "typography", "abstract", "geometric", "animal print", "leopard print", "camouflage", "camo",
    "paisley", "ethnic motifs", "embroidered", "embellished", "sequinned", "colourblocked", "colour block",
    "tie and dye", "tie-dye", "ombre", "self design", "woven design", "jacquard", "lace", "textured", "washed",
    "distressed", "chevron", "brand logo", "conversational",
)

#: Material terms.
MATERIAL_TERMS: tuple[str, ...] = (
    "cotton", "pure cotton", "organic cotton", "cotton blend", "polycotton", "denim", "leather", "synthetic leather",
    "faux leather", "pu", "suede", "canvas", "polyester", "nylon", "silk", "pure silk", "dupion silk", "satin",
    "linen", "wool", "woollen", "cashmere", "fleece", "velvet", "chiffon", "georgette", "crepe", "rayon",
    "viscose", "viscose rayon", "modal", "lyocell", "tencel", "elastane", "spandex", "lycra", "acrylic", "jersey",
    "mesh", "rubber", "synthetic", "metal", "stainless steel", "brass", "sterling silver", "plastic", "ceramic",
    "bamboo", "khadi", "net",
)

#: Occasion / usage terms.
OCCASION_TERMS: tuple[str, ...] = (
    "casual", "smart casual", "business casual", "formal", "semiformal", "office", "work", "party", "evening",
    "cocktail", "wedding", "festive", "ethnic", "traditional", "sports", "sport", "gym", "running", "training",
    "yoga", "outdoor", "trekking", "travel", "beach", "loungewear", "lounge", "sleepwear", "nightwear", "home",
    "everyday", "daily", "vacation", "date night",
)

#: Style, fit and cut terms.
STYLE_TERMS: tuple[str, ...] = (
    "slim fit", "regular fit", "skinny fit", "loose fit", "relaxed fit", "tapered fit", "straight fit",
    "oversized", "bootcut", "tailored fit", "off shoulder", "one shoulder", "cold shoulder", "round neck",
    "crew neck", "v-neck", "scoop neck", "boat neck", "square neck", "high neck", "halter neck",
    "cowl neck", "polo collar", "mandarin collar", "spread collar", "button-down collar", "hooded", "hoodie",
    "full sleeves", "long sleeves", "short sleeves", "half sleeves", "three-quarter sleeves", "sleeveless",
    "cap sleeves", "puff sleeves", "strapless", "high-rise", "mid-rise", "low-rise", "crop", "cropped",
    "maxi", "midi", "mini", "knee length", "ankle length", "a-line", "wrap", "bodycon", "flared", "pleated",
    "high-top", "mid-top", "low-top", "slip-on", "lace-up", "wedge", "stiletto", "block heel",
)

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
