"""The built-in φ(q) parser: a lexicon of catalog vocabularies matched longest-first against the query."""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np
import pandas as pd
import pyarrow as pa

import fashionrq.querygen.surface as surface
from fashionrq.catalog.language import names_in_english
from fashionrq.catalog.tiers import price_tiers_of
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.querygen.evidence import OCCASION_CANON
from fashionrq.querygen.records import PHI_KEYS
from fashionrq.vocab import COLOURS, MATERIAL_TERMS, OCCASION_TERMS, PATTERN_TERMS, STYLE_TERMS, normalise_price_hint

_PRODUCT_LEVELS = ("article_type", "sub_category", "master_category")  # finest wins on a shared spelling
#: Words of ordinary query language that are also Myntra brand names ("AND", "Basics"): never read as brands.
_COMMON_WORDS = frozenset({
    "and", "or", "for", "the", "with", "in", "on", "of", "to", "a", "an", "me", "my", "show", "any", "best", "need",
    "some", "looking", "want", "buy", "find", "where", "get", "can", "you", "under", "over", "below", "above",
    "between", "range", "wear", "style", "styles", "new", "classic", "basic", "basics", "good", "nice", "cool", "smart",
    "fit", "look", "set", "pack", "gift", "free", "day", "night", "fresh", "urban", "street", "royal", "star",
})
#: What a normalised text keeps: letters and digits of every script (a catalog's types in Cyrillic), the currency
#: signs (``₹``, ``₺``, ``zł``) and the marks inside words; anything else, the underscore too, reads as a space.
_PLAIN = re.compile(rf"[^\w{re.escape(''.join(sorted({c for m in surface.MONEY_MARKS for c in m if not c.isascii()})))}$'&/\-.,]+|_+")


def normalise_text(text: str) -> str:
    """Lower-case, straight apostrophes, single spaces."""
    text = text.lower().replace("’", "'").replace("‘", "'")
    return " ".join(_PLAIN.sub(" ", text).split())


def _title(term: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in term.split(" "))


