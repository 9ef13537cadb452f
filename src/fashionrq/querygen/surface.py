"""Surface forms of catalog values: how a shopper writes them, shared by the verbalizer and the parser.

Every table maps a canonical catalog value to its spellings. The verbalizer writes one of them; the
lexicon parser reads all of them back to the canonical value, so the two agree by construction on the
wording the verbalizer uses and the parser also understands common shopper synonyms.
"""

from __future__ import annotations

import re

from fashionrq.catalog.name_types import PRODUCT_WORDS, fold
from fashionrq.catalog.prices import CODES_THAT_ARE_WORDS, CURRENCY_MARKS
from fashionrq.catalog.schema import GENDER_SYNONYMS
from fashionrq.catalog.tiers import PriceTiers, format_amount
from fashionrq.colour import COLOURS

# ---- product types -------------------------------------------------------------------------------------
#: Article/sub/master category -> spellings, preferred first (plural, lower-case).
TYPE_FORMS: dict[str, tuple[str, ...]] = {
    "Tshirts": ("t-shirts", "tees", "tshirts", "t shirts", "t-shirt", "tee", "tshirt", "jerseys", "jersey"),
    "Lounge Tshirts": ("lounge t-shirts", "lounge tees", "lounge tshirts"),
    "Shirts": ("shirts", "shirt"),
    "Tops": ("tops", "top"),
    "Bra": ("bras", "bra"),
    "Trunk": ("trunks", "trunk"),
    "Casual Shoes": ("casual shoes", "casual shoe"),
    "Sports Shoes": ("sports shoes", "sport shoes", "running shoes", "trainers", "sports shoe"),
    "Formal Shoes": ("formal shoes", "dress shoes", "formal shoe"),
    "Flip Flops": ("flip flops", "flip-flops", "slippers", "chappals", "flip flop"),
    "Heels": ("heels", "high heels", "pumps"),
    "Flats": ("flats", "ballerinas", "ballet flats"),
    "Sunglasses": ("sunglasses", "shades", "sunglass"),
    "Watches": ("watches", "watch", "wristwatches"),
    "Handbags": ("handbags", "handbag", "purses", "purse"),
    "Track Pants": ("track pants", "trackpants", "joggers", "track pant"),
    "Trousers": ("trousers", "pants", "chinos", "trouser"),
    "Jeans": ("jeans", "denims"),
    "Sarees": ("sarees", "saree", "sari", "saris"),
    "Deodorant": ("deodorants", "deos", "deodorant", "deo"),
    "Perfume and Body Mist": ("perfumes and body mists", "perfume and body mist", "perfumes", "perfume", "body mists", "body mist"),
    "Fragrance Gift Set": ("fragrance gift sets", "perfume gift sets", "fragrance gift set", "perfume gift set"),
    "Accessory Gift Set": ("accessory gift sets", "accessory gift set"),
    "Nail Polish": ("nail polish", "nail polishes", "nail paint", "nail paints"),
    "Kajal and Eyeliner": ("kajal and eyeliner", "kajal", "eyeliner", "eyeliners", "eye liner", "eye liners"),
    "Necklace and Chains": ("necklaces and chains", "necklaces", "necklace", "chains"),
    "Innerwear Vests": ("innerwear vests", "vests", "vest"),
    "Key chain": ("key chains", "keychains", "key chain", "keychain"),
    "Night suits": ("night suits", "night suit", "pyjama sets"),
    "Free Gifts": ("free gifts", "free gift"),
    "Dresses": ("dresses", "dress"),
    "Kurtas": ("kurtas", "kurta"),
    "Kurtis": ("kurtis", "kurti"),
    "Sweatshirts": ("sweatshirts", "sweatshirt"),
    "Clothing Set": ("clothing sets", "clothing set", "outfit sets"),
    # sub-categories and master categories
    "Topwear": ("topwear",),
    "Bottomwear": ("bottomwear",),
    "Shoes": ("shoes", "shoe"),
    "Bags": ("bags", "bag"),
    "Jewellery": ("jewellery", "jewelry"),
    "Eyewear": ("eyewear",),
    "Innerwear": ("innerwear", "underwear"),
    "Loungewear and Nightwear": ("loungewear and nightwear", "loungewear", "nightwear", "sleepwear"),
    "Headwear": ("headwear",),
    "Fragrance": ("fragrances", "fragrance"),
    "Lips": ("lip makeup", "lip products"),
    "Eyes": ("eye makeup",),
    "Nails": ("nail products",),
    "Makeup": ("makeup", "make-up"),
    "Skin Care": ("skincare", "skin care"),
    "Skin": ("skin care products",),
    "Hair": ("hair care", "hair products"),
    "Bath and Body": ("bath and body products", "bath and body"),
    "Apparel": ("clothing", "clothes", "apparel"),
    "Footwear": ("footwear",),
    "Accessories": ("accessories",),
    "Personal Care": ("personal care products", "personal care", "grooming products"),
    "Sporting Goods": ("sporting goods", "sports gear"),
    "Free Items": ("free items",),
    # H&M's product groups and garment groups (articles.csv), said as a shopper would
    "Garment Upper body": ("tops", "upper-body garments", "upper body garments"),
    "Garment Lower body": ("bottoms", "lower-body garments", "lower body garments"),
    "Garment Full body": ("dresses and jumpsuits", "full-body garments", "one-pieces"),
    "Under-, Nightwear": ("underwear and nightwear", "underwear", "nightwear"),
    "Jersey Basic": ("basic jersey tops", "jersey basics"),
    "Jersey Fancy": ("fancy jersey tops", "jersey tops"),
    "Trousers Denim": ("denim trousers", "denims"),
    "Dresses Ladies": ("dresses", "ladies' dresses"),
    "Dresses/Skirts girls": ("girls' dresses and skirts", "girls' dresses", "girls' skirts"),
    "Woven/Jersey/Knitted mix Baby": ("baby clothes", "babywear"),
    "Outdoor": ("outerwear", "outdoor wear", "outdoor clothing"),
    "Dressed": ("tailoring", "formal wear", "tailored clothes"),
    "Fun": ("toys", "fun items"),
}
#: Shopper words naming several catalog types at once.
TYPE_SYNONYMS: dict[str, tuple[str, ...]] = {
    "sneakers": ("Casual Shoes", "Sports Shoes"),
    "sneaker": ("Casual Shoes", "Sports Shoes"),
    "footwear for sports": ("Sports Shoes", "Sports Sandals"),
    "innerwear": ("Innerwear",),
}
#: Words a shopper never pluralises (besides every "...wear": footwear, innerwear, sportswear).
_MASS_WORDS = frozenset({
    "polish", "care", "wash", "scrub", "gel", "cleanser", "primer", "blush", "remover", "mist", "mascara", "toner",
    "sunscreen", "concealer", "colour", "cream", "peel", "dupatta", "salwar", "churidar", "patiala", "choli", "gloss",
    "plumper", "exfoliator", "equipment", "furnishing", "jewellery", "jewelry", "makeup", "apparel", "clothing",
    "lingerie", "hosiery", "luggage", "merchandise", "lotion", "serum", "furniture", "stationery",
})


