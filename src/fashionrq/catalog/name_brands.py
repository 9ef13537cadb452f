"""The brands a catalog without a brand column writes at the start of its names ("Red Tape Olive Skinny Fit Jeans":
Red Tape; "Only Pink Embellished Crop Top": Only), found for ``fashionrq draft-mapping``.

A name's brand is its first words, as long as the names that start with them go on with one word mostly (``Red``:
``Tape`` or ``Chief``; ``U.S. Polo``: ``Assn.``; ``Jack``: ``&``) that describes no product (a colour, gender,
product, pattern, material or fit word, a word of the catalog's own categories, a shop's offer word (``PROMO``,
``Paket``), a badge in brackets or a number ends the brand: ``Calvin Klein Jeans ... T-Shirt`` is Calvin Klein's),
up to four words, never ending in a joining word (``&``, ``of``, ``by``). A
brand is one that three names or more start with, that ends in no such word (``Red`` alone, ``Women's``, ``Printed``
are none). The names start with brands when three in five or more start with one, of five brands or more, none
starting more than a third of them: a catalog whose names start with their type (a Mercado Livre ``Tênis ...``) or
their colour has none.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from fashionrq.catalog.name_types import NO_TYPE_WORDS, PRODUCT_WORDS, fold
from fashionrq.terms import MATERIAL_TERMS, OCCASION_TERMS, PATTERN_TERMS, STYLE_TERMS

#: A marketplace title's shop words before or after the brand, in English and the languages of the marketplaces that
#: write them (a Tokopedia scrape's ``PROMO``, ``COD``, ``BELI``, ``Paket``: buy, bundle); none that starts a brand
#: (``New`` Balance, ``Free`` Authority, ``Original`` Penguin, ``Hot`` Topic).
PROMO_WORDS = frozenset({"promo", "sale", "cod", "flash", "diskon", "beli", "paket", "isi", "gratis", "murah", "terbaru",
                         "terlaris", "oferta", "promoção", "promocao", "angebot", "soldes"})
#: Words that describe a product (a colour, gender, product noun, pattern, material, fit or occasion) or a shop's
#: offer: no brand ends in one, and one ends the brand before it.
_DESCRIBING = NO_TYPE_WORDS | PRODUCT_WORDS | PROMO_WORDS | frozenset(
    fold(w) for t in PATTERN_TERMS + MATERIAL_TERMS + STYLE_TERMS + OCCASION_TERMS for w in re.split(r"[\s-]", t))
#: The most words a brand has, and the fewest names that start with one.
MOST_WORDS, LEAST_NAMES = 4, 3
#: Of the names: the share that must start with a brand, and the most that one brand may start.
COVERED, LARGEST = 0.6, 1 / 3
#: The fewest brands the names must start with.
LEAST_BRANDS = 5


#: What a badge in brackets opens with (``[Beli Lokal]``, ``【Promo】``).
_BADGE_OPENERS = "[【("
#: Words that join a brand's words (``Jack & Jones``, ``United Colors of Benetton``, ``Urban Ranger by Pantaloons``):
#: inside a brand, never at its end.
_JOINING = frozenset({"&", "and", "of", "by", "the", "de", "n", "'n'"})


def _describes(word: str, describing: frozenset[str]) -> bool:
    """Whether ``word`` describes a product (:data:`_DESCRIBING`, or ``describing``: the catalog's own category words,
    folded), is no word (``100%``, ``2-Pack``) or opens a badge in brackets (``[Beli Lokal]``): it ends a brand before
    it."""
    if word.lower() in _JOINING:
        return False
    letters = re.sub(r"[^\w'-]", "", word)
    folded = fold(letters.strip("'-"))
    return (not any(c.isalpha() for c in letters) or letters.lower() in NO_TYPE_WORDS  # Men's, Kids
            or folded in _DESCRIBING or folded in describing or word[:1] in _BADGE_OPENERS)


def _goes_on(words: list[str], k: int, starts: Counter, following: dict[tuple[str, ...], Counter], describing: frozenset[str]) -> bool:
    """Whether the brand of the name ``words`` goes on past its first ``k`` words: the names that start with them
    mostly go on with one word, and this name's next word describes no product, or is that word in nine names of
    ten and no colour or gender (``U.S.`` ``Polo`` ``Assn.``: a product word inside a brand; never ``DKNY Women``)."""
    after = following[tuple(words[:k])]
    word, count = after.most_common(1)[0]
    share = count / starts[tuple(words[:k])]
    return share >= 0.5 and not _describes(words[k], describing) or share >= 0.9 and words[k] == word and words[k].lower() not in NO_TYPE_WORDS


@dataclass(frozen=True)
class NameBrands:
    """The brands the names start with (``brands``: brand -> how many names start with it, most first) and the share
    of the names that start with one."""

    brands: dict[str, int]
    share: float


def brands_at_start_of_names(names: list[str], category_words: frozenset[str] = frozenset()) -> NameBrands | None:
    """The brands ``names`` start with, when they do (the module's rules); else None. ``category_words``: the words of
    the catalog's own category values, which describe a product as product nouns do (a Tokopedia scrape's ``Sepatu``,
    ``Tas``, ``Kalung``, the words of its ``sepatu-pria`` and ``tas-selempang-wanita`` paths, had been read as brands:
    its names start with their type)."""
    describing = frozenset(fold(w) for w in category_words)
    words = [name.split() for name in names]
    starts: Counter = Counter(tuple(w[:k]) for w in words for k in range(1, min(MOST_WORDS, len(w)) + 1))
    following: dict[tuple[str, ...], Counter] = {}
    for w in words:
        for k in range(1, min(MOST_WORDS, len(w) - 1) + 1):
            following.setdefault(tuple(w[:k]), Counter())[w[k]] += 1
    found: Counter = Counter()
    never_first = describing | PROMO_WORDS
    for w in words:
        if w and (w[0][:1] in _BADGE_OPENERS or fold(w[0].lower()) in never_first):
            continue  # a name that starts with a badge, a shop word or its type (Tokopedia's "Sandal Puma ...")
        k = 1
        while k < min(MOST_WORDS, len(w) - 1) and starts[tuple(w[:k + 1])] >= LEAST_NAMES and _goes_on(w, k, starts, following, describing):
            k += 1
        while k > 1 and (_describes(w[k - 1], describing) or w[k - 1].lower() in _JOINING):  # "Pepe Jeans", "Jack &": Pepe, Jack
            k -= 1
        if w and starts[tuple(w[:k])] >= LEAST_NAMES and not _describes(w[k - 1], describing) and w[k - 1].lower() not in _JOINING:
            found[" ".join(w[:k])] += 1
    spellings: dict[str, Counter] = {}  # one brand in several cases (ANDAMEN, Andamen): as most of its names write it
    for brand, count in found.items():
        spellings.setdefault(brand.casefold(), Counter())[brand] = count
    found = Counter({max(counts, key=lambda b: (counts[b], b)): counts.total() for counts in spellings.values()})
    covered = sum(found.values())
    if not names or covered < COVERED * len(names) or len(found) < LEAST_BRANDS or found.most_common(1)[0][1] > LARGEST * len(names):
        return None
    return NameBrands(dict(sorted(found.items(), key=lambda pair: (-pair[1], pair[0]))), covered / len(names))
