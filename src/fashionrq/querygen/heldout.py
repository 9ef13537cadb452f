"""Held-out wordings: how shoppers also say a catalog value, in words the public lexicon does not hold.

The verbalizer writes a seeded share of its conditions (:data:`HELD_OUT_RATE`, 70 %) in one of these wordings
instead of a :mod:`fashionrq.querygen.surface` spelling. Each says the same value ("for my husband" is
``gender = Men``, "for a job interview" is ``occasion = Formal``), so the hidden φ(q) and the labels do not
change; only the text does. The public :class:`~fashionrq.querygen.LexiconParser` reads none of them
(``tests/test_querygen.py`` checks every form against the bundled catalog's lexicon), so a system that reads
queries with that lexicon and filters on the catalog's fields misses those conditions, as it would miss a
real shopper's paraphrase; a system that understands the words does not. Issue 25 asked for this
(docs/benchmark.md, "Headroom"): precise template queries let a parser plus an attribute filter read the
pooled tasks almost perfectly.

Every table maps a canonical value to ``(adjectives before the noun, phrases after it)``. Values without an
entry, colours, brands, patterns, materials and price ranges written as amounts are always written in the lexicon's
spellings: a colour or an amount has no paraphrase that keeps its exact meaning, and the lexicon already reads
the plain other words (the vocabulary's "plaid", "no sleeves", "training", "vacation").
"""

from __future__ import annotations

#: Chance that a condition with a held-out wording is written in it.
HELD_OUT_RATE = 0.7

Forms = tuple[tuple[str, ...], tuple[str, ...]]

GENDER: dict[str, Forms] = {
    "Men": ((), ("for my husband", "for my dad", "for my brother", "for my boyfriend")),
    "Women": ((), ("for my wife", "for my mom", "for my sister", "for my girlfriend")),
    "Boys": ((), ("for my son", "for my nephew")),
    "Girls": ((), ("for my daughter", "for my niece")),
}
AGE: dict[str, Forms] = {
    "kids": ((), ("for my little one", "for the little ones")),
    "toddler": ((), ("for my two-year-old",)),
    "baby": ((), ("for a newborn",)),
}
OCCASION: dict[str, Forms] = {
    "Casual": (("laid-back",), ("for weekends", "for lazy weekends")),
    "Formal": ((), ("for meetings", "for a job interview")),
    "Sports": ((), ("for my morning run", "for the treadmill")),
    "Ethnic": ((), ("for a puja", "for a family function")),
    "Party": ((), ("for a birthday bash", "for clubbing")),
    "Smart Casual": ((), ("for a dinner date",)),
    "Travel": ((), ("for a getaway", "for a holiday")),
    "Home": ((), ("for staying in",)),
    "Festive": ((), ("for Diwali",)),
    "Outdoor": ((), ("for hiking", "for camping")),
}
STYLE: dict[str, Forms] = {
    "Short Sleeves": ((), ("with sleeves that end above the elbow",)),
    "Long Sleeves": ((), ("with sleeves down to the wrist",)),
    "Three-Quarter Sleeves": ((), ("with sleeves that stop below the elbow",)),
    "Sleeveless": ((), ("that leave the arms bare",)),
    "Round Neck": ((), ("with a rounded neckline",)),
    "V-Neck": ((), ("with a V-shaped neckline",)),
    "Slim Fit": (("close-fitting",), ("cut close to the body",)),
    "Regular Fit": ((), ("with a standard cut",)),
    "Loose Fit": (("roomy",), ()),
}
#: single price tiers only: a range is written as amounts, in the lexicon's spelling
PRICE: dict[tuple[str, ...], Forms] = {
    ("budget",): (("pocket-friendly",), ("that won't break the bank",)),
    ("mid-range",): (("moderately priced",), ()),
    ("premium",): (("upmarket",), ("worth a splurge",)),
}
#: product types: plural nouns, written in place of the type's preferred spelling
TYPE: dict[str, str] = {
    "Watches": "timepieces",
    "Sunglasses": "sunnies",
    "Perfume and Body Mist": "scents",
    "Track Pants": "sweatpants",
    "Wallets": "billfolds",
    "Trousers": "slacks",
    "Dresses": "frocks",
    "Innerwear Vests": "undershirts",
    "Nail Polish": "nail lacquers",
    "Bra": "brassieres",
}

TABLES: dict[str, dict] = {"gender": GENDER, "age_group": AGE, "occasion": OCCASION, "style_tags": STYLE,
                           "price_hint": PRICE}


def forms(key: str, values: tuple[str, ...]) -> Forms | None:
    """The held-out ``(adjectives, trailing phrases)`` of a clause, or ``None`` when it has none."""
    table = TABLES.get(key)
    if table is None:
        return None
    return table.get(values) if key == "price_hint" else table.get(values[0]) if len(values) == 1 else None
