"""Price tiers from the catalog itself: ``budget`` < low <= ``mid-range`` <= high < ``premium``, in the catalog's currency.

The bounds are the catalog's price tertiles (numpy's default, linear quantile over every item with a price), each
rounded to the nearest *nice* amount on a ratio scale: 1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8 or 9 times a power of ten
(docs/querygen.md, "Price tiers"). Where that rounding leaves a tier further than :data:`MAX_TIER_GAP` from a third
of the priced items, or the two tertiles round to one amount (prices bunched just under round amounts, ``34.90``, ``39.90``,
``49.90``), the bounds are the pair of nice amounts that keeps the tiers nearest to thirds instead. With fewer than
:data:`MIN_PRICED_ITEMS` prices, or no pair of nice amounts that gives every tier an item, the catalog has no tiers:
no item has a tier and no query asks about price.

Ingestion records the tiers in the items table's schema metadata (:data:`TIERS_KEY`), so they travel with the table
into a release's ``public/items.parquet`` (and its manifest, ``catalog.price_tiers``); :func:`price_tiers_of`
reads them back. A table without the record (one made by hand, or the items of a release built before tiers were
recorded) gets the tiers of its own prices, in INR, the currency of a catalog whose mapping names none.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from fashionrq.catalog.prices import DEFAULT_PRICE_FORMAT, WHOLE_UNITS

if TYPE_CHECKING:  # a frame is only ever handed in: reading a release's tiers does not import pandas (0.2 s)
    import pandas as pd

#: The tiers, cheapest first.
PRICE_TIERS: tuple[str, ...] = ("budget", "mid-range", "premium")
#: Mantissas of the nice amounts a tertile is rounded to.
NICE_STEPS: tuple[float, ...] = (1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9)
#: Fewer items with a price than this: no tiers (two tertiles of a handful of prices say nothing of the catalog).
MIN_PRICED_ITEMS = 10
#: A tier that the rounded tertiles leave further than this from a third of the priced items (under a sixth, or over
#: half) has the bounds chosen again, to keep the tiers nearest to thirds.
MAX_TIER_GAP = 1 / 6
#: Schema-metadata key of an items table under which its tiers are recorded (JSON of :meth:`PriceTiers.to_dict`).
TIERS_KEY = b"fashionrq.price_tiers"
#: The same record in a pandas frame's ``attrs`` (set by :func:`fashionrq.hierarchy.attributes.items_frame`).
FRAME_KEY = TIERS_KEY.decode()


@dataclass(frozen=True)
class PriceTiers:
    """A catalog's price tiers; ``bounds`` is ``None`` when it has none (see :meth:`describe`)."""

    currency: str = DEFAULT_PRICE_FORMAT.currency
    bounds: tuple[float, float] | None = None
    tertiles: tuple[float, float] | None = None
    priced_items: int = 0

    def tiers(self, prices) -> np.ndarray:
        """The tier of every price (``None`` where it is missing, or where the catalog has no tiers)."""
        prices = np.asarray(prices, dtype=float)
        out = np.full(prices.shape, None, dtype=object)
        if self.bounds is not None:
            priced = ~np.isnan(prices)
            out[priced] = np.asarray(PRICE_TIERS, dtype=object)[_tier_indices(prices[priced], self.bounds)]
        return out

    def tier(self, price: float | None) -> str | None:
        """The tier of one price (``None`` when missing)."""
        return self.tiers([np.nan if price is None else price])[0]

    def ranges(self) -> dict[str, tuple[float, float]]:
        """Tier -> its ``[low, high)`` price interval (empty when the catalog has no tiers)."""
        if self.bounds is None:
            return {}
        low, high = self.bounds
        return dict(zip(PRICE_TIERS, ((0.0, low), (low, high), (high, math.inf))))

    def describe(self) -> str:
        """One sentence for the build log."""
        if self.bounds is not None:
            (low, high), (q1, q2) = self.bounds, self.tertiles
            how = ("rounded to nice amounts" if self.bounds == tuple(nice_amount(q) for q in self.tertiles) else
                   "moved to the nice amounts that keep each tier nearest to a third of the items")
            return (f"price tiers ({self.currency}): budget < {format_amount(low)} <= mid-range <= {format_amount(high)} < "
                    f"premium, the catalog's price tertiles {_shown(q1, self.currency)} and {_shown(q2, self.currency)} {how} "
                    f"({self.priced_items:,} items with a price)")
        why = ("no item has a price" if self.priced_items == 0 else
               f"only {self.priced_items:,} items have a price (at least {MIN_PRICED_ITEMS} needed)"
               if self.priced_items < MIN_PRICED_ITEMS else
               f"no two nice amounts split its prices into three tiers (tertiles {_shown(self.tertiles[0], self.currency)} and "
               f"{_shown(self.tertiles[1], self.currency)})")
        currency = f" ({self.currency})" if self.priced_items else ""  # no price mapped: no currency to name
        return f"no price tiers{currency}: {why}; no query asks about price"

    def to_dict(self) -> dict:
        return {"currency": self.currency, "bounds": _listed(self.bounds), "tertiles": _listed(self.tertiles),
                "priced_items": self.priced_items}

    @classmethod
    def from_dict(cls, record: dict) -> PriceTiers:
        return cls(record["currency"], _pair(record.get("bounds")), _pair(record.get("tertiles")),
                   int(record.get("priced_items", 0)))


