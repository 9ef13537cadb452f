"""The canonical items table: field names, Arrow types and value normalisation."""

from __future__ import annotations

import ast
import html
import json
import re
import unicodedata
import warnings
from collections import Counter
from functools import lru_cache

import pyarrow as pa

from fashionrq.catalog.prices import DEFAULT_PRICE_FORMAT, PriceFormat

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

#: Parquet metadata key marking a synthetic catalog (``fashionrq synth``), kept through ingestion.
SYNTHETIC_KEY = b"fashionrq.synthetic"

FIELDS: tuple[str, ...] = tuple(ITEMS_SCHEMA.names)
#: Fields every catalog must provide: an id, a name to read, and the product type purity is measured on.
REQUIRED_FIELDS: tuple[str, ...] = ("item_id", "name", "article_type")
STRING_FIELDS = frozenset(f.name for f in ITEMS_SCHEMA if pa.types.is_string(f.type))

#: A spreadsheet's error values, which an export writes in the cell (an El Corte Inglés scrape's name ``#¡REF!``), in
#: English, Spanish, German and French.
SPREADSHEET_ERRORS = frozenset({"#ref!", "#n/a", "#value!", "#name?", "#div/0!", "#null!", "#num!", "#spill!", "#calc!",
                                "#¡ref!", "#n/d", "#¡valor!", "#¿nombre?", "#¡div/0!", "#¡nulo!", "#¡núm!", "#bezug!",
                                "#nv", "#wert!", "#zahl!", "#valeur!", "#nom?", "#nul!", "#nombre!"})
#: Spellings catalogs use for "no value" (matched case-insensitively after trimming), spreadsheet errors among them;
#: they become null.
PLACEHOLDERS = frozenset({"", "na", "n/a", "n.a.", "nan", "null", "none", "-", "--", "?", "unknown", "undefined",
                          "not available"}) | SPREADSHEET_ERRORS
#: Years outside this range are typos or placeholders (0, 9999) and become null.
YEAR_RANGE = (1800, 2100)