#: Nouns whose plural ends in "ves" (``scarf``: ``scarves``, never ``scarfs``; ``Scarves``: ``scarf``, never ``scarve``).
_VES_PLURALS = {"scarf": "scarves", "knife": "knives", "leaf": "leaves", "half": "halves", "shelf": "shelves", "life": "lives",
                "wife": "wives", "wolf": "wolves", "calf": "calves", "loaf": "loaves", "thief": "thieves", "elf": "elves"}
_VES_SINGULARS = {plural: singular for singular, plural in _VES_PLURALS.items()}


def _english_inflects(word: str) -> bool:
    """Whether English endings fit ``word``: one written in the letters a to z (a catalog's ``Куртка`` or ``ジャケット``
    is said as written, never ``курткаs``, and so are ``Tênis``, ``Botín`` and ``Gömlek``, never ``têni`` or
    ``botíns``)."""
    return all(ch.isascii() for ch in word if ch.isalpha())


def _plural(word: str) -> str:
    if word in _MASS_WORDS or not _english_inflects(word):
        return word
    if word in _VES_PLURALS:
        return _VES_PLURALS[word]
    if word.endswith(("ss", "ch", "sh", "x")):
        return word + "es"
    if word.endswith(("s", "wear")):
        return word
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "o", "u"):
        return word[:-1] + "ies"
    return word + "s"


