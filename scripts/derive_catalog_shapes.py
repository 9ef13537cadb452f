"""Derive, from a Myntra-layout catalog, a catalog of another real shape, with the mapping a user would write for it
from docs/catalog.md (issue 22: real catalogs of other shapes). Every value is derived from a real product, with a
seeded choice per item, so the same source gives byte-identical files.

``--shape us-tops`` (the default): a US marketplace's women's tops export, ``catalog.csv``. One category (women's
apparel) and no gender or description column; free-text colours carrying colour codes, sizes and repeats ("001
Black", "Navy Blue / Size M", "Black or black"); dollar-string prices ("$26.26", some "$10.50 - $14.00" ranges),
converted from INR at a fixed rate; and noisy product-type codes ("tshirts_2012_and_later").

``--shape merchant``: a multi-category retailer's Google Merchant Center product feed, ``catalog.tsv`` (tab-separated).
One row per size (2-4 sizes per product), each with its own ``id`` (``<myntra id>-<size>``) and the product's
``item_group_id`` (the Myntra id); prices written ``1299.00 INR`` and a ``sale_price`` when the discounted price is
lower; Google's ``gender`` values (``male``, ``female``, ``unisex``) and ``age_group`` (``adult``, ``kids``): Myntra's
Boys and Girls become ``male`` and ``female`` with ``age_group`` ``kids``, as Google writes them, and are read back
as Boys and Girls; up to three colours joined with ``/``; ``material`` and ``pattern`` from the Myntra attributes; a
``google_product_category`` from a small table and the retailer's own ``product_type`` path ``Women > Apparel >
Topwear > Tops``; an HTML ``description``; ``link`` and ``image_link`` web addresses. Products without a title, a
price or a colour are not listed (Google refuses apparel without them).

``--shape merchant-xml``: the same feed as Google's RSS 2.0 XML, ``catalog.xml``: one ``<item>`` per row of the TSV
feed, Google's attributes in its ``g:`` namespace (``<g:id>``, ``<g:price>1299.00 INR</g:price>``) and ``title``,
``link`` and ``description`` without a prefix, as Google's example writes them; empty columns left out; 1-2
``<g:additional_image_link>`` per product (seeded), ``g:availability``, ``g:condition`` and a ``<g:shipping>`` block
(country, service and price: free from 799 INR). Its mapping is the TSV feed's.

``--shape shopify``: a Shopify store's product export, ``products_export.csv``. Products whose names differ only in
colour (same brand, gender and type) are one product with up to four colours, titled without the colour; one row per
colour and size, the colour the first option or the second (seeded), or for a product in one colour without sizes
Shopify's ``Default Title`` option with the colour only in the colour metafield; the product's title, HTML body,
vendor, type, option names, Google Shopping gender and age group and metafields on its first row only, and an image
row (handle and photo alone) after its variants; ``Variant Price`` the price paid and ``Variant Compare At Price``
the price before a sale, in euros converted from INR at a fixed rate, with no currency in the cells; Shopify's
taxonomy path as ``Product Category``.

``--shape shopify-json``: the same store's products as its storefront's ``/products.json`` pages joined into one
``products.json`` (``{"products": [...]}``): a product object each, its variants (a colour and a size each, prices as
strings, a compare-at price only on sale), its options (``Color``, ``Size``, or Shopify's ``Title``), its tags, its
photos' web addresses, and the product's times, which its photos share.

``--shape woocommerce``: a WooCommerce store's product export, ``wc-product-export.csv``, of the same products. A
product in one colour without sizes is a simple product; any other is a variable product's row (its description,
categories ``Men > Apparel > Topwear > Tshirts``, with ``, Sale`` for one on sale, brand and attributes, no price)
followed by a variation row per colour and size, named ``<title> - <colour>, <size>``, holding its colour, size and
prices in pounds and naming its parent in ``Parent`` by SKU (or as ``id:<ID>`` for the one parent in five without a
SKU, seeded).

``--shape magento``: a Magento 2 store's product export, ``export_catalog_product.csv``, of the same products. A
product in one colour without sizes is one simple row; any other is its simple products (one per colour and size,
named ``<name>-<size>-<colour>``, holding ``color=...,size=...`` in ``additional_attributes`` and euro prices, no
description or categories) followed by its configurable row (description, categories ``Default
Category/Men/Apparel/Topwear/Tshirts`` with ``,Default Category/Sale`` for one on sale, brand, material and pattern
as ``code=value`` pairs) listing them in ``configurable_variations``; photo paths under the store's media folder.
``--shape amazon``: an Amazon Seller Central clothing inventory flat file, ``Flat.File.Clothing.txt``: tab-separated,
with Amazon's template line and a line of labels above the header, for the same products. A product in one colour
without sizes is one standalone row; any other is a parent row (its title, no price, colour or size) followed by a
child row per colour and size naming it in ``parent_sku``, named ``<title>, <colour>, <size>``, with ``mens`` /
``womens`` / ``boys`` / ``girls`` / ``unisex-adult`` departments, ``casual-shoes``-style item types and dollar prices
in plain numbers beside a ``currency`` column.

``--shape flipkart``: a marketplace crawl in the layout of the public Flipkart products dataset,
``flipkart_com-ecommerce_sample.csv``, one row per product: the category tree as a JSON list holding one ``" >> "``
path (``Clothing >> Men's Clothing >> Topwear >> Shirts >> <brand> Shirts >> <name>``), rupee prices, photos as a
JSON list of web addresses, and ``product_specifications`` as a Ruby hash of key/value objects (``Color``, ``Ideal
For`` with ``Men's, Women's`` for unisex items, ``Type``, ``Fabric``, ``Pattern``, ``Occasion``, a style code and an
entry without a key).

``--shape amazon-2014``: a marketplace metadata dump in the layout of the public Amazon product data of 2014,
``meta_Clothing_Shoes_and_Jewelry.json.gz``: a gzipped file named ``.json`` holding one Python dict per line (single
quotes, as ``str(dict)`` wrote it), with a ten-character ``asin``, ``related`` and ``salesRank`` objects, a dollar
``price`` for three products in four, a ``brand`` for two in three, an ``imUrl`` web address, and ``categories`` as a
list of paths: ``Clothing, Shoes & Jewelry`` > gender > group > sub category > type (a unisex product under Women and
then Men, half of the sports products after a ``Sports & Outdoors`` path) or, for a beauty product, a ``Beauty`` path
alone. No colour field: the colour is in the title.

``--shape amazon-2023``: item metadata in the layout of the public Amazon Reviews 2023 data,
``meta_Clothing_Shoes_and_Jewelry.jsonl``: one JSON object per line and product (``parent_asin``), ``main_category``
the same everywhere, the category path a list (empty for a quarter of the products), the department in a
``details`` object, ``"Key: Value"`` features, dollar prices as numbers or null, the store as the brand, photos as
objects of web addresses.

``--shape asos``: a fashion store scrape in the layout of the public ASOS products dataset, ``products_asos.csv``, one
row per product: lists and dicts written into CSV cells as Python literals (single quotes), as pandas writes them:
``category`` a breadcrumb list (gender, group, sub category, type), ``description`` a list of one-key dicts (``Product
Details``, ``Product Code``, ``Brand``, ``Size & Fit``, ``Look After Me``, ``About Me`` holding the fabric), ``images``
a list of web addresses; pound prices as plain numbers, the sizes in one text, the ids written as floats
(``15970.0``).

``--shape scrape-folder``: a scrape saved as one JSON file per product, the folder ``scrape/``: a file per product in
a folder per group (``scrape/products/apparel/MYN-15970.json``), the free items as one page file holding an array,
and the source's photos under ``scrape/images/``; nested brand and price objects (amount, sale, currency), a
breadcrumb list, a specs object and photo paths relative to the folder.

``--shape workbook``: a retailer's product master, the Excel workbook ``product_master.xlsx``, one row per product: an
``Instructions`` sheet, then ``Products`` with a title line and a blank row above its header (row 3): ``Style Code``
number cells, gender codes ``M`` / ``F`` / ``U`` / ``KB`` / ``KG``, categories, colour and fabric, ``Launch Date`` date
cells in the item's year, rupee ``MRP`` and ``Discount`` number cells and ``Sale Price`` as the formula ``=K4-L4`` with
the value Excel would store for it (openpyxl writes none), then a ``Codes`` sheet; byte-identical across runs (a
fixed time of writing in the file's properties and zip entries).

``--shape hm``: H&M's articles table, ``articles.csv``, in the layout of the public H&M Personalized Fashion
Recommendations data: 25 columns, every attribute as a number and a name; ten-digit ``article_id`` strings; H&M's
own vocabularies, each product's Myntra values translated by a table (product types such as ``Vest top``,
``Cap/peaked`` and ``Leggings/Tights``, product groups such as ``Garment Upper body``, garment groups such as
``Jersey Fancy`` and ``Under-, Nightwear``, colour groups such as ``Dark Blue`` and ``Other`` with their perceived
colour value and master, graphical appearances such as ``All over pattern`` and ``Unknown``); index groups
``Ladieswear``, ``Menswear``, ``Divided`` (Myntra's unisex products) and ``Baby/Children``; names without the brand;
no brand and no price (H&M's prices are in its transactions file).

``--shape myntra-products``: a storefront scrape in the layout of the public Myntra products catalog,
``myntra_products_catalog.csv`` (``ProductID``, ``ProductName``, ``ProductBrand``, ``Gender``, ``Price (INR)``,
``NumImages``, ``Description``, ``PrimaryColor``): no product-type column (the type is a word of the name), the
currency only in the price column's name, whole-rupee prices, the colour after a space, and ``Unisex Kids`` for
children's unisex products.

``--shape zara``: a retailer's own catalog in the layout of the public Zara products dataset, ``store_zara.csv``
(fields separated by semicolons; ``Product ID``, ``Product Position``, ``Promotion``, ``Product Category``,
``Seasonal``, ``Sales Volume``, ``brand``, ``url``, ``name``, ``description``, ``price``, ``currency``, ``scraped_at``,
``terms``, ``section``): one brand for every product, names in capitals without the brand or a gender word, the type
a lower-case plural word in ``terms``, the gender a store section (``MAN``, ``WOMAN``, ``BOYS``, ``GIRLS``; none for
unisex products), dollar prices ending in .90.

``--shape myntra-2023``: a scrape in the layout of the public 2023 Myntra fashion products dataset,
``myntra202305041052.csv`` (``p_id``, ``name``, ``products``, ``price``, ``colour``, ``brand``, ``img``,
``ratingCount``, ``avg_rating``, ``description``, ``p_attributes``): the type in a column named ``products``, the
gender only in the names, the attributes a Python dict written into a cell, photos as web addresses.

``--shape hf-parquet``: the Myntra product images dataset as Hugging Face publishes it, ``train-00000-of-00001.parquet``
(``id``, ``gender``, ``masterCategory``, ``subCategory``, ``articleType``, ``baseColour``, ``season``, ``year``,
``usage``, ``productDisplayName``, ``image``): no brand, price or description, and each photo's bytes inside its row.

    python scripts/derive_catalog_shapes.py --source tests/fixtures/myntra_small --out us-tops
    fashionrq build --catalog us-tops/catalog.csv --mapping us-tops/mapping.toml --out BENCH
    python scripts/derive_catalog_shapes.py --shape merchant --source bundled --out feed
    fashionrq build --catalog feed/catalog.tsv --mapping feed/mapping.toml --out BENCH
    python scripts/derive_catalog_shapes.py --shape merchant-xml --source bundled --out xml-feed
    fashionrq build --catalog xml-feed/catalog.xml --mapping xml-feed/mapping.toml --out BENCH
"""

from __future__ import annotations

import argparse
import csv
import datetime
import gzip
import hashlib
import html
import io
import json
import re
import sys
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import pyarrow as pa
import pyarrow.parquet as pq
from openpyxl import Workbook
from openpyxl.writer.excel import ExcelWriter

from fashionrq.catalog import ingest
from fashionrq.errors import InputError
from fashionrq.io import atomic_directory
from fashionrq.layout import check_folder_output

INR_PER_USD = 83.0
SIZES = ("XS", "S", "M", "L", "XL")