GENDER_SYNONYMS = {
    "men": "Men", "man": "Men", "male": "Men", "m": "Men", "mens": "Men", "men's": "Men",
    "women": "Women", "woman": "Women", "female": "Women", "f": "Women", "w": "Women", "womens": "Women",
    "women's": "Women", "ladies": "Women", "lady": "Women", "ladieswear": "Women", "womenswear": "Women",
    "menswear": "Men", "gents": "Men",
    "boys": "Boys", "boy": "Boys", "girls": "Girls", "girl": "Girls",
    "unisex": "Unisex", "u": "Unisex", "all": "Unisex",
}
#: Gender words of other languages, as shops write them in a gender column or a product's name (``Tênis Masculino``,
#: ``Damen``, ``Mujer``, ``Kadın``): read as the gender they name. Queries are written in English and never say them,
#: so the query parser reads only :data:`GENDER_SYNONYMS`.
OTHER_LANGUAGE_GENDERS = {
    "mujer": "Women", "mujeres": "Women", "dama": "Women", "damas": "Women", "hombre": "Men", "hombres": "Men",  # Spanish
    "caballero": "Men", "caballeros": "Men", "niña": "Girls", "niñas": "Girls", "niño": "Boys", "niños": "Boys",
    "feminino": "Women", "feminina": "Women", "mulher": "Women", "mulheres": "Women", "masculino": "Men",  # Portuguese
    "masculina": "Men", "homem": "Men", "homens": "Men", "menina": "Girls", "meninas": "Girls", "menino": "Boys",
    "meninos": "Boys", "unissex": "Unisex",
    "femme": "Women", "femmes": "Women", "homme": "Men", "hommes": "Men", "fille": "Girls", "filles": "Girls",  # French
    "garçon": "Boys", "garçons": "Boys", "mixte": "Unisex",
    "damen": "Women", "frauen": "Women", "herren": "Men", "männer": "Men", "mädchen": "Girls", "jungen": "Boys",  # German
    "donna": "Women", "donne": "Women", "uomo": "Men", "uomini": "Men", "bambina": "Girls", "bambino": "Boys",  # Italian
    "dames": "Women", "heren": "Men", "meisjes": "Girls", "jongens": "Boys",  # Dutch
    "kadın": "Women", "erkek": "Men", "kız": "Girls",  # Turkish, also as written without its dotless ı
    "kadin": "Women", "kiz": "Girls", "erkek çocuk": "Boys", "kız çocuk": "Girls", "kiz çocuk": "Girls",
    "damskie": "Women", "damski": "Women", "damska": "Women", "męskie": "Men", "męski": "Men", "męska": "Men",  # Polish
    "pria": "Men", "wanita": "Women", "laki-laki": "Men", "lelaki": "Men", "perempuan": "Women", "cowok": "Men",  # Indonesian
    "cewek": "Women",  # and Malay; a child's (a Tokopedia slug's sandal-anak-laki-laki is a boy's, never a man's):
    "anak laki-laki": "Boys", "anak-laki-laki": "Boys", "anak perempuan": "Girls", "anak-perempuan": "Girls",
    "nam": "Men", "nữ": "Women", "bé trai": "Boys", "bé gái": "Girls",  # Vietnamese (a Shopee scrape's "Áo Thun Nam")
    "nam nữ": "Unisex", "nữ nam": "Unisex",  # "for men and women": "Áo thun phông nam nữ"
}
#: English gender words that are an ordinary word of another language, with that language's gender words: names that
#: say one of those are of that language, and the English word in them is not read (Turkish ``boy`` is a size or a
#: length: ``Orta Boy Halka Küpe``, a medium hoop earring).
ENGLISH_GENDER_FALSE_FRIENDS = {
    "boy": frozenset({"kadın", "kadin", "erkek", "kız", "kiz", "erkek çocuk", "kız çocuk", "kiz çocuk"}),
}
#: Every gender word a catalog's values may hold, English or not.
ANY_GENDER_WORDS = {**GENDER_SYNONYMS, **OTHER_LANGUAGE_GENDERS}
GENDERS = frozenset(GENDER_SYNONYMS.values())
AGE_SCALE: tuple[str, ...] = ("baby", "toddler", "kids", "adult")
AGE_SYNONYMS = {
    "adults": "adult", "adult": "adult", "grown-up": "adult",
    "kids": "kids", "kid": "kids", "children": "kids", "child": "kids", "teen": "kids",
    "toddler": "toddler", "toddlers": "toddler", "baby": "baby", "babies": "baby", "infant": "baby", "infants": "baby",
    "newborn": "baby", "newborns": "baby",
}

#: A shop's badges before a name's first word: notes in brackets, symbols and emoji (and words between two of one
#: emoji, never between two of an ASCII mark: ``- Baby-G``), promotions in capitals and the shop's department (a
#: Shopee scrape's ``[SALE 50%] - Áo Thun Nam``, ``🔥HOT🔥 áo phông``, ``⚡Rẻ vô đich ⚡Áo thun``, ``【Hot】 Túi``,
#: ``FREESHIP Áo thun``, ``SALE- Áo``, ``Thời trang nam- áo sơ mi``: "men's fashion"), and a dash, colon or comma
#: after them.
_LEADING_BADGE = re.compile(r"^(?:\s*(?:\[[^\]]*\]|\([^)]*\)|【[^】]*】|(?P<mark>[^\w\s\[(【!-~])[^\n]{0,40}?(?P=mark)"
                            r"|(?:FREESHIP|FREE SHIP|SALE)(?!\w)|(?i:thời trang(?: nam nữ| nam| nữ)?)(?=[\s,\-–—:])"
                            r"|[^\w\s\[(【]+))+[\s\-–—:|_,]*")


def without_leading_badge(text: str) -> str:
    """``text`` from its first word on, past the badges a shop writes before it (:data:`_LEADING_BADGE`)."""
    return _LEADING_BADGE.sub("", text, count=1)