def _singular(word: str) -> str:
    if not _english_inflects(word):
        return word
    if word in _VES_SINGULARS:
        return _VES_SINGULARS[word]
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def says_a_colour(text: str) -> bool:
    """Whether ``text`` (a brand) is a colour's name or holds one as a word (``Off-White``, ``Red Tape``, ``Indigo
    Nation``): said before a colour, it would read as one ("Red Tape brown casual shoes")."""
    words = re.split(r"[\s-]+", text.strip().casefold())
    return " ".join(words) in COLOURS or any(word in COLOURS for word in words)


def same_word(a: str, b: str) -> bool:
    """Whether two words are one word in another case or number (``Fragrances``, ``fragrance``)."""
    return _singular(a.lower()) == _singular(b.lower())


def _noun_forms(text: str, english: bool = True) -> tuple[str, ...]:
    """(plural, as written, singular) of a lower-cased type name (its last word inflected); where the catalog's names
    are not ``english`` (:mod:`fashionrq.catalog.language`), only a name of English product nouns alone is inflected
    (``T-Shirt``: "t-shirts"; an About You scrape's ``Hemd`` and ``Hose``, a Tokopedia one's ``Kalung`` and ``Sepatu
    Sandal``, whose head comes first, as written: never "hemds", "hoses", "kalungs" or "sepatu sandals")."""
    words = text.split(" ")
    if not (english or all(fold(word) in PRODUCT_WORDS for word in words)):
        return (text,)
    plural = " ".join(words[:-1] + [_plural(words[-1])])
    singular = " ".join(words[:-1] + [_singular(words[-1])])
    return tuple(dict.fromkeys((plural, text, singular)))


