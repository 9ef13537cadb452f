"""Whether a catalog's prices are in the unit its mapping says: a note when its median item would cost what no
catalog's typical item costs (a Shopee scrape stores ₫179,000 as 17,900,000,000: its cells are ×100,000), with the
``[price] scale`` that reads them (docs/catalog.md, "Prices").

The check converts the median price to US dollars at a rough rate (:data:`USD_PER_UNIT`: an order of magnitude is
all it needs; a currency it lacks is not checked) and says so outside :data:`PLAUSIBLE_MEDIAN_USD`.
"""

from __future__ import annotations

import math

import numpy as np

from fashionrq.catalog.tiers import format_amount

#: US dollars per unit of the commoner shop currencies, roughly (late 2026; the check needs an order of magnitude).
USD_PER_UNIT: dict[str, float] = {
    "USD": 1.0, "EUR": 1.1, "GBP": 1.27, "CHF": 1.13, "CAD": 0.73, "AUD": 0.66, "NZD": 0.6, "SGD": 0.74, "HKD": 0.128,
    "INR": 0.012, "PKR": 0.0036, "BDT": 0.0083, "LKR": 0.0033, "NPR": 0.0075, "JPY": 0.0067, "CNY": 0.14, "KRW": 0.00075,
    "TWD": 0.031, "VND": 0.00004, "IDR": 0.000063, "THB": 0.028, "PHP": 0.018, "MYR": 0.21, "BRL": 0.2, "MXN": 0.055,
    "CLP": 0.0011, "COP": 0.00025, "PEN": 0.27, "RUB": 0.011, "UAH": 0.025, "KZT": 0.002, "PLN": 0.25, "CZK": 0.044,
    "HUF": 0.0028, "RON": 0.22, "BGN": 0.56, "SEK": 0.095, "NOK": 0.093, "DKK": 0.147, "ISK": 0.0072, "TRY": 0.03,
    "ILS": 0.27, "AED": 0.27, "SAR": 0.27, "QAR": 0.27, "KWD": 3.25, "BHD": 2.65, "OMR": 2.6, "JOD": 1.41, "EGP": 0.02,
    "MAD": 0.1, "NGN": 0.00065, "KES": 0.0077, "GHS": 0.065, "ZAR": 0.054, "IRR": 0.000024,
}
#: A catalog whose median item costs less or more than these many US dollars has its cells in another unit.
PLAUSIBLE_MEDIAN_USD = (0.5, 20_000.0)
#: What a typical item costs, in US dollars, for the scale suggested when the prices share no power of ten.
TYPICAL_USD = 40.0
#: The share of the prices that must be multiples of a power of ten for it to be their unit.
SHARED_FACTOR = 0.9
#: A power of ten is the cells' unit when nearly as many prices are multiples of it as of 100 (Shopee's: 96.8 % of
#: 100,000, 90 % of a million).
SHARE_SLACK = 0.02
#: How the note starts (``draft-mapping`` says it among its checks).
PRICE_UNIT_NOTE = "the median price is "


def scale_note(prices, currency: str) -> str | None:
    """A note when the median of ``prices`` (positive, finite; ``None`` where missing) in ``currency`` is outside
    :data:`PLAUSIBLE_MEDIAN_USD`, with the scale to set: the largest power of ten nearly as many prices are
    multiples of as of 100 (:data:`SHARE_SLACK`) that brings the median in, else the power that makes it about
    :data:`TYPICAL_USD`; ``None`` otherwise."""
    rate = USD_PER_UNIT.get(currency)
    prices = np.asarray([p for p in prices if p is not None and math.isfinite(p) and p > 0], dtype=float)
    if rate is None or not len(prices):
        return None
    median = float(np.median(prices))
    usd = median * rate
    low, high = PLAUSIBLE_MEDIAN_USD
    if low <= usd <= high:
        return None
    shares = {k: float(np.mean(np.fmod(prices, 10.0 ** k) == 0)) for k in range(2, 10)}
    factors = [k for k, share in shares.items() if shares[2] >= SHARED_FACTOR and share >= shares[2] - SHARE_SLACK
               and low <= usd / 10 ** k <= high]
    power = -max(factors) if factors else round(math.log10(TYPICAL_USD / usd))
    scale = f"{10.0 ** power:.{max(-power, 0)}f}" if power < 0 else f"{10 ** power}"
    why = (f"{shares[-power]:.0%} of the prices are multiples of {10 ** -power:,}" if factors
           else "no catalog's typical item costs that")
    return (f"{PRICE_UNIT_NOTE}{format_amount(median)} {currency}, about US${usd:,.{2 if usd < 10 else 0}f}, and {why}: if the cells are written "
            f"in another unit, set [price] scale = {scale} in the mapping (a Shopee scrape's are x100,000: scale = 0.00001), "
            "or the currency if it is another one")
