"""Price cells as catalogs write them: currency marks, thousands and decimal separators, ranges, placeholders.

A mapping's ``[price]`` section sets the :class:`PriceFormat` (docs/catalog.md, "Prices"); Myntra's default is INR.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: Currency marks a price cell may carry, and the ISO 4217 codes each can stand for.
CURRENCY_MARKS: dict[str, frozenset[str]] = {
    "$": frozenset({"USD", "AUD", "CAD", "NZD", "SGD", "HKD", "MXN"}), "us$": frozenset({"USD"}),
    "a$": frozenset({"AUD"}), "c$": frozenset({"CAD"}), "€": frozenset({"EUR"}), "£": frozenset({"GBP"}),
    "₹": frozenset({"INR"}), "rs": frozenset({"INR"}), "rs.": frozenset({"INR"}), "¥": frozenset({"JPY", "CNY"}),
    **{code.lower(): frozenset({code}) for code in ("USD", "EUR", "GBP", "INR", "JPY", "CNY", "AUD", "CAD", "CHF", "SEK",
                                                    "NOK", "DKK", "NZD", "SGD", "HKD", "MXN", "BRL")},
}
#: Every ISO 4217 code a price may be given in.
CURRENCY_CODES: tuple[str, ...] = tuple(sorted({code for codes in CURRENCY_MARKS.values() for code in codes}))
_MARK = re.compile(r"(us\$|a\$|c\$|\$|€|£|₹|¥|\brs\b\.?|\b(?:" + "|".join(
    code for code in CURRENCY_MARKS if code.isalpha() and len(code) == 3) + r")\b)", re.IGNORECASE)
_RANGE = re.compile(r"^(.*?\d)\s*(?:-|–|—|\bto\b)\s*(\d.*)$")
#: Words a shop writes around an amount ("Now 40.00", "MRP 1,299", "From $19.99", "499 onwards"), passed over.
_WORDS = re.compile(r"^(?:(?:now|was|from|sale|only|just|our|special|offer|price|mrp|rrp|starting|starts|at)\b\s*:?\s*)+"
                    r"|\s*\b(?:only|each|onwards)\s*$", re.IGNORECASE)
_DIGITS = re.compile(r"^[+-]?\d[\d.,'\s\u00a0\u202f]*$")
RANGE_CHOICES = ("low", "high", "mid")
DECIMAL_SEPARATORS = ("auto", ".", ",")


@dataclass(frozen=True)
class PriceFormat:
    """How one catalog writes its prices.

    ``currency``: ISO 4217 code of every price (a cell marked with another currency is nulled and counted).
    ``decimal_separator``: ``.``, ``,`` or ``auto`` (the last of ``.`` and ``,`` when both appear; a lone ``,``
    followed by one or two digits, as in ``12,50``; else ``.``). ``range``: which end of ``10-20`` to keep (``low``,
    ``high``, or ``mid``). ``placeholder_max``: prices at or below it are placeholders and become null; default
    1.0 for INR (Myntra's 0.1 and 1.0 entries), 0 for any other currency (a $0.99 item is a real price).
    """

    currency: str = "INR"
    decimal_separator: str = "auto"
    range: str = "low"
    placeholder_max: float | None = None

    @property
    def placeholder_limit(self) -> float:
        if self.placeholder_max is not None:
            return self.placeholder_max
        return 1.0 if self.currency == "INR" else 0.0

    def parse(self, text: str) -> tuple[float | None, str | None, str | None]:
        """``(price, why_nulled, repair)`` of a non-empty cell; ``why_nulled`` is ``currency_mismatch``,
        ``unparsable``, ``non_finite`` or ``placeholder`` for a price that is not stored; ``repair`` says how a price
        was read from more than an amount: ``price_range_read_as_low`` (``$10 - $14``, as ``range`` says) or
        ``price_words_passed_over`` (``Now 40.00``)."""
        marks = [m.group(0).lower() for m in _MARK.finditer(text)]
        if any(self.currency not in CURRENCY_MARKS[mark] for mark in marks):
            return None, "currency_mismatch", None
        marked = " ".join(_MARK.sub(" ", text).split())
        bare = _WORDS.sub("", marked).strip()
        ranged = _RANGE.match(bare)
        parts = [ranged.group(1), ranged.group(2)] if ranged else [bare]
        values = [self._number(part.strip()) for part in parts]
        if any(v is None or math.isnan(v) for v in values):
            return None, "unparsable", None
        if any(math.isinf(v) for v in values):
            return None, "non_finite", None
        price = {"low": min, "high": max, "mid": lambda v: sum(v) / len(v)}[self.range](values)
        if price <= self.placeholder_limit:
            return None, "placeholder", None
        return price, None, (f"price_range_read_as_{self.range}" if ranged else "price_words_passed_over" if bare != marked else None)

    def _number(self, text: str) -> float | None:
        if not _DIGITS.match(text):
            try:
                return float(text)  # "1e3", "inf", "nan"
            except ValueError:
                return None
        digits = re.sub(r"[\s'\u00a0\u202f]", "", text)
        decimal = self.decimal_separator
        if decimal == "auto":
            if "," in digits and "." in digits:
                decimal = "," if digits.rfind(",") > digits.rfind(".") else "."
            elif re.fullmatch(r"[+-]?\d+,\d{1,2}", digits):
                decimal = ","
            elif digits.count(".") > 1:
                decimal = ","  # 1.129.000: dots group thousands
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
