"""The canonical items table: field names, Arrow types and value normalisation."""

from __future__ import annotations

import html
import re

import pyarrow as pa

ITEMS_SCHEMA = pa.schema(
    [
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("brand", pa.string()),
        pa.field("gender", pa.string()),
        pa.field("age_group", pa.string()),
        pa.field("master_category", pa.string()),
        pa.field("sub_category", pa.string()),
        pa.field("article_type", pa.string()),
        pa.field("base_colour", pa.string()),
        pa.field("colours", pa.list_(pa.string())),
        pa.field("season", pa.string()),
        pa.field("year", pa.int32()),
        pa.field("usage", pa.string()),
        pa.field("price", pa.float64()),
        pa.field("discounted_price", pa.float64()),
        pa.field("description", pa.string()),
        pa.field("attributes", pa.map_(pa.string(), pa.string())),
        pa.field("image_path", pa.string()),
    ]
)

FIELDS: tuple[str, ...] = tuple(ITEMS_SCHEMA.names)
#: Fields every catalog must provide: an id, a name to read, and the product type purity is measured on.
REQUIRED_FIELDS: tuple[str, ...] = ("item_id", "name", "article_type")
STRING_FIELDS = frozenset(f.name for f in ITEMS_SCHEMA if pa.types.is_string(f.type))

#: Prices at or below this are catalog placeholders (Myntra has 0.1 and 1.0 entries) and become null.
PRICE_PLACEHOLDER_MAX = 1.0

_MISSING_STRINGS = frozenset({"", "na", "n/a", "nan", "null", "none", "-"})

GENDER_SYNONYMS = {
    "men": "Men", "man": "Men", "male": "Men", "m": "Men", "mens": "Men", "men's": "Men",
    "women": "Women", "woman": "Women", "female": "Women", "f": "Women", "w": "Women", "womens": "Women",
    "women's": "Women", "ladies": "Women",
    "boys": "Boys", "boy": "Boys", "girls": "Girls", "girl": "Girls",
    "unisex": "Unisex", "u": "Unisex", "all": "Unisex",
}
AGE_SCALE: tuple[str, ...] = ("baby", "toddler", "kids", "adult")
_AGE_SYNONYMS = {
    "adults": "adult", "adult": "adult", "grown-up": "adult",
    "kids": "kids", "kid": "kids", "children": "kids", "child": "kids", "teen": "kids",
    "toddler": "toddler", "toddlers": "toddler", "baby": "baby", "babies": "baby", "infant": "baby", "infants": "baby",
}

_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def clean_string(value: object) -> str | None:
    """Trim a raw value; ``NA``, empty and similar placeholders become ``None``."""
    if value is None:
        return None
    if isinstance(value, float) and value != value:
        return None
    text = str(value).strip()
    return None if text.lower() in _MISSING_STRINGS else text


def strip_html(value: object) -> str | None:
    """Turn an HTML fragment into plain text with single spaces."""
    text = clean_string(value)
    if text is None:
        return None
    # Some Myntra descriptions are HTML-escaped twice ("&lt;b&gt;"), so unescape before and after stripping tags.
    text = _SPACE.sub(" ", html.unescape(_TAG.sub(" ", html.unescape(text)))).strip()
    return text or None


def normalise_gender(value: object) -> str | None:
    """Map gender spellings (``male``, ``M``, ``boys`` ...) to Men/Women/Boys/Girls/Unisex."""
    text = clean_string(value)
    if text is None:
        return None
    return GENDER_SYNONYMS.get(text.lower(), text)


def normalise_age_group(value: object) -> str | None:
    """Reduce an age group such as Myntra's ``Adults-Men`` to its age segment on the scale baby < toddler < kids < adult."""
    text = clean_string(value)
    if text is None:
        return None
    segment = re.split(r"[-_ /]", text.lower(), maxsplit=1)[0]
    return _AGE_SYNONYMS.get(segment, segment)


def parse_price(value: object) -> tuple[float | None, bool]:
    """Parse a price; return ``(price, was_placeholder)``, nulling placeholder values ≤ 1."""
    text = clean_string(value)
    if text is None:
        return None, False
    try:
        price = float(text.replace(",", ""))
    except ValueError:
        return None, False
    if price != price or price <= PRICE_PLACEHOLDER_MAX:
        return None, True
    return price, False


def parse_year(value: object) -> int | None:
    """Parse a year such as ``2011`` or ``2011.0``; anything else is ``None``."""
    text = clean_string(value)
    if text is None:
        return None
    try:
        return int(float(text))
    except ValueError:
        return None
