"""The fashion terms fashionrq knows, in lower case: patterns, materials, occasions, and styles, fits and cuts. The φ(q)
parser and relevance read them through :mod:`fashionrq.vocab`; the mapping draft reads them here, below the catalog
(a pattern, material or fit word before a product word in a name is not part of the type)."""

from __future__ import annotations

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

#: Product nouns, singular, as shoppers and catalogs name products (the mapping draft tells a column of product types
#: by them when the names do not end in one: Zara's ``terms``, ``jackets``, beside ``BASIC PUFFER``; and a type it
#: reads from the ends of names needs fewer names when its last word is one of them).
PRODUCT_TERMS: tuple[str, ...] = (
    "shirt", "t-shirt", "tshirt", "tee", "top", "blouse", "tank", "camisole", "tunic", "polo", "sweater", "jumper",
    "cardigan", "pullover", "hoodie", "sweatshirt", "jacket", "coat", "parka", "blazer", "vest", "waistcoat", "gilet",
    "shrug", "dress", "gown", "skirt", "jean", "jeans", "trouser", "trousers", "pant", "pants", "chino", "jogger",
    "legging", "jegging", "capri", "short", "shorts", "jumpsuit", "playsuit", "romper", "dungaree", "overall", "suit",
    "tracksuit", "kurta", "kurti", "saree", "sari", "dupatta", "lehenga", "salwar", "churidar", "sherwani", "shoe",
    "sneaker", "trainer", "boot", "sandal", "heel", "flat", "pump", "loafer", "moccasin", "slipper", "flip flop",
    "mule", "clog", "espadrille", "cleat", "slide", "bootie", "shootie", "oxford", "derby", "brogue", "slingback",
    "slip-on", "slip", "floater", "wedge", "jersey", "bag", "handbag", "backpack", "rucksack", "wallet",
    "purse", "pouch", "clutch", "tote", "belt", "cap", "hat", "beanie", "headband", "wristband", "scarf", "scarves",
    "stole", "muffler", "glove", "sock", "stocking", "tights", "suspender", "tie", "bow tie", "watch", "sunglass",
    "sunglasses", "umbrella", "jewellery", "jewelry", "earring", "necklace", "chain", "bracelet", "ring", "pendant",
    "bangle", "brooch", "cufflink", "bra", "brief", "boxer", "trunk", "panty", "lingerie", "shapewear", "bodysuit",
    "swimsuit", "bikini", "swimwear", "pyjama", "pajama", "nightdress", "nightsuit", "robe", "skort", "kaftan",
    "patiala", "choli", "perfume", "body mist", "deodorant", "fragrance", "lipstick", "lip gloss", "lip liner",
    "nail polish", "kajal", "eyeliner", "eyeshadow", "mascara", "primer", "foundation", "concealer", "compact",
    "blush", "highlighter", "moisturiser", "moisturizer", "cleanser", "sunscreen", "lotion", "toner", "serum",
    "cream", "gel", "lacquer", "deo",
)

#: A store's sections and badges, which name no product: a catalog's type that is one of these (a breadcrumb's
#: ``Men > Edits > Most Wishlisted > ...``, a ``Sale`` collection) says nothing a query could ask for.
STORE_SECTIONS: frozenset[str] = frozenset({
    "sale", "on sale", "new", "new in", "new arrival", "new arrivals", "just in", "just landed", "most wishlisted",
    "best seller", "best sellers", "bestseller", "bestsellers", "trending", "trending now", "edits", "the edit",
    "gifts", "gift ideas", "clearance", "outlet", "deals", "offers", "exclusive", "exclusives", "collection",
    "collections", "all", "shop all", "view all", "featured", "last chance", "back in stock", "coming soon",
    "pre-order", "preorder", "limited edition", "uncategorized", "uncategorised", "default category", "others", "other",
    "miscellaneous", "misc",
})
