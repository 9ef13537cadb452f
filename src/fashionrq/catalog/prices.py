"""Price cells as catalogs write them: currency marks, thousands and decimal separators, ranges, placeholders.

A mapping's ``[price]`` section sets the :class:`PriceFormat` (docs/catalog.md, "Prices"); Myntra's default is INR.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: Every active ISO 4217 currency code: a catalog's prices may be in any of them (``[price] currency``).
ISO_4217: frozenset[str] = frozenset("""
    AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP
    CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR
    ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT
    MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD
    SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND
    VUV WST XAF XCD XOF XPF YER ZAR ZMW ZWL""".split())
#: Currency signs and words a price cell may carry (in lower case), and the ISO 4217 codes each can stand for; a
#: cell may also name its currency by its code (``129,90 BRL``; the codes of the commonest ones in any case).
CURRENCY_MARKS: dict[str, frozenset[str]] = {
    # the dollars', and the pesos of the shops that write them with "$" (Mercado Libre Argentina, Chile, Colombia)
    "$": frozenset({"USD", "AUD", "CAD", "NZD", "SGD", "HKD", "MXN", "ARS", "CLP", "COP", "UYU"}), "us$": frozenset({"USD"}),
    "a$": frozenset({"AUD"}), "c$": frozenset({"CAD"}), "nz$": frozenset({"NZD"}), "s$": frozenset({"SGD"}),
    "hk$": frozenset({"HKD"}), "mx$": frozenset({"MXN"}), "nt$": frozenset({"TWD"}), "rd$": frozenset({"DOP"}),
    "r$": frozenset({"BRL"}), "s/": frozenset({"PEN"}), "tl": frozenset({"TRY"}), "ft": frozenset({"HUF"}),
    "lei": frozenset({"RON"}), "€": frozenset({"EUR"}), "us $": frozenset({"USD"}),
    "£": frozenset({"GBP"}), "₹": frozenset({"INR"}),
    # the rupees of India, Pakistan, Sri Lanka and Nepal are all written "Rs."
    "rs": frozenset({"INR", "PKR", "LKR", "NPR"}), "rs.": frozenset({"INR", "PKR", "LKR", "NPR"}),
    "¥": frozenset({"JPY", "CNY"}), "￥": frozenset({"JPY", "CNY"}), "₺": frozenset({"TRY"}), "₽": frozenset({"RUB"}), "₩": frozenset({"KRW"}),
    "₫": frozenset({"VND"}), "฿": frozenset({"THB"}), "₴": frozenset({"UAH"}), "₪": frozenset({"ILS"}),
    "₦": frozenset({"NGN"}), "₱": frozenset({"PHP"}), "zł": frozenset({"PLN"}), "kč": frozenset({"CZK"}),
    "rp": frozenset({"IDR"}), "rm": frozenset({"MYR"}), "kr": frozenset({"SEK", "NOK", "DKK", "ISK"}),
    "kr.": frozenset({"SEK", "NOK", "DKK", "ISK"}), "﷼": frozenset({"IRR", "SAR", "OMR", "QAR", "YER"}),
    "₡": frozenset({"CRC"}), "₲": frozenset({"PYG"}), "₸": frozenset({"KZT"}), "₾": frozenset({"GEL"}), "₼": frozenset({"AZN"}),
    "৳": frozenset({"BDT"}), "₨": frozenset({"PKR", "NPR", "LKR", "MUR", "SCR"}), "₭": frozenset({"LAK"}), "₮": frozenset({"MNT"}),
    "៛": frozenset({"KHR"}), "₵": frozenset({"GHS"}), "tk": frozenset({"BDT"}), "tk.": frozenset({"BDT"}),
    "ksh": frozenset({"KES"}), "ksh.": frozenset({"KES"}), "fr.": frozenset({"CHF"}), "sfr.": frozenset({"CHF"}),
    # the words and signs shops of other scripts write after an amount (3,980円, 39,000원, 1 299 руб., 390 บาท)
    "円": frozenset({"JPY"}), "원": frozenset({"KRW"}), "元": frozenset({"CNY"}), "руб": frozenset({"RUB"}),
    "руб.": frozenset({"RUB"}), "р.": frozenset({"RUB"}), "грн": frozenset({"UAH"}), "грн.": frozenset({"UAH"}),
    "лв": frozenset({"BGN"}), "лв.": frozenset({"BGN"}), "บาท": frozenset({"THB"}), "đ": frozenset({"VND"}),
    "ر.س": frozenset({"SAR"}), "د.إ": frozenset({"AED"}),
    **{code.lower(): frozenset({code}) for code in ISO_4217},
}
#: Codes that are English words: like every code but the commonest, a cell names a currency by one only in
#: capitals, and a query never (``fashionrq.querygen.surface``: "tops under 500 all cotton").
CODES_THAT_ARE_WORDS = frozenset({"ALL", "BOB", "CUP", "GEL", "MAD", "MOP", "PEN", "SOS", "TOP", "TRY"})
#: The codes read in any case in a price cell (``usd``, ``Eur``); the others only in capitals, as ``ALL`` or ``TOP``
#: in lower case are words.
CURRENCY_CODES: tuple[str, ...] = ("AUD", "BRL", "CAD", "CHF", "CNY", "DKK", "EUR", "GBP", "HKD", "INR", "JPY", "MXN",
                                   "NOK", "NZD", "SEK", "SGD", "USD")
_SIGNS = sorted((mark for mark in CURRENCY_MARKS if mark.upper() not in ISO_4217), key=lambda m: (-len(m), m))
#: A mark of letters stands apart from other letters, not from the digits it is written against (``129,99zł``, ``99USD``).
_APART, _AFTER = r"(?<![^\W\d_])", r"(?![^\W\d_])"
_MARK = re.compile("|".join([*(rf"{_APART}{re.escape(m)}{_AFTER}" if m[0].isalpha() else re.escape(m) for m in _SIGNS),
                             rf"{_APART}(?:{'|'.join(CURRENCY_CODES)}){_AFTER}", rf"{_APART}(?-i:{'|'.join(sorted(ISO_4217))}){_AFTER}"]),
                    re.IGNORECASE)
#: The currency of a shop's country, by the two letters of its web address that name the country: the last label of
#: its host (``.co.uk``, ``.vn``, ``.com.br``) or a first one (``fr.vestiairecollective.com``, ``de.zalando...``).
COUNTRY_CURRENCIES: dict[str, str] = {
    **dict.fromkeys(("at", "be", "cy", "de", "ee", "es", "fi", "fr", "gr", "hr", "ie", "it", "lt", "lu", "lv", "mt", "nl",
                     "pt", "si", "sk"), "EUR"),
    "uk": "GBP", "gb": "GBP", "in": "INR", "vn": "VND", "br": "BRL", "id": "IDR", "ru": "RUB", "jp": "JPY", "kr": "KRW",
    "ir": "IRR", "ae": "AED", "sa": "SAR", "tr": "TRY", "pl": "PLN", "cz": "CZK", "se": "SEK", "dk": "DKK", "no": "NOK",
    "ch": "CHF", "au": "AUD", "ca": "CAD", "mx": "MXN", "cn": "CNY", "th": "THB", "my": "MYR", "sg": "SGD", "ph": "PHP",
    "us": "USD", "nz": "NZD", "za": "ZAR", "ua": "UAH", "hu": "HUF", "ro": "RON", "il": "ILS", "eg": "EGP", "ng": "NGN",
    "pk": "PKR", "bd": "BDT", "tw": "TWD", "hk": "HKD", "ar": "ARS", "cl": "CLP", "co": "COP", "pe": "PEN",
}
_HOST = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//([^/?#:]+)", re.IGNORECASE)
#: First labels of a host that are words, not a country's shop (``my.shop.com``, ``id.shop.com``, ``in.shop.com``).
_NO_LOCALE = frozenset({"my", "id", "co", "in"})


def web_host(text: str) -> str | None:
    """The host of a web address (``https://fr.vestiairecollective.com/...``: ``fr.vestiairecollective.com``), or
    ``None`` for a text that is no address."""
    found = _HOST.match(text.strip())
    return None if found is None else found.group(1).lower()


def country_currency(address: str) -> str | None:
    """The currency of the country a web address's host names (:data:`COUNTRY_CURRENCIES`), or ``None``:
    ``https://www.shop.co.uk/...`` GBP, ``https://fr.vestiairecollective.com/...`` EUR, ``https://shop.com/...`` none."""
    host = web_host(address)
    labels = host.split(".") if host else []
    if len(labels) < 2:
        return None
    last = None if labels[-1] == "co" and labels[-2] != "com" else labels[-1]  # "shop.co" a name, ".com.co" Colombia's
    first = labels[0] if len(labels) >= 3 and labels[0] not in _NO_LOCALE else None
    return COUNTRY_CURRENCIES.get(last) or COUNTRY_CURRENCIES.get(first)


#: Currencies whose prices are written in whole units (ISO 4217's minor unit 0, and the rupiah and rial, whose
#: cents no shop writes): in them ``150.000`` and ``3,995,000`` group thousands, whatever ``decimal_separator`` guesses.
WHOLE_UNITS = frozenset({"BIF", "CLP", "DJF", "GNF", "IDR", "IRR", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "VND",
                         "VUV", "XAF", "XOF", "XPF"})
#: Currencies with three digits after the decimal mark (ISO 4217's minor unit 3): in them ``1.299`` is a price of one
#: dinar and 299 fils, in any other ``1.299`` groups thousands (``R$ 1.299``, ``$ 12.999`` of an Argentine shop).
THREE_DECIMALS = frozenset({"BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"})
_DOT_THOUSANDS = re.compile(r"[+-]?[1-9]\d{0,2}\.\d{3}")
_RANGE = re.compile(r"^(.*?\d)\s*(?:-|–|—|\bto\b)\s*(\d.*)$")
#: Words a shop writes around an amount, passed over: in English ("Now 40.00", "MRP 1,299", "From $19.99", "499
#: onwards"), and as shops of other languages write "from", "now", "only" and "price" ("Por R$ 99,90", "A partir de
#: R$ 129,90", "ab 49,95 €", "Desde 29,99 €", "à partir de 19,99 €", "da 39,90 €", "nur 19,99 €").
_WORDS = re.compile(r"^(?:(?:now|was|from|sale|only|just|our|special|offer|price|mrp|rrp|starting|starts|at"
                    r"|por|a partir de|à partir de|desde|ab|dès|da|nur|jetzt|ahora|agora|solo|sólo|apenas|seulement"
                    r"|precio|preço|prezzo|preis|prix|fiyat|cena)\b\s*:?\s*)+"
                    r"|\s*\b(?:only|each|onwards)\s*$", re.IGNORECASE)
_DIGITS = re.compile(r"^[+-]?\d[\d.,'’\s\u00a0\u202f]*$")
#: A space or apostrophe groups thousands only before three digits (``1 299,95``), never between two amounts
#: (``29.99 19.99``, which had read as 29991999).
_GROUP_SPACE = re.compile(r"[\s'’\u00a0\u202f]+(?!\d{3}(?!\d))")
#: The dash a shop writes for no cents (``299,-`` in Germany and Scandinavia, ``299:-`` in Sweden, ``89.–`` in Switzerland).
_ZERO_CENTS = re.compile(r"\s*[.,:]\s*[-–—]+$")
#: The Arabic decimal and thousands separators (``۳٬۹۹۵٫۵``; the digits of any script are digits to Python).
_ARABIC_SEPARATORS = str.maketrans({"\u066b": ".", "\u066c": ","})
RANGE_CHOICES = ("low", "high", "mid")
DECIMAL_SEPARATORS = ("auto", ".", ",")


def currency_marks(text: str) -> list[str]:
    """The currency signs, words and codes in ``text``, in lower case (keys of :data:`CURRENCY_MARKS`)."""
    return [m.group(0).lower() for m in _MARK.finditer(text)]


def marked_amount(text: str) -> bool:
    """Whether ``text`` is an amount, or a range of two, written with a currency mark and nothing else but a shop's
    words around it (``$29.99``, ``AED 1,735.00``, ``$69.99 - $74.99``, ``Now £40``): a price cell, whatever its
    column is named."""
    return bool(currency_marks(text)) and all(_DIGITS.match(part.strip()) for part in _amount_parts(text)[2])


def _amount_parts(text: str) -> tuple[bool, str, list[str]]:
    """Whether ``text`` has words around its amount (``Now 40.00``), and its amounts: ``one``, a ``range``'s two
    ends, or ``two_amounts`` each with its own mark (a sale price beside the one before, ``£29.99 £19.99``,
    ``$49.99$29.99``)."""
    marked = " ".join(_MARK.sub(" ", text).split())
    bare = _WORDS.sub("", marked).strip()
    ranged = _RANGE.match(bare)
    if ranged:
        return bare != marked, "range", [ranged.group(1), ranged.group(2)]
    apart = [part for part in (_WORDS.sub("", piece).strip() for piece in _MARK.split(text)) if part]
    if len(apart) == 2 and all(_DIGITS.match(_ZERO_CENTS.sub("", part)) for part in apart):
        return bare != marked, "two_amounts", apart
    return bare != marked, "one", [bare]


@dataclass(frozen=True)
class PriceFormat:
    """How one catalog writes its prices.

    ``currency``: ISO 4217 code of every price (a cell marked with another currency is nulled and counted).
    ``decimal_separator``: ``.``, ``,`` or ``auto`` (the last of ``.`` and ``,`` when both appear; a lone ``,``
    followed by one or two digits, as in ``12,50``; dots before groups of three digits, as in ``1.299``, group
    thousands but in a currency of three decimals; else ``.``). ``range``: which end of ``10-20`` to keep (``low``,
    ``high``, or ``mid``), and which of two amounts each marked (``£29.99 £19.99``: a sale price beside the one
    before). ``placeholder_max``: prices at or below it are placeholders and become null; default
    1.0 for INR (Myntra's 0.1 and 1.0 entries), 0 for any other currency (a $0.99 item is a real price).
    ``scale``: what each written amount is multiplied by to be in ``currency`` (0.01 for cents; 10 for prices an
    Iranian shop writes in toman, ten rials each); the placeholder limit applies to the scaled price.
    """

    currency: str = "INR"
    decimal_separator: str = "auto"
    range: str = "low"
    placeholder_max: float | None = None
    scale: float = 1.0

    @property
    def placeholder_limit(self) -> float:
        if self.placeholder_max is not None:
            return self.placeholder_max
        return 1.0 if self.currency == "INR" else 0.0

    def parse(self, text: str) -> tuple[float | None, str | None, str | None]:
        """``(price, why_nulled, repair)`` of a non-empty cell; ``why_nulled`` is ``currency_mismatch``,
        ``unparsable``, ``non_finite`` or ``placeholder`` for a price that is not stored; ``repair`` says how a price
        was read from more than an amount: ``price_range_read_as_low`` (``$10 - $14``, as ``range`` says),
        ``price_two_amounts_read_as_low`` (``£29.99 £19.99``, likewise) or
        ``price_words_passed_over`` (``Now 40.00``), or from an amount whose one dot grouped thousands,
        ``price_dot_read_as_thousands`` (``R$ 1.299``: 1299)."""
        marks = currency_marks(text)
        if any(self.currency not in CURRENCY_MARKS[mark] for mark in marks):
            return None, "currency_mismatch", None
        worded, kind, parts = _amount_parts(text)
        values = [self._number(part.strip()) for part in parts]
        if any(v is None or math.isnan(v) for v in values):
            return None, "unparsable", None
        if any(math.isinf(v) for v in values):
            return None, "non_finite", None
        price = self._scaled({"low": min, "high": max, "mid": lambda v: sum(v) / len(v)}[self.range](values))
        if price <= self.placeholder_limit:
            return None, "placeholder", None
        if kind != "one":
            return price, None, f"price_{kind}_read_as_{self.range}"
        if worded:
            return price, None, "price_words_passed_over"
        return price, None, "price_dot_read_as_thousands" if self._dot_groups_thousands(parts[0].strip()) else None

    def _scaled(self, amount: float) -> float:
        """``amount`` times ``scale``; a scale such as 0.01 divides by 100, so that 1129 cents are 11.29 exactly as
        written (0.01 has no exact binary value)."""
        divisor = round(1 / self.scale) if self.scale < 1 else 0
        return amount / divisor if divisor and math.isclose(divisor * self.scale, 1.0, rel_tol=1e-12) else amount * self.scale

    def _dot_groups_thousands(self, digits: str) -> bool:
        """Whether ``digits`` is one to three digits, a dot and three more (``1.299``), read as a thousand and more
        with ``decimal_separator = "auto"`` in a currency with two decimals (one written in whole units groups its
        thousands so by itself)."""
        return (self.decimal_separator == "auto" and self.currency not in THREE_DECIMALS | WHOLE_UNITS
                and _DOT_THOUSANDS.fullmatch(digits) is not None)

    def _number(self, text: str) -> float | None:
        text = _ZERO_CENTS.sub("", text.translate(_ARABIC_SEPARATORS))
        if not _DIGITS.match(text):
            try:
                return float(text)  # "1e3", "inf", "nan"
            except ValueError:
                return None
        if _GROUP_SPACE.search(text.strip()):
            return None
        digits = re.sub(r"[\s'’\u00a0\u202f]", "", text)  # 1'299.95 and 1’299.95 (Swiss), 1 299,95 (French)
        decimal = self.decimal_separator
        if decimal == "auto":
            if self.currency in WHOLE_UNITS and re.fullmatch(r"[+-]?\d{1,3}(?:([.,])\d{3})(?:\1\d{3})*", digits):
                decimal = "," if "." in digits else "."
            elif "," in digits and "." in digits:
                decimal = "," if digits.rfind(",") > digits.rfind(".") else "."
            elif re.fullmatch(r"[+-]?\d+,\d{1,2}", digits):
                decimal = ","
            elif digits.count(".") > 1:
                decimal = ","  # 1.129.000: dots group thousands
            elif self._dot_groups_thousands(digits):
                decimal = ","  # 1.299: no price has three decimals but a dinar's
            else:
                decimal = "."
        thousands = "," if decimal == "." else "."
        if digits.count(decimal) > 1:
            return None
        try:
            return float(digits.replace(thousands, "").replace(decimal, "."))
        except ValueError:
            return None


DEFAULT_PRICE_FORMAT = PriceFormat()