def _shown(tertile: float, currency: str) -> str:
    """A tertile as the note writes it: whole, or to the cent (``115,066.67``, never ``115,066.6667``); whole in a
    currency written in whole units (a rupiah catalog's ``229,607``, never ``229,607.33``)."""
    return f"{tertile:,.0f}" if tertile == int(tertile) or currency in WHOLE_UNITS else f"{tertile:,.2f}"


def _listed(pair: tuple[float, float] | None) -> list[float] | None:
    return None if pair is None else [float(v) for v in pair]


def _pair(values) -> tuple[float, float] | None:
    return None if values is None else (float(values[0]), float(values[1]))


def format_amount(amount: float) -> str:
    """An amount as a shopper writes it: ``1,500``, ``25``, ``9.50``, ``0.15``."""
    if amount == int(amount):
        return f"{amount:,.0f}"
    text = f"{amount:,.6f}".rstrip("0")
    return text + "0" if len(text.rsplit(".", 1)[1]) == 1 else text


def _nice_amounts(low: float, high: float) -> list[float]:
    """The nice amounts (:data:`NICE_STEPS` times a power of ten) of the decades of ``low`` to ``high`` (> 0), each
    written exactly (``1.5e2`` is 150.0, never 150.00000000000003)."""
    return [float(f"{step}e{e}") for e in range(_decade(low), _decade(high) + 1) for step in NICE_STEPS]


def _decade(value: float) -> int:
    """The power of ten at or below ``value > 0``."""
    return math.floor(math.log10(value))


def nice_amount(value: float) -> float:
    """The nice amount nearest to ``value > 0`` on a ratio scale (:data:`NICE_STEPS` times a power of ten): of its
    decade's and the next one's."""
    candidates = _nice_amounts(value, 10.0 ** (_decade(value) + 1))
    return min(candidates, key=lambda amount: (abs(math.log(amount / value)), amount))


def catalog_tiers(prices, currency: str = DEFAULT_PRICE_FORMAT.currency) -> PriceTiers:
    """The tiers of a catalog with these prices (missing, non-finite and non-positive ones are left out)."""
    prices = np.asarray(prices, dtype=float)
    prices = prices[np.isfinite(prices) & (prices > 0)]
    if len(prices) < MIN_PRICED_ITEMS:
        return PriceTiers(currency, priced_items=len(prices))
    tertiles = tuple(round(float(q), 4) for q in np.quantile(prices, [1 / 3, 2 / 3]))
    bounds = tuple(nice_amount(q) for q in tertiles)
    if bounds[0] >= bounds[1] or _gap(_tier_counts(prices, bounds)) > MAX_TIER_GAP * 3 * len(prices):
        bounds = _balanced_bounds(prices, tertiles)
    return PriceTiers(currency, bounds, tertiles, len(prices))