def said_list(names, joiner: str = " or ") -> str:
    """"a", "a or b", "a, b or c" (``joiner`` before the last)."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + joiner + names[-1]


def _slash_parts(text: str) -> list[str]:
    """The non-empty parts of a lower-cased value between its slashes ("hat/beanie" → hat, beanie; "tops/" → tops)."""
    return [" ".join(p.split()) for p in text.split("/") if p.strip()]


def _listed_types(text: str) -> list[str]:
    """The types a lower-cased category name lists between ampersands and commas, each as written (a resale store's
    "jackets & coats", "purses, wallets & cases", "hats & pull on hats"); none for a name that lists none."""
    listed = [" ".join(p.split()) for p in re.split(r"\s+&\s+|\s*,\s+", text) if p.strip()]
    return listed if len(listed) > 1 else []


def _alternatives(parts: list[str]) -> list[str]:
    """The types a slashed name lists (its :func:`_slash_parts`), as a shopper names them: "hat/beanie" → hat, beanie;
    a shared head noun spelt out ("weekend/gym bag" → weekend bag, gym bag); an adjective put first ("cap/peaked" →
    peaked cap)."""
    first, last = parts[0].split(" "), parts[-1].split(" ")
    if len(parts) == 2 and len(first) == 1 and len(last) == 1 and last[0].endswith("ed"):
        return [f"{last[0]} {first[0]}"]
    if len(parts) == 2 and len(first) == 1 and len(last) > 1:
        return [f"{first[0]} {last[-1]}", parts[1]]
    return parts


def type_forms(value: str, english: bool = True) -> tuple[str, ...]:
    """Spellings of a product-type value, preferred first: its table entry, else the lower-cased plural; a slashed
    name ("Hat/beanie", H&M's product types) reads "hats or beanies", as does a store's list ("Jackets & Coats":
    "jackets or coats"), and each alternative is a spelling too. In a
    catalog whose names are not ``english``, a type whose last word is no English product noun is said as written."""
    if value in TYPE_FORMS:
        return TYPE_FORMS[value]
    text = " ".join(value.lower().split())
    if " and " in text:
        return (text,)
    if text.startswith("other ") and "/" not in text:  # H&M's "Other shoe": "shoes", not "other shoes"
        return tuple(dict.fromkeys((*_noun_forms(text[len("other "):], english), *_noun_forms(text, english))))
    listed = _listed_types(text)
    parts = listed or _slash_parts(text)
    if len(parts) < 2:
        return _noun_forms(parts[0] if parts else text, english)
    names = [_noun_forms(name, english) for name in listed or _alternatives(parts)]
    return tuple(dict.fromkeys((said_list(n[0] for n in names), *(form for forms in names for form in forms), text)))


def type_display(values, english: bool = True) -> str:
    """"shirts", "shirts or t-shirts", "shirts, tops or t-shirts"; two types said alike ("Shirt" and "Shirts") once."""
    return said_list(dict.fromkeys(type_forms(v, english)[0] for v in values))


# ---- colours, patterns, materials ----------------------------------------------------------------------
COLOUR_FORMS: dict[str, tuple[str, ...]] = {
    "Navy Blue": ("navy", "navy blue"),
    "Grey": ("grey", "gray"),
    "Grey Melange": ("grey melange", "gray melange"),
    "Off White": ("off-white", "off white"),
    "Multi": ("multicoloured", "multicolour", "multicolor", "multi-coloured", "multicolored"),
    "Turquoise Blue": ("turquoise", "turquoise blue"),
    "Skin": ("skin-coloured", "skin-tone"),
    "Olive": ("olive", "olive green"),
    "Mustard": ("mustard", "mustard yellow"),
    "Charcoal": ("charcoal", "charcoal grey"),
    "Coffee Brown": ("coffee brown", "coffee"),
    "Gold": ("gold", "golden"),
}
PATTERN_FORMS: dict[str, tuple[str, ...]] = {
    "Solid": ("solid", "plain", "solid-colour"),
    "Printed": ("printed", "print"),
    "Striped": ("striped", "stripes", "stripe"),
    "Checked": ("checked", "check", "checks", "checkered"),
    "Self Design": ("self-design", "self design"),
    "Colourblocked": ("colourblocked", "colour-block", "colorblock", "colour block"),
    "Woven Design": ("woven", "woven design"),
    # H&M's graphical appearances
    "Stripe": ("striped", "stripe"),
    "Check": ("checked", "check"),
    "All over pattern": ("all-over print", "all over pattern", "all-over pattern"),
    "Other pattern": ("patterned", "other pattern"),
    "Other structure": ("textured", "other structure"),
    "Dot": ("polka-dot", "dotted", "dot"),
    "Front print": ("front-print", "front print"),
    "Placement print": ("placement-print", "placement print"),
    "Kids print": ("kids-print", "kids print"),
    "Colour blocking": ("colour-block", "colour blocking"),
    "Embroidery": ("embroidered", "embroidery"),
    "Sequin": ("sequinned", "sequin"),
    "Application/3D": ("appliqué", "applique", "application/3d"),
    "Mixed solid/pattern": ("part-patterned", "mixed solid/pattern"),
    "Treatment": ("washed", "treated", "treatment"),
}
MATERIAL_FORMS: dict[str, tuple[str, ...]] = {
    "Viscose Rayon": ("viscose", "rayon", "viscose rayon"),
    "Microfiber": ("microfiber", "microfibre"),
    "Wool": ("wool", "woollen", "woolen"),
    "Blended": ("blended-fabric", "blended fabric", "blended"),
}


def _default_forms(value: str, joiner: str = " or ") -> tuple[str, ...]:
    """The lower-cased value; a slashed one (H&M's "Bronze/Copper" and "Glittering/Metallic", a feed's "Black/White",
    "Cotton/Polyester") said with ``joiner`` first ("bronze or copper", "cotton and polyester"), then as written."""
    text = " ".join(value.lower().split())
    parts = _slash_parts(text)
    if len(parts) < 2:
        return (parts[0] if parts else text,)
    return (said_list(parts, joiner), text)


def colour_forms(value: str) -> tuple[str, ...]:
    return COLOUR_FORMS.get(value, _default_forms(value))


def pattern_forms(value: str) -> tuple[str, ...]:
    return PATTERN_FORMS.get(value, _default_forms(value))


def material_forms(value: str) -> tuple[str, ...]:
    return MATERIAL_FORMS.get(value, _default_forms(value, " and "))  # "Cotton/Polyester": a blend of both


# ---- gender and age ------------------------------------------------------------------------------------
#: gender -> (words before the noun, phrases after it)
GENDER_FORMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Men": (("men's", "mens"), ("for men", "for him", "for guys")),
    "Women": (("women's", "ladies'", "womens"), ("for women", "for her", "for ladies")),
    "Boys": (("boys'",), ("for boys",)),
    "Girls": (("girls'",), ("for girls",)),
    "Unisex": (("unisex",), ()),
}


def gender_forms(value: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words before a noun and the phrases after it that say the gender ``value`` (a value the table lacks: its
    own word before the noun, though the verbalizer states no such value: an LLM's query may)."""
    return GENDER_FORMS.get(value, ((value.lower(),), ()))


AGE_FORMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "kids": (("kids'", "children's"), ("for kids", "for children")),
    "toddler": (("toddler",), ("for toddlers",)),
    "baby": (("baby",), ("for babies",)),
}
#: Extra shopper spellings the parser reads (verbalizer never writes them): the catalog's gender synonyms
#: that are words (not "m", "f", "all"), plus a few more.
GENDER_WORDS = {**{k: v for k, v in GENDER_SYNONYMS.items() if len(k) >= 3 and k != "all"},
                "gents": "Men", "guys": "Men", "boy's": "Boys", "girl's": "Girls"}
