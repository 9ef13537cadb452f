"""Surface forms of catalog values: how a shopper writes them, shared by the verbalizer and the parser.

Every table maps a canonical catalog value to its spellings. The verbalizer writes one of them; the
lexicon parser reads all of them back to the canonical value, so the two agree by construction on the
wording the verbalizer uses and the parser also understands common shopper synonyms.
"""

from __future__ import annotations

import re

from fashionrq.catalog.schema import GENDER_SYNONYMS
from fashionrq.vocab import PRICE_TIER_BOUNDS, PRICE_TIERS

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
}
#: Shopper words naming several catalog types at once.
TYPE_SYNONYMS: dict[str, tuple[str, ...]] = {
    "sneakers": ("Casual Shoes", "Sports Shoes"),
    "sneaker": ("Casual Shoes", "Sports Shoes"),
    "footwear for sports": ("Sports Shoes", "Sports Sandals"),
    "innerwear": ("Innerwear",),
}
_MASS_WORDS = frozenset({
    "polish", "care", "wash", "scrub", "gel", "cleanser", "primer", "blush", "remover", "mist", "wear",
    "innerwear", "swimwear", "shapewear", "nightwear", "mascara", "toner", "sunscreen", "concealer", "colour", "cream",
    "peel", "dupatta", "salwar", "churidar", "patiala", "choli", "gloss", "plumper", "exfoliator", "equipment",
    "furnishing", "jewellery", "makeup", "eyewear", "headwear", "bottomwear", "topwear", "footwear", "apparel",
    "lotion", "serum",
})


def _plural(word: str) -> str:
    if word.endswith("s") or word in _MASS_WORDS:
        return word
    if word.endswith(("ch", "sh", "x")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "o", "u"):
        return word[:-1] + "ies"
    return word + "s"


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def type_forms(value: str) -> tuple[str, ...]:
    """Spellings of a product-type value, preferred first: its table entry, else the lower-cased plural."""
    if value in TYPE_FORMS:
        return TYPE_FORMS[value]
    text = " ".join(value.lower().split())
    words = text.split(" ")
    if " and " in text:
        return (text,)
    plural = " ".join(words[:-1] + [_plural(words[-1])])
    singular = " ".join(words[:-1] + [_singular(words[-1])])
    return tuple(dict.fromkeys((plural, text, singular)))


def type_display(values) -> str:
    """"shirts", "shirts or t-shirts", "shirts, tops or t-shirts"."""
    names = [type_forms(v)[0] for v in values]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


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
}
MATERIAL_FORMS: dict[str, tuple[str, ...]] = {
    "Viscose Rayon": ("viscose", "rayon", "viscose rayon"),
    "Microfiber": ("microfiber", "microfibre"),
    "Wool": ("wool", "woollen", "woolen"),
    "Blended": ("blended-fabric", "blended fabric", "blended"),
}


def _default_forms(value: str) -> tuple[str, ...]:
    return (" ".join(value.lower().split()),)


def colour_forms(value: str) -> tuple[str, ...]:
    return COLOUR_FORMS.get(value, _default_forms(value))


def pattern_forms(value: str) -> tuple[str, ...]:
    return PATTERN_FORMS.get(value, _default_forms(value))


def material_forms(value: str) -> tuple[str, ...]:
    return MATERIAL_FORMS.get(value, _default_forms(value))


# ---- gender and age ------------------------------------------------------------------------------------
#: gender -> (words before the noun, phrases after it)
GENDER_FORMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Men": (("men's", "mens"), ("for men", "for him", "for guys")),
    "Women": (("women's", "ladies'", "womens"), ("for women", "for her", "for ladies")),
    "Boys": (("boys'",), ("for boys",)),
    "Girls": (("girls'",), ("for girls",)),
    "Unisex": (("unisex",), ()),
}
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
LOW, HIGH = PRICE_TIER_BOUNDS
#: asserted tier set -> (adjectives, trailing phrases)
PRICE_FORMS: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ("budget",): (("budget", "affordable", "cheap"), (f"under ₹{LOW:,.0f}", f"below Rs. {LOW:.0f}", f"under {LOW:.0f} rupees")),
    ("mid-range",): (("mid-range",), (f"between ₹{LOW:,.0f} and ₹{HIGH:,.0f}", f"in the ₹{LOW:,.0f}-{HIGH:,.0f} range")),
    ("premium",): (("premium", "luxury", "high-end"), (f"over ₹{HIGH:,.0f}", f"above Rs. {HIGH:.0f}")),
    ("budget", "mid-range"): ((), (f"under ₹{HIGH:,.0f}", f"below Rs. {HIGH:.0f}")),
    ("mid-range", "premium"): ((), (f"over ₹{LOW:,.0f}", f"above Rs. {LOW:.0f}")),
}
PRICE_WORDS: tuple[str, ...] = (
    "budget", "cheap", "affordable", "inexpensive", "low-cost", "low cost", "economy", "mid-range", "mid range",
    "midrange", "mid-priced", "mid priced", "premium", "luxury", "expensive", "high-end", "high end",
)
_AMOUNT = r"(?:₹|rs\.?|inr)?\s*(\d[\d,]*)\s*(?:rupees|rs|inr|/-)?"
PRICE_UNDER = re.compile(r"\b(?:under|below|less than|within|upto|up to|max|at most|cheaper than)\s*" + _AMOUNT)
PRICE_OVER = re.compile(r"\b(?:over|above|more than|at least|from)\s*" + _AMOUNT)
PRICE_BETWEEN = re.compile(r"\bbetween\s*" + _AMOUNT + r"\s*(?:and|-|to)\s*" + _AMOUNT
                           + r"|" + r"(?:₹|rs\.?)\s*(\d[\d,]*)\s*(?:-|–|to)\s*(?:₹|rs\.?)?\s*(\d[\d,]*)")
#: tier -> [low, high) price interval (the tiers are budget < LOW <= mid-range <= HIGH < premium)
TIER_RANGES = dict(zip(PRICE_TIERS, ((0.0, LOW), (LOW, HIGH), (HIGH, float("inf")))))


def tiers_under(amount: float) -> list[str]:
    return [t for t, (lo, _) in TIER_RANGES.items() if lo < amount]


def tiers_over(amount: float) -> list[str]:
    return [t for t, (_, hi) in TIER_RANGES.items() if hi > amount]


def tiers_between(low: float, high: float) -> list[str]:
    return [t for t, (lo, hi) in TIER_RANGES.items() if lo < high and hi > low]
