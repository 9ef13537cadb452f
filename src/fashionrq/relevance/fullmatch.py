"""Full matches: the catalog items whose own fields satisfy every condition a query's φ(q) states.

This is the label-validity rule of docs/benchmark.md ("Labels that credit every valid result"): an item is a
*full match* for φ when, for every attribute φ expresses, the §8.0.4 comparator reaches :data:`THRESHOLD` on
the item's own catalog value (``fashionrq.relevance.comparators``). On catalog values that comes down to:

* product type: one of the item's three category levels is a named type (an exact level scores >= 0.85; the
  comparator's substring floor is not used, since "shirts" is a substring of "tshirts");
* gender, age group, brand, price tier, occasion (usage or the Occasion attribute), pattern, material: the item's
  value is one the query names (unisex against a gender scores 0.7, one age step 0.65, another tier 0.3);
* colour: the item's base colour is named, or both resolve and CIE76 ΔE <= 18 (1 - ΔE/120 >= 0.85);
* style tags: each named tag is one of the item's Fit / Sleeve Length / Neck values.

A missing value never satisfies a condition: the comparator's neutral 0.5 says "unknown", not "satisfied".
Values are compared as :func:`value_key` spells them (case, punctuation and plural aside).

An item *contradicts* φ when it has a value of a stated attribute and no value of it scores the comparator's
neutral 0.5 against a stated value: another type at each of its category levels, another brand, tier, occasion,
pattern or material, a colour at CIE76 ΔE > 45 (a green bag for "red handbags"), another gender or an age two
steps away; a unisex item never contradicts a gender, an item with no value of the attribute nothing
(docs/benchmark.md, "Labels that credit every valid result").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from fashionrq.catalog.schema import AGE_SCALE
from fashionrq.querygen.evidence import CatalogValues
from fashionrq.relevance.comparators import colour_pair_named

#: The comparator score every expressed attribute must reach on the item's own value.
THRESHOLD = 0.85
#: Most bytes of clause masks kept (one byte per item each); past it the cache starts afresh, so a catalog of
#: 10^6 items holds at most 256 masks at a time.
CACHE_BYTES = 256 * 2**20


def value_key(value: str) -> str:
    """A value as the comparators read it: lower case, letters and digits only, singular ("T-shirts" -> "tshirt",
    "Dresses" -> "dress"), so an LLM's φ names the catalog's values however it spells them."""
    key = re.sub(r"[^a-z0-9]", "", value.lower())
    if key.endswith("ies") and len(key) > 4:
        return key[:-3] + "y"
    if key.endswith(("sses", "shes", "ches", "xes")):
        return key[:-2]
    if key.endswith("s") and not key.endswith("ss") and len(key) > 3:
        return key[:-1]
    return key


#: A colour contradicts a stated one further than this CIE76 ΔE (score 1 - ΔE/120 = 0.625): beige and turquoise
#: (ΔE 52), black and grey (54), grey and white (46) do; red and maroon (44), navy and blue (41), brown and tan (42)
#: do not, near if no match.
COLOUR_CONTRADICTION = 1 - 45 / 120


def _close_colours(vocab: list[str], threshold: float = THRESHOLD) -> np.ndarray:
    """(V, V) booleans: colour j satisfies a query naming colour i (the comparator's name score reaches ``threshold``;
    under :data:`THRESHOLD`, a pair the names cannot compare counts as close too: it is unknown, never contradicted)."""
    close = np.zeros((len(vocab), len(vocab)), dtype=bool)
    for i, a in enumerate(vocab):
        for j, b in enumerate(vocab):
            score = colour_pair_named(a, b)
            close[i, j] = score >= threshold if score is not None else threshold < THRESHOLD
    return close


def _conditions(phi: Mapping[str, list[str] | None]):
    """φ's conditions as ``(key, values)``, one of which an item must hold: one per stated attribute, one per
    style tag (each named tag must hold)."""
    for key, values in phi.items():
        for group in ([v] for v in values or ()) if key == "style_tags" else [values] if values else []:
            yield key, group


class FullMatch:
    """Full-match masks over one catalog (``CatalogValues`` of its items), one boolean per item row.

    ``mask(phi)`` is cached per (attribute, value set), so the queries of one release share their clause masks.
    """

    def __init__(self, catalog: CatalogValues) -> None:
        self.catalog = catalog
        self.n = catalog.n
        self._keys: dict[str, dict[str, list[int]]] = {}  # φ key -> value_key -> codes ("ADIDAS", "Adidas")
        for key, vocab in catalog.vocab.items():
            for code, value in enumerate(vocab):
                self._keys.setdefault(key, {}).setdefault(value_key(value), []).append(code)
        self._close = _close_colours(catalog.vocab["color"])
        self._compatible_colours = _close_colours(catalog.vocab["color"], COLOUR_CONTRADICTION)
        self._clauses: dict[tuple[str, frozenset[str]], np.ndarray] = {}
        self._known = {key: (codes >= 0).any(axis=1) for key, codes in catalog.codes.items()}

    def _codes(self, key: str, values) -> np.ndarray:
        index = self._keys.get(key, {})
        return np.array(sorted({c for v in values for c in index.get(value_key(v), ())}), dtype=np.int64)

    def clause(self, key: str, values) -> np.ndarray:
        """Items holding one of ``values`` for φ key ``key`` (read-only)."""
        cache_key = (key, frozenset(values))
        if cache_key not in self._clauses:
            wanted = np.zeros(len(self.catalog.vocab[key]) + 1, dtype=bool)  # slot 0: a missing value (-1)
            codes = self._codes(key, values)
            if key == "color" and len(codes):
                wanted[1:] = self._close[codes].any(axis=0)
            else:
                wanted[codes + 1] = True
            mask = wanted[self.catalog.codes[key] + 1].any(axis=1)
            mask.flags.writeable = False
            if (len(self._clauses) + 1) * self.n > CACHE_BYTES:
                self._clauses.clear()
            self._clauses[cache_key] = mask
        return self._clauses[cache_key]

    def compatible(self, key: str, values) -> np.ndarray:
        """Items whose value for φ key ``key`` does not contradict ``values`` (see the module's text), a missing
        value included (read-only)."""
        cache_key = ("compatible " + key, frozenset(values))
        if cache_key not in self._clauses:
            codes = self._codes(key, values)
            vocab = self.catalog.vocab[key]
            wanted = np.zeros(len(vocab) + 1, dtype=bool)  # slot 0, a missing value: only an item with none is unknown
            if key == "color" and len(codes):
                wanted[1:] = self._compatible_colours[codes].any(axis=0)
            else:
                wanted[codes + 1] = True
            if key == "gender":
                wanted[1:] |= [value_key(v) == "unisex" for v in vocab]
            if key == "age_group":
                steps = {AGE_SCALE.index(v) for v in values if v in AGE_SCALE}
                wanted[1:] |= [v in AGE_SCALE and any(abs(AGE_SCALE.index(v) - s) <= 1 for s in steps) for v in vocab]
            mask = wanted[self.catalog.codes[key] + 1].any(axis=1) | ~self._known[key]
            mask.flags.writeable = False
            if (len(self._clauses) + 1) * self.n > CACHE_BYTES:
                self._clauses.clear()
            self._clauses[cache_key] = mask
        return self._clauses[cache_key]

    def contradicts(self, phi: Mapping[str, list[str] | None], rows: np.ndarray | None = None) -> np.ndarray:
        """Which items (of ``rows``, default all) contradict a condition of ``phi``: a known value of a stated
        attribute that is no stated value's match, nor near one (the module's text)."""
        out = np.zeros(self.n if rows is None else len(rows), dtype=bool)
        for key, values in _conditions(phi):
            compatible = self.compatible(key, values)
            out |= ~(compatible if rows is None else compatible[rows])
        return out

    def mask(self, phi: Mapping[str, list[str] | None], rows: np.ndarray | None = None) -> np.ndarray:
        """Which items (of ``rows``, default all) satisfy every condition of ``phi`` (none when φ asserts nothing)."""
        size = self.n if rows is None else len(rows)
        if not any(_conditions(phi)):
            return np.zeros(size, dtype=bool)
        out = np.ones(size, dtype=bool)
        for key, values in _conditions(phi):
            clause = self.clause(key, values)
            out &= clause if rows is None else clause[rows]
        return out

    def unmet(self, phi: Mapping[str, list[str] | None], rows: np.ndarray | None = None) -> np.ndarray:
        """Per item (of ``rows``, default all): how many of φ's conditions it does not satisfy."""
        out = np.zeros(self.n if rows is None else len(rows), dtype=np.uint8)  # φ states a few dozen at most
        for key, values in _conditions(phi):
            clause = self.clause(key, values)
            out += ~(clause if rows is None else clause[rows])
        return out

    def rows(self, phi: Mapping[str, list[str] | None]) -> np.ndarray:
        """Sorted rows of the full matches of ``phi``."""
        return np.flatnonzero(self.mask(phi))
