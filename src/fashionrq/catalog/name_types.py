"""The product types a catalog without a type column writes at the end of its names ("Roadster Men Navy Blue Slim
Fit Jeans": Jeans; "Nike Men Sports Shoes": Sports Shoes), found in a sample of names for ``fashionrq draft-mapping``.

A type is a last word that ends enough of the sampled names, its singular and plural forms and spellings taken as one
("T-shirt", "Tshirts", "t-shirts"), and written as its most common spelling. Two words are one type when the first
names an occasion and a third or more of the names that end in the last word name one, as the catalog's own split
("Casual Shoes", "Sports Shoes"; a "Party Dress" among many other dresses is a Dress), when the last word is a generic one ("Gift Set", "Dress
Material") or a particle ("Lace Up", "Slip On"), or when most names that end in the last word have that first word
before it ("Flip Flops", "Track Pants"); a colour, gender, pattern, material or fit word before the type ("Blue
Shirt", "Printed Kurta", "Slim Fit Jeans") is never part of it. Trailing sizes, amounts and notes ("100 ml",
"1 L, 1.5 L", "(Pack of 3)", "CH2600", "NWT") are passed over, and after a type the rest of a name behind a comma
or a spaced dash ("Jeans - Wild Fable™", "Jeans, Created for Macy's"); a word of one or two letters, a measure
("Size 4.5 UK", "7 Inch"), a label ("Diameter: 4.26 cm"), a fit ("Straight Leg") or a brand is no type.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass

from fashionrq.catalog.language import OTHER_LANGUAGE_PREPOSITIONS
from fashionrq.catalog.schema import ANY_GENDER_WORDS, without_leading_badge
from fashionrq.colour import COLOURS, OTHER_LANGUAGE_COLOURS
from fashionrq.terms import MATERIAL_TERMS, OCCASION_TERMS, PATTERN_TERMS, PRODUCT_TERMS, STYLE_TERMS

#: What may follow the type at the end of a name: notes in brackets, punctuation, codes and amounts with their units
#: (``(Pack of 3)``, ``# 31``, ``CH2600``, ``100 ml``, ``1 L, 1.5 L``, ``Size 4.5 UK``), a model's name in quotes
#: (``Jeans 'Glenn Original 887'``: an About You scrape's), a resale listing's condition
#: (``NWT``, ``EUC``), a colour said with "Color" (``Ring Set Gold Color``: a Trendyol scrape's), and the colour,
#: detail and store phrases at the very end (``trench coat in camel``, ``gilet
#: with tie waist detail in light khaki``: ASOS's names; ``Kurta with Dupatta``; ``Backless Jumpsuit For Casual
#: Wear``: SHEIN's; ``Athletic Sneakers from Finish Line``: Macy's). Each piece is short and ends where the next may start, and what is read is never read again (a
#: possessive loop), so that a name that ends otherwise fails at once, never in exponential time.
_CONDITION = r"(?i:nwt|nwot|bnwt|nwob|euc|vguc|guc|nib)(?![\w'-])"
#: Latin letters, with the accents of the languages written in them (``Röhrenjeans``, ``Pantalón``).
_LETTER = "A-Za-zÀ-ÖØ-öø-ɏ"
#: The words that open a detail, colour or store phrase after a type, in English and the languages of Latin-script
#: shops (a German shop's ``Shirt mit V-Neck``, ``Anzug mit Krawatte``; ``Vestido de fiesta``, ``Chaussures en cuir``:
#: :data:`~fashionrq.catalog.language.OTHER_LANGUAGE_PREPOSITIONS`).
_PHRASE = "|".join(("in", "with", "without", "for", "from", *sorted(OTHER_LANGUAGE_PREPOSITIONS)))
#: The words of the colours' names, and "mixed", as a name says them before "Color" (``Rose Gold Color``, ``Mixed Color``).
_COLOUR_WORDS = "|".join(sorted({w for c in COLOURS for w in c.split()} | {"mixed"}, key=lambda w: (-len(w), w)))
_NOTES = (rf"\s+{_CONDITION}"
          r"|\s+(?:'[^']*'|\"[^\"]*\"|[‘“„«][^’”“»]*[’”“»])"  # a model's name in quotes (About You's Blouson ' Marlon ')
          r"|\s*(?:\([^)]*\)|\[[^\]]*\]|[^\w\s(\[]+(?!\S))|\s+(?i:size):?(?=\s+[^\s\d]*\d)"
          rf"|\s+(?i:(?:{_COLOUR_WORDS})\s+){{1,2}}(?i:colou?r)(?=\s*$)"  # the colour at the very end ("Ring Set Gold Color")
          rf"|\s+(?i:(?:{_PHRASE})\s+[{_LETTER}\d&][{_LETTER}\d'&-]*(?:\s+[{_LETTER}\d&][{_LETTER}\d'&-]*){{0,4}})"
          rf"(?=\s*$|\s+(?i:{_PHRASE})\s|\s*,\s|\s[-–—|]\s)"  # then the end, a phrase, or a separator
          r"|\s+[^\s\d]*\d\S*(?:\s+(?!(?i:in)\s)[A-Za-z]{1,3}(?![\w'-]))?")  # "037 in brown": no unit
#: The rest of a name after a comma or a spaced dash, which, after a type, is a store's brand or line, a colour or
#: sizes (``Jeans - Universal Thread™``, ``Jeans - Dark Wash``, ``Skinny Jeans, 29" Inseam, Women's Sizes 00-20``,
#: ``Jeans, Created for Macy's``).
_SEPARATOR = re.compile(r"(?:\s?,|\s[-–—|])\s")  # Macy's "Booties , Created for Macy's" too
#: The notes after a type already known: the rest after a separator too (tried first: a comma is no punctuation note there).
_NOTES_AFTER_TYPE = rf"(?:{_SEPARATOR.pattern}.*|{_NOTES})*+\s*$"
#: A word, never a listing's condition, nor ending in an apostrophe or hyphen (``TEE'`` of ``'onsMATT LONGY TEE'``).
_WORD = rf"(?!{_CONDITION})[{_LETTER}](?:[{_LETTER}'-]*[{_LETTER}])?"
_TAIL = re.compile(rf"(?:(?<!\S)({_WORD})\s+)?(?<!\S)({_WORD})(?!:)(?:{_NOTES})*+\s*$")  # "Diameter: 4 cm": a label
#: Last words that name no type of their own ("Gift Set", "Kurta Set"): only with the word before them.
GENERIC = frozenset({"set", "combo", "kit", "pack", "collection", "piece", "pair", "pairs", "material", "fabric"})
#: Last words that finish a type named by the word before them ("Lace Up", "Slip On"), whatever that word is.
_PARTICLES = frozenset({"up", "on", "off"})
_OCCASIONS = frozenset(t for t in OCCASION_TERMS if " " not in t)
#: Words that are no type: colours, genders, departments (``Kidswear``, ``Clothing``), small words, measures.
NO_TYPE_WORDS = (frozenset(w for c in (*COLOURS, *OTHER_LANGUAGE_COLOURS) for w in c.split()) | frozenset(ANY_GENDER_WORDS) | GENERIC | _PARTICLES
            | frozenset({"of", "and", "with", "without", "for", "the", "in", "a", "an", "to", "by", "from", "kids", "kidswear",
                         "clothing", "apparel", "accessories", "accessory", "product", "item", "new", "edition", "fashion",
                         "thời"})  # Vietnamese "thời trang", fashion: a Shopee scrape's "Thời Trang Nam ..."
            | frozenset({"size", "inch", "cm", "mm", "ml", "ltr", "litre", "liter", "kg", "gm", "gram", "diameter",
                         "length", "width", "height", "weight", "capacity", "spf"}))
#: Words that describe a type and are never part of its name (a pattern, material or fit word).
_MODIFIERS = NO_TYPE_WORDS | frozenset(w for t in PATTERN_TERMS + MATERIAL_TERMS + STYLE_TERMS for w in re.split(r"[\s-]", t))
#: Last words that are no type either, though they may come before one ("Casual Shoes"): an occasion, a season, a
#: pattern, a marketplace title's praise ("... Dress Summer Beach", "... Top Random Print", "... Perfect"), a fit.
_NO_LAST_WORD = (NO_TYPE_WORDS | frozenset(w for w in _OCCASIONS if not w.endswith("wear"))
                 | frozenset(t for t in PATTERN_TERMS if " " not in t and t != "lace")
                 | frozenset({"summer", "winter", "spring", "autumn", "style", "styles", "design", "look", "day", "holiday",
                              "festival", "washable", "quality", "suitable", "perfect", "ideal", "gift", "gifts",
                              "created", "exclusive", "exclusively",  # a department store's "..., Created for Macy's"
                              "color", "colour", "colors", "colours", "discolor"})  # "... Ring Set Gold Color"
                 # a fit, cut or wash a jeans store's names end in ("501 Straight Leg", "Slim Fit", "Dark Wash")
                 | frozenset({"fit", "leg", "cut", "rise", "waisted", "wash", "stonewash", "straight", "slim", "skinny",
                              "stretch", "tapered", "relaxed", "regular", "loose", "bootcut", "inseam"}))


#: Plural endings whose "es" is the plural's (dresses, brushes, watches, boxes).
_ES_PLURALS = ("sses", "shes", "ches", "xes")


#: A product noun's other spellings, as :func:`fold` writes both (a German shop's ``Hoody`` beside its ``Hoodie``).
_SPELLINGS = {"hoody": "hoodie", "pyjama": "pajama", "jewellery": "jewelry", "teeshirt": "tshirt"}


def fold(word: str) -> str:
    """One form for a word's spellings: lower case, no hyphens, no plural ending, one of a noun's spellings
    (``T-shirts`` -> ``tshirt``, ``Hoodies`` and ``Hoody`` -> ``hoodie``)."""
    word = word.lower().replace("-", "")
    if word.endswith(_ES_PLURALS):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return _SPELLINGS.get(word, word)


#: Product nouns in one spelling (:func:`fold`): the last words of :data:`fashionrq.terms.PRODUCT_TERMS`.
PRODUCT_WORDS = frozenset(fold(term.split()[-1]) for term in PRODUCT_TERMS)


def other_number(spelling: str) -> str:
    """The plural of a singular spelling and the singular of a plural one (``Kurta``: ``Kurtas``; ``Dresses``:
    ``Dress``), so that a type seen in one number in the sample is also read in the other."""
    lower = spelling.lower()
    if lower.endswith(_ES_PLURALS):
        return spelling[:-2]
    if lower.endswith("s") and not lower.endswith("ss"):
        return spelling[:-1]
    return spelling + ("es" if lower.endswith(("ss", "sh", "ch", "x")) else "s")


def literal(text: str) -> str:
    """``text`` as a regular expression that matches it, its spaces left readable (``tops and croptops``)."""
    return re.escape(text).replace("\\ ", " ")


def alternation(texts) -> str:
    """The texts as alternatives of a regular expression, each once, longest first (``floral print`` before
    ``floral``)."""
    return "|".join(sorted({literal(text) for text in texts}, key=lambda s: (-len(s), s)))


def name_tail(name: str) -> tuple[str | None, str] | None:
    """The last two words of ``name`` before its trailing notes (the first ``None`` for a one-word name); where the
    last word names no product, the last two before a comma or a spaced dash whose word does (``Jeans - Wild
    Fable™``: Jeans; a Golf Ball's ``- Size: 4.26 cm``: none, as ``Ball`` names no product here)."""
    found = _TAIL.search(name)
    if found is None or not _names_product_tail(found):
        for separator in reversed(list(_SEPARATOR.finditer(name))):
            before = _TAIL.search(name[:separator.start()])
            if before is not None and _names_product_tail(before):
                found = before
                break
    return (found.group(1), found.group(2)) if found else None


def _names_product_tail(tail: re.Match) -> bool:
    """Whether a :data:`_TAIL` match names a product (:func:`_names_product`: ``Jewellery Set``, ``Slip On`` too)."""
    before, last = tail.group(1), fold(tail.group(2))
    return _names_product((before.lower(), last) if before else (last,))


@dataclass(frozen=True)
class NameTypes:
    """The types found at the end of the sampled names: ``spellings`` (type -> the spellings seen, the type's own
    first), and ``share``, the part of the sample whose names end in one."""

    spellings: dict[str, tuple[str, ...]]
    share: float

    def pattern(self) -> str:
        """A regular expression (matched in any case) whose first group is the type at the end of a name."""
        spellings = alternation(s.lower() for ss in self.spellings.values() for s in ss).replace(" ", "[ -]")  # Flip-Flops
        return rf"(?<![\w'-])({spellings}){_NOTES_AFTER_TYPE}"

    def value_map(self) -> dict[str, str]:
        """Each spelling other than a type's own, in lower case, -> the type (``tshirts`` -> ``T-shirt``); spellings
        that differ only in case need none, as ingest writes a category one way."""
        return {s.lower(): type_ for type_, (_, *others) in self.spellings.items() for s in others}


def types_at_end_of_names(names: list[str], min_share: float = 1 / 2000, brands: frozenset[str] = frozenset()) -> NameTypes:
    """The types that end at least ``min_share`` of ``names`` (and at least 3 of them); a type whose last word is no
    product noun (:data:`PRODUCT_WORDS`: ``Air Max``, ``Flyknit``, or a marketplace title's ``Sexy``, ``Hem``) at
    least one in 100 of them; never one of ``brands`` (in lower case: a store's ``... Deo Set - Nike Fragrances``)."""
    tails = [t for t in map(name_tail, names) if t is not None]
    least = max(3, round(min_share * len(names)))
    last = Counter(fold(word) for _, word in tails)
    pairs = Counter((before.lower(), fold(word)) for before, word in tails if before)
    occasioned = Counter(fold(word) for before, word in tails if before and before.lower() in _OCCASIONS)
    spellings: dict[tuple[str, ...], Counter] = defaultdict(Counter)
    for before, word in tails:
        key = (before.lower(), fold(word)) if before and _is_compound(before.lower(), fold(word), pairs, last, occasioned, least) else (fold(word),)
        written = f"{before} {word}" if len(key) == 2 else word
        if (len(key) == 2 or (len(fold(word)) > 2 and not {word.lower(), fold(word)} & _NO_LAST_WORD)) and written.lower() not in brands:
            spellings[key][written] += 1
    rare = max(least, round(len(names) / 100))  # a type whose last word is no product noun: 1 name in 100
    kept = {key: counts for key, counts in spellings.items() if sum(counts.values()) >= (least if _names_product(key) else rare)}
    heads = compound_heads((key[0] for key in spellings if key not in kept and len(key) == 1), (k[0] for k in kept if len(k) == 1))
    out = {}
    for key, counts in sorted(kept.items(), key=lambda kc: (-sum(kc[1].values()), kc[1].most_common(1)[0][0])):
        type_ = counts.most_common(1)[0][0]
        compounds = [s for word, head in heads.items() if (head,) == key for s in spellings[word,]]
        forms = {form.casefold(): form for s in sorted([*counts, *compounds]) for form in (s, other_number(s))}  # ingest merges cases
        out[type_] = (type_, *sorted(form for key, form in forms.items() if key != type_.casefold()))
    covered = sum(sum(c.values()) for c in kept.values()) + sum(sum(spellings[word,].values()) for word in heads)
    return NameTypes(out, covered / max(len(names), 1))


#: Heads whose compounds are no kind of them (a ``Jumpsuit``, ``Catsuit`` or ``Swimsuit`` is no suit).
_NO_KIND_OF_HEAD = frozenset({"suit"})


def compound_heads(words, heads) -> dict[str, str]:
    """Each of ``words`` (too rare to be a type of its own) that is a compound of one of ``heads`` (the types, in
    the same spelling), read as that type: the longest head it ends in, after three letters or more (a German shop's
    ``Röhrenjeans``, ``Kurzmantel``, ``Retro-Boxershorts``; an English one's ``Sundress``, ``Raincoat``), so that its
    name is read, not rejected; a head of four letters or more, and never one whose compounds are no kind of it; never
    a word that is an English product noun of its own (a rare ``Sweatshirt`` is no ``Shirt``)."""
    ordered = sorted((h for h in set(heads) if len(h) >= 4 and h not in _NO_KIND_OF_HEAD), key=lambda h: (-len(h), h))
    found = {}
    for word in words:
        head = next((h for h in ordered if word.endswith(h) and len(word[:-len(h)].rstrip("-")) >= 3), None)
        if head is not None and fold(word) not in PRODUCT_WORDS:
            found[word] = head
    return found


def _names_product(key: tuple[str, ...]) -> bool:
    """Whether a type's product word (its last, or the one before a generic word or a particle: ``Shorts Set``) is a
    product noun."""
    head = key[0] if len(key) == 2 and key[1] in GENERIC | _PARTICLES else key[-1]
    return fold(head) in PRODUCT_WORDS


#: Two-word products that are no kind of their last word's (a ``Key Chain`` is no chain, a ``Bow Tie`` no tie), as
#: ``(first word, folded last word)``: a type of their own wherever enough names end in them, however many more
#: end in the last word alone (a jewellery shop's ``Silver Chain`` necklaces beside its few ``Key Chain``).
_TWO_WORD_PRODUCTS = frozenset({("key", "chain"), ("key", "ring"), ("phone", "case"), ("watch", "strap"),
                                *((first, fold(last)) for first, last in (t.split() for t in PRODUCT_TERMS if t.count(" ") == 1))})


def _is_compound(before: str, word: str, pairs: Counter, last: Counter, occasioned: Counter, least: int) -> bool:
    if word in _PARTICLES or (before, word) in _TWO_WORD_PRODUCTS:
        return pairs[before, word] >= least
    if before in _MODIFIERS or len(before) < 3 or word in _NO_LAST_WORD - GENERIC or pairs[before, word] < least:
        return False
    if word in GENERIC:
        return True
    if before in _OCCASIONS:  # Myntra's shoes: casual, sports or formal in 55% of them; never "Casual Watch" (2%)
        return occasioned[word] >= last[word] / 3
    return pairs[before, word] >= 0.6 * last[word]


def types_at_start_of_names(names: list[str], brands: frozenset[str] = frozenset()) -> tuple[dict[str, int], dict[str, str], float]:
    """The types names of a language that puts the noun first start with (a Mercado Livre ``Tênis Olympikus Esporte
    Valente``, a Dafiti ``Camiseta Reserva Chuva Branca``): each first word that starts one name in 100 or more (and
    three), its spellings in other cases or without accents (``Tenis``) taken as one, written as the commonest, with
    how many names start with it; no colour, gender or small word, and none of ``brands`` (in lower case). Also each
    other spelling -> its type, and the share of the names that start with a type. Read where names end in no type."""
    first = [re.match(r"\s*([^\W\d_][\w'-]*)", without_leading_badge(name)) for name in names]
    words = [m.group(1) for m in first if m]
    least = max(3, round(len(names) / 100))
    spellings: dict[str, Counter] = defaultdict(Counter)
    for word in words:
        spellings[_plain_letters(word)][word] += 1
    kept = {max(c, key=lambda w: (c[w], w)): c for key, c in spellings.items()  # two letters with an accent: Vietnamese Áo
            if c.total() >= least and key not in _NO_TYPE_PLAIN and key not in brands and (len(key) > 2 or not max(c).isascii())}
    plain = {_plain_letters(t): t for t in kept}
    heads = compound_heads((key for key in spellings if key not in plain and key not in brands), plain)
    for word, head in heads.items():  # a compound of a type is read as the type, counted with it
        kept[plain[head]] = kept[plain[head]] + spellings[word]
    types = dict(sorted(((t, c.total()) for t, c in kept.items()), key=lambda pair: (-pair[1], pair[0])))
    others = {w: t for t, c in kept.items() for w in sorted(c) if w.casefold() != t.casefold()}
    return types, others, sum(types.values()) / max(len(names), 1)


def _plain_letters(word: str) -> str:
    """``word`` in lower case without accents (``Tênis``: ``tenis``)."""
    return unicodedata.normalize("NFKD", word.casefold()).encode("ascii", "ignore").decode() or word.casefold()


#: :data:`NO_TYPE_WORDS` as the names' first words are compared (:func:`_plain_letters`: ``thời`` as ``thoi``).
_NO_TYPE_PLAIN = frozenset(_plain_letters(w) for w in NO_TYPE_WORDS)