US_TOPS_MAPPING = '''# US women's tops export (scripts/derive_catalog_shapes.py), mapped as docs/catalog.md describes.
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


MERCHANT_MAPPING = """# A Google Merchant Center product feed (scripts/derive_catalog_shapes.py --shape merchant), mapped as docs/catalog.md
# describes. catalog.tsv is read as tab-separated from its name.
list_separator = "/"              # color: up to three colours, "Black/White"

[columns]
item_id = "id"
name = "title"
brand = "brand"
gender = "gender"                 # male | female | unisex
age_group = "age_group"           # adult | kids
article_type = "product_type"     # "Women > Apparel > Topwear > Tops"
master_category = "product_type"
sub_category = "product_type"
colours = "color"
price = "price"                   # "1299.00 INR"
discounted_price = "sale_price"
description = "description"       # HTML is stripped
image_path = "image_link"         # web addresses: no photo, counted under values_nulled.image_url

[attributes]
Fabric = "material"
Pattern = "pattern"

[price]
currency = "INR"

[clean.article_type]              # the last part of the product_type path
split = ">"

[clean.master_category]
split = ">"
part = 1

[clean.sub_category]
split = ">"
part = 2

[variants]                        # one row per size: the rows of one product and colour are one item
key = ["item_group_id", "color"]
"""

#: Each product's size run (2-4 consecutive sizes are listed, seeded per item), by masterCategory; kids' apparel in ages.
SIZE_RUNS = {"Apparel": ("XS", "S", "M", "L", "XL", "XXL"), "Footwear": ("6", "7", "8", "9", "10", "11"),
             "Personal Care": ("30 ml", "50 ml", "100 ml", "150 ml")}
KIDS_SIZES = ("2-3Y", "4-5Y", "6-7Y", "8-9Y", "10-11Y", "12-13Y")
OTHER_SIZES = ("Small", "Medium", "Large")
GOOGLE_GENDERS = {"Men": "male", "Boys": "male", "Women": "female", "Girls": "female", "Unisex": "unisex"}
#: Google product categories: by (masterCategory, subCategory), else by masterCategory.
CLOTHING, ACCESSORIES = "Apparel & Accessories > Clothing", "Apparel & Accessories > Clothing Accessories"
GOOGLE_CATEGORIES = {
    ("Apparel", "Topwear"): f"{CLOTHING} > Shirts & Tops", ("Apparel", "Bottomwear"): f"{CLOTHING} > Pants",
    ("Apparel", "Dress"): f"{CLOTHING} > Dresses", ("Apparel", "Innerwear"): f"{CLOTHING} > Underwear & Socks",
    ("Apparel", "Loungewear and Nightwear"): f"{CLOTHING} > Sleepwear & Loungewear",
    ("Accessories", "Bags"): "Apparel & Accessories > Handbags, Wallets & Cases > Handbags",
    ("Accessories", "Wallets"): "Apparel & Accessories > Handbags, Wallets & Cases > Wallets & Money Clips",
    ("Accessories", "Watches"): "Apparel & Accessories > Jewelry > Watches",
    ("Accessories", "Jewellery"): "Apparel & Accessories > Jewelry",
    ("Accessories", "Eyewear"): f"{ACCESSORIES} > Sunglasses", ("Accessories", "Belts"): f"{ACCESSORIES} > Belts",
}
MASTER_CATEGORIES = {"Apparel": CLOTHING, "Footwear": "Apparel & Accessories > Shoes", "Accessories": ACCESSORIES,
                     "Personal Care": "Health & Beauty > Personal Care", "Sporting Goods": "Sporting Goods", "Home": "Home & Garden"}


def _sizes(item: dict) -> tuple[str, ...]:
    """2-4 consecutive sizes of the item's size run, seeded per item."""
    kids = item["gender"] in ("Boys", "Girls") and item["master_category"] == "Apparel"
    run = KIDS_SIZES if kids else SIZE_RUNS.get(item["master_category"], OTHER_SIZES)
    count = min(2 + _pick(item["item_id"], "sizes", 3), len(run))
    first = _pick(item["item_id"], "first size", len(run) - count + 1)
    return run[first:first + count]


def _inr(amount: float) -> str:
    return f"{amount:.2f} INR"


def _attribute(item: dict, *keys: str) -> str:
    attributes = dict(item["attributes"] or {})
    return next((attributes[k] for k in keys if attributes.get(k)), "")


def _product(item: dict) -> dict[str, str]:
    """The columns every size row of ``item`` shares."""
    item_id, discounted = item["item_id"], item["discounted_price"]
    slug = _slug(item["name"])
    return {
        "item_group_id": item_id,
        "title": item["name"],
        "description": f"<p>{html.escape(item['description'])}</p>" if item["description"] else "",
        "link": f"https://www.example.com/{slug}/{item_id}/buy",
        "image_link": f"https://assets.example.com/images/style/{item_id}.jpg",
        "price": _inr(item["price"]),
        "sale_price": _inr(discounted) if discounted is not None and discounted < item["price"] else "",
        "brand": item["brand"] or "",
        "gender": GOOGLE_GENDERS[item["gender"]],
        "age_group": "kids" if item["gender"] in ("Boys", "Girls") else item["age_group"] or "",
        "color": "/".join(item["colours"][:3]),
        "material": _attribute(item, "Fabric", "Material"),
        "pattern": _attribute(item, "Pattern", "Print or Pattern Type"),
        "google_product_category": GOOGLE_CATEGORIES.get((item["master_category"], item["sub_category"]),
                                                         MASTER_CATEGORIES.get(item["master_category"], "Apparel & Accessories")),
        "product_type": " > ".join(item[f] for f in ("gender", "master_category", "sub_category", "article_type")),
    }


def merchant_feed(items) -> list[dict[str, str]]:
    """Every product with a title, a price and a colour, one row per size, as a Google Merchant Center feed lists it."""
    rows = []
    for item in items:
        if not item["name"] or not item["price"] or not item["colours"]:
            continue
        product = _product(item)
        for size in _sizes(item):
            code = size.replace(" ", "")
            rows.append({"id": f"{item['item_id']}-{code}"} | product | {"link": f"{product['link']}?size={code}", "size": size})
    return rows


SHOPIFY_MAPPING = """# A Shopify product export (scripts/derive_catalog_shapes.py --shape shopify), mapped as docs/catalog.md describes.
# One row per size and colour; a product's later rows leave its Title, Body (HTML), Vendor and Type empty, and image
# rows hold only the Handle and an image.

[columns]
item_id = "Variant SKU"
name = "Title"
brand = "Vendor"
gender = "Google Shopping / Gender"          # Female | Male | Unisex
age_group = "Google Shopping / Age Group"    # Adult | Kids
article_type = "Type"
master_category = "Product Category"         # "Apparel & Accessories > Clothing > Shirts & Tops"
sub_category = "Product Category"
colours = ["Option{n} Value[Option{n} Name=Color|Colour]", "Color (product.metafields.shopify.color-pattern)"]
price = ["Variant Compare At Price", "Variant Price"]   # the price before a sale, else the price
discounted_price = "Variant Price"
description = "Body (HTML)"
image_path = "Image Src"

[attributes]
Fabric = "Fabric (product.metafields.shopify.fabric)"
Pattern = "Pattern (product.metafields.shopify.pattern)"

[price]
currency = "EUR"

[clean.master_category]
split = ">"
part = 1

[clean.sub_category]
split = ">"
part = 2

[variants]                        # one item per product and colour
key = ["Handle", "Option{n} Value[Option{n} Name=Color|Colour]"]
# what a product's later rows leave empty, taken from its first row
fill = ["Title", "Body (HTML)", "Vendor", "Product Category", "Type", "Option{n} Name", "Google Shopping / Gender",
        "Google Shopping / Age Group", "Color (product.metafields.shopify.color-pattern)",
        "Fabric (product.metafields.shopify.fabric)", "Pattern (product.metafields.shopify.pattern)"]
"""

INR_PER_EUR = 90.0
SHOPIFY_COLUMNS = (
    "Handle", "Title", "Body (HTML)", "Vendor", "Product Category", "Type", "Tags", "Published", "Option1 Name",
    "Option1 Value", "Option2 Name", "Option2 Value", "Option3 Name", "Option3 Value", "Variant SKU", "Variant Grams",
    "Variant Inventory Tracker", "Variant Inventory Policy", "Variant Fulfillment Service", "Variant Price",
    "Variant Compare At Price", "Variant Requires Shipping", "Variant Taxable", "Variant Barcode", "Image Src",
    "Image Position", "Image Alt Text", "Gift Card", "Google Shopping / Gender", "Google Shopping / Age Group",
    "Color (product.metafields.shopify.color-pattern)", "Fabric (product.metafields.shopify.fabric)",
    "Pattern (product.metafields.shopify.pattern)", "Status")
SHOPIFY_GENDERS = {"Men": "Male", "Boys": "Male", "Women": "Female", "Girls": "Female", "Unisex": "Unisex"}


def _without_colours(item: dict) -> str:
    """The item's name with its colour words taken out: the title a store gives a product sold in several colours."""
    name = item["name"]
    for colour in sorted(item["colours"], key=len, reverse=True):
        name = re.sub(rf"\b{re.escape(colour)}\b", " ", name, flags=re.IGNORECASE)
    return " ".join(name.split())


def _slug(text: str) -> str:
    """A web address's words for ``text``: lower case, runs of other characters as one hyphen."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _shopify_handles(items) -> list[tuple[list[dict], str]]:
    """Each product of :func:`_handles` with its Shopify handle: the slug of its title without colours, a number
    after it from its second use (``-2``, ``-3``)."""
    out, uses = [], Counter()
    for product in _handles(items):
        slug = _slug(_without_colours(product[0]))
        uses[slug] += 1
        out.append((product, slug if uses[slug] == 1 else f"{slug}-{uses[slug]}"))
    return out


def _handles(items) -> list[list[dict]]:
    """The source items as a store's products: items of one brand, gender and type whose names differ only in colour
    are the colours of one product (at most four, each colour once), in catalog order."""
    open_groups: dict[tuple, list[dict]] = {}
    products = []
    for item in items:
        if not item["name"] or not item["price"] or not item["colours"]:
            continue
        key = (item["brand"], item["gender"], item["article_type"], _without_colours(item).casefold())
        group = open_groups.get(key)
        if group is None or len(group) == 4 or item["base_colour"].casefold() in {i["base_colour"].casefold() for i in group}:
            group = open_groups[key] = []
            products.append(group)
        group.append(item)
    return products


def _euro(inr: float) -> str:
    return f"{inr / INR_PER_EUR:.2f}"


def _shopify_rows(product: list[dict], handle: str) -> list[dict[str, str]]:
    """One row per colour and size of ``product``; the first row carries the product's fields, and one image row
    follows, as Shopify exports them. Colour is the first option or the second (seeded); a product in one colour
    without sizes has Shopify's "Default Title" option, and its colour only in the colour metafield."""
    first = product[0]
    item_id = first["item_id"]
    sizes = _sizes(first) if first["master_category"] in SIZE_RUNS or first["gender"] in ("Boys", "Girls") else ()
    colour_first = _pick(item_id, "option order", 3) > 0
    title = _without_colours(first) if len(product) > 1 else first["name"]
    body = f"<p>{first['description']}</p>" if first["description"] else ""
    category = GOOGLE_CATEGORIES.get((first["master_category"], first["sub_category"]),
                                     MASTER_CATEGORIES.get(first["master_category"], "Apparel & Accessories"))
    product_fields = {
        "Title": title, "Body (HTML)": body, "Vendor": first["brand"] or "", "Product Category": category,
        "Type": first["article_type"], "Tags": ", ".join(v for v in (first["gender"], first["sub_category"], first["usage"]) if v),
        "Published": "TRUE", "Gift Card": "FALSE", "Google Shopping / Gender": SHOPIFY_GENDERS[first["gender"]],
        "Google Shopping / Age Group": "Kids" if first["gender"] in ("Boys", "Girls") else "Adult",
        "Color (product.metafields.shopify.color-pattern)": "; ".join(i["base_colour"].lower() for i in product),
        "Fabric (product.metafields.shopify.fabric)": _attribute(first, "Fabric", "Material").lower(),
        "Pattern (product.metafields.shopify.pattern)": _attribute(first, "Pattern", "Print or Pattern Type").lower(),
        "Status": "active",
    }
    rows = []
    for item in product:
        discounted = item["discounted_price"] if item["discounted_price"] is not None and item["discounted_price"] < item["price"] else None
        for size in sizes or ("Default Title",):
            if not sizes and len(product) == 1:
                options = [("Title", "Default Title")]
            elif not sizes:
                options = [("Color", item["base_colour"])]
            else:
                options = [("Color", item["base_colour"]), ("Size", size)]
                options = options if colour_first else options[::-1]
            row = dict.fromkeys(SHOPIFY_COLUMNS, "") | {"Handle": handle}
            for n, (name, value) in enumerate(options, start=1):
                row[f"Option{n} Value"] = value
                if not rows:
                    row[f"Option{n} Name"] = name
            row |= {
                "Variant SKU": f"{item['item_id']}-{size.replace(' ', '')}" if sizes else item["item_id"],
                "Variant Grams": "400", "Variant Inventory Tracker": "shopify", "Variant Inventory Policy": "deny",
                "Variant Fulfillment Service": "manual",
                "Variant Price": _euro(discounted if discounted is not None else item["price"]),
                "Variant Compare At Price": _euro(item["price"]) if discounted is not None else "",
                "Variant Requires Shipping": "TRUE", "Variant Taxable": "TRUE",
            }
            if not rows:
                row |= product_fields | {"Image Src": f"https://cdn.shopify.com/s/files/1/0000/0001/products/{item_id}.jpg",
                                         "Image Position": "1", "Image Alt Text": title}
            rows.append(row)
    rows.append(dict.fromkeys(SHOPIFY_COLUMNS, "") | {
        "Handle": handle, "Image Src": f"https://cdn.shopify.com/s/files/1/0000/0001/products/{item_id}_2.jpg", "Image Position": "2"})
    return rows


def shopify_export(items) -> list[dict[str, str]]:
    """Every product with a name, a price and a colour, as a Shopify store's product export lists it."""
    return [row for product, handle in _shopify_handles(items) for row in _shopify_rows(product, handle)]


SHOPIFY_JSON_MAPPING = """# A Shopify store's products.json (scripts/derive_catalog_shapes.py --shape shopify-json), the pages of its
# /products.json joined into one {"products": [...]} array, mapped as docs/catalog.md describes. One record per
# product: a product sold in several colours is one item with those colours; its sizes are variants, not items.

[columns]
item_id = "id"
name = "title"
brand = "vendor"
article_type = "product_type"
gender = "tags"                                    # ["Men", "Topwear", "Casual"]: the gender word, below
colours = "options[name=Color].values"             # the Color option's values
base_colour = "title"                              # the colour word of the title, else the first of the colours
price = ["variants[0].compare_at_price", "variants[0].price"]   # before a sale, else the price
discounted_price = "variants[0].price"
description = "body_html"
image_path = "images[0].src"                       # a web address: read as no photo, and counted

[clean.gender]
extract = '\\b(men|women|boys|girls|unisex)\\b'

[clean.base_colour]                                # the first colour word of the title, once the brand is cut out
strip_brand = true
extract = '\\b(navy blue|off white|grey melange|black|white|blue|grey|red|green|pink|brown|beige|yellow|purple|maroon|orange|silver|gold|navy|cream|olive|khaki|charcoal|multi)\\b'

[price]
currency = "INR"
"""
#: When the source items were listed in the store (seeded per product, two years of days).
SHOPIFY_LISTED_FROM = datetime.datetime(2022, 1, 1, 10, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30)))


def _shopify_product(product: list[dict], handle: str) -> dict:
    """One product of Shopify's products.json: a variant per colour and size (price strings, a compare-at price
    only on sale), the options Color (for a product in several colours, and for a third of the others) and Size, or
    Shopify's "Title" option, a photo per colour, tags (gender, sub category, usage) and the product's times, which
    its photos share."""
    first = product[0]
    product_id = 7_000_000_000_000 + int(first["item_id"])
    listed = (SHOPIFY_LISTED_FROM + datetime.timedelta(days=_pick(first["item_id"], "listed", 730))).isoformat()
    sizes = _sizes(first) if first["master_category"] in SIZE_RUNS or first["gender"] in ("Boys", "Girls") else ()
    coloured = len(product) > 1 or _pick(first["item_id"], "colour option", 3) == 0
    options = ([{"name": "Color", "position": 1, "values": [i["base_colour"] for i in product]}] if coloured else [])
    options += [{"name": "Size", "position": len(options) + 1, "values": list(sizes)}] if sizes else []
    variants = []
    for item in product:
        on_sale = item["discounted_price"] is not None and item["discounted_price"] < item["price"]
        for size in sizes or (None,):
            values = ([item["base_colour"]] if coloured else []) + ([size] if size else [])
            variants.append({"id": product_id * 100 + len(variants), "title": " / ".join(values) or "Default Title",
                             **{f"option{n}": option for n, option in enumerate(((values or ["Default Title"]) + [None, None])[:3], start=1)},
                             "sku": f"{item['item_id']}-{size or 'OS'}", "requires_shipping": True, "taxable": True, "featured_image": None,
                             "available": _pick(item["item_id"], f"stock {size}", 5) > 0, "price": f"{item['discounted_price'] if on_sale else item['price']:.2f}",
                             "grams": 0, "compare_at_price": f"{item['price']:.2f}" if on_sale else None, "position": len(variants) + 1,
                             "product_id": product_id, "created_at": listed, "updated_at": listed})
    return {"id": product_id, "title": _without_colours(first) if len(product) > 1 else first["name"], "handle": handle,
            "body_html": f"<p>{html.escape(first['description'])}</p>" if first["description"] else "", "published_at": listed,
            "created_at": listed, "updated_at": listed, "vendor": first["brand"] or "", "product_type": first["article_type"],
            "tags": [v for v in (first["gender"], first["sub_category"], first["usage"]) if v], "variants": variants,
            "images": [{"id": product_id * 10 + n, "created_at": listed, "position": n + 1, "updated_at": listed, "alt": None,
                        "width": 1080, "height": 1440, "src": f"https://cdn.shopify.com/s/files/1/0612/products/{item['item_id']}.jpg",
                        "variant_ids": []} for n, item in enumerate(product)],
            "options": options or [{"name": "Title", "position": 1, "values": ["Default Title"]}]}


def shopify_products_json(items) -> list[dict]:
    """Every product with a name, a price and a colour, as a Shopify store's products.json lists it."""
    return [_shopify_product(product, handle) for product, handle in _shopify_handles(items)]


def _products_json(products: list[dict]) -> bytes:
    return json.dumps({"products": products}, ensure_ascii=False).encode("utf-8")


WOOCOMMERCE_MAPPING = """# A WooCommerce product export (scripts/derive_catalog_shapes.py --shape woocommerce), mapped as docs/catalog.md
# describes. A variable product's row holds its description, categories, brand and attributes; each of its variation
# rows (one per colour and size) names it in Parent, by its SKU or as id:<ID>, and holds the colour, the size and the
# prices. Simple products are rows of their own.

[columns]
item_id = "SKU"
name = "Name"                                  # a variation's name ends in " - Black, M"
brand = "Brands"
gender = "Categories"                          # "Men > Apparel > Topwear > Tshirts": the parts, below
master_category = "Categories"
sub_category = "Categories"
article_type = "Categories"
colours = "Attribute {n} value(s)[Attribute {n} name=Color]"
price = "Regular price"
discounted_price = "Sale price"
description = "Description"
image_path = "Images"

[attributes]
Fabric = "Attribute {n} value(s)[Attribute {n} name=Fabric]"

[price]
currency = "GBP"

[clean.name]                                   # "Nike Men T-shirt - Black, M" or "... - White, 4-5Y" -> "Nike Men T-shirt"
remove = [' - [^,-]{1,24}(?:, [^,]{1,12})?$']

[clean.gender]
split = ">"
part = 0

[clean.master_category]
split = ">"
part = 1

[clean.sub_category]
split = ">"
part = 2

[clean.article_type]                           # the last part; "Tshirts, Sale" (a second category) -> "Tshirts"
split = ">"
remove = [',.*$']

[variants]
parent = "Parent"                              # the variable product's row is left out: its variations are the items
parent_id = ["SKU", "id:{ID}"]                 # by its SKU, or for a parent without one as id:<its ID>
key = ["Parent", "Attribute {n} value(s)[Attribute {n} name=Color]"]   # one item per product and colour
fill = ["Description", "Categories", "Brands", "Attribute {n} name", "Attribute {n} value(s)"]
"""

INR_PER_GBP = 105.0
WOO_COLUMNS = (
    "ID", "Type", "SKU", "Name", "Published", "Is featured?", "Visibility in catalog", "Short description", "Description",
    "Tax status", "In stock?", "Stock", "Sale price", "Regular price", "Categories", "Tags", "Images", "Parent", "Position",
    "Brands", "Attribute 1 name", "Attribute 1 value(s)", "Attribute 1 visible", "Attribute 1 global", "Attribute 2 name",
    "Attribute 2 value(s)", "Attribute 2 visible", "Attribute 2 global", "Attribute 3 name", "Attribute 3 value(s)",
    "Attribute 3 visible", "Attribute 3 global")


def _pounds(inr: float | None) -> str:
    return "" if inr is None else f"{inr / INR_PER_GBP:.2f}"


def _woo_attributes(row: dict, attributes: list[tuple[str, str]], variation: bool) -> dict:
    for n, (name, value) in enumerate(attributes, start=1):
        row |= {f"Attribute {n} name": name, f"Attribute {n} value(s)": value,
                f"Attribute {n} visible": "" if variation else "1", f"Attribute {n} global": "1"}
    return row


def _woo_rows(product: list[dict], next_id: int) -> list[dict[str, str]]:
    """A product in one colour without sizes as a simple product; any other as a variable product's row followed
    by a variation row per colour and size, each naming the parent by its SKU (or, for a parent without a SKU, one
    in five, seeded, as id:<ID>)."""
    first = product[0]
    item_id = first["item_id"]
    sizes = _sizes(first) if first["master_category"] in SIZE_RUNS or first["gender"] in ("Boys", "Girls") else ()
    title = _without_colours(first) if len(product) > 1 else first["name"]
    path = " > ".join(first[f] for f in ("gender", "master_category", "sub_category", "article_type"))
    on_sale = [i["discounted_price"] is not None and i["discounted_price"] < i["price"] for i in product]
    fabric = _attribute(first, "Fabric", "Material")
    base = dict.fromkeys(WOO_COLUMNS, "") | {"Published": "1", "Is featured?": "0", "Visibility in catalog": "visible",
                                             "Tax status": "taxable", "In stock?": "1"}
    product_fields = {"Name": title, "Description": f"<p>{first['description']}</p>" if first["description"] else "",
                      "Short description": "", "Categories": path + (", Sale" if any(on_sale) else ""),
                      "Tags": ", ".join(v for v in (first["usage"], first["season"]) if v), "Brands": first["brand"] or "",
                      "Images": ", ".join(f"https://shop.example.com/wp-content/uploads/{i['item_id']}.jpg" for i in product)}
    extra = [("Fabric", fabric)] if fabric else []
    if len(product) == 1 and not sizes:
        price = {"Regular price": _pounds(first["price"]), "Sale price": _pounds(first["discounted_price"]) if on_sale[0] else ""}
        return [_woo_attributes(base | {"ID": str(next_id), "Type": "simple", "SKU": item_id} | product_fields | price,
                                [("Color", first["base_colour"])] + extra, variation=False)]
    parent_sku = "" if _pick(item_id, "parent sku", 5) == 0 else f"{re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-')}-{item_id}"
    parent_options = [("Color", ", ".join(i["base_colour"] for i in product))] + ([("Size", ", ".join(sizes))] if sizes else [])
    rows = [_woo_attributes(base | {"ID": str(next_id), "Type": "variable", "SKU": parent_sku} | product_fields,
                            parent_options + extra, variation=False)]
    for item, sale in zip(product, on_sale, strict=True):
        for size in sizes or ("",):
            next_id += 1
            options = [("Color", item["base_colour"])] + ([("Size", size)] if size else [])
            rows.append(_woo_attributes(base | {
                "ID": str(next_id), "Type": "variation", "Name": f"{title} - {', '.join(v for _, v in options)}",
                "SKU": f"{item['item_id']}-{size.replace(' ', '')}" if size else item["item_id"],
                "Parent": parent_sku or f"id:{rows[0]['ID']}", "Regular price": _pounds(item["price"]),
                "Sale price": _pounds(item["discounted_price"]) if sale else "",
                "Images": f"https://shop.example.com/wp-content/uploads/{item['item_id']}.jpg"}, options, variation=True))
    return rows


def woocommerce_export(items) -> list[dict[str, str]]:
    """Every product with a name, a price and a colour, as WooCommerce's product exporter lists it."""
    rows: list[dict[str, str]] = []
    for product in _handles(items):
        rows += _woo_rows(product, 1000 + len(rows))
    return rows


AMAZON_MAPPING = """# An Amazon Seller Central clothing inventory flat file (scripts/derive_catalog_shapes.py --shape amazon), mapped as
# docs/catalog.md describes. Tab-separated .txt with two lines above the header; a parent row per product in several
# colours or sizes, named by its children's parent_sku.
format = "tsv"
header_row = 3                                  # line 1: TemplateType=...; line 2: labels; line 3: the field names

[columns]
item_id = "item_sku"
name = "item_name"                              # a child's name ends in ", <colour>, <size>"
brand = "brand_name"
gender = "department_name"                      # mens | womens | boys | girls | unisex-adult (read as Unisex)
article_type = "item_type"                      # casual-shoes
base_colour = "color_name"
price = "standard_price"
discounted_price = "sale_price"
description = "product_description"
image_path = "main_image_url"

[attributes]
Fabric = ["fabric_type", "material_type"]
Pattern = "pattern_type"

[price]
currency = "USD"

[clean.article_type]                            # "casual-shoes" -> "Casual Shoes"
remove = ['-']
words = true

[clean.name]                                    # "Puma Men Socks, Navy Blue, M" -> "Puma Men Socks"
remove = [', [^,]{1,24}(?:, [^,]{1,12})?$']

[variants]                                      # the parent rows are left out: their children are the items
parent = "parent_sku"
parent_id = ["item_sku"]
key = ["parent_sku", "color_name"]              # one item per parent and colour
"""

AMAZON_DEPARTMENTS = {"Men": "mens", "Women": "womens", "Boys": "boys", "Girls": "girls", "Unisex": "unisex-adult"}
AMAZON_FEED_TYPES = {"Apparel": "apparel", "Footwear": "shoes", "Accessories": "accessory", "Personal Care": "beauty"}
AMAZON_COLUMNS = (
    "feed_product_type", "item_sku", "brand_name", "item_name", "external_product_id", "external_product_id_type",
    "item_type", "standard_price", "quantity", "main_image_url", "parent_child", "parent_sku", "relationship_type",
    "variation_theme", "update_delete", "product_description", "bullet_point1", "bullet_point2", "department_name",
    "color_name", "size_name", "material_type", "fabric_type", "pattern_type", "sale_price", "currency")


def _amazon_rows(product: list[dict]) -> list[dict[str, str]]:
    """A product in one colour without sizes as one standalone row; any other as a parent row (no price, colour or
    size) followed by a child row per colour and size naming it in parent_sku, each named "<title>, <colour>, <size>"."""
    first = product[0]
    sizes = _sizes(first) if first["master_category"] in SIZE_RUNS or first["gender"] in ("Boys", "Girls") else ()
    title = _without_colours(first) if len(product) > 1 else first["name"]
    sentences = re.split(r"(?<=\.)\s+", first["description"] or "")
    common = dict.fromkeys(AMAZON_COLUMNS, "") | {
        "feed_product_type": AMAZON_FEED_TYPES.get(first["master_category"], "accessory"), "brand_name": first["brand"] or "",
        "item_type": first["article_type"].lower().replace(" ", "-"), "department_name": AMAZON_DEPARTMENTS[first["gender"]],
        "update_delete": "Update", "product_description": first["description"] or "", "bullet_point1": sentences[0],
        "bullet_point2": sentences[1] if len(sentences) > 1 else "", "material_type": _attribute(first, "Fabric", "Material"),
        "currency": "USD"}
    standalone = len(product) == 1 and not sizes
    parent_sku = f"PARENT-{first['item_id']}"
    rows = [] if standalone else [common | {"item_sku": parent_sku, "item_name": title, "parent_child": "parent",
                                            "variation_theme": "SizeColor" if sizes else "Color"}]
    for item in product:
        on_sale = item["discounted_price"] is not None and item["discounted_price"] < item["price"]
        for size in sizes or ("",):
            sku = f"{item['item_id']}-{size.replace(' ', '')}" if size else item["item_id"]
            row = common | {
                "item_sku": sku, "item_name": ", ".join(v for v in (title, item["base_colour"], size) if v),
                "external_product_id": f"{int(hashlib.sha256(sku.encode()).hexdigest(), 16) % 10**12:012d}",
                "external_product_id_type": "UPC", "standard_price": f"{item['price'] / INR_PER_USD:.2f}",
                "quantity": str(_pick(sku, "quantity", 40)), "main_image_url": f"https://m.media-amazon.com/images/I/{item['item_id']}.jpg",
                "color_name": item["base_colour"], "size_name": size, "fabric_type": _attribute(item, "Fabric"),
                "pattern_type": _attribute(item, "Pattern", "Print or Pattern Type"),
                "sale_price": f"{item['discounted_price'] / INR_PER_USD:.2f}" if on_sale else ""}
            if not standalone:
                row |= {"parent_child": "child", "parent_sku": parent_sku, "relationship_type": "Variation",
                        "variation_theme": "SizeColor" if sizes else "Color"}
            rows.append(row)
    return rows


def amazon_flat_file(items) -> list[dict[str, str]]:
    """Every product with a name, a price and a colour, as a seller's clothing inventory flat file lists it."""
    return [row for product in _handles(items) for row in _amazon_rows(product)]


def amazon_template_lines(columns: list[str]) -> list[list[str]]:
    """The two lines Amazon writes above a flat file's header: the template line, then the columns' labels."""
    return [["TemplateType=fptcustom", "Version=2026.1104", "TemplateSignature=Q0xPVEhJTkc=",
             "The top 3 rows are for Amazon.com use only. Do not modify or delete the top 3 rows."],
            [c.replace("_", " ").title() for c in columns]]


FLIPKART_MAPPING = """# A marketplace crawl in the layout of the public Flipkart products dataset (scripts/derive_catalog_shapes.py --shape
# flipkart), mapped as docs/catalog.md describes: specifications as a Ruby hash of key/value objects, a category tree
# as a JSON list holding one ">>" path, photos as a JSON list of web addresses, prices in rupees.

[columns]
item_id = "uniq_id"
name = "product_name"
brand = "brand"
gender = "product_specifications.product_specification[key=Ideal For].value"    # Men's | Women's | Men's, Women's
article_type = "product_specifications.product_specification[key=Type].value"
base_colour = "product_specifications.product_specification[key=Color].value"
usage = "product_specifications.product_specification[key=Occasion].value"
master_category = "product_category_tree[0]"    # "Clothing >> Men's Clothing >> Topwear >> Shirts >> ..."
sub_category = "product_category_tree[0]"
attributes = "product_specifications.product_specification"   # Fabric, Pattern, Style Code, ...
price = "retail_price"
discounted_price = "discounted_price"
description = "description"
image_path = "image[0]"

[clean.master_category]
split = ">>"
part = 0

[clean.sub_category]                            # part 1 names the gender ("Men's Clothing")
split = ">>"
part = 2
"""

FLIPKART_TOPS = {"Apparel": "Clothing", "Footwear": "Footwear", "Personal Care": "Beauty and Personal Care",
                 "Sporting Goods": "Sports & Fitness", "Home": "Home Furnishing", "Free Items": "Clothing"}
FLIPKART_ACCESSORIES = {"Watches": "Watches", "Jewellery": "Jewellery", "Eyewear": "Sunglasses", "Bags": "Bags, Wallets & Belts",
                        "Wallets": "Bags, Wallets & Belts", "Belts": "Bags, Wallets & Belts"}
FLIPKART_POSSESSIVES = {"Men": "Men's", "Women": "Women's", "Boys": "Boys'", "Girls": "Girls'", "Unisex": "Unisex"}
FLIPKART_IDEAL_FOR = {"Men": "Men's", "Women": "Women's", "Boys": "Boys", "Girls": "Girls", "Unisex": "Men's, Women's"}


def _digest(text: str, n: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def _ruby_hash(entries: list[dict[str, str]]) -> str:
    """Flipkart's specifications cell: a Ruby hash of key/value objects (``"key"=>"Fabric"``)."""
    objects = ("{" + ", ".join(f'"{k}"=>{json.dumps(v, ensure_ascii=False)}' for k, v in e.items()) + "}" for e in entries)
    return '{"product_specification"=>[' + ", ".join(objects) + "]}"


def _flipkart_row(item: dict) -> dict[str, str]:
    item_id, gender = item["item_id"], item["gender"]
    top = FLIPKART_TOPS.get(item["master_category"]) or FLIPKART_ACCESSORIES.get(item["sub_category"], "Accessories")
    tree = [top, f"{FLIPKART_POSSESSIVES[gender]} {top}", item["sub_category"] or "", item["article_type"],
            f"{item['brand']} {item['article_type']}", item["name"]]
    attributes = dict(item["attributes"] or {})
    specs = [{"key": "Number of Contents in Sales Package", "value": "Pack of 1"}]
    specs += [{"key": "Color", "value": item["base_colour"]}] if item["base_colour"] else []
    specs += [{"key": "Ideal For", "value": FLIPKART_IDEAL_FOR[gender]}, {"key": "Type", "value": item["article_type"]}]
    specs += [{"key": key, "value": attributes[key]} for key in ("Fabric", "Pattern") if attributes.get(key)]
    specs += [{"key": "Occasion", "value": item["usage"]}] if item["usage"] else []
    specs += [{"key": "Style Code", "value": f"{_digest(item_id, 6).upper()}_{item_id}"}, {"value": "Machine Wash"}]
    pid = (item["article_type"][:3].upper() + "E" + _digest(item_id, 12).upper())[:16]
    paid = item["discounted_price"] or item["price"]
    description = item["description"] or ""
    return {
        "uniq_id": _digest(f"u{item_id}", 32), "crawl_timestamp": "2016-03-25 22:59:23 +0000",
        "product_url": f"http://www.flipkart.com/{re.sub(r'[^a-z0-9]+', '-', item['name'].lower())}/p/itm{_digest(item_id, 13)}?pid={pid}",
        "product_name": item["name"], "product_category_tree": json.dumps([" >> ".join(tree)], ensure_ascii=False), "pid": pid,
        "retail_price": f"{item['price']:.0f}" if item["price"] else "", "discounted_price": f"{paid:.0f}" if paid else "",
        "image": json.dumps([f"http://img5a.flixcart.com/image/{_digest(item_id, 8)}/{item_id}-{n}.jpeg" for n in (1, 2)]),
        "is_FK_Advantage_product": "False",
        "description": f"Key Features of {item['name']} {description}".strip() if _pick(item_id, "key features", 2) else description,
        "product_rating": "No rating available", "overall_rating": "No rating available", "brand": item["brand"] or "",
        "product_specifications": _ruby_hash(specs)}


def flipkart_crawl(items) -> list[dict[str, str]]:
    """Every product with a name, one row each, as the public Flipkart products crawl lays them out."""
    return [_flipkart_row(item) for item in items if item["name"]]


AMAZON_2014_MAPPING = r"""# A marketplace metadata dump in the layout of the public Amazon product data of 2014
# (scripts/derive_catalog_shapes.py --shape amazon-2014), mapped as docs/catalog.md describes: a gzipped file named
# .json that holds one Python dict per line, category paths as a list of lists (the clothing one not always first),
# dollar prices as numbers, no colour field (the colour is read from the title), photos as web addresses.
format = "json"

[columns]
item_id = "asin"
name = "title"
brand = "brand"
gender = "categories[0=Clothing, Shoes & Jewelry][1]"
master_category = "categories[0=Clothing, Shoes & Jewelry][2]"
sub_category = "categories[0=Clothing, Shoes & Jewelry][3]"
article_type = ["categories[0=Clothing, Shoes & Jewelry][-1]", "categories[0][-1]"]   # a beauty product's own path
base_colour = "title"
price = "price"
image_path = "imUrl"

[price]
currency = "USD"

[clean.base_colour]   # the first colour word of the title, the brand's name left out ("Red Tape Men Brown Sandals")
strip_brand = true
extract = '\b(navy blue|off white|grey melange|turquoise blue|coffee brown|sea green|black|white|blue|brown|grey|red|green|pink|purple|silver|yellow|beige|gold|maroon|orange|olive|multi|cream|steel|charcoal|peach|skin|lavender|khaki|magenta|teal|tan|mustard|bronze|copper|rust|burgundy)\b'
"""

AMAZON_2014_GROUPS = {"Apparel": "Clothing", "Footwear": "Shoes", "Accessories": "Accessories", "Free Items": "Clothing",
                      "Sporting Goods": "Sports Gear", "Home": "Home"}


def _asin(item_id: str) -> str:
    """A ten-character ASIN: ``B0`` and eight base-36 digits of a hash (36**8 of them, so 44,000 ids do not collide)."""
    number = int.from_bytes(hashlib.sha256(f"asin:{item_id}".encode()).digest()[:8], "big")
    digits = ""
    for _ in range(8):
        number, digit = divmod(number, 36)
        digits += "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[digit]
    return "B0" + digits


def _categories_2014(item: dict) -> list[list[str]]:
    """An item's category paths as the 2014 dump lists them: ``Clothing, Shoes & Jewelry`` > gender > group > sub
    category > type (a unisex item under Women and Men), a beauty product under ``Beauty`` alone, and a sports item's
    ``Sports & Outdoors`` path first for half of them (seeded)."""
    item_id = item["item_id"]
    if item["master_category"] == "Personal Care":
        return [["Beauty", item["sub_category"] or "Personal Care", item["article_type"]]]
    tail = [AMAZON_2014_GROUPS[item["master_category"]], item["sub_category"] or "", item["article_type"]]
    genders = ["Women", "Men"] if item["gender"] == "Unisex" else [item["gender"]]
    paths = [["Clothing, Shoes & Jewelry", gender, *tail] for gender in genders]
    if item["usage"] == "Sports" and _pick(item_id, "sports first", 2):
        paths.insert(0, ["Sports & Outdoors", "Sports & Fitness", "Exercise & Fitness", "Clothing"])
    return paths


def _amazon_2014_record(item: dict) -> dict:
    item_id = item["item_id"]
    record = {"asin": _asin(item_id),
              "related": {"also_bought": [_asin(f"{item_id}-{n}") for n in range(1 + _pick(item_id, "bought", 3))]},
              "title": item["name"]}
    if item["price"] and _pick(item_id, "priced", 4):  # one product in four has no price
        record["price"] = round(item["price"] / INR_PER_USD, 2)
    record["salesRank"] = {"Beauty" if item["master_category"] == "Personal Care" else "Clothing": 1 + _pick(item_id, "rank", 2_000_000)}
    record["imUrl"] = f"http://ecx.images-amazon.com/images/I/{_digest(item_id, 11)}.jpg"
    if item["brand"] and _pick(item_id, "branded", 3):  # one in three has no brand
        record["brand"] = item["brand"]
    record["categories"] = _categories_2014(item)
    return record


def amazon_2014_dump(items) -> list[dict]:
    """Every product with a name, as the 2014 Amazon metadata dump lists it (one record per product)."""
    return [_amazon_2014_record(item) for item in items if item["name"]]


def _python_lines_gz(records: list[dict]) -> bytes:
    """One Python dict per line (``str(dict)``, as the 2014 dump was written), gzipped with no time stamp."""
    return gzip.compress("".join(f"{record}\n" for record in records).encode("utf-8"), mtime=0)


AMAZON_2023_MAPPING = r"""# Item metadata in the layout of the public Amazon Reviews 2023 data (meta_Clothing_Shoes_and_Jewelry.jsonl;
# scripts/derive_catalog_shapes.py --shape amazon-2023), mapped as docs/catalog.md describes: one JSON object per
# line and per product (its parent_asin), main_category the same everywhere, the category path a list (empty for a
# quarter of the products, whose type is then read from the title), the department in a details object, dollar prices
# as numbers or null, no colour field (the colour is read from the title), photos as web addresses.

[columns]
item_id = "parent_asin"
name = "title"
brand = "store"
gender = "details.Department"          # "womens", "mens", "girls", "boys", "unisex-adult"
master_category = "categories[2]"      # ["Clothing, Shoes & Jewelry", "Women", "Clothing", "Tops, Tees & Blouses", "Shirts"]
sub_category = "categories[3]"
article_type = ["categories[-1]", "title"]   # the path's last entry, else the product word at the end of the title
base_colour = "title"
price = "price"
description = "description"
attributes = "details"
image_path = "images[0].large"

[price]
currency = "USD"

[clean.base_colour]   # the first colour word of the title, the brand's name left out
strip_brand = true
extract = '\b(navy blue|off white|grey melange|turquoise blue|coffee brown|sea green|black|white|blue|brown|grey|red|green|pink|purple|silver|yellow|beige|gold|maroon|orange|olive|multi|cream|steel|charcoal|peach|skin|lavender|khaki|magenta|teal|tan|mustard|bronze|copper|rust|burgundy)\b'

[clean.article_type]  # only for the types read from the title: its last product word (a title with none: rejected)
from = "title"
extract = '(?<![\w-])(casual shoe|sports shoe|formal shoe|flip flop|track pant|t-?shirt|shirt|top|kurta|kurti|dress|jeans|trouser|shorts|skirt|jacket|sweatshirt|sweater|watch|handbag|backpack|wallet|belt|sunglasses|sandal|heels|flats|socks|brief|bra|saree|perfume|earrings|cap|tie)(?:e?s)?\W*$'

[values.article_type]  # the title's words as the category paths name the types
"casual shoe" = "Casual Shoes"
"sports shoe" = "Sports Shoes"
"formal shoe" = "Formal Shoes"
"flip flop" = "Flip Flops"
"track pant" = "Track Pants"
t-shirt = "Tshirts"
tshirt = "Tshirts"
shirt = "Shirts"
top = "Tops"
kurta = "Kurtas"
kurti = "Kurtis"
dress = "Dresses"
trouser = "Trousers"
skirt = "Skirts"
jacket = "Jackets"
sweatshirt = "Sweatshirts"
sweater = "Sweaters"
watch = "Watches"
handbag = "Handbags"
backpack = "Backpacks"
wallet = "Wallets"
belt = "Belts"
sandal = "Sandals"
brief = "Briefs"
saree = "Sarees"
perfume = "Perfume and Body Mist"
cap = "Caps"
tie = "Ties"
"""
AMAZON_2023_DEPARTMENTS = {"Men": "mens", "Women": "womens", "Boys": "boys", "Girls": "girls", "Unisex": "unisex-adult"}


def _amazon_2023_record(item: dict) -> dict:
    """One product as the 2023 Amazon item metadata lists it: a category path (Clothing, Shoes & Jewelry > gender >
    group > sub category > type) for three products in four, the department in ``details``, the attributes as
    ``"Key: Value"`` features, the price in dollars for two in three, the store as the brand."""
    item_id = item["item_id"]
    asin = _asin(item_id)
    categories = []
    if _pick(item_id, "categorised", 4):
        gender = "Women" if item["gender"] == "Unisex" else item["gender"]
        categories = ["Clothing, Shoes & Jewelry", gender, AMAZON_2014_GROUPS.get(item["master_category"], "Clothing"),
                      item["sub_category"] or "", item["article_type"]]
    features = [f"{key}: {value}" for key, value in sorted(dict(item["attributes"] or {}).items())][:5]
    return {"main_category": "AMAZON FASHION", "title": item["name"], "average_rating": round(1 + _pick(item_id, "rating", 41) / 10, 1),
            "rating_number": _pick(item_id, "ratings", 2000), "features": features,
            "description": [item["description"]] if item["description"] else [],
            "price": round(item["price"] / INR_PER_USD, 2) if item["price"] and _pick(item_id, "priced", 3) else None,
            "images": [{"thumb": f"https://m.media-amazon.com/images/I/{_digest(item_id, 11)}._SS40_.jpg",
                        "large": f"https://m.media-amazon.com/images/I/{_digest(item_id, 11)}.jpg", "variant": "MAIN", "hi_res": None}],
            "videos": [], "store": item["brand"], "categories": categories,
            "details": {"Department": AMAZON_2023_DEPARTMENTS[item["gender"]], "Date First Available": f"March {1 + _pick(item_id, 'day', 28)}, 2021",
                        "Item model number": item_id},
            "parent_asin": asin, "bought_together": None}


def amazon_2023_metadata(items) -> list[dict]:
    """Every product with a name and a gender, as the 2023 Amazon item metadata lists it (one record per product)."""
    return [_amazon_2023_record(item) for item in items if item["name"] and item["gender"]]


def _json_lines(records: list[dict]) -> bytes:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode("utf-8")


ASOS_MAPPING = """# A fashion store scrape in the layout of the public ASOS products dataset (scripts/derive_catalog_shapes.py --shape
# asos), mapped as docs/catalog.md describes: lists and dicts written into CSV cells as Python literals (single
# quotes), the product details a list of one-key dicts, the category a list of breadcrumbs, prices in pounds.
format = "csv"

[columns]
item_id = "sku"
name = "name"
brand = "description[*].Brand"
gender = "category[0]"
master_category = "category[1]"
sub_category = "category[2]"
article_type = "category[-1]"
base_colour = "color"
price = "price"
description = "description[*].Product Details"
attributes = "description"        # Product Details, Brand, Size & Fit, Look After Me, About Me
image_path = "images[0]"

[attributes]
Fabric = "description[*].About Me"

[price]
currency = "GBP"
"""

GBP_PER_INR = 0.0095


def _asos_row(item: dict) -> dict[str, str]:
    item_id, attributes = item["item_id"], dict(item["attributes"] or {})
    slug = _slug(item["name"])
    product = f"{item['article_type']} by {item['brand']}" if item["brand"] else item["article_type"]
    details = [{"Product Details": f"{product}\n{item['description'] or ''}".strip()}, {"Product Code": item_id}]
    details += [{"Brand": item["brand"]}] if item["brand"] else []
    details += [{"Size & Fit": f"Model wears: UK {8 + 2 * _pick(item_id, 'model size', 3)}"},
                {"Look After Me": "Machine wash according to instructions on care label"}]
    details += [{"About Me": attributes["Fabric"]}] if attributes.get("Fabric") else []
    sizes = _sizes(item)
    sold_out = _pick(item_id, "sold out", len(sizes) + 1)
    return {
        "url": f"https://www.asos.com/{slug}/prd/{item_id}",
        "name": item["name"],
        "size": ",".join(f"UK {s}" + (" - Out of stock" if n == sold_out else "") for n, s in enumerate(sizes)),
        "category": str([item["gender"], item["master_category"], item["sub_category"] or "", item["article_type"]]),
        "price": f"{item['price'] * GBP_PER_INR:.2f}" if item["price"] else "",
        "color": item["base_colour"] or "",
        "sku": f"{item_id}.0",  # pandas wrote the ids as floats
        "description": str(details),
        "images": str([f"https://images.asos-media.com/products/{slug}/{item_id}-{n}" for n in (1, 2, 3)]),
    }


def asos_scrape(items) -> list[dict[str, str]]:
    """Every product with a name, one row each, as the public ASOS scrape lays them out."""
    return [_asos_row(item) for item in items if item["name"]]


SCRAPE_FOLDER_MAPPING = """# A scrape saved as one JSON file per product (scripts/derive_catalog_shapes.py --shape scrape-folder), mapped as
# docs/catalog.md describes: the folder is the catalog, each file one product (a page file an array of them), the
# photos saved beside them and named by relative paths.

[columns]
item_id = "id"
name = "title"
brand = "brand.name"
gender = "breadcrumbs[0]"
master_category = "breadcrumbs[1]"
sub_category = "breadcrumbs[2]"
article_type = "breadcrumbs[-1]"
base_colour = "colour"
price = "price.amount"
discounted_price = "price.sale"
description = "description"
attributes = "specs"
image_path = "images[0]"
"""


def _scraped_product(item: dict) -> dict:
    """One product as a scraper saves it: nested brand and price, a breadcrumb list, a specs object, photo paths."""
    item_id, discounted = item["item_id"], item["discounted_price"]
    slug = _slug(item["name"])
    return {"id": f"MYN-{item_id}", "url": f"https://shop.example.in/{slug}/{item_id}", "title": item["name"],
            "brand": {"name": item["brand"], "url": f"https://shop.example.in/brands/{_digest(item['brand'] or '', 8)}"},
            "price": {"amount": item["price"], "sale": discounted if discounted is not None and discounted < (item["price"] or 0) else None,
                      "currency": "INR"},
            "breadcrumbs": [item["gender"], item["master_category"], item["sub_category"] or "", item["article_type"]],
            "colour": item["base_colour"], "specs": dict(item["attributes"] or {}),
            "description": f"<p>{html.escape(item['description'])}</p>" if item["description"] else None,
            "images": [f"images/{item_id}.jpg"] if item["image_path"] else []}


def scrape_folder(items) -> list[dict]:
    """Every product with a name, as a scraper saves it, with the bytes of its photo when the source has one."""
    return [{"product": _scraped_product(item), "folder": re.sub(r"[^a-z0-9]+", "-", (item["master_category"] or "other").lower()),
             "photo": Path(item["image_path"]).read_bytes() if item["image_path"] else None}
            for item in items if item["name"]]


def _product_files(rows: list[dict]) -> dict[str, bytes]:
    """Each product as ``products/<group>/<id>.json``, the free items together as one page file holding an array,
    and the photos under ``images/``."""
    files, pages = {}, {}
    for row in rows:
        product = row["product"]
        if row["folder"] == "free-items":
            pages.setdefault(f"products/{row['folder']}/page-1.json", []).append(product)
        else:
            files[f"products/{row['folder']}/{product['id']}.json"] = json.dumps(product, ensure_ascii=False, indent=1).encode("utf-8")
        if row["photo"] is not None:
            files[product["images"][0]] = row["photo"]
    files |= {name: json.dumps(page, ensure_ascii=False).encode("utf-8") for name, page in pages.items()}
    return dict(sorted(files.items()))


WORKBOOK_MAPPING = """# A retailer's product master workbook (scripts/derive_catalog_shapes.py --shape workbook), mapped as docs/catalog.md
# describes. product_master.xlsx has an Instructions sheet first, and a title line and a blank line above the header.
sheet = "Products"
header_row = 3                      # row 1: the title; row 2: blank

[columns]
item_id = "Style Code"              # number cells: 1163
name = "Product Name"
brand = "Brand"
gender = "Gender"                   # M | F | U | KB | KG
master_category = "Category"
sub_category = "Sub Category"
article_type = "Product Type"
base_colour = "Colour"
price = "MRP"                       # number cells shown as "₹1,299.00"
discounted_price = "Sale Price"     # a formula, =K4-L4: the value Excel last computed for it

[attributes]
Fabric = "Fabric"

[values.gender]                     # kids' codes; M, F and U read as Men, Women and Unisex
KB = "Boys"
KG = "Girls"
"""

WORKBOOK_GENDERS = {"Men": "M", "Women": "F", "Unisex": "U", "Boys": "KB", "Girls": "KG"}
WORKBOOK_INSTRUCTIONS = ("How to fill the product master", "One row per style on the sheet Products; do not rename the columns.",
                         "Gender codes: M men, F women, U unisex, KB kids boys, KG kids girls.",
                         "Sale Price is calculated: MRP less Discount. Do not type over it.")
WORKBOOK_CODES = (("Code", "Gender"), ("M", "Men"), ("F", "Women"), ("U", "Unisex"), ("KB", "Kids Boys"), ("KG", "Kids Girls"))
#: The sheet's columns that hold numbers and dates, with the number format Excel shows them in.
WORKBOOK_FORMATS = {"Launch Date": "dd-mmm-yyyy", "MRP": '"₹"#,##0.00', "Discount": '"₹"#,##0.00', "Sale Price": '"₹"#,##0.00'}
WORKBOOK_FIRST_ROW = 4  # the title, a blank row and the header are above the first product
#: When the workbook was written: it is stored in the file, so a fixed one keeps the bytes the same.
WORKBOOK_SAVED = datetime.datetime(2026, 1, 5, 9, 30)


def product_master(items) -> list[dict]:
    """Every product with a name, one row each, as a retailer's product master lists it: the style code a number,
    gender codes, prices in rupees with the discount beside them, and a launch date in the item's year."""
    rows = []
    for item in items:
        if not item["name"]:
            continue
        item_id, price, discounted = item["item_id"], item["price"], item["discounted_price"]
        discount = price - discounted if price and discounted is not None and discounted < price else 0.0
        launch = datetime.date(item["year"], 1 + _pick(item_id, "month", 12), 1 + _pick(item_id, "day", 28)) if item["year"] else None
        rows.append({"Style Code": int(item_id) if item_id.isdigit() else item_id, "Product Name": item["name"], "Brand": item["brand"], "Gender": WORKBOOK_GENDERS[item["gender"]],
                     "Category": item["master_category"], "Sub Category": item["sub_category"], "Product Type": item["article_type"],
                     "Colour": item["base_colour"], "Fabric": _attribute(item, "Fabric", "Material") or None, "Launch Date": launch,
                     "MRP": price, "Discount": discount if price else None, "Sale Price": price - discount if price else None})
    return rows


def _sale_price_formulas(sheet_xml: bytes, rows: list[dict]) -> bytes:
    """The Products sheet with each Sale Price formula's value filled in, as Excel stores it on saving (openpyxl
    writes a formula without one)."""
    def cached(match: re.Match) -> bytes:
        row = int(match[1])
        return match[0].replace(b"<v></v>", f"<v>{rows[row - WORKBOOK_FIRST_ROW]['Sale Price']!r}</v>".encode())

    return re.sub(rb'<c r="M(\d+)"[^>]*><f>K\1-L\1</f><v></v>', cached, sheet_xml)


def product_master_workbook(rows: list[dict]) -> bytes:
    """``rows`` as product_master.xlsx: the sheets Instructions, Products (a title, a blank row, the header, then the
    rows; Sale Price the formula =K4-L4 with its value stored as Excel stores it) and Codes; byte-identical for the
    same rows (a fixed time of writing, in the file's properties and its zip entries)."""
    book = Workbook()
    book.active.title = "Instructions"
    for line in WORKBOOK_INSTRUCTIONS:
        book.active.append([line])
    sheet = book.create_sheet("Products")
    sheet.append(["Product master: all styles, prices in INR"])
    sheet.append([])
    sheet.append(list(rows[0]))
    for number, row in enumerate(rows, start=WORKBOOK_FIRST_ROW):
        sale = f"=K{number}-L{number}" if row["MRP"] else None
        sheet.append(list(row.values())[:-1] + [sale])
        for column, number_format in WORKBOOK_FORMATS.items():
            sheet.cell(number, list(row).index(column) + 1).number_format = number_format
    codes = book.create_sheet("Codes")
    for line in WORKBOOK_CODES:
        codes.append(list(line))
    book.properties.creator = "Merchandising"
    book.properties.created = book.properties.modified = WORKBOOK_SAVED
    written = io.BytesIO()
    ExcelWriter(book, zipfile.ZipFile(written, "w", zipfile.ZIP_DEFLATED)).save()  # not Workbook.save, which stamps the time
    out = io.BytesIO()
    with zipfile.ZipFile(written) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for entry in source.infolist():
            data = source.read(entry)
            if entry.filename == "xl/worksheets/sheet2.xml":
                data = _sale_price_formulas(data, rows)
            target.writestr(zipfile.ZipInfo(entry.filename, date_time=WORKBOOK_SAVED.timetuple()[:6]), data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def delimited_file(rows: list[dict[str, str]], delimiter: str, above_header: list[list[str]] = ()) -> bytes:
    """``rows`` as a CSV/TSV file's bytes (UTF-8), with ``above_header``'s lines before the header."""
    text = io.StringIO()
    csv.writer(text, delimiter=delimiter, lineterminator="\n").writerows(above_header)
    writer = csv.DictWriter(text, fieldnames=list(rows[0]), delimiter=delimiter, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return text.getvalue().encode("utf-8")


@dataclass(frozen=True)
class Shape:
    """A derived catalog shape: its rows from the source items, its file name, how the rows become the file's bytes,
    and its mapping."""

    rows: Callable[[list[dict]], list[dict]]
    file_name: str
    file_bytes: Callable[[list[dict]], bytes | dict[str, bytes]]  # a dict: the files of a folder, by relative path
    mapping: str
    photos: Callable[[list[dict]], dict[str, bytes]] | None = None  # photo files beside the catalog, by relative path


def _csv(rows: list[dict[str, str]]) -> bytes:
    return delimited_file(rows, ",")


def _tsv(rows: list[dict[str, str]]) -> bytes:
    return delimited_file(rows, "\t")


def _amazon_txt(rows: list[dict[str, str]]) -> bytes:
    return delimited_file(rows, "\t", amazon_template_lines(list(rows[0])))


MERCHANT_XML_MAPPING = MERCHANT_MAPPING.replace(
    "(scripts/derive_catalog_shapes.py --shape merchant), mapped as docs/catalog.md\n# describes. catalog.tsv is read as "
    "tab-separated from its name.",
    "as an RSS 2.0 XML feed (scripts/derive_catalog_shapes.py --shape\n# merchant-xml): the mapping of the TSV feed, "
    "unchanged. catalog.xml is read as XML from its name, each <item> a\n# record, <g:price> read as price.")
#: The feed attributes Google's RSS 2.0 example writes without the g: prefix (RSS's own elements).
RSS_ELEMENTS = ("title", "link", "description")
FREE_SHIPPING_FROM = 799.0


def _element(name: str, text: str, indent: str = "      ") -> str:
    tag = name if name in RSS_ELEMENTS else f"g:{name}"
    return f"{indent}<{tag}>{escape(text)}</{tag}>"


def _merchant_item(row: dict[str, str]) -> list[str]:
    """One ``<item>`` of a Google Merchant RSS feed: the row's non-empty columns, 1-2 additional photos after the
    image link (seeded per product), availability and condition, and a shipping block, free from 799 INR."""
    group = row["item_group_id"]
    lines = ["    <item>"]
    for name, value in row.items():
        if value:
            lines.append(_element(name, value))
        if name == "image_link":
            lines += [_element("additional_image_link", f"https://assets.example.com/images/style/{group}_{n}.jpg")
                      for n in range(2, 3 + _pick(group, "more photos", 2))]
    paid = float((row["sale_price"] or row["price"]).split()[0])
    lines += [_element("availability", "in stock"), _element("condition", "new"), "      <g:shipping>",
              _element("country", "IN", "        "), _element("service", "Standard", "        "),
              _element("price", _inr(0.0 if paid >= FREE_SHIPPING_FROM else 79.0), "        "), "      </g:shipping>", "    </item>"]
    return lines


def merchant_xml(rows: list[dict[str, str]]) -> bytes:
    """The merchant feed's rows as a Google Merchant Center RSS 2.0 XML feed (UTF-8), one ``<item>`` per row."""
    head = ['<?xml version="1.0" encoding="UTF-8"?>', '<rss xmlns:g="http://base.google.com/ns/1.0" version="2.0">', "  <channel>",
            "    <title>Example Store</title>", "    <link>https://www.example.com</link>",
            "    <description>The products of Example Store</description>"]
    items = [line for row in rows for line in _merchant_item(row)]
    return "\n".join(head + items + ["  </channel>", "</rss>", ""]).encode("utf-8")


MAGENTO_MAPPING = """# A Magento 2 product export (System > Data Transfer > Export, entity Products; scripts/derive_catalog_shapes.py
# --shape magento), mapped as docs/catalog.md describes. A configurable product's simple products come first, each
# with only its colour and size in additional_attributes ("color=Black,size=XS"), its price and a name ending in
# "-XS-Black"; then the configurable row: name, description, categories, the other attributes, and its simple
# products listed in configurable_variations ("sku=...,color=Black,size=XS|sku=..."). A product without variants is
# one simple row.

[columns]
item_id = "sku"
name = "name"
brand = "additional_attributes.brand"
gender = "categories"                          # "Default Category/Men/Apparel/Topwear/Tshirts": the parts, below
master_category = "categories"
sub_category = "categories"
article_type = "categories"
base_colour = "additional_attributes.color"
price = "price"
discounted_price = "special_price"
description = "description"
image_path = "base_image"                     # "/1/5/15970.jpg", under the store's pub/media/catalog/product

[attributes]
Fabric = "additional_attributes.material"
Pattern = "additional_attributes.pattern"

[price]
currency = "EUR"

[photos]
folder = "pub/media/catalog/product"           # the photos, copied beside the export

[clean.gender]
split = "/"
part = 1

[clean.master_category]
split = "/"
part = 2

[clean.sub_category]
split = "/"
part = 3

[clean.article_type]                           # "Tshirts,Default Category/Sale" (a second category) -> "Tshirts"
split = "/"
part = 4
remove = [',.*$']

[variants]
children = "configurable_variations[*].sku"    # a configurable row lists its simple products; it is left out
variant_id = ["sku"]
key = ["sku", "additional_attributes.color"]   # one item per configurable product (its sku) and colour
fill = ["description", "categories", "additional_attributes"]   # the attributes a simple product lacks, too
take = ["name"]                                # the configurable's name, not "<name>-XS-Black"
"""
MAGENTO_COLUMNS = (
    "sku", "store_view_code", "attribute_set_code", "product_type", "categories", "product_websites", "name", "description",
    "short_description", "weight", "product_online", "tax_class_name", "visibility", "price", "special_price", "url_key",
    "meta_title", "base_image", "small_image", "thumbnail_image", "created_at", "updated_at", "additional_attributes", "qty",
    "is_in_stock", "additional_images", "configurable_variations", "configurable_variation_labels")


def _magento_image(item_id: str) -> str:
    """A photo path as Magento writes it, under pub/media/catalog/product (``/1/5/15970.jpg``)."""
    return f"/{item_id[0]}/{item_id[-1]}/{item_id}.jpg"


def magento_photos(items) -> dict[str, bytes]:
    """The photos of the products that have one, copied from the store's media folder beside the export
    (``pub/media/catalog/product/1/5/15970.jpg``)."""
    return {f"pub/media/catalog/product{_magento_image(item['item_id'])}": Path(item["image_path"]).read_bytes()
            for item in items if item["image_path"]}


def _magento_rows(product: list[dict]) -> list[dict[str, str]]:
    """A product in one colour without sizes as one simple row; any other as its simple products (colour, size,
    price, a name ``<name>-<size>-<colour>``, no description or categories) followed by its configurable row."""
    first = product[0]
    sizes = _sizes(first) if first["master_category"] in SIZE_RUNS or first["gender"] in ("Boys", "Girls") else ()
    title = _without_colours(first) if len(product) > 1 else first["name"]
    slug = _slug(title)
    on_sale = [i["discounted_price"] is not None and i["discounted_price"] < i["price"] for i in product]
    path = "/".join(["Default Category"] + [first[f] for f in ("gender", "master_category", "sub_category", "article_type")])
    attributes = {"brand": first["brand"] or "", "material": _attribute(first, "Fabric", "Material"),
                  "pattern": _attribute(first, "Pattern")}
    common = dict.fromkeys(MAGENTO_COLUMNS, "") | {"attribute_set_code": "Default", "product_websites": "base",
                                                    "product_online": "1", "tax_class_name": "Taxable Goods",
                                                    "created_at": "12/1/25, 9:00 AM", "updated_at": "12/1/25, 9:00 AM",
                                                    "is_in_stock": "1"}
    product_fields = {"name": title, "description": f"<p>{first['description']}</p>" if first["description"] else "",
                      "categories": path + (",Default Category/Sale" if any(on_sale) else ""), "visibility": "Catalog, Search",
                      "url_key": f"{slug}-{first['item_id']}", "meta_title": title}
    if len(product) == 1 and not sizes:
        pairs = attributes | {"color": first["base_colour"]}
        return [common | product_fields | {
            "sku": first["item_id"], "product_type": "simple", "price": _euro(first["price"]),
            "special_price": _euro(first["discounted_price"]) if on_sale[0] else "", "base_image": _magento_image(first["item_id"]),
            "additional_attributes": ",".join(f"{k}={v}" for k, v in sorted(pairs.items()) if v), "qty": "25"}]
    rows, variations = [], []
    for item, sale in zip(product, on_sale, strict=True):
        for size in sizes or ("",):
            sku = f"{item['item_id']}-{size.replace(' ', '')}" if size else item["item_id"]
            options = [("color", item["base_colour"])] + ([("size", size)] if size else [])
            variations.append(",".join([f"sku={sku}"] + [f"{k}={v}" for k, v in options]))
            rows.append(common | {
                "sku": sku, "product_type": "simple", "name": "-".join([title] + [v for _, v in reversed(options)]),
                "visibility": "Not Visible Individually", "price": _euro(item["price"]),
                "special_price": _euro(item["discounted_price"]) if sale else "", "url_key": f"{slug}-{sku.lower()}",
                "base_image": _magento_image(item["item_id"]), "qty": str(_pick(sku, "quantity", 40)),
                "additional_attributes": ",".join(f"{k}={v}" for k, v in options)})
    labels = "color=Color" + (",size=Size" if sizes else "")
    rows.append(common | product_fields | {
        "sku": f"MG-{first['item_id']}", "product_type": "configurable", "base_image": _magento_image(first["item_id"]),
        "additional_attributes": ",".join(f"{k}={v}" for k, v in sorted(attributes.items()) if v),
        "additional_images": ",".join(_magento_image(i["item_id"]) for i in product[1:]),
        "configurable_variations": "|".join(variations), "configurable_variation_labels": labels})
    return rows


def magento_export(items) -> list[dict[str, str]]:
    """Every product with a name, a price and a colour, as Magento 2's product export lists it."""
    return [row for product in _handles(items) for row in _magento_rows(product)]


HM_MAPPING = """# H&M's articles table as the public H&M Personalized Fashion Recommendations data lays it out (articles.csv;
# scripts/derive_catalog_shapes.py --shape hm), mapped as docs/catalog.md describes: every attribute twice, as a
# number and a name (only the names are mapped), no brand, no price (H&M's prices are in its transactions file),
# departments and index groups instead of a gender. The table names no photo: they are files named by article id
# (images/001/0015977348.jpg), which `fashionrq ingest articles.csv --mapping mapping.toml --images images` finds.

[columns]
item_id = "article_id"
name = "prod_name"
article_type = "product_type_name"     # "Vest top", "Hat/beanie", "Leggings/Tights"
master_category = "garment_group_name" # "Jersey Basic", "Trousers Denim", "Under-, Nightwear"
sub_category = "product_group_name"    # "Garment Upper body", "Shoes", "Accessories"
gender = "index_group_name"            # Ladieswear | Menswear | Divided | Baby/Children
age_group = "index_group_name"
base_colour = "colour_group_name"      # "Dark Blue", "Light Pink", "Other"
description = "detail_desc"

[attributes]
Pattern = "graphical_appearance_name"  # "Solid", "Stripe", "All over pattern"
Section = "section_name"

[values.gender]
Ladieswear = "Women"
Menswear = "Men"
Divided = "Unisex"
"Baby/Children" = "Unisex"

[values.age_group]
Ladieswear = "adult"
Menswear = "adult"
Divided = "adult"
"Baby/Children" = "kids"

[clean.base_colour]
refuse = ['other']                     # H&M's catch-all colour group names no colour
"""

#: Myntra article type -> H&M ``product_type_name`` (H&M names one garment in the singular, some as alternatives);
#: a type not listed keeps its Myntra name in the singular.
HM_TYPES = {
    "Tshirts": "T-shirt", "Shirts": "Shirt", "Tops": "Top", "Sweatshirts": "Sweater", "Sweaters": "Sweater",
    "Jackets": "Jacket", "Rain Jacket": "Jacket", "Blazers": "Blazer", "Waistcoat": "Tailored Waistcoat",
    "Jeans": "Trousers", "Trousers": "Trousers", "Track Pants": "Trousers", "Capris": "Trousers", "Shorts": "Shorts",
    "Skirts": "Skirt", "Leggings": "Leggings/Tights", "Jeggings": "Leggings/Tights", "Tights": "Underwear Tights",
    "Stockings": "Underwear Tights", "Dresses": "Dress", "Jumpsuit": "Jumpsuit/Playsuit", "Rompers": "Jumpsuit/Playsuit",
    "Briefs": "Underwear bottom", "Trunk": "Underwear bottom", "Boxers": "Underwear bottom", "Innerwear Vests": "Vest top",
    "Camisoles": "Vest top", "Bra": "Bra", "Nightdress": "Night gown", "Baby Dolls": "Night gown", "Night suits": "Pyjama set",
    "Lounge Pants": "Pyjama bottom", "Lounge Shorts": "Pyjama bottom", "Bath Robe": "Robe", "Robe": "Robe",
    "Casual Shoes": "Sneakers", "Sports Shoes": "Sneakers", "Formal Shoes": "Other shoe", "Heels": "Pumps",
    "Flats": "Flat shoe", "Sandals": "Sandals", "Sports Sandals": "Sandals", "Flip Flops": "Flip flop",
    "Caps": "Cap/peaked", "Hat": "Hat/beanie", "Headband": "Hair/alice band", "Scarves": "Scarf", "Stoles": "Scarf",
    "Mufflers": "Scarf", "Belts": "Belt", "Ties": "Tie", "Handbags": "Bag", "Clutches": "Bag", "Backpacks": "Backpack",
    "Rucksacks": "Backpack", "Duffel Bag": "Weekend/Gym bag", "Laptop Bag": "Cross-body bag", "Messenger Bag": "Cross-body bag",
    "Waist Pouch": "Bumbag", "Wallets": "Wallet", "Watches": "Watch", "Earrings": "Earring", "Pendant": "Necklace",
    "Necklace and Chains": "Necklace", "Ring": "Ring", "Bracelet": "Bracelet", "Bangle": "Bracelet",
    "Jewellery Set": "Accessories set", "Swimwear": "Swimsuit",
}
#: Myntra sub-category -> H&M ``product_group_name``; any other: "Accessories", and personal care "Cosmetic".
HM_GROUPS = {
    "Topwear": "Garment Upper body", "Bottomwear": "Garment Lower body", "Dress": "Garment Full body",
    "Saree": "Garment Full body", "Apparel Set": "Garment Full body", "Innerwear": "Underwear",
    "Loungewear and Nightwear": "Nightwear", "Socks": "Socks & Tights", "Shoes": "Shoes", "Sandal": "Shoes",
    "Flip Flops": "Shoes", "Bags": "Bags", "Free Gifts": "Items", "Vouchers": "Items",
}
#: H&M ``garment_group_name`` by H&M product group (the upper-body one by pattern: printed jersey is "Jersey Fancy").
HM_GARMENT_GROUPS = {
    "Garment Upper body": "Jersey Basic", "Garment Lower body": "Trousers", "Garment Full body": "Dresses Ladies",
    "Underwear": "Under-, Nightwear", "Nightwear": "Under-, Nightwear", "Socks & Tights": "Socks and Tights",
    "Shoes": "Shoes", "Bags": "Accessories", "Accessories": "Accessories", "Cosmetic": "Unknown", "Items": "Special Offers",
}
HM_GARMENT_BY_TYPE = {"Jeans": "Trousers Denim", "Shorts": "Shorts", "Skirts": "Skirts", "Shirts": "Shirts",
                      "Sweaters": "Knitwear", "Sweatshirts": "Knitwear", "Jackets": "Outdoor", "Rain Jacket": "Outdoor",
                      "Blazers": "Dressed", "Swimwear": "Swimwear"}
#: Myntra base colour -> (H&M colour group, perceived colour value, perceived colour master); any other keeps its
#: name, "Medium", itself.
HM_COLOURS = {
    "Navy Blue": ("Dark Blue", "Dark", "Blue"), "Maroon": ("Dark Red", "Dark", "Red"), "Burgundy": ("Dark Red", "Dark", "Red"),
    "Olive": ("Greenish Khaki", "Medium Dusty", "Khaki green"), "Khaki": ("Greenish Khaki", "Medium Dusty", "Khaki green"),
    "Cream": ("Light Beige", "Light", "Beige"), "Tan": ("Dark Beige", "Medium Dusty", "Beige"),
    "Nude": ("Light Beige", "Dusty Light", "Beige"), "Skin": ("Light Beige", "Dusty Light", "Beige"),
    "Taupe": ("Greyish Beige", "Medium Dusty", "Beige"), "Mushroom Brown": ("Greyish Beige", "Medium Dusty", "Beige"),
    "Peach": ("Light Orange", "Light", "Orange"), "Rust": ("Dark Orange", "Dark", "Orange"),
    "Lavender": ("Light Purple", "Light", "Lilac Purple"), "Mauve": ("Light Purple", "Dusty Light", "Lilac Purple"),
    "Magenta": ("Dark Pink", "Bright", "Pink"), "Rose": ("Light Pink", "Dusty Light", "Pink"),
    "Teal": ("Dark Turquoise", "Dark", "Turquoise"), "Turquoise Blue": ("Turquoise", "Medium", "Turquoise"),
    "Sea Green": ("Green", "Medium", "Green"), "Lime Green": ("Yellowish Green", "Bright", "Yellowish Green"),
    "Fluorescent Green": ("Yellowish Green", "Bright", "Yellowish Green"), "Mustard": ("Dark Yellow", "Medium Dusty", "Yellow"),
    "Coffee Brown": ("Dark Brown", "Dark", "Brown"), "Charcoal": ("Dark Grey", "Dark", "Grey"),
    "Grey Melange": ("Grey", "Medium", "Grey"), "Steel": ("Grey", "Medium", "Grey"), "Copper": ("Bronze/Copper", "Medium", "Metal"),
    "Bronze": ("Bronze/Copper", "Medium", "Metal"), "Gold": ("Gold", "Medium", "Metal"), "Silver": ("Silver", "Light", "Metal"),
    "Metallic": ("Silver", "Light", "Metal"), "Multi": ("Other", "Undefined", "undefined"),
}
#: Myntra pattern -> H&M ``graphical_appearance_name``.
HM_APPEARANCES = {
    "Solid": "Solid", "Printed": "All over pattern", "Striped": "Stripe", "Checked": "Check", "Self Design": "Jacquard",
    "Lace": "Lace", "Embellished": "Glittering/Metallic", "Woven Design": "Jacquard", "Patterned": "Other pattern",
    "Colourblocked": "Colour blocking", "Washed": "Treatment", "Dyed": "Treatment", "Embroidered": "Embroidery",
    "Textured": "Other structure", "Satin Finish": "Glittering/Metallic", "Perforations": "Application/3D",
}
#: gender -> (index code, index name, index group number, index group name, section name)
HM_INDEXES = {"Women": ("A", "Ladieswear", 1, "Ladieswear", "Womens Everyday Collection"),
              "Men": ("F", "Menswear", 3, "Menswear", "Contemporary Casual"),
              "Unisex": ("D", "Divided", 2, "Divided", "Divided Collection"),
              "Boys": ("H", "Children Sizes 92-140", 4, "Baby/Children", "Kids Boy"),
              "Girls": ("H", "Children Sizes 92-140", 4, "Baby/Children", "Kids Girl")}


def _hm_number(name: str, low: int, span: int) -> int:
    """H&M's number for a name: stable, from the name alone (the data numbers every name it uses)."""
    return low + _pick(name, "hm number", span)


def _hm_row(item: dict) -> dict[str, str]:
    article_type = item["article_type"]
    group = ("Cosmetic" if item["master_category"] == "Personal Care"
             else HM_GROUPS.get(item["sub_category"] or "", "Accessories"))
    product_type = HM_TYPES.get(article_type) or re.sub(r"(?<=[a-z])s$", "", article_type)
    pattern = dict(item["attributes"] or {}).get("Pattern")
    appearance = HM_APPEARANCES.get(pattern, "Unknown") if pattern else "Unknown"
    garment = HM_GARMENT_BY_TYPE.get(article_type) or HM_GARMENT_GROUPS[group]
    if garment == "Jersey Basic" and appearance not in ("Solid", "Unknown"):
        garment = "Jersey Fancy"
    colour = item["base_colour"] or ""
    colour_group, value, master = HM_COLOURS.get(colour, (colour, "Medium", colour)) if colour else ("Unknown", "Unknown", "Unknown")
    index_code, index_name, index_group_no, index_group, section = HM_INDEXES[item["gender"]]
    name = item["name"]
    if item["brand"] and name.startswith(item["brand"] + " "):
        name = name[len(item["brand"]) + 1:]  # H&M's own names carry no brand
    article_id = _hm_article_id(item)
    return {
        "article_id": article_id, "product_code": article_id[:7], "prod_name": name,
        "product_type_no": str(_hm_number(product_type, 50, 500)), "product_type_name": product_type,
        "product_group_name": group, "graphical_appearance_no": str(_hm_number(appearance, 1010001, 30)),
        "graphical_appearance_name": appearance, "colour_group_code": f"{_hm_number(colour_group, 1, 93):02d}",
        "colour_group_name": colour_group, "perceived_colour_value_id": str(_hm_number(value, 1, 7)),
        "perceived_colour_value_name": value, "perceived_colour_master_id": str(_hm_number(master, 1, 20)),
        "perceived_colour_master_name": master, "department_no": str(_hm_number(f"{section} {garment}", 1000, 9000)),
        "department_name": garment, "index_code": index_code, "index_name": index_name,
        "index_group_no": str(index_group_no), "index_group_name": index_group,
        "section_no": str(_hm_number(section, 2, 96)), "section_name": section,
        "garment_group_no": str(_hm_number(garment, 1001, 25)), "garment_group_name": garment,
        "detail_desc": item["description"] or ""}  # ingest already made it plain text


def _hm_article_id(item: dict) -> str:
    """H&M's ten-digit article id: a zero, the six-digit product code, three digits for the colour."""
    return f"0{int(item['item_id']):06d}{_pick(item['item_id'], 'hm colour', 1000):03d}"


def hm_photos(items) -> dict[str, bytes]:
    """The products' photos as H&M's data keeps them, named by article id in a folder per first three digits
    (``images/001/0015977348.jpg``)."""
    ids = {item["item_id"]: _hm_article_id(item) for item in items if item["name"] and item["image_path"]}
    return {f"images/{ids[item['item_id']][:3]}/{ids[item['item_id']]}.jpg": Path(item["image_path"]).read_bytes()
            for item in items if item["item_id"] in ids}


def hm_articles(items) -> list[dict[str, str]]:
    """Every product with a name, one row each, as H&M's ``articles.csv`` lays them out."""
    return [_hm_row(item) for item in items if item["name"]]


MYNTRA_PRODUCTS_MAPPING = """# A storefront scrape in the layout of the public Myntra products catalog (myntra_products_catalog.csv;
# scripts/derive_catalog_shapes.py --shape myntra-products), mapped as docs/catalog.md describes: no type column (the
# type is the product word in the name), the currency in the price column's name, kids' genders with "Kids".

[columns]
item_id = "ProductID"
name = "ProductName"
brand = "ProductBrand"
gender = "Gender"                  # Men | Women | Unisex | Boys | Girls | Unisex Kids
age_group = "Gender"
article_type = "ProductName"       # "Roadster Men Navy Blue Slim Fit Jeans": Jeans
base_colour = "PrimaryColor"       # " Navy Blue" (the space is trimmed)
price = "Price (INR)"
description = "Description"

[price]
currency = "INR"

[clean.article_type]               # the first product word of the name, once the brand is cut out; a name without
strip_brand = true                 # one: no type, the item rejected and counted
extract = '(?<![\\w-])(casual shoe|sports shoe|formal shoe|sports sandal|flip flop|track pant|lounge pant|night ?suit|kurta set|innerwear vest|nail polish|lip gloss|lipstick|t-?shirt|shirt|top|tunic|kurti|kurta|nightdress|dress|jeans|jegging|trousers?|shorts|capris|legging|skirt|saree|sari|dupatta|jacket|blazer|sweatshirt|sweater|waistcoat|shrug|jersey|bra|brief|trunk|boxer|camisole|socks|shoe|sandal|heels|flats|wedges|slipper|floater|watch|handbag|backpack|bag|wallet|clutch|belt|cap|tie|scarf|scarves|stole|muffler|sunglasses|earrings|necklace|pendant|ring|bangle|bracelet|perfume|deodorant|deo)(?:e?s)?(?![\\w-])'

[values.article_type]              # one name for a type's spellings and number
tshirt = "T-shirt"
trouser = "Trousers"
scarves = "Scarf"
deo = "Deodorant"
sari = "Saree"
"night suit" = "Nightsuit"
nightsuit = "Nightsuit"

[values.gender]
"Unisex Kids" = "Unisex"

[values.age_group]
Men = "adult"
Women = "adult"
Unisex = "adult"
Boys = "kids"
Girls = "kids"
"Unisex Kids" = "kids"
"""


def _myntra_products_row(item: dict) -> dict[str, str]:
    """One product as the public Myntra products catalog lays it out: whole-rupee prices, the colour after a space."""
    kids = item["age_group"] in ("kids", "toddler", "baby")
    gender = "Unisex Kids" if kids and item["gender"] == "Unisex" else item["gender"] or ""
    return {"ProductID": item["item_id"], "ProductName": item["name"], "ProductBrand": item["brand"] or "", "Gender": gender,
            "Price (INR)": str(round(item["price"])) if item["price"] else "", "NumImages": str(1 + _pick(item["item_id"], "photos", 7)),
            "Description": item["description"] or "", "PrimaryColor": f" {item['base_colour']}" if item["base_colour"] else ""}


def myntra_products(items) -> list[dict[str, str]]:
    """Every product with a name, one row each, as the public Myntra products catalog lays them out."""
    return [_myntra_products_row(item) for item in items if item["name"]]


ZARA_MAPPING = """# A retailer's own catalog in the layout of the public Zara products dataset (store_zara.csv; scripts/derive_catalog_shapes.py
# --shape zara), mapped as docs/catalog.md describes: fields separated by semicolons, one brand for every product (no
# query names it), names in capitals without the brand or the gender, the type a lower-case plural word ("terms"),
# the gender a store section (MAN, WOMAN, BOYS, GIRLS; none for unisex products), dollar prices with a currency column.
delimiter = ";"

[columns]
item_id = "Product ID"
name = "name"
brand = "brand"
description = "description"
price = "price"
article_type = "terms"             # jackets, t-shirts, casual shoes
gender = "section"                 # MAN | WOMAN | BOYS | GIRLS: read as Men, Women, Boys, Girls
age_group = "section"
base_colour = "name"               # "CHECK NAVY BLUE SHIRT": the name's first colour word

[price]
currency = "USD"

[clean.base_colour]
extract = '\\b(navy blue|off white|grey melange|turquoise blue|coffee brown|sea green|black|white|blue|brown|grey|red|green|pink|purple|silver|yellow|beige|gold|maroon|orange|olive|multi|cream|steel|charcoal|peach|skin|lavender|khaki|magenta|teal|tan|mustard|bronze|copper|rust|burgundy)\\b'

[values.age_group]
MAN = "adult"
WOMAN = "adult"
BOYS = "kids"
GIRLS = "kids"
"""
ZARA_SECTIONS = {"Men": "MAN", "Women": "WOMAN", "Boys": "BOYS", "Girls": "GIRLS", "Unisex": ""}
_GENDER_WORDS = re.compile(r"\b(?:men|women|boys|girls|unisex|kids)(?:'s)?\b", re.IGNORECASE)


def _zara_row(item: dict) -> dict[str, str]:
    """One product as the Zara dataset lays it out: its name in capitals without the brand or a gender word, the
    type in lower case (``t-shirts``), the section for the gender, a dollar price ending in .90, a product page."""
    item_id = item["item_id"]
    name = item["name"][len(item["brand"]):] if item["brand"] and item["name"].lower().startswith(item["brand"].lower()) else item["name"]
    name = " ".join(_GENDER_WORDS.sub(" ", name).split()).upper()
    price = f"{max(round(item['price'] / INR_PER_USD), 1) + 0.9:.2f}" if item["price"] else ""
    return {"Product ID": str(100000 + int(item_id)), "Product Position": ("Aisle", "End-cap", "Front of Store")[_pick(item_id, "position", 3)],
            "Promotion": ("Yes", "No")[_pick(item_id, "promotion", 2)], "Product Category": "Clothing",
            "Seasonal": ("Yes", "No")[_pick(item_id, "seasonal", 2)], "Sales Volume": str(500 + _pick(item_id, "sales", 3000)),
            "brand": "Zara", "url": f"https://www.zara.com/us/en/{_slug(name)}-p0{item_id}.html", "name": name,
            "description": item["description"] or "", "price": price, "currency": "USD",
            "scraped_at": f"2024-02-{1 + _pick(item_id, 'day', 28):02d}T08:50:05.654618",
            "terms": item["article_type"].lower().replace("tshirts", "t-shirts"), "section": ZARA_SECTIONS[item["gender"]]}


def zara_store(items) -> list[dict[str, str]]:
    """Every product with a name and a gender, one row each, as the Zara dataset lays them out."""
    return [_zara_row(item) for item in items if item["name"] and item["gender"]]


def _semicolons(rows: list[dict[str, str]]) -> bytes:
    return delimited_file(rows, ";")


MYNTRA_2023_MAPPING = """# A Myntra scrape in the layout of the public Myntra fashion products dataset of 2023 (myntra202305041052.csv;
# scripts/derive_catalog_shapes.py --shape myntra-2023), mapped as docs/catalog.md describes: the type in a column
# named "products", the gender only in the names, the attributes a Python dict in a cell, whole-rupee prices.

[columns]
item_id = "p_id"
name = "name"
brand = "brand"
article_type = "products"
gender = "name"                    # "Turtle Men Navy Blue Shirt": the name's gender word
base_colour = "colour"
price = "price"
description = "description"
attributes = "p_attributes"        # "{'Fabric': 'Cotton', 'Neck': 'Round Neck', ...}"
image_path = "img"                 # web addresses: no photo is read

[clean.gender]                     # "Roadster Men ...", "Allen Solly Woman ..."
extract = '\\b(wom[ae]n|m[ae]n|girls?|boys?|unisex)\\b'

[price]
currency = "INR"
"""


def _myntra_2023_row(item: dict) -> dict[str, str]:
    """One product as the 2023 Myntra dataset lays it out: a seven-digit id, the attributes as a Python dict, a
    rating for two products in three."""
    item_id = item["item_id"]
    rated = _pick(item_id, "rated", 3) > 0
    return {"p_id": str(1000000 + int(item_id)), "name": item["name"], "products": item["article_type"],
            "price": str(round(item["price"])) if item["price"] else "", "colour": item["base_colour"] or "", "brand": item["brand"] or "",
            "img": f"http://assets.myntassets.com/assets/images/{item_id}/2023/5/4/{_digest(item_id, 8)}1.jpg",
            "ratingCount": str(_pick(item_id, "ratings", 5000)) if rated else "",
            "avg_rating": f"{1 + _pick(item_id, 'rating', 400) / 100:.6f}" if rated else "",
            "description": item["description"] or "", "p_attributes": repr(dict(item["attributes"] or []))}


def myntra_2023(items) -> list[dict[str, str]]:
    """Every product with a name, one row each, as the 2023 Myntra dataset lays them out."""
    return [_myntra_2023_row(item) for item in items if item["name"]]


HF_PARQUET_MAPPING = """# The Myntra product images dataset as a Hugging Face dataset's Parquet file (train-00000-of-00001.parquet;
# scripts/derive_catalog_shapes.py --shape hf-parquet), mapped as docs/catalog.md describes: Myntra's columns in
# camel case, a whole-number id, the year a float, no brand, price or description, and each photo inside its row
# (an image object holding the bytes, which fashionrq does not read: the image column is left out).

[columns]
item_id = "id"
name = "productDisplayName"
gender = "gender"
master_category = "masterCategory"
sub_category = "subCategory"
article_type = "articleType"
base_colour = "baseColour"
season = "season"
year = "year"
usage = "usage"
"""


def _hf_row(item: dict) -> dict:
    """One product as the Hugging Face dataset lays it out: the photo's bytes inside the row (none without a photo)."""
    photo = Path(item["image_path"]).read_bytes() if item["image_path"] else None
    return {"id": int(item["item_id"]), "gender": item["gender"], "masterCategory": item["master_category"],
            "subCategory": item["sub_category"], "articleType": item["article_type"], "baseColour": item["base_colour"],
            "season": item["season"], "year": float(item["year"]) if item["year"] else None, "usage": item["usage"],
            "productDisplayName": item["name"], "image": {"bytes": photo, "path": None}}


def hf_dataset(items) -> list[dict]:
    """Every product, one row each, as the Hugging Face dataset of the Myntra product images lays them out."""
    return [_hf_row(item) for item in items]


def _hf_parquet(rows: list[dict]) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), sink)
    return sink.getvalue()


ABO_MAPPING = """# Product listings in the layout of Amazon Berkeley Objects (ABO: listings/metadata/listings_<0-f>.json.gz, JSON lines;
# scripts/derive_catalog_shapes.py --shape abo), mapped as docs/catalog.md describes: every text a list of
# language-tagged values (en_US, en_GB or en_IN by marketplace, some beside another language's), the product type an
# upper-case code, the department in the browse node's path, no price, and the photos named by image id in a table
# (images/metadata/images.csv.gz) beside the listings.

[columns]
item_id = "item_id"
name = "item_name[language_tag=en_*].value"
brand = "brand[language_tag=en_*].value"
gender = "node[0].node_name"                # /Categories/Clothing, Shoes & Jewelry/Women/Clothing/Tops
age_group = "node[0].node_name"
master_category = "node[0].node_name"
article_type = ["node[0].node_name", "product_type[0].value"]   # a listing without a node: its type code
base_colour = "color[language_tag=en_*].value"
year = "model_year[0].value"
description = "bullet_point[*].value"
image_path = "main_image_id"

[attributes]
Fabric = "fabric_type[language_tag=en_*].value"
Pattern = "pattern[language_tag=en_*].value"
Style = "style[language_tag=en_*].value"

[photos]
folder = "images/small"                     # the photos, by the paths the table gives
index = "images/metadata/images.csv.gz"     # image_id,height,width,path
id = "image_id"
path = "path"

[clean.gender]                              # the department; a beauty product's path names none
extract = '^/Categories/Clothing, Shoes & Jewelry/(Women|Men|Boys|Girls)/'

[clean.age_group]
extract = '^/Categories/Clothing, Shoes & Jewelry/(Women|Men|Boys|Girls)/'

[clean.master_category]                     # the part above the type: Clothing, Shoes, Watches, Fragrance
split = "/"
part = -2

[clean.article_type]
from = "node[0].node_name"
split = "/"
part = -1

[values.age_group]
Men = "adult"
Women = "adult"
Boys = "kids"
Girls = "kids"

[values.article_type]                       # the type codes that are no words
FASHIONEARRING = "Earrings"
FASHIONRING = "Ring"
FASHIONNECKLACEBRACELETANKLET = "Necklace and Chains"
"""

ABO_MARKETS = (("US", "amazon.com", "en_US"), ("IN", "amazon.in", "en_IN"), ("GB", "amazon.co.uk", "en_GB"))
#: Myntra article type -> ABO product type code; a type not listed: its group's code.
ABO_TYPES = {
    "Tshirts": "SHIRT", "Shirts": "SHIRT", "Tops": "SHIRT", "Kurtas": "KURTA", "Kurtis": "KURTA", "Tunics": "SHIRT",
    "Jeans": "PANTS", "Trousers": "PANTS", "Track Pants": "PANTS", "Capris": "PANTS", "Leggings": "LEGGINGS",
    "Shorts": "SHORTS", "Skirts": "SKIRT", "Dresses": "DRESS", "Sarees": "SARI", "Sweatshirts": "SWEATSHIRT",
    "Sweaters": "SWEATER", "Jackets": "COAT", "Blazers": "BLAZER", "Briefs": "UNDERPANTS", "Trunk": "UNDERPANTS",
    "Bra": "BRA", "Socks": "SOCKS", "Casual Shoes": "SHOES", "Sports Shoes": "SHOES", "Formal Shoes": "SHOES",
    "Heels": "SHOES", "Flats": "SHOES", "Sandals": "SANDAL", "Flip Flops": "SANDAL", "Sports Sandals": "SANDAL",
    "Watches": "WATCH", "Handbags": "HANDBAG", "Clutches": "HANDBAG", "Backpacks": "BACKPACK", "Wallets": "WALLET",
    "Belts": "BELT", "Sunglasses": "SUNGLASSES", "Caps": "HAT", "Earrings": "FASHIONEARRING", "Ring": "FASHIONRING",
    "Pendant": "FASHIONNECKLACEBRACELETANKLET", "Necklace and Chains": "FASHIONNECKLACEBRACELETANKLET", "Ties": "NECKTIE",
}
ABO_GROUP_CODES = {"Apparel": "APPAREL", "Footwear": "SHOES", "Accessories": "ACCESSORY", "Personal Care": "BEAUTY",
                   "Free Items": "ACCESSORY", "Sporting Goods": "SPORTING_GOODS", "Home": "HOME"}
#: Myntra article type -> the last part of ABO's browse node path, where Amazon names it otherwise.
ABO_NODE_NAMES = {"Tshirts": "T-Shirts", "Casual Shoes": "Fashion Sneakers", "Sports Shoes": "Athletic", "Heels": "Pumps",
                  "Formal Shoes": "Oxfords", "Flip Flops": "Flip-Flops", "Track Pants": "Track Pants & Joggers"}
ABO_GROUPS = {"Apparel": "Clothing", "Footwear": "Shoes", "Free Items": "Accessories"}
ABO_ACCESSORY_GROUPS = {"Watches": "Watches", "Bags": "Handbags & Wallets", "Wallets": "Handbags & Wallets", "Jewellery": "Jewelry"}
ABO_STANDARD_COLOURS = {"Navy Blue": "Blue", "Turquoise Blue": "Blue", "Teal": "Blue", "Grey Melange": "Grey", "Charcoal": "Grey",
                        "Off White": "White", "Cream": "Off-White", "Maroon": "Red", "Burgundy": "Red", "Magenta": "Pink",
                        "Peach": "Orange", "Rust": "Orange", "Mustard": "Yellow", "Olive": "Green", "Sea Green": "Green",
                        "Lime Green": "Green", "Khaki": "Beige", "Tan": "Brown", "Coffee Brown": "Brown", "Copper": "Bronze",
                        "Steel": "Silver", "Lavender": "Purple", "Multi": "Multicolor"}
ABO_OTHER_TAGS = ("de_DE", "es_ES", "fr_FR", "it_IT")


def _abo_node(item: dict) -> list[dict]:
    """The browse nodes of a listing: Clothing, Shoes & Jewelry > department > group > type (a unisex product under
    Women and Men, a beauty product under Beauty & Personal Care alone); one listing in twelve has none (seeded)."""
    item_id = item["item_id"]
    if not _pick(item_id, "abo node", 12) or not item["gender"]:
        return []
    leaf = ABO_NODE_NAMES.get(item["article_type"], item["article_type"])
    if item["master_category"] == "Personal Care":
        paths = [f"/Categories/Beauty & Personal Care/{item['sub_category'] or 'Personal Care'}/{leaf}"]
    else:
        group = (ABO_ACCESSORY_GROUPS.get(item["sub_category"] or "", "Accessories") if item["master_category"] == "Accessories"
                 else ABO_GROUPS.get(item["master_category"], item["master_category"]))
        departments = ["Women", "Men"] if item["gender"] == "Unisex" else [item["gender"]]
        paths = [f"/Categories/Clothing, Shoes & Jewelry/{d}/{group}/{leaf}" for d in departments]
    return [{"node_id": 1_000_000_000 + int(_digest(path, 8), 16) % 9_000_000_000, "node_name": path} for path in paths]


def _abo_tagged(item_id: str, tag: str, value: str | None, field: str) -> list[dict] | None:
    """A text as ABO lists it: ``[{"language_tag": tag, "value": ...}]``, for one listing in six after another
    language's entry (untranslated, as many of ABO's are)."""
    if not value:
        return None
    entries = [{"language_tag": tag, "value": value}]
    if not _pick(item_id, f"abo other {field}", 6):
        entries.insert(0, {"language_tag": ABO_OTHER_TAGS[_pick(item_id, "abo tag", 4)], "value": value})
    return entries


def _abo_image_id(item_id: str) -> str:
    """An 11-character image id as Amazon's (``81iZlv3bUhL``)."""
    number = int(_digest(f"abo image {item_id}", 16), 16)
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+-"
    return "".join(alphabet[(number >> (6 * i)) & 63] for i in range(11)).replace("+", "L").replace("-", "S")


def _abo_listing(item: dict) -> dict:
    item_id = item["item_id"]
    country, domain, tag = ABO_MARKETS[(0, 0, 0, 0, 0, 0, 1, 1, 1, 2)[_pick(item_id, "abo market", 10)]]  # US, IN, GB: 6:3:1
    attributes = dict(item["attributes"] or {})
    listing = {"brand": _abo_tagged(item_id, tag, item["brand"], "brand"),
               "bullet_point": [{"language_tag": tag, "value": line.strip()} for line in re.split(r"(?<=\.)\s+", item["description"] or "")
                                if line.strip()][:5] or None,
               "color": ([{"language_tag": tag, "standardized_values": [ABO_STANDARD_COLOURS.get(item["base_colour"], item["base_colour"])],
                           "value": item["base_colour"]}] if item["base_colour"] else None),
               "item_id": _asin(item_id), "item_name": _abo_tagged(item_id, tag, item["name"], "name"),
               "model_number": [{"value": item_id}],
               "model_year": [{"value": item["year"]}] if item["year"] else None,
               "product_type": [{"value": ABO_TYPES.get(item["article_type"], ABO_GROUP_CODES.get(item["master_category"], "APPAREL"))}],
               "fabric_type": _abo_tagged(item_id, tag, attributes.get("Fabric"), "fabric"),
               "pattern": _abo_tagged(item_id, tag, attributes.get("Pattern"), "pattern"),
               "style": _abo_tagged(item_id, tag, item["usage"], "style"),
               "main_image_id": _abo_image_id(item_id) if item["image_path"] else None,
               "country": country, "marketplace": "Amazon", "domain_name": domain, "node": _abo_node(item) or None}
    return {key: value for key, value in listing.items() if value is not None}  # ABO leaves out what a listing lacks


def abo_listings(items) -> list[dict]:
    """Every product with a name, as ABO lists it."""
    return [_abo_listing(item) for item in items if item["name"]]


def _abo_files(records: list[dict]) -> dict[str, bytes]:
    """The listings as ABO splits them: 16 gzipped JSON-lines files by the first hex digit of a hash of the id."""
    parts = {f"listings_{digit}.json.gz": [] for digit in "0123456789abcdef"}
    for record in records:
        parts[f"listings_{_digest(record['item_id'], 1)}.json.gz"].append(record)
    return {name: gzip.compress(_json_lines(part), mtime=0) for name, part in parts.items()}


def _abo_photo_path(item_id: str) -> str:
    digest = _digest(f"abo photo {item_id}", 8)
    return f"{digest[:2]}/{digest}.jpg"


def abo_photos(items) -> dict[str, bytes]:
    """ABO's small images (``images/small/14/14fe8812.jpg``) and their table (``images/metadata/images.csv.gz``:
    image_id, height, width, path), for the listings whose product has a photo."""
    photographed = sorted((item for item in items if item["name"] and item["image_path"]), key=lambda item: _abo_photo_path(item["item_id"]))
    table = [{"image_id": _abo_image_id(item["item_id"]), "height": "300", "width": "225", "path": _abo_photo_path(item["item_id"])}
             for item in photographed]
    files = {"images/metadata/images.csv.gz": gzip.compress(_csv(table), mtime=0)} if table else {}
    files.update({f"images/small/{_abo_photo_path(item['item_id'])}": Path(item["image_path"]).read_bytes() for item in photographed})
    return files


SHAPES = {"us-tops": Shape(us_tops, "catalog.csv", _csv, US_TOPS_MAPPING),
          "merchant": Shape(merchant_feed, "catalog.tsv", _tsv, MERCHANT_MAPPING),
          "merchant-xml": Shape(merchant_feed, "catalog.xml", merchant_xml, MERCHANT_XML_MAPPING),
          "shopify": Shape(shopify_export, "products_export.csv", _csv, SHOPIFY_MAPPING),
          "shopify-json": Shape(shopify_products_json, "products.json", _products_json, SHOPIFY_JSON_MAPPING),
          "woocommerce": Shape(woocommerce_export, "wc-product-export.csv", _csv, WOOCOMMERCE_MAPPING),
          "amazon": Shape(amazon_flat_file, "Flat.File.Clothing.txt", _amazon_txt, AMAZON_MAPPING),
          "flipkart": Shape(flipkart_crawl, "flipkart_com-ecommerce_sample.csv", _csv, FLIPKART_MAPPING),
          "amazon-2014": Shape(amazon_2014_dump, "meta_Clothing_Shoes_and_Jewelry.json.gz", _python_lines_gz, AMAZON_2014_MAPPING),
          "amazon-2023": Shape(amazon_2023_metadata, "meta_Clothing_Shoes_and_Jewelry.jsonl", _json_lines, AMAZON_2023_MAPPING),
          "asos": Shape(asos_scrape, "products_asos.csv", _csv, ASOS_MAPPING),
          "scrape-folder": Shape(scrape_folder, "scrape", _product_files, SCRAPE_FOLDER_MAPPING),
          "workbook": Shape(product_master, "product_master.xlsx", product_master_workbook, WORKBOOK_MAPPING),
          "magento": Shape(magento_export, "export_catalog_product.csv", _csv, MAGENTO_MAPPING, magento_photos),
          "hm": Shape(hm_articles, "articles.csv", _csv, HM_MAPPING, hm_photos),
          "myntra-products": Shape(myntra_products, "myntra_products_catalog.csv", _csv, MYNTRA_PRODUCTS_MAPPING),
          "zara": Shape(zara_store, "store_zara.csv", _semicolons, ZARA_MAPPING),
          "myntra-2023": Shape(myntra_2023, "myntra202305041052.csv", _csv, MYNTRA_2023_MAPPING),
          "hf-parquet": Shape(hf_dataset, "train-00000-of-00001.parquet", _hf_parquet, HF_PARQUET_MAPPING),
          "abo": Shape(abo_listings, "listings/metadata", _abo_files, ABO_MAPPING, abo_photos)}


def write_shape(items: list[dict], shape_name: str, out: Path) -> tuple[int, int]:
    """Write the catalog of ``shape_name`` derived from ``items`` (a Myntra-layout catalog's items table as rows), its
    photos and its mapping into the new folder ``out`` (atomically); returns the rows and photos written."""
    shape = SHAPES[shape_name]
    rows = shape.rows(items)
    content = shape.file_bytes(rows)
    photos = shape.photos(items) if shape.photos else {}
    files = {f"{shape.file_name}/{name}" if name else shape.file_name: data
             for name, data in (content.items() if isinstance(content, dict) else [("", content)])}
    with atomic_directory(out, force=True, what="derived catalog folder") as folder:
        for name, data in {**files, **photos, "mapping.toml": shape.mapping.encode("utf-8")}.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
    return len(rows), sum(name.endswith(".jpg") for name in photos)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="Myntra-layout folder (styles.csv and its item JSON)")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="us-tops", help="the catalog shape to write (default us-tops)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write the catalog file and mapping.toml to")
    parser.add_argument("--force", action="store_true", help="replace a non-empty --out folder (once the new one is complete)")
    args = parser.parse_args()
    try:
        check_folder_output(args.out, args.force, "derived catalog folder")
        rows, photographed = write_shape(ingest(args.source).table.to_pylist(), args.shape, args.out)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    written = f", {photographed:,} photos below {args.out}" if photographed else ""
    print(f"wrote {rows:,} rows to {args.out / SHAPES[args.shape].file_name}{written} and the mapping to {args.out / 'mapping.toml'}")


if __name__ == "__main__":
    main()
