"""The attributes a catalog without attribute columns writes in its names ("SHEIN Striped Drawstring Waist Sleeveless
Dress": Pattern Striped, Sleeve Length Sleeveless; "Roadster Men Navy Blue Slim Fit Jeans": Fit Slim Fit), found
for ``fashionrq draft-mapping``: each attribute the queries ask about (docs/querygen.md) with the spellings names
write it in and the one value each spelling reads as, so that "Stripes" and "Striped" are one pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fashionrq.catalog.name_types import alternation
from fashionrq.terms import MATERIAL_TERMS, PATTERN_TERMS, STYLE_TERMS


def _title(term: str) -> str:
    return " ".join(w if w in ("and",) else w[:1].upper() + w[1:] for w in term.split())


def _spellings(terms: tuple[str, ...], same: dict[str, tuple[str, ...]], left_out: frozenset[str]) -> dict[str, str]:
    """Spelling (lower case) -> value: each term as its own value written with capitals, but those ``same`` lists
    under one value, and none of ``left_out``."""
    out = {term: _title(term) for term in terms if term not in left_out}
    out.update({spelling: value for value, spellings in same.items() for spelling in spellings})
    return out


#: Attribute key -> spelling (lower case) -> the value it reads as. Words that name other things in a name are left
#: out: "lace" (Lace-Up shoes), "jersey" (a product), "pu", "net", "metal" and the like (parts, not the fabric).
NAME_ATTRIBUTES: dict[str, dict[str, str]] = {
    "Pattern": _spellings(PATTERN_TERMS, {
        "Floral": ("floral", "floral print"), "Striped": ("striped", "stripes", "stripe", "pinstripe"),
        "Checked": ("checked", "check", "checks", "plaid", "tartan", "gingham"), "Solid": ("solid", "plain"),
        "Printed": ("printed", "print"), "Graphic": ("graphic", "graphic print"),
        "Animal": ("animal print", "leopard print"), "Camouflage": ("camouflage", "camo"),
        "Polka Dots": ("polka dot", "polka dots"), "Colourblocked": ("colourblocked", "colour block", "color block", "colorblock"),
        "Tie and Dye": ("tie and dye", "tie-dye", "tie dye")},
        frozenset({"lace", "brand logo", "conversational", "woven design", "ethnic motifs"})),
    "Fabric": _spellings(MATERIAL_TERMS, {
        "Cotton": ("cotton", "pure cotton", "organic cotton"), "Cotton Blend": ("cotton blend", "polycotton"),
        "Synthetic Leather": ("faux leather", "synthetic leather", "vegan leather"), "Wool": ("wool", "woollen", "woolen"),
        "Viscose Rayon": ("viscose", "viscose rayon", "rayon"), "Elastane": ("elastane", "spandex", "lycra"),
        "Silk": ("silk", "pure silk", "dupion silk"), "Lyocell": ("lyocell", "tencel")},
        frozenset({"pu", "net", "metal", "jersey", "rubber", "plastic", "ceramic", "brass", "stainless steel", "sterling silver",
                   "synthetic", "bamboo"})),
    "Fit": {term: _title(term) for term in STYLE_TERMS if term.endswith(" fit")} | {"oversized": "Oversized"},
    "Sleeve Length": {
        **{f"{length} sleeve{s}": value for length, value in (("long", "Long Sleeves"), ("full", "Long Sleeves"),
                                                               ("short", "Short Sleeves"), ("half", "Short Sleeves"),
                                                               ("three-quarter", "Three-Quarter Sleeves"),
                                                               ("3/4", "Three-Quarter Sleeves"), ("cap", "Cap Sleeves"))
           for s in ("", "s")},
        "sleeveless": "Sleeveless"},
    "Neck": {**{term: _title(term) for term in STYLE_TERMS if term.endswith((" neck", " collar", " shoulder")) or term == "v-neck"},
             "v-neck": "V-Neck", "v neck": "V-Neck", "crew neck": "Round Neck", "off-shoulder": "Off Shoulder"},
}
#: The share of the names that must say an attribute for the draft to read it from them.
NAME_ATTRIBUTE_SHARE = 0.1


@dataclass(frozen=True)
class NameAttribute:
    """One attribute the names say: its key, the share of names that say it, and the spellings it is read in."""

    key: str
    share: float
    spellings: dict[str, str]

    def pattern(self) -> str:
        """A regular expression (matched in any case) whose first group is the first spelling in a name."""
        return rf"(?<![\w-])({alternation(self.spellings)})(?![\w-])"

    def value_map(self) -> dict[str, str]:
        """Every spelling -> its value (``striped``, ``Stripes`` and ``STRIPED`` are all ``Striped``: a value map
        reads a text in any case)."""
        return dict(sorted(self.spellings.items()))


def attributes_in_names(names: list[str], keys: tuple[str, ...] = tuple(NAME_ATTRIBUTES)) -> list[NameAttribute]:
    """The attributes among ``keys`` that at least :data:`NAME_ATTRIBUTE_SHARE` of ``names`` say, in key order."""
    found = []
    for key in keys:
        attribute = NameAttribute(key, 0.0, NAME_ATTRIBUTES[key])
        words = re.compile(attribute.pattern(), re.IGNORECASE)
        share = sum(bool(words.search(name)) for name in names) / max(len(names), 1)
        if share >= NAME_ATTRIBUTE_SHARE:
            found.append(NameAttribute(key, share, attribute.spellings))
    return found
