"""Derive, from a Myntra-layout catalog, a catalog shaped like a US marketplace's women's tops export, with the
mapping a user would write for it from docs/catalog.md (issue 22: real catalogs of other shapes).

The shape: one category (women's apparel) and no gender or description column; free-text colours carrying colour
codes, sizes and repeats ("001 Black", "Navy Blue / Size M", "Black or black"); dollar-string prices ("$26.26",
some "$10.50 - $14.00" ranges), converted from INR at a fixed rate; and noisy product-type codes
("tshirts_2012_and_later"). Every value is derived from a real product, with a seeded choice per item, so the same
source gives byte-identical files.

    python scripts/derive_catalog_shapes.py --source tests/fixtures/myntra_small --out us-tops
    fashionrq build --catalog us-tops/catalog.csv --mapping us-tops/mapping.toml --out BENCH
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
from pathlib import Path

INR_PER_USD = 83.0
SIZES = ("XS", "S", "M", "L", "XL")

MAPPING = '''# US women's tops export (scripts/derive_catalog_shapes.py), mapped as docs/catalog.md describes.
format = "csv"

[columns]
item_id = "asin"
name = "item_name"
brand = "brand_name"
article_type = "product_type"
base_colour = "color"
price = "list_price"

[constants]           # every item of this export is women's apparel
gender = "Women"
master_category = "Apparel"

[price]
currency = "USD"      # "$26.26"; a range "$10.50 - $14.00" is read as its low end

[clean.base_colour]   # "001 Black", "Navy Blue / Size M", "Black or black"
remove = ['\\b\\d+\\b', '\\bsize\\s+\\w+', '/', '\\bor\\b.*$']

[clean.article_type]  # "tshirts_2012_and_later" -> "Tshirts"
remove = ['_\\d{4}_and_later$']
words = true
'''


def _pick(item_id: str, salt: str, n: int) -> int:
    """A seeded choice in ``range(n)`` for one item (sha256 of id and salt, so no global random state)."""
    return int.from_bytes(hashlib.sha256(f"{salt}:{item_id}".encode()).digest()[:4], "big") % n


def _colour(item_id: str, colour: str) -> str:
    style = _pick(item_id, "colour", 5)
    if style == 1:
        return f"{_pick(item_id, 'code', 999) + 1:03d} {colour}"
    if style == 2:
        return f"{colour} / Size {SIZES[_pick(item_id, 'size', len(SIZES))]}"
    if style == 3:
        return f"{colour} or {colour.lower()}"
    return colour


def _price(item_id: str, inr: float) -> str:
    usd = inr / INR_PER_USD
    if _pick(item_id, "range", 10) == 0:
        return f"${usd:,.2f} - ${usd * 1.35:,.2f}"
    return f"${usd:,.2f}"


def us_tops(items) -> list[dict[str, str]]:
    """The women's apparel items with a price and a colour, as the US export writes them."""
    rows = []
    for item in items:
        if item["gender"] != "Women" or item["master_category"] != "Apparel" or not item["price"] or not item["base_colour"]:
            continue
        item_id = item["item_id"]
        rows.append({
            "asin": f"B0{int(item_id):08d}" if item_id.isdigit() else item_id,
            "item_name": item["name"],
            "brand_name": item["brand"] or "",
            "product_type": f"{item['article_type'].lower().replace(' ', '_')}_2012_and_later",
            "color": _colour(item_id, item["base_colour"]),
            "list_price": _price(item_id, item["price"]),
        })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="Myntra-layout folder (styles.csv and its item JSON)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write catalog.csv and mapping.toml to")
    args = parser.parse_args()
    from fashionrq.catalog import ingest

    rows = us_tops(ingest(args.source).table.to_pylist())
    args.out.mkdir(parents=True, exist_ok=True)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    (args.out / "catalog.csv").write_text(text.getvalue(), encoding="utf-8")
    (args.out / "mapping.toml").write_text(MAPPING, encoding="utf-8")
    print(f"wrote {len(rows):,} products to {args.out / 'catalog.csv'} and the mapping to {args.out / 'mapping.toml'}")


if __name__ == "__main__":
    main()