def _tier_indices(prices: np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
    """The tier of every price as its index in :data:`PRICE_TIERS`: budget below the low bound, premium above the
    high one, mid-range from one to the other, both included (the one place the rule is written)."""
    low, high = bounds
    return (prices >= low).astype(np.intp) + (prices > high)


def _tier_counts(prices: np.ndarray, bounds: tuple[float, float]) -> tuple[int, int, int]:
    """How many of ``prices`` are budget, mid-range and premium under ``bounds``."""
    return tuple(int(n) for n in np.bincount(_tier_indices(prices, bounds), minlength=len(PRICE_TIERS)))


def _gap(counts: tuple[int, int, int]) -> int:
    """The largest gap between a tier's count and a third of all, in thirds of an item (an integer, so that no float
    compares)."""
    return max(abs(3 * count - sum(counts)) for count in counts)


def _balanced_bounds(prices: np.ndarray, tertiles: tuple[float, float]) -> tuple[float, float] | None:
    """The pair of nice amounts between the cheapest and dearest of ``prices`` whose tiers stray least from thirds
    (the largest gap, in items, between a tier and a third), nearer the tertiles on a tie; ``None`` when none gives
    every tier an item."""
    cheapest, dearest = float(prices.min()), float(prices.max())
    amounts = [a for a in _nice_amounts(cheapest, dearest) if cheapest < a <= dearest]
    # Under bounds (a, a) the tiers are the prices below a, at a and above it: a pair's budget is its low amount's
    # first count, its premium its high amount's last (one pass over the prices an amount, not one a pair).
    around = {amount: _tier_counts(prices, (amount, amount)) for amount in amounts}

    def counts(pair: tuple[float, float]) -> tuple[int, int, int]:
        budget, premium = around[pair[0]][0], around[pair[1]][2]
        return budget, len(prices) - budget - premium, premium

    def cost(pair: tuple[float, float]) -> tuple[int, float, tuple[float, float]]:
        return _gap(counts(pair)), sum(abs(math.log(b / q)) for b, q in zip(pair, tertiles)), pair

    pairs = [(low, high) for low in amounts for high in amounts if low < high]
    best = min(pairs, key=cost, default=None)
    return best if best is not None and min(counts(best)) > 0 else None


def with_price_tiers(table: pa.Table, currency: str) -> pa.Table:
    """``table`` with the tiers of its prices in ``currency`` recorded in its schema metadata."""
    tiers = catalog_tiers(table.column("price").to_numpy(zero_copy_only=False), currency)
    record = json.dumps(tiers.to_dict(), sort_keys=True).encode()
    return table.replace_schema_metadata({**(table.schema.metadata or {}), TIERS_KEY: record})


def recorded_tiers(items: pa.Table | pd.DataFrame) -> PriceTiers | None:
    """The tiers recorded on an items table (schema metadata) or frame (``attrs``), else ``None``."""
    if isinstance(items, pa.Table):
        record = (items.schema.metadata or {}).get(TIERS_KEY)
        return None if record is None else PriceTiers.from_dict(json.loads(record))
    record = items.attrs.get(FRAME_KEY)
    return None if record is None else PriceTiers.from_dict(record)


def price_tiers_of(items: pa.Table | pd.DataFrame) -> PriceTiers:
    """The tiers recorded on ``items``, else the tiers of its own prices in the default currency (INR)."""
    recorded = recorded_tiers(items)
    if recorded is not None:
        return recorded
    if isinstance(items, pa.Table):
        return catalog_tiers(items.column("price").to_numpy(zero_copy_only=False))
    return catalog_tiers(items["price"].to_numpy(dtype=float, na_value=np.nan))


def currency_of(items: pa.Table) -> str:
    """The currency recorded on an items table (INR, the default, when none is)."""
    recorded = recorded_tiers(items)
    return DEFAULT_PRICE_FORMAT.currency if recorded is None else recorded.currency