AGE_WORDS = {"kids": "kids", "kidswear": "kids", "kid's": "kids", "children": "kids", "child": "kids", "teens": "kids",
             "toddlers": "toddler", "babies": "baby", "infant": "baby", "infants": "baby", "adults": "adult",
             "adult": "adult"}

# ---- occasion and style --------------------------------------------------------------------------------
#: occasion -> (adjectives before the noun, phrases after it)
OCCASION_FORMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Casual": (("casual", "everyday"), ("for everyday wear", "for daily wear")),
    "Formal": (("formal", "office"), ("for the office", "for work")),
    "Sports": (("sporty", "workout"), ("for sports", "for the gym", "for workouts")),
    "Ethnic": (("ethnic", "traditional"), ()),
    "Party": (("party",), ("for a party", "for a night out")),
    "Smart Casual": (("smart casual",), ()),
    "Travel": (("travel",), ("for travel", "for a trip")),
    "Home": ((), ("for home", "for lounging at home")),
    "Festive": (("festive",), ("for festivals",)),
    "Outdoor": (("outdoor",), ("for the outdoors",)),
}
#: style tag -> (adjectives before the noun, phrases after it)
STYLE_FORMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Slim Fit": (("slim fit", "slim-fit"), ()),
    "Regular Fit": (("regular fit", "regular-fit"), ()),
    "Skinny Fit": (("skinny fit", "skinny"), ()),
    "Loose Fit": (("loose fit", "loose-fit"), ()),
    "Short Sleeves": (("short sleeve", "half sleeve"), ("with short sleeves", "with half sleeves")),
    "Long Sleeves": (("long sleeve", "full sleeve"), ("with long sleeves", "with full sleeves")),
    "Three-Quarter Sleeves": (("3/4 sleeve",), ("with three-quarter sleeves", "with 3/4 sleeves")),
    "Sleeveless": (("sleeveless",), ()),
    "Round Neck": (("round neck", "crew neck"), ("with a round neck", "with a crew neck")),
    "V-Neck": (("v-neck", "v neck"), ("with a v-neck",)),
    "Polo Collar": (("polo",), ("with a polo collar",)),
}