class LexiconParser:
    """Parse shopper queries into φ(q) with the vocabularies of a catalog.

    ``items`` (the items table) supplies article types, sub/master categories, brands, colours and the
    ``Pattern``/``Fabric``/``Occasion``/fit/sleeve/neck attribute values; :mod:`fashionrq.vocab` and
    :mod:`fashionrq.querygen.surface` add shopper spellings and synonyms. Values come back as canonical
    catalog spellings (``"t-shirts"`` -> ``"Tshirts"``); attributes the query does not mention are ``None``.
    Amounts ("under $10", "between ₹800 and ₹1,500") are read as price tiers under the catalog's own bounds
    (:func:`fashionrq.catalog.tiers.price_tiers_of`: a release's ``public/items.parquet`` records them); an amount
    marked with another currency is not read.
    """

    def __init__(self, items: pa.Table | pd.DataFrame) -> None:
        frame = items_frame(items)
        self.price_tiers = price_tiers_of(frame)
        self._phrases: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        self._build(frame)
        ordered = sorted(self._phrases, key=lambda p: (-len(p), p))
        body = "|".join(re.escape(p) for p in ordered)
        # a lookahead finds, at every position, the longest phrase starting there (overlaps included)
        self._pattern = re.compile(rf"(?<!\w)(?=({body})(?!\w))")

    # -- lexicon ------------------------------------------------------------------------------------------
    def _add(self, phrase: str, key: str, value: str) -> None:
        phrase = normalise_text(phrase)
        if phrase and value not in self._phrases[phrase][key]:
            self._phrases[phrase][key].append(value)

    def _build(self, frame: pd.DataFrame) -> None:
        seen_type_phrases: dict[str, int] = {}
        english = names_in_english(frame)  # a catalog's types as its queries say them (catalog.language)
        for level, column in enumerate(_PRODUCT_LEVELS):
            for value in sorted(frame[column].dropna().unique()):
                for form in surface.type_forms(value, english):
                    phrase = normalise_text(form)
                    if seen_type_phrases.get(phrase, level) < level:
                        continue  # a finer level already owns this spelling
                    seen_type_phrases[phrase] = level
                    self._add(phrase, "product_type", value)
        held = {value for column in _PRODUCT_LEVELS for value in frame[column].dropna().unique()}
        for phrase, values in surface.TYPE_SYNONYMS.items():  # a catalog's own types only ("sneakers": Myntra's shoes)
            for value in values:
                if value in held:
                    self._add(phrase, "product_type", value)

        colours = sorted(set(frame["base_colour"].dropna()) | {c for cs in frame["colours"].dropna() for c in cs})
        canon = {}
        for value in colours:
            for form in surface.colour_forms(value) + (value.lower(),):
                self._add(form, "color", value)
                canon[normalise_text(form)] = value
        for name in COLOURS:
            if normalise_text(name) not in canon:
                self._add(name, "color", "Multi" if COLOURS[name] is None and "Multi" in colours else _title(name))

        attrs = [dict(a) if a is not None else {} for a in frame["attributes"]]
        self._add_values(attrs, ("Pattern",), "pattern", surface.pattern_forms, PATTERN_TERMS)
        self._add_values(attrs, ("Fabric",), "material", surface.material_forms, MATERIAL_TERMS)
        for value in sorted(set(frame["usage"].dropna()) | {OCCASION_CANON.get(a.get("Occasion"), a.get("Occasion")) for a in attrs} - {None}):
            adjs, tails = surface.adj_tail_forms(surface.OCCASION_FORMS, value)
            for form in adjs + tails:
                self._add(form, "occasion", value)
        for value, (adjs, tails) in surface.OCCASION_FORMS.items():
            for form in adjs + tails:
                self._add(form, "occasion", value)
        occasion_words = {"office": "Formal", "work": "Formal", "gym": "Sports", "workout": "Sports", "sports": "Sports",
                          "sport": "Sports", "everyday": "Casual", "daily": "Casual", "wedding": "Ethnic",
                          "traditional": "Ethnic", "evening": "Party", "night out": "Party", "cocktail": "Party",
                          "semiformal": "Smart Casual", "business casual": "Smart Casual"}
        for term in OCCASION_TERMS:
            self._add(term, "occasion", occasion_words.get(term, _title(term)))
        for term, value in occasion_words.items():
            self._add(term, "occasion", value)
        style_values = set()
        for a in attrs:
            style_values |= {a[k] for k in ("Fit", "Sleeve Length", "Neck") if a.get(k)}
        for value in sorted(style_values | set(surface.STYLE_FORMS)):
            adjs, tails = surface.adj_tail_forms(surface.STYLE_FORMS, value)
            for form in adjs + tails + (value.lower(),):
                self._add(form, "style_tags", value)
        for term in STYLE_TERMS:
            if normalise_text(term) not in self._phrases:
                self._add(term, "style_tags", _title(term))

        for value, (before, after) in surface.GENDER_FORMS.items():
            for form in before + after:
                self._add(form, "gender", value)
        for word, value in surface.GENDER_WORDS.items():
            self._add(word, "gender", value)
        for value, (before, after) in surface.AGE_FORMS.items():
            for form in before + after:
                self._add(form, "age_group", value)
        for word, value in surface.AGE_WORDS.items():
            self._add(word, "age_group", value)
        for word in surface.PRICE_WORDS:
            self._add(word, "price_hint", normalise_price_hint(word))

        taken = set(self._phrases) | _COMMON_WORDS
        spellings = frame["brand"].dropna().value_counts()
        for brand in sorted(spellings.index, key=lambda b: (-spellings[b], b)):  # "Adidas" and "ADIDAS": most frequent wins
            phrase = normalise_text(brand)
            if len(phrase) >= 3 and phrase not in taken and not self._phrases.get(phrase, {}).get("brand"):
                self._add(phrase, "brand", brand)  # a brand spelled like a product/colour word stays unread

    def _add_values(self, attrs, names, key, forms, terms) -> None:
        values = sorted({a[n] for a in attrs for n in names if a.get(n)})
        known = {}
        for value in values:
            for form in forms(value):
                self._add(form, key, value)
                known[normalise_text(form)] = value
        for term in terms:
            if normalise_text(term) not in known:
                self._add(term, key, _title(term))

    # -- parsing ------------------------------------------------------------------------------------------
    def parse(self, text: str) -> dict[str, list[str] | None]:
        """φ(q) of one query: every key of ``PHI_KEYS``, ``None`` when not expressed."""
        norm = normalise_text(text)
        phi: dict[str, list[str]] = defaultdict(list)
        for phrase in self._longest_matches(norm):
            for key, values in self._phrases[phrase].items():
                for value in values:
                    if value not in phi[key]:
                        phi[key].append(value)
        for tier in self._price_tiers(norm):
            if tier not in phi["price_hint"]:
                phi["price_hint"].append(tier)
        return {key: (sorted(phi[key]) if phi.get(key) else None) for key in PHI_KEYS}

    def _longest_matches(self, norm: str) -> list[str]:
        """Non-overlapping lexicon phrases of ``norm``, longest first ("for sports shoes" reads "sports shoes")."""
        spans = sorted(((m.start(), m.start() + len(m.group(1))) for m in self._pattern.finditer(norm)),
                       key=lambda s: (s[0] - s[1], s[0]))
        taken = np.zeros(len(norm) + 1, dtype=bool)
        out = []
        for start, end in spans:
            if not taken[start:end].any():
                taken[start:end] = True
                out.append((start, norm[start:end]))
        return [phrase for _, phrase in sorted(out)]

    def parse_many(self, texts: list[str]) -> list[dict[str, list[str] | None]]:
        return [self.parse(t) for t in texts]

    def _price_tiers(self, norm: str) -> list[str]:
        """The tiers the amounts of ``norm`` name: a range ("between ...", "₹800-1,500") first, else "under"/"over"."""
        ranges = self.price_tiers.ranges()
        spans = self._amounts(norm, surface.PRICE_BETWEEN, surface.PRICE_SPAN)
        tiers = [t for low, high in spans for t, (lo, hi) in ranges.items() if lo < high and hi > low]
        if not tiers:
            tiers = [t for amount, _ in self._amounts(norm, surface.PRICE_UNDER) for t, (lo, _) in ranges.items() if lo < amount]
            tiers += [t for amount, _ in self._amounts(norm, surface.PRICE_OVER) for t, (_, hi) in ranges.items() if hi > amount]
        return list(dict.fromkeys(tiers))

    def _amounts(self, norm: str, *patterns: re.Pattern) -> list[tuple[float, float]]:
        """(first, last) amount of every match of ``patterns`` whose amounts are all in the catalog's currency."""
        out = []
        for pattern in patterns:
            for m in pattern.finditer(norm):
                numbered = [i for i in (1, 2) if f"num{i}" in pattern.groupindex]
                amounts = [surface.written_amount(m, i, self.price_tiers.currency) for i in numbered]
                if None not in amounts:
                    out.append((amounts[0], amounts[-1]))
        return out