_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def to_text(value: object) -> str | None:
    """A raw cell as text: lists joined with ", ", structs and maps as JSON, whole floats without ".0"."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        parts = [t.strip() for t in (to_text(v) for v in value) if t is not None and t.strip().lower() not in PLACEHOLDERS]
        return ", ".join(parts)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def as_sentences(value: object) -> object:
    """A list of texts (a listing's bullet points) as one text, each entry a sentence: ``Soft cotton`` and ``Machine
    wash.`` read ``Soft cotton. Machine wash.``; any other value as it is."""
    if not isinstance(value, list | tuple):
        return value
    parts = [t.strip() for t in (to_text(v) for v in value) if t is not None and t.strip() and t.strip().lower() not in PLACEHOLDERS]
    return " ".join(p if p[-1] in ".!?…" else f"{p}." for p in parts) or None


def photo_bytes(value: object) -> bool:
    """Whether ``value`` is a photo stored inside the catalog: bytes, or an image object holding them (a Hugging Face
    dataset's ``{"bytes": ..., "path": ...}``)."""
    return isinstance(value, bytes | bytearray) or (image_object(value) and isinstance(value.get("bytes"), bytes | bytearray))


def image_object(value: object) -> bool:
    """Whether ``value`` is a Hugging Face dataset's image object, ``{"bytes": ..., "path": ...}`` (its path, without
    bytes, names the photo's file)."""
    return isinstance(value, dict) and set(value) == {"bytes", "path"}


#: Ruby's ``"key"=>value`` between a quoted key and its value, as crawls dumped from Ruby write objects
#: (``{"product_specification"=>[{"key"=>"Fabric", "value"=>"Cotton"}]}``).
_RUBY_ARROW = re.compile(r'"\s*=>\s*')


#: A web address: with a scheme (``https://``), scheme-relative (``//cdn...``), or a host name with a common top-level
#: domain and a path (``images.asos-media.com/products/...``, as APIs write their photos).
WEB_ADDRESS = re.compile(r"^[a-z][a-z0-9+.-]*://|^//|^(?:[a-z0-9-]+\.)+(?:com|net|org|io|co|in|uk|de|fr|it|es|nl|eu|us|ca|au|"
                         r"jp|cn|ru|br|info|shop|store|cloud|app)/", re.IGNORECASE)


#: An attribute code and ``=`` opening a text of ``code=value`` pairs (Magento's ``additional_attributes``).
_PAIR_CODE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
#: The comma before the next ``code=`` of such a text (a comma inside a value is not followed by one).
_PAIR_COMMA = re.compile(r",(?=[A-Za-z_][A-Za-z0-9_]*=)")


def json_text(value: object) -> object:
    """A text that holds JSON (``"[...]"``, ``"{...}"``: a CSV cell of objects), a Ruby hash written with ``=>``, a
    Python list or dict (``"['Home', 'Women']"``, as pandas writes a list into a CSV cell), or ``code=value`` pairs
    as Magento exports them (:func:`pairs_text`), decoded; any other value as it is."""
    if isinstance(value, str):
        head = value.lstrip()
        if head[:1] in ("[", "{"):
            return _decoded(value)
        if _PAIR_CODE.match(head):
            return pairs_text(head.rstrip())
    return value


@lru_cache(maxsize=64)
def pairs_text(text: str) -> dict | list[dict]:
    """Magento's ``code=value`` pairs as an object: ``color=Black,material=Cotton|Polyester`` is ``{"color": "Black",
    "material": ["Cotton", "Polyester"]}`` (``|`` between the values of a multiple-choice attribute); a text whose
    every ``|``-separated entry is pairs of its own (``configurable_variations``: ``sku=T-S-Black,color=Black|sku=
    T-M-Black,color=Black``) is a list of such objects. The first value of a code that repeats is kept."""
    entries = text.split("|")
    if len(entries) > 1 and all(_PAIR_CODE.match(entry) for entry in entries):
        return [_pairs(entry, multiple=False) for entry in entries]
    return _pairs(text, multiple=True)


def _pairs(text: str, multiple: bool) -> dict:
    out: dict = {}
    for pair in _PAIR_COMMA.split(text):
        code, _, value = pair.partition("=")
        values = [v.strip() for v in value.split("|")] if multiple and "|" in value else value.strip()
        out.setdefault(code.strip(), values)
    return out


@lru_cache(maxsize=64)
def _decoded(value: str) -> object:
    """:func:`json_text` of a text that starts like a list or an object, cached: a record's cell is read by several
    paths in turn (``description[*].Brand``, ``description[*].Product Details``, ``attributes = "description"``).
    Callers read the value, never change it."""
    for text in [value] + ([_RUBY_ARROW.sub('": ', value)] if "=>" in value else []):
        try:
            return json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested too deep to be a value worth reading
            continue
    return python_literal(value, value)


def python_expression(text: str) -> ast.expr:
    """The expression ``text`` writes, parsed by Python's parser, which runs nothing; its warnings about odd literals
    silenced (a product name such as ``Paket 9in1`` is no code: "invalid decimal literal" had been printed for it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return ast.parse(text.strip(), mode="eval").body


def python_literal(text: str | ast.expr, otherwise: object = None) -> object:
    """The list or dict a Python literal ``text`` (or its parsed expression) writes (single quotes, ``None``,
    ``True``; tuples read as lists), read with :func:`ast.literal_eval`, which evaluates no code; ``otherwise`` for
    any other text."""
    try:
        value = ast.literal_eval(python_expression(text) if isinstance(text, str) else text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return otherwise
    return _as_json(value) if isinstance(value, list | tuple | dict) else otherwise


def _as_json(value: object) -> object:
    """A literal's tuples as lists and its keys as text, as JSON would hold it."""
    if isinstance(value, list | tuple):
        return [_as_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _as_json(v) for k, v in value.items()}
    return value


def distinct_ignoring_case(texts) -> list[str]:
    """``texts`` in order, each once, compared case-insensitively (``Black`` and ``black`` are one)."""
    first: dict[str, str] = {}
    for text in texts:
        first.setdefault(text.lower(), text)
    return list(first.values())


def clean_string(value: object) -> str | None:
    """Trim a raw value; ``NA``, ``Unknown``, empty and similar placeholders become ``None``."""
    text = to_text(value)
    if text is None:
        return None
    text = text.strip()
    return None if text.lower() in PLACEHOLDERS else text


#: Spellings of "no value" that only mean that in one field: a marketplace's ``Generic`` brand, a seller's
#: ``as shown`` colour. Matched whole, in any case.
FIELD_PLACEHOLDERS = {
    "brand": re.compile(r"generic|unbranded|un-branded|non[- ]?branded|no[- ]?brand(?: name)?|not branded|"
                        r"brand not (?:specified|available|known)", re.IGNORECASE),
    "colour": re.compile(r"(?:as|same as|see|like)\s+(?:the\s+|in\s+)?(?:shown?|pictured?|pics?|photos?|images?|"
                         r"picture|displayed|description)|(?:picture|photo|image)\s+colou?rs?|random(?:\s+colou?rs?)?",
                         re.IGNORECASE),
}
_PLACEHOLDER_KIND = {"brand": "brand", "base_colour": "colour", "colours": "colour"}


def is_placeholder(value: object, field: str | None = None) -> bool:
    """True for a value that is present but says "no value" (``NA``, ``Unknown``, ``-``, empty, NaN), or, in
    ``field``, one of that field's own such spellings (:data:`FIELD_PLACEHOLDERS`)."""
    if value is None:
        return False
    text = clean_string(value)
    if text is None:
        return True
    kind = _PLACEHOLDER_KIND.get(field or "")
    return kind is not None and FIELD_PLACEHOLDERS[kind].fullmatch(text) is not None


def strip_html(value: object) -> str | None:
    """Turn an HTML fragment into plain text with single spaces (placeholders are left for the caller to null)."""
    text = to_text(value)
    if text is None:
        return None
    # Some Myntra descriptions are HTML-escaped two or three times ("&amp;lt;b&amp;gt;"), so unescape fully
    # before and after stripping tags.
    return _SPACE.sub(" ", _unescape(_TAG.sub(" ", _unescape(text)))).strip()


def _unescape(text: str) -> str:
    for _ in range(4):
        unescaped = html.unescape(text)
        if unescaped == text:
            break
        text = unescaped
    return text


#: Between two genders of one value ("Men's, Women's", "Boys & Girls").
_GENDER_JOINS = re.compile(r"\s*(?:,|/|&|\band\b)\s*")


def normalise_gender(value: object) -> str | None:
    """Map gender spellings (``male``, ``M``, ``boys``, Amazon's ``unisex-adult``, ``Damen``, ``Masculino`` ...) to
    Men/Women/Boys/Girls/Unisex; a value naming both (``Men's, Women's``, ``Boys & Girls``, ``Damen & Herren``) is Unisex."""
    text = clean_string(value)
    if text is None:
        return None
    lower = text.lower()
    if lower in ANY_GENDER_WORDS or lower.startswith("unisex-"):
        return ANY_GENDER_WORDS.get(lower, "Unisex")
    both = {ANY_GENDER_WORDS.get(part.strip()) for part in _GENDER_JOINS.split(lower)}
    return "Unisex" if both in ({"Men", "Women"}, {"Boys", "Girls"}) else text


def normalise_age_group(value: object) -> str | None:
    """Reduce an age group such as Myntra's ``Adults-Men`` to its age segment on the scale baby < toddler < kids < adult."""
    text = clean_string(value)
    if text is None:
        return None
    segment = re.split(r"[-_ /]", text.lower(), maxsplit=1)[0]
    return AGE_SYNONYMS.get(segment, segment)


def parse_price(value: object, fmt: PriceFormat = DEFAULT_PRICE_FORMAT) -> tuple[float | None, str | None, str | None]:
    """Parse a price cell (``1299``, ``"$1,129.99"``, ``"1.129,99 €"``, ``"$10 - $20"``, ``"Now 40.00"``) as ``fmt``
    says; return ``(price, why_nulled, repair)`` (:meth:`PriceFormat.parse`).

    ``why_nulled`` is ``None`` for a good price or a missing one, else ``"placeholder"`` (at or below
    ``fmt.placeholder_limit``), ``"unparsable"`` (``abc``, ``NaN``), ``"non_finite"`` (``inf``, ``1e309``) or
    ``"currency_mismatch"`` (a ``€`` price in a USD catalog): such prices are never stored.
    """
    if isinstance(value, float) and value != value:
        return None, "unparsable", None
    text = to_text(value)
    if text is None or text.strip().lower() in PLACEHOLDERS - {"nan"}:
        return None, None, None
    return fmt.parse(text.strip())


def parse_year(value: object) -> tuple[int | None, str | None]:
    """Parse a year such as ``2011`` or ``2011.0``; return ``(year, why_nulled)`` like ``parse_price``."""
    text = clean_string(value)
    if text is None:
        return None, None
    try:
        year = int(float(text))
    except (ValueError, OverflowError):
        return None, "unparsable"
    if not YEAR_RANGE[0] <= year <= YEAR_RANGE[1]:
        return None, "implausible"
    return year, None


#: Texts :func:`texts_script` reads, spread evenly over the catalog.
SCRIPT_SAMPLE = 2_000


def texts_script(texts: list[str | None]) -> tuple[str, float]:
    """The script most texts (names, product types) are written in (``LATIN``, ``ARABIC``, ``CYRILLIC``, ``CJK``, ...
    as Unicode names it; a text's script is that of most of its letters, so a Latin brand inside a Persian name leaves
    it Arabic) and the share of texts written in it, read from :data:`SCRIPT_SAMPLE` texts spread evenly over ``texts``."""
    present = [text for text in texts if text]
    sample = present[::max(1, len(present) // SCRIPT_SAMPLE)]
    scripts = Counter(script for script in map(_script_of, sample) if script)
    if not scripts:
        return "LATIN", 0.0
    script, count = min(scripts.items(), key=lambda kv: (-kv[1], kv[0]))
    return script, count / sum(scripts.values())


def _script_of(text: str) -> str | None:
    """The script most of ``text``'s letters are written in (the first by name on a tie); ``None`` without letters.
    ASCII letters are all Latin, read without naming each character."""
    if text.isascii():
        return "LATIN" if any(ch.isalpha() for ch in text) else None
    letters = Counter(unicodedata.name(ch, "?").split()[0] for ch in text if ch.isalpha())
    return min(letters.items(), key=lambda kv: (-kv[1], kv[0]))[0] if letters else None