def adj_tail_forms(table: dict, value: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(adjective forms, trailing phrases) of an occasion or style value; unknown values get ``value``."""
    if value in table:
        return table[value]
    text = " ".join(value.lower().split())
    return (text,), ("with " + text,) if table is STYLE_FORMS else ("for " + text,)


# ---- price ---------------------------------------------------------------------------------------------
#: currency -> (sign written before an amount, a second sign for variety, the currency's word in the plural).
CURRENCY_FORMS: dict[str, tuple[str, str, str]] = {
    "INR": ("₹", "Rs. ", "rupees"), "USD": ("$", "$", "dollars"), "EUR": ("€", "€", "euros"), "GBP": ("£", "£", "pounds"),
    "JPY": ("¥", "¥", "yen"), "CNY": ("¥", "¥", "yuan"), "AUD": ("$", "A$", "dollars"), "CAD": ("$", "C$", "dollars"),
    "NZD": ("$", "$", "dollars"), "SGD": ("$", "S$", "dollars"), "HKD": ("$", "HK$", "dollars"),
    "MXN": ("$", "$", "pesos"), "BRL": ("R$", "R$", "reais"), "CHF": ("CHF ", "CHF ", "francs"),
    "SEK": ("kr ", "SEK ", "kronor"), "NOK": ("kr ", "NOK ", "kroner"), "DKK": ("kr ", "DKK ", "kroner"),
    "TRY": ("₺", "₺", "lira"), "RUB": ("₽", "RUB ", "rubles"), "PLN": ("PLN ", "PLN ", "złoty"), "THB": ("฿", "THB ", "baht"),
    "IDR": ("Rp ", "Rp ", "rupiah"), "MYR": ("RM ", "RM ", "ringgit"), "PHP": ("₱", "PHP ", "pesos"),
    "ILS": ("₪", "ILS ", "shekels"), "IRR": ("IRR ", "IRR ", "rials"), "AED": ("AED ", "AED ", "dirhams"),
    "SAR": ("SAR ", "SAR ", "riyals"), "ZAR": ("ZAR ", "ZAR ", "rand"), "CZK": ("CZK ", "CZK ", "koruna"),
    "KRW": ("₩", "KRW ", "won"), "VND": ("₫", "VND ", "dong"), "UAH": ("₴", "UAH ", "hryvnias"), "NGN": ("₦", "NGN ", "naira"),
    "KZT": ("₸", "KZT ", "tenge"), "BDT": ("৳", "BDT ", "taka"), "PKR": ("Rs ", "PKR ", "rupees"), "TWD": ("NT$", "NT$", "dollars"),
    "EGP": ("EGP ", "EGP ", "pounds"), "HUF": ("HUF ", "HUF ", "forints"), "RON": ("RON ", "RON ", "lei"),
}
#: tier set -> the adjectives the verbalizer writes for it (a two-tier range is only written as an amount)
PRICE_ADJECTIVES: dict[tuple[str, ...], tuple[str, ...]] = {
    ("budget",): ("budget", "affordable", "cheap"), ("mid-range",): ("mid-range",), ("premium",): ("premium", "luxury", "high-end"),
    ("budget", "mid-range"): (), ("mid-range", "premium"): (),
}
PRICE_WORDS: tuple[str, ...] = (
    "budget", "cheap", "affordable", "inexpensive", "low-cost", "low cost", "economy", "mid-range", "mid range",
    "midrange", "mid-priced", "mid priced", "premium", "luxury", "expensive", "high-end", "high end",
)


def currency_forms(currency: str) -> tuple[str, str, str]:
    """(sign, second sign, word) of a currency; one without an entry is written with its ISO code."""
    return CURRENCY_FORMS.get(currency, (currency + " ", currency + " ", currency))


def price_forms(tiers: PriceTiers) -> dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]]:
    """Asserted tier set -> (adjectives, trailing phrases) for a catalog's tiers: the phrases name its bounds in its
    currency ("under $10", "between ₹800 and ₹1,500"), each as the tiers hold them: a budget price is under the low
    bound and a premium one over the high bound, but mid-range holds both bounds, so a range of two tiers says "up to
    ₹1,500" and "at least ₹800", never "under ₹1,500" for an item of ₹1,500; without tiers only adjectives remain."""
    if tiers.bounds is None:
        return {key: (adjs, ()) for key, adjs in PRICE_ADJECTIVES.items()}
    sign, second, word = currency_forms(tiers.currency)
    low, high = (format_amount(b) for b in tiers.bounds)
    tails = {
        ("budget",): (f"under {sign}{low}", f"below {second}{low}", f"under {low} {word}"),
        ("mid-range",): (f"between {sign}{low} and {sign}{high}", f"in the {sign}{low}-{high} range"),
        ("premium",): (f"over {sign}{high}", f"above {second}{high}"),
        ("budget", "mid-range"): (f"up to {sign}{high}", f"at most {second}{high}"),
        ("mid-range", "premium"): (f"from {sign}{low} up", f"at least {second}{low}"),
    }
    return {key: (adjs, tails[key]) for key, adjs in PRICE_ADJECTIVES.items()}


def _money_marks() -> dict[str, frozenset[str]]:
    """Every currency sign, code and word a shopper may write beside an amount (lower-case) -> the currencies it can
    mean: the price-cell marks of :mod:`fashionrq.catalog.prices`, the signs and words above, and India's ``/-``."""
    words = {code.lower() for code in CODES_THAT_ARE_WORDS}  # "tops under 500 all cotton": no Albanian lek
    marks: dict[str, set[str]] = {mark: set(codes) for mark, codes in CURRENCY_MARKS.items() if mark not in words}
    for code, (sign, second, word) in CURRENCY_FORMS.items():
        for mark in (sign.strip().lower(), second.strip().lower(), word, word.removesuffix("s")):
            marks.setdefault(mark, set()).add(code)
    marks.setdefault("/-", set()).add("INR")
    return {mark: frozenset(codes) for mark, codes in marks.items()}


MONEY_MARKS = _money_marks()
_MARK = "|".join(re.escape(m) for m in sorted(MONEY_MARKS, key=lambda m: (-len(m), m)))


def _amount(i: int, marked: bool = False) -> str:
    """An amount with an optional sign or code before it and word or code after it (groups ``pre<i>``, ``num<i>``,
    ``post<i>``); ``marked``: the sign before it is required."""
    pre = rf"(?P<pre{i}>{_MARK})\s*" if marked else rf"(?:(?P<pre{i}>{_MARK})\s*)?"
    return pre + rf"(?P<num{i}>\d[\d,]*(?:\.\d+)?)(?:\s*(?P<post{i}>{_MARK})(?![a-z'’]))?"  # "800 won't": no won


PRICE_UNDER = re.compile(r"\b(?:under|below|less than|within|upto|up to|max|at most|cheaper than)\s*" + _amount(1))
PRICE_OVER = re.compile(r"\b(?:over|above|more than|at least|from)\s*" + _amount(1))
PRICE_BETWEEN = re.compile(r"\bbetween\s*" + _amount(1) + r"\s*(?:and|-|–|to)\s*" + _amount(2))
PRICE_SPAN = re.compile(r"(?<![a-z0-9])" + _amount(1, marked=True) + r"\s*(?:-|–|to)\s*" + _amount(2))  # "₹800-1,500"


def written_amount(match: re.Match, i: int, currency: str) -> float | None:
    """Amount ``i`` of a price match, or ``None`` when a sign or word beside it names another currency than ``currency``."""
    marks = (match.group(f"pre{i}"), match.group(f"post{i}"))
    if any(mark and currency not in MONEY_MARKS[mark] for mark in marks):
        return None
    return float(match.group(f"num{i}").replace(",", ""))
