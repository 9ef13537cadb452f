"""Catalogs of other shapes (issue 22): constant fields, prices as catalogs write them, per-field value clean-up, and
each shape of scripts/derive_catalog_shapes.py derived from the Myntra fixture and read with the mapping written from
docs/catalog.md. tests/test_bundled_builds.py builds each shape of the whole bundled catalog."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import shutil
from collections import Counter
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import mapping_file, table_rows
from fashionrq.catalog import ingest
from fashionrq.catalog.mapping import FieldCleanup
from fashionrq.catalog.name_types import fold
from fashionrq.catalog.prices import PriceFormat
from fashionrq.catalog.schema import parse_price
from fashionrq.catalog.tiers import catalog_tiers, currency_of, price_tiers_of
from fashionrq.cli import main
from fashionrq.errors import InputError

USD, EUR = PriceFormat(currency="USD"), PriceFormat(currency="EUR")


@pytest.mark.parametrize(("cell", "fmt", "expected"), [
    ("1299", PriceFormat(), (1299.0, None, None)),
    ("Rs. 700", PriceFormat(), (700.0, None, None)),
    ("1.0", PriceFormat(), (None, "placeholder", None)),  # Myntra's placeholder prices
    ("$26.26", USD, (26.26, None, None)),
    ("$1,129.99", USD, (1129.99, None, None)),
    ("US$ 12", USD, (12.0, None, None)),
    ("0.99", USD, (0.99, None, None)),  # a real price in dollars: the placeholder rule follows the currency
    ("$10.50 - $14.00", USD, (10.5, None, "price_range_read_as_low")),
    ("$10.50 - $14.00", PriceFormat(currency="USD", range="high"), (14.0, None, "price_range_read_as_high")),
    ("1.129,99 €", EUR, (1129.99, None, None)),
    ("12,50", EUR, (12.5, None, None)),
    ("1.129.000", EUR, (1129000.0, None, None)),
    ("1,129", PriceFormat(), (1129.0, None, None)),
    ("Now  40.00", PriceFormat(currency="GBP"), (40.0, None, "price_words_passed_over")),  # an ASOS scrape's sale price
    ("MRP: Rs. 1,299", PriceFormat(), (1299.0, None, "price_words_passed_over")),
    ("From $19.99", USD, (19.99, None, "price_words_passed_over")),
    ("499 onwards", PriceFormat(), (499.0, None, "price_words_passed_over")),
    ("Was £50 now", PriceFormat(currency="GBP"), (None, "unparsable", None)),  # a word left after the amount
    ("€5", USD, (None, "currency_mismatch", None)),
    ("about ten", USD, (None, "unparsable", None)),
    ("1e309", USD, (None, "non_finite", None)),
    # any ISO 4217 currency, by its sign or its code (a real Brazilian, Turkish, Polish, Indonesian and Iranian shop)
    ("R$ 129,90", PriceFormat(currency="BRL"), (129.9, None, None)),  # R$ is the real's, never a dollar
    ("₺1.299,90", PriceFormat(currency="TRY"), (1299.9, None, None)),
    ("129,99 zł", PriceFormat(currency="PLN"), (129.99, None, None)),
    ("Rp 150.000", PriceFormat(currency="IDR"), (150000.0, None, None)),  # the rupiah is written in whole units
    ("¥1,500", PriceFormat(currency="JPY"), (1500.0, None, None)),
    ("۳,۹۹۵,۰۰۰", PriceFormat(currency="IRR"), (3995000.0, None, None)),  # Digikala's Persian digits
    ("۳٬۹۹۵٫۵", PriceFormat(currency="AED"), (3995.5, None, None)),  # the Arabic thousands and decimal separators
    ("129.90 TRY", USD, (None, "currency_mismatch", None)),
    # shops of other languages (a Mercado Livre, Trendyol, Dafiti or Zalando page): thousands grouped by one dot, the
    # pesos' "$", marks written against the digits, the Swiss apostrophe, the words around an amount
    ("R$ 1.299", PriceFormat(currency="BRL"), (1299.0, None, "price_dot_read_as_thousands")),  # not 1.299, and counted
    ("$ 12.999", PriceFormat(currency="ARS"), (12999.0, None, "price_dot_read_as_thousands")),
    ("$ 129.900", PriceFormat(currency="COP"), (129900.0, None, "price_dot_read_as_thousands")),
    ("1.299", PriceFormat(currency="BRL", decimal_separator="."), (1.299, None, None)),  # as the mapping says
    ("1.299", PriceFormat(currency="KWD"), (1.299, None, None)),  # a dinar has three decimals
    ("0.999", USD, (0.999, None, None)),
    ("129,90 TL", PriceFormat(currency="TRY"), (129.9, None, None)),
    ("129,99zł", PriceFormat(currency="PLN"), (129.99, None, None)),
    ("99USD", USD, (99.0, None, None)),
    ("1’299.95 CHF", PriceFormat(currency="CHF"), (1299.95, None, None)),
    ("S/ 89.90", PriceFormat(currency="PEN"), (89.9, None, None)),
    ("₸12 990", PriceFormat(currency="KZT"), (12990.0, None, None)),
    ("Por R$ 99,90", PriceFormat(currency="BRL"), (99.9, None, "price_words_passed_over")),
    ("A partir de R$ 129,90", PriceFormat(currency="BRL"), (129.9, None, "price_words_passed_over")),
    ("ab 49,95 €", EUR, (49.95, None, "price_words_passed_over")),
    ("Desde 29,99 €", EUR, (29.99, None, "price_words_passed_over")),
    ("à partir de 19,99 €", EUR, (19.99, None, "price_words_passed_over")),
    ("$ 12.999", USD, (12999.0, None, "price_dot_read_as_thousands")),
    ("Colors 40", USD, (None, "unparsable", None)),  # "rs" inside a word is no rupee
    ("all 40", USD, (None, "unparsable", None)),  # a code that is a word ("ALL": the lek) only in capitals
    ("ALL 40", USD, (None, "currency_mismatch", None)),
    # a sale price beside the one before, each with its mark, read as `range` says and counted; two amounts without
    # marks are no price (they had read as one amount of eight digits, 29991999, its space taken to group thousands)
    ("£29.99 £19.99", PriceFormat(currency="GBP"), (19.99, None, "price_two_amounts_read_as_low")),
    ("$49.99$29.99", PriceFormat(currency="USD", range="high"), (49.99, None, "price_two_amounts_read_as_high")),
    ("Rs. 1,299 Rs. 999", PriceFormat(), (999.0, None, "price_two_amounts_read_as_low")),
    ("29.99 19.99", USD, (None, "unparsable", None)),
    ("£29.99 £19.99 £9.99", PriceFormat(currency="GBP"), (None, "unparsable", None)),
    ("$1 000 000", USD, (1000000.0, None, None)),
    # marks of other scripts and countries, and the dash for no cents ("lei" had been documented and never read)
    ("129 lei", PriceFormat(currency="RON"), (129.0, None, None)),
    ("3,980円", PriceFormat(currency="JPY"), (3980.0, None, None)),
    ("￥3,980", PriceFormat(currency="JPY"), (3980.0, None, None)),
    ("39,000원", PriceFormat(currency="KRW"), (39000.0, None, None)),
    ("199元", PriceFormat(currency="CNY"), (199.0, None, None)),
    ("1 299 руб.", PriceFormat(currency="RUB"), (1299.0, None, None)),
    ("999 грн", PriceFormat(currency="UAH"), (999.0, None, None)),
    ("390 บาท", PriceFormat(currency="THB"), (390.0, None, None)),
    ("250.000đ", PriceFormat(currency="VND"), (250000.0, None, None)),
    ("199 ر.س", PriceFormat(currency="SAR"), (199.0, None, None)),
    ("Rs. 2,499", PriceFormat(currency="PKR"), (2499.0, None, None)),  # Pakistan's rupee is written so too
    ("Tk 1,250", PriceFormat(currency="BDT"), (1250.0, None, None)),
    ("Fr. 89.90", PriceFormat(currency="CHF"), (89.9, None, None)),
    ("US $29.99", USD, (29.99, None, None)),
    ("299,-", PriceFormat(currency="NOK"), (299.0, None, None)),
    ("299:-", PriceFormat(currency="SEK"), (299.0, None, None)),
    ("CHF 89.–", PriceFormat(currency="CHF"), (89.0, None, None)),
    ("€ 29,- € 19,-", EUR, (19.0, None, "price_two_amounts_read_as_low")),
    # amounts written in another unit: cents, and the toman of Iranian shops (ten rials)
    ("1129", PriceFormat(currency="USD", scale=0.01), (11.29, None, None)),  # exactly as written, not 11.290000000000001
    ("۳,۹۹۵,۰۰۰", PriceFormat(currency="IRR", scale=10.0), (39950000.0, None, None)),
    ("50", PriceFormat(currency="INR", scale=0.01), (None, "placeholder", None)),  # the limit is on the scaled price
])
def test_prices_are_read_as_catalogs_write_them(cell, fmt, expected):
    assert parse_price(cell, fmt) == expected


def _ingest_cli(capsys, *args) -> tuple[int, str]:
    with pytest.raises(SystemExit) as stop:
        main([str(a) for a in args])
    return stop.value.code, " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize(("mapping", "says"), [
    ('[constants]\ngendr = "Women"\n', "did you mean 'gender'?"),
    ('[constants]\ngender = ""\n', "give the value every item has as a non-empty string"),
    ('[columns]\ngender = "sex"\n[constants]\ngender = "Women"\n', "keep one of them"),
    ('[price]\ncurrency = "dollars"\n', "ISO 4217 code"),
    ('[price]\ncurrency = "XYZ"\n', "which is no ISO 4217 currency code"),
    ('[price]\ndecimal_separator = ";"\n', "use one of 'auto', '.', ','"),
    ('[price]\nplaceholder_max = -1\n', "give a number >= 0"),
    ('[price]\nscale = 0\n', "give the number each written amount is multiplied by"),
    ('[price]\nscale = "cents"\n', "give the number each written amount is multiplied by"),
    ('[price]\ncurency = "USD"\n', "did you mean 'currency'?"),
    ('[clean.base_colour]\nremove = ["("]\n', "is no regular expression"),
    ('[clean.base_colour]\nremove = "\\\\d+"\n', "give a list of regular expressions"),
    ('[clean.colour]\nremove = ["x"]\n', "did you mean 'colours'?"),
    ('[clean.base_colour]\nwords = "yes"\n', "write words = true"),
    ('[clean.base_colour]\nstrip_brand = 1\n', "write strip_brand = true"),
    ('[clean.attributes.Fabric]\nremov = ["x"]\n', "in [clean.attributes.Fabric]; did you mean 'remove'?"),
    ('[clean.Fabric]\nremove = ["x"]\n', "(an attribute's values: [clean.attributes.<key>])"),
    ('[clean.base_colour]\nstrip_brands = true\n', "did you mean 'strip_brand'?"),
])
def test_a_mistake_in_the_new_mapping_sections_is_one_sentence(capsys, tmp_path, mapping, says):
    catalog = tmp_path / "catalog.csv"
    catalog.write_text("id,name,article_type\n1,Black Top,Tops\n", encoding="utf-8")
    (tmp_path / "mapping.toml").write_text('[columns]\nitem_id = "id"\n' + mapping if "[columns]" not in mapping else
                                           mapping.replace("[columns]\n", '[columns]\nitem_id = "id"\n'), encoding="utf-8")
    code, err = _ingest_cli(capsys, "ingest", catalog, "--mapping", tmp_path / "mapping.toml", "--out", tmp_path / "out")
    assert code == 2 and err.startswith("error: mapping file") and says in err and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()


def test_the_derived_catalog_has_the_shape_of_a_us_export(us_tops):
    text = (us_tops / "catalog.csv").read_text(encoding="utf-8")
    header, *rows = text.splitlines()
    assert header == "asin,item_name,brand_name,product_type,color,list_price" and len(rows) > 300
    assert "gender" not in header and "description" not in header
    assert sum(" / Size " in r for r in rows) > 20 and sum(re.search(r",\d{3} \w", r) is not None for r in rows) > 20
    assert sum(" - $" in r for r in rows) > 10 and all("_2012_and_later," in r for r in rows)


def test_a_mapping_written_from_the_docs_reads_it_cleanly_and_counts_every_repair(us_tops):
    result = ingest(us_tops / "catalog.csv", mapping=us_tops / "mapping.toml")
    items = result.table.to_pylist()
    report = result.report.to_dict()
    rows = len((us_tops / "catalog.csv").read_text().splitlines()) - 1
    assert len(items) == rows and report["rejected_rows"] == 0 and not report["values_nulled"]
    assert all(i["gender"] == "Women" and i["master_category"] == "Apparel" for i in items)
    assert all(i["price"] is not None and 1 < i["price"] < 500 for i in items)  # dollars, every one parsed
    for item in items:
        assert not re.search(r"\d|size|/|\bor\b|_", item["base_colour"], re.IGNORECASE), item["base_colour"]
        assert not re.search(r"\d|_", item["article_type"]) and item["article_type"][0].isupper(), item["article_type"]
        assert len({c.lower() for c in item["colours"]}) == len(item["colours"])
    assert report["repaired"]["price_range_read_as_low_price"]["count"] == sum(" - $" in r for r in
                                                                              (us_tops / "catalog.csv").read_text().splitlines())
    assert report["repaired"]["cleaned_article_type"]["count"] == rows and report["repaired"]["cleaned_base_colour"]["count"] > 50
    assert any("prices read as USD" in n for n in report["notes"]) and any("gender is 'Women'" in n for n in report["notes"])
    source = {r["asin"]: r for r in map(lambda line: dict(zip(["asin", "price"], [line.split(",")[0], line.rsplit(",", 1)[1]])),
                                        (us_tops / "catalog.csv").read_text().splitlines()[1:])}
    first = items[0]
    assert f"${first['price']:,.2f}" == source[first["item_id"]]["price"].split(" - ")[0]


@pytest.mark.slow  # embedding and a codebook search over 364 items (about 30 s); tests/test_quality_gate.py keeps the refusal fast
def test_a_weak_derived_catalog_is_refused_by_the_quality_gate_in_one_sentence(us_tops, tmp_path):
    """The fixture's 364 women's apparel products are far too few for every task: one command, one clear refusal."""
    out = tmp_path / "BENCH"
    done = subprocess.run([sys.executable, "-m", "fashionrq", "build", "--catalog", str(us_tops / "catalog.csv"), "--mapping",
                           str(us_tops / "mapping.toml"), "--out", str(out), "--seed", "0"],
                          capture_output=True, text=True)
    message = " ".join(done.stderr.split())
    assert done.returncode == 4 and "fewer than 8 bootstrap units" in message and "Traceback" not in message, message
    assert not out.exists()


def test_the_ingested_items_keep_their_dollar_prices(us_tops, tmp_path):
    code = subprocess.run([sys.executable, "-m", "fashionrq", "ingest", str(us_tops / "catalog.csv"), "--mapping",
                           str(us_tops / "mapping.toml"), "--out", str(tmp_path / "items")], capture_output=True, text=True)
    assert code.returncode == 0, code.stderr
    assert "note: prices read as USD" in " ".join(code.stderr.split())
    prices = pq.read_table(tmp_path / "items" / "items.parquet", columns=["price"]).column("price").to_pylist()
    report = json.loads((tmp_path / "items" / "ingest_report.json").read_text())
    assert report["rows_written"] == len(prices) and max(prices) < 500
    # the same catalog's amounts read in another unit ([price] scale): every price ten times, said in the note
    mapping = tmp_path / "scaled.toml"
    mapping.write_text((us_tops / "mapping.toml").read_text(encoding="utf-8").replace("[price]\n", "[price]\nscale = 10\n"), encoding="utf-8")
    scaled = ingest(us_tops / "catalog.csv", mapping=mapping)
    assert scaled.table.column("price").to_pylist() == pytest.approx([10 * p for p in prices], rel=1e-15)
    assert any(note.startswith("prices read as USD (each written amount times 10, ") for note in scaled.report.notes)


def test_a_sellers_placeholder_price_of_a_thousand_times_the_median_is_nulled_and_counted(fixture_items, tmp_path):
    """A Tokopedia scrape's sellers write 999,999,999 or 2,000,000,000 rupiah for a jacket whose price they do not give
    (beside a median of 150,000): such prices had been read as prices (63 items at 100 million rupiah or more) and
    stretched the premium tier. A price of a thousand times the median or more is nulled, with its discounted price,
    and counted; the rest, and the tiers, are as without them."""
    items = [i for i in fixture_items.to_pylist() if i["price"] and i["article_type"]][:300]
    placeholders = {0: 999_999_999, 7: 2_000_000_000, 13: 1_000_000_000}
    rows = [{"id": i["item_id"], "name": i["name"], "type": i["article_type"],
             "harga": placeholders.get(n, round(i["price"]) * 190), "diskon": placeholders.get(n, round(i["price"]) * 150)}
            for n, i in enumerate(items)]
    with (tmp_path / "shop.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    mapping = '[columns]\nitem_id = "id"\nname = "name"\narticle_type = "type"\nprice = "harga"\ndiscounted_price = "diskon"\n[price]\ncurrency = "IDR"\n'
    result = ingest(tmp_path / "shop.csv", mapping=mapping_file(tmp_path, mapping))
    read = result.table.to_pylist()
    assert [r["price"] for r in read] == [None if n in placeholders else row["harga"] for n, row in enumerate(rows)]
    assert [r["discounted_price"] for r in read] == [None if n in placeholders else row["diskon"] for n, row in enumerate(rows)]
    assert result.report.values_nulled["implausible_price"] == [items[n]["item_id"] for n in sorted(placeholders)]
    plain = [row for n, row in enumerate(rows) if n not in placeholders]
    assert price_tiers_of(result.table).bounds == catalog_tiers([row["harga"] for row in plain], "IDR").bounds


INR = re.compile(r"\d+\.\d\d INR")


def test_the_derived_feed_has_the_shape_of_a_google_merchant_feed(merchant_feed):
    header = (merchant_feed / "catalog.tsv").read_text(encoding="utf-8").split("\n", 1)[0]
    assert header.split("\t") == ["id", "item_group_id", "title", "description", "link", "image_link", "price", "sale_price", "brand",
                                  "gender", "age_group", "color", "material", "pattern", "google_product_category", "product_type", "size"]
    rows = table_rows(merchant_feed / "catalog.tsv", "\t")
    assert all(INR.fullmatch(r["price"]) and (not r["sale_price"] or INR.fullmatch(r["sale_price"])) for r in rows)
    assert all(float(r["sale_price"].split()[0]) < float(r["price"].split()[0]) for r in rows if r["sale_price"])
    assert sum(bool(r["sale_price"]) for r in rows) > 500 and sum(r["description"].startswith("<p>") for r in rows) > 5000
    assert all(r["link"].startswith("https://") and r["image_link"].startswith("https://") for r in rows)
    assert all(len(r["product_type"].split(" > ")) == 4 and r["google_product_category"].startswith(("Apparel & Accessories",
               "Health & Beauty", "Sporting Goods", "Home & Garden")) for r in rows)
    assert sum("/" in r["color"] for r in rows) > 1000 and all(1 <= len(r["color"].split("/")) <= 3 for r in rows)
    assert {r["gender"] for r in rows} == {"male", "female", "unisex"} and {r["age_group"] for r in rows} <= {"adult", "kids", ""}
    kids = [r for r in rows if r["product_type"].startswith(("Boys", "Girls"))]
    assert len(kids) > 100 and all(r["age_group"] == "kids" and r["gender"] in ("male", "female") for r in kids)
    assert sum(bool(r["material"]) for r in rows) > 2000 and sum(bool(r["pattern"]) for r in rows) > 2000
    groups = Counter(r["item_group_id"] for r in rows)
    assert set(groups.values()) == {2, 3, 4} and len({r["id"] for r in rows}) == len(rows)
    assert all(r["id"] == f"{r['item_group_id']}-{r['size'].replace(' ', '')}" for r in rows)
    assert all(len({(r["color"], r["title"], r["price"]) for r in rows if r["item_group_id"] == g}) == 1 for g in list(groups)[:200])


def test_a_mapping_written_from_the_docs_reads_one_item_per_product_of_the_feed(merchant_feed, fixture_items):
    """Ingested with its mapping, the feed gives one item per Myntra product listed (Google refuses apparel without a
    title, a price or a colour), which agrees with the fixture item; Boys and Girls, written as male and female with
    age group kids, come back as Boys and Girls (as do Myntra's few Men and Women items of a child's age group)."""
    rows = table_rows(merchant_feed / "catalog.tsv", "\t")
    result = ingest(merchant_feed / "catalog.tsv", mapping=merchant_feed / "mapping.toml")
    report = result.report.to_dict()
    items = {item["item_id"].split("-", 1)[0]: item for item in result.table.to_pylist()}
    source = {item["item_id"]: item for item in fixture_items.to_pylist()}
    assert len(items) == result.table.num_rows == len({r["item_group_id"] for r in rows})
    assert set(items) == {i for i, item in source.items() if item["name"] and item["price"] and item["colours"]}
    assert sum(source[i]["gender"] in ("Boys", "Girls") for i in items) > 50
    for item_id, item in items.items():
        mine = source[item_id]
        for name in ("name", "brand", "master_category", "sub_category", "article_type", "colours", "price", "description"):
            assert item[name] == mine[name], (item_id, name, item[name], mine[name])
        age_group = "kids" if mine["gender"] in ("Boys", "Girls") else mine["age_group"]
        assert item["age_group"] == age_group, item_id
        child = age_group in ("baby", "toddler", "kids")
        assert item["gender"] == ({"Men": "Boys", "Women": "Girls"}.get(mine["gender"], mine["gender"]) if child else mine["gender"]), item_id
        on_sale = mine["discounted_price"] is not None and mine["discounted_price"] < mine["price"]
        assert item["discounted_price"] == (mine["discounted_price"] if on_sale else None), item_id
        attributes = dict(mine["attributes"] or {})
        fabric = attributes.get("Fabric") or attributes.get("Material")
        pattern = attributes.get("Pattern") or attributes.get("Print or Pattern Type")
        assert dict(item["attributes"] or {}) == {k: v for k, v in (("Fabric", fabric), ("Pattern", pattern)) if v}, item_id
    first_rows = {r["item_group_id"]: n for n, r in reversed(list(enumerate(rows, start=2)))}
    variants = {f"catalog.tsv:{n}" for n, r in enumerate(rows, start=2) if first_rows[r["item_group_id"]] != n}
    assert [r["row"] for r in report["rejected"]] == sorted(variants, key=lambda w: int(w.split(":")[1]))
    assert all(r["reason"].startswith("a variant of the product at catalog.tsv:") for r in report["rejected"])
    photos = report["values_nulled"]["image_url"]["ids"]
    assert set(report["values_nulled"]) == {"image_url"} and sorted(photos) == sorted(i["item_id"] for i in items.values())
    assert report["rows_read"] == len(rows) == report["rows_written"] + report["rejected_rows"]


def _handles(rows: list[dict[str, str]]) -> dict[str, list[dict[str, str]]]:
    handles: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        handles.setdefault(row["Handle"], []).append(row)
    return handles


def test_the_derived_export_has_the_shape_of_a_shopify_export(shopify_export):
    """A product's title, vendor, type and option names on its first row only; one row per colour and size; an image
    row of the handle and a photo alone; colour as the first option or the second, or only in the colour metafield
    behind Shopify's "Default Title"; several colours of one product under one handle; plain decimal prices."""
    rows = table_rows(shopify_export / "products_export.csv")
    assert list(rows[0])[:6] == ["Handle", "Title", "Body (HTML)", "Vendor", "Product Category", "Type"]
    handles = _handles(rows)
    product_only = ("Title", "Vendor", "Type", "Option1 Name", "Google Shopping / Gender")
    for handle, group in handles.items():
        first, later, image = group[0], group[1:-1], group[-1]
        assert all(first[c] for c in ("Title", "Vendor", "Type", "Option1 Name")), handle
        assert not any(r[c] for r in later for c in product_only), handle
        assert {c for c, v in image.items() if v} == {"Handle", "Image Src", "Image Position"}, handle
        assert all(re.fullmatch(r"\d+\.\d\d", r["Variant Price"]) and r["Variant SKU"] for r in group[:-1]), handle
    names = Counter(group[0]["Option1 Name"] for group in handles.values())
    assert names["Color"] > 500 and names["Size"] > 300 and names["Title"] > 300, names
    colours = Counter(len({r[f"Option{1 if g[0]['Option1 Name'] == 'Color' else 2} Value"] for r in g[:-1]})
                      for g in handles.values() if "Color" in (g[0]["Option1 Name"], g[0]["Option2 Name"]))
    assert sum(n for k, n in colours.items() if k > 1) > 100 and max(colours) == 4, colours
    assert sum(bool(r["Variant Compare At Price"]) for r in rows) > 500


def test_a_mapping_written_from_the_docs_reads_one_item_per_product_and_colour(shopify_export, fixture_items):
    """Ingested with its mapping, the export gives one item per Myntra product listed: its colour from the option
    named Color (or the colour metafield), its title, vendor and type from the first row of its handle, the price
    before a sale and the sale price in euros, Boys and Girls from Male and Female with age group Kids. Every other
    row, sizes and image rows, is left out and listed."""
    rows = table_rows(shopify_export / "products_export.csv")
    handle_of = {r["Variant SKU"]: r["Handle"] for r in rows if r["Variant SKU"]}
    titles = {handle: group[0]["Title"] for handle, group in _handles(rows).items()}
    first_item = {handle: group[0]["Variant SKU"].split("-", 1)[0] for handle, group in _handles(rows).items()}
    result = ingest(shopify_export / "products_export.csv", mapping=shopify_export / "mapping.toml")
    report = result.report.to_dict()
    items = {item["item_id"].split("-", 1)[0]: item for item in result.table.to_pylist()}
    source = {item["item_id"]: item for item in fixture_items.to_pylist()}
    assert set(items) == {i for i, item in source.items() if item["name"] and item["price"] and item["colours"]}
    assert len(items) == result.table.num_rows
    for item_id, item in items.items():
        mine = source[item_id]
        assert item["name"] == titles[handle_of[item["item_id"]]], item_id
        assert item["base_colour"].casefold() == mine["base_colour"].casefold(), item_id
        for name in ("brand", "gender", "article_type"):
            assert item[name] == mine[name], (item_id, name, item[name], mine[name])
        assert item["description"] == source[first_item[handle_of[item["item_id"]]]]["description"], item_id  # the product's
        on_sale = mine["discounted_price"] is not None and mine["discounted_price"] < mine["price"]
        assert item["price"] == round(mine["price"] / 90, 2), item_id
        assert item["discounted_price"] == round((mine["discounted_price"] if on_sale else mine["price"]) / 90, 2), item_id
        assert item["age_group"] == ("kids" if mine["gender"] in ("Boys", "Girls") else "adult"), item_id
    assert sum(item["name"] == source[i]["name"] for i, item in items.items()) > 0.8 * len(items)
    assert report["rows_read"] == len(rows) == report["rows_written"] + report["rejected_rows"]
    assert all(r["reason"].startswith("a variant of the product at products_export.csv:") for r in report["rejected"])
    assert any(n.startswith(f"{len(rows) - len(titles):,} rows took their empty Title") for n in report["notes"])


def test_a_mapping_written_from_the_docs_reads_one_item_per_product_of_a_shopify_products_json(shopify_products_json, fixture_items):
    """A Shopify store's products.json, read with its mapping: one item per product (its sizes are variants, its
    colours the values of its Color option, else the colour word of its title), the price before a sale and the price
    paid from its first variant, the gender word among its tags (the other tags passed over, not counted as refused
    genders), the base colour from the title's colour word (else the first option value), each photo's web address
    counted."""
    products = json.loads((shopify_products_json / "products.json").read_text(encoding="utf-8"))["products"]
    result = ingest(shopify_products_json / "products.json", mapping=shopify_products_json / "mapping.toml")
    report = result.report.to_dict()
    items = {item["item_id"]: item for item in result.table.to_pylist()}
    source = {item["item_id"]: item for item in fixture_items.to_pylist()}
    assert len(items) == len(products) == report["rows_written"] and report["rejected_rows"] == 0
    assert "refused_gender" not in report["values_nulled"] and report["values_nulled"]["image_url"]["count"] == len(products)
    optioned = 0
    for product in products:
        item, first = items[str(product["id"])], source[str(product["id"] - 7_000_000_000_000)]
        assert (item["name"], item["brand"], item["article_type"], item["gender"]) == (product["title"], first["brand"], first["article_type"], first["gender"])
        on_sale = first["discounted_price"] is not None and first["discounted_price"] < first["price"]
        assert (item["price"], item["discounted_price"]) == (first["price"], first["discounted_price"] if on_sale else first["price"])
        colours = next((o["values"] for o in product["options"] if o["name"] == "Color"), None)
        if colours is not None:
            optioned += 1
            assert {c.lower() for c in item["colours"]} == {c.lower() for c in colours + [item["base_colour"]]}, product["id"]
        elif item["base_colour"] is not None:
            assert item["base_colour"].lower() in product["title"].lower(), product["id"]
    assert len(products) / 3 < optioned < len(products) and sum(len(p["options"][0]["values"]) > 1 for p in products if p["options"][0]["name"] == "Color") > 50


def _items_by_id(catalog: Path) -> tuple[dict[str, dict], dict]:
    """The items of a derived export read with the mapping beside it, by id, and its ingest report."""
    result = ingest(catalog, mapping=catalog.parent / "mapping.toml")
    return {item["item_id"]: item for item in result.table.to_pylist()}, result.report.to_dict()


def test_the_derived_export_has_the_shape_of_a_woocommerce_export(woocommerce_export):
    """Variable products' rows hold the description, categories, brand and attributes, and no price; each variation
    row after them names its parent by SKU, or as id:<ID> for a parent without a SKU, and holds the colour, the size
    and the prices but no description or categories; products in one colour without sizes are simple products; a
    product on sale is also in the category Sale."""
    rows = table_rows(woocommerce_export / "wc-product-export.csv")
    kinds = Counter(r["Type"] for r in rows)
    assert set(kinds) == {"simple", "variable", "variation"} and kinds["variation"] > 2 * kinds["variable"] > 1000, kinds
    by_sku, by_id = {r["SKU"]: r for r in rows if r["SKU"]}, {f"id:{r['ID']}": r for r in rows}
    variations = [r for r in rows if r["Type"] == "variation"]
    parents = [by_sku.get(r["Parent"]) or by_id[r["Parent"]] for r in variations]
    assert all(p["Type"] == "variable" and int(p["ID"]) < int(r["ID"]) for p, r in zip(parents, variations, strict=True))
    assert sum(r["Parent"].startswith("id:") for r in variations) > 300
    assert all(not r["Description"] and not r["Categories"] and not r["Brands"] and r["Regular price"] for r in variations)
    assert all(p["Categories"] and not p["Regular price"] for p in parents)
    assert all(r["Name"].startswith(f"{p['Name']} - {r['Attribute 1 value(s)']}") for p, r in zip(parents, variations, strict=True))
    assert sum(r["Categories"].endswith(", Sale") for r in rows) > 100
    assert all(len(r["Categories"].removesuffix(", Sale").split(" > ")) == 4 for r in rows if r["Categories"])


def _assert_same_items(mine: dict[str, dict], other: dict[str, dict], fields: tuple[str, ...], price_ratio: float,
                       tolerance: float, fabric) -> None:
    """The same ids; per item the same name (spaces squeezed, as the clean-ups do), ``fields``, colour (in any
    case) and ``fabric(item)``, and the other's price times ``price_ratio`` (another currency)."""
    assert set(mine) == set(other)
    for item_id, item in mine.items():
        theirs = other[item_id]
        assert " ".join(item["name"].split()) == " ".join(theirs["name"].split()), item_id
        for name in fields:
            assert item[name] == theirs[name], (item_id, name, item[name], theirs[name])
        assert item["base_colour"].casefold() == theirs["base_colour"].casefold(), item_id
        assert item["price"] == pytest.approx(theirs["price"] * price_ratio, abs=tolerance), item_id
        assert fabric(item) == fabric(theirs), item_id


def test_a_mapping_written_from_the_docs_reads_one_item_per_variable_product_and_colour(woocommerce_export, shopify_export):
    """Ingested with its mapping, the WooCommerce export gives the items the Shopify export gives (the same products
    and colours, the same ids, titles and types): each parent row left out and listed, its description, categories,
    brand and fabric taken by its variations, the options cut from their names, the sizes of a colour left out,
    prices in pounds."""
    rows = table_rows(woocommerce_export / "wc-product-export.csv")
    woo, report = _items_by_id(woocommerce_export / "wc-product-export.csv")
    shop, _ = _items_by_id(shopify_export / "products_export.csv")
    _assert_same_items(woo, shop, ("brand", "gender", "article_type", "description"), 90 / 105, 0.011,
                       lambda item: dict(item["attributes"] or {}).get("Fabric", "").lower())
    parents = [r for r in report["rejected"] if r["reason"].startswith("the parent row of")]
    assert len(parents) == sum(r["Type"] == "variable" for r in rows)
    assert report["rows_read"] == len(rows) == report["rows_written"] + report["rejected_rows"]
    assert any(n.startswith(f"{len(parents):,} parent rows left out") for n in report["notes"])


def test_a_variation_whose_parent_row_is_missing_is_kept_and_counted(woocommerce_export, tmp_path):
    """A variation naming a parent the file does not hold takes nothing from it: it is kept as it is (here rejected
    for its empty categories, so no item has a type it was never given) and the note counts it."""
    rows = table_rows(woocommerce_export / "wc-product-export.csv")
    parent = next(r for r in rows if r["Type"] == "variable" and r["SKU"])
    orphans = [r for r in rows if r["Parent"] == parent["SKU"]]
    catalog = tmp_path / "wc-product-export.csv"
    with open(catalog, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(r for r in rows if r is not parent)
    report = ingest(catalog, mapping=woocommerce_export / "mapping.toml").report.to_dict()
    assert any(n.startswith(f"{len(orphans)} rows name a parent in column 'Parent' that no row's SKU or id:{{ID}} holds")
               for n in report["notes"]), report["notes"]
    rejected = {r["row"].split(" (")[0]: r["reason"] for r in report["rejected"]}
    first = next(f"wc-product-export.csv:{n}" for n, r in enumerate((r for r in rows if r is not parent), start=2) if r in orphans)
    assert rejected[first] == "empty required field(s) article_type"


def test_the_derived_export_has_the_shape_of_a_magento_export(magento_export):
    """A configurable product's simple products come before its row, each with only its colour and size in
    additional_attributes, its prices and a name ending in "-<size>-<colour>", no description or categories; the
    configurable row lists every one of them in configurable_variations and holds the product's fields and its other
    attributes; a product without variants is one simple row with everything."""
    rows = table_rows(magento_export / "export_catalog_product.csv")
    kinds = Counter(r["product_type"] for r in rows)
    assert set(kinds) == {"simple", "configurable"} and kinds["simple"] > 2 * kinds["configurable"] > 1000, kinds
    position = {r["sku"]: n for n, r in enumerate(rows)}
    for n, row in enumerate(rows):
        if row["product_type"] != "configurable":
            continue
        variations = [dict(pair.split("=", 1) for pair in entry.split(",")) for entry in row["configurable_variations"].split("|")]
        assert all(position[v["sku"]] < n for v in variations) and not row["price"] and row["categories"], row["sku"]
        for v in variations:
            child = rows[position[v["sku"]]]
            assert child["additional_attributes"].startswith(f"color={v['color']}") and not child["categories"] and not child["description"]
            assert child["name"].startswith(f"{row['name']}-") and child["name"].endswith(f"-{v['color']}")
            assert child["visibility"] == "Not Visible Individually" and child["price"]
    simple = [r for r in rows if r["visibility"] == "Catalog, Search" and r["product_type"] == "simple"]
    assert len(simple) > 100 and all(r["categories"] and "color=" in r["additional_attributes"] for r in simple)


def test_a_mapping_written_from_the_docs_reads_a_magento_export_as_the_woocommerce_one(magento_export, woocommerce_export):
    """Ingested with its mapping ([variants] children: each configurable row lists its simple products), the Magento
    export gives the items the WooCommerce export of the same products gives: same ids, names (the configurable's,
    not "<name>-XS-Black"), brands, genders, types, descriptions, colours and fabrics; each configurable row left out
    and listed, its description, categories and the attribute codes a simple product lacks (brand, material) taken
    by its simple products, the sizes of a colour left out, prices in euros."""
    rows = table_rows(magento_export / "export_catalog_product.csv")
    mine, report = _items_by_id(magento_export / "export_catalog_product.csv")
    woo, _ = _items_by_id(woocommerce_export / "wc-product-export.csv")
    _assert_same_items(mine, woo, ("brand", "gender", "master_category", "sub_category", "article_type", "description"),
                       105 / 90, 0.02, lambda item: dict(item["attributes"] or {}).get("Fabric"))
    parents = [r for r in report["rejected"] if r["reason"].startswith("the parent row of")]
    assert len(parents) == sum(r["product_type"] == "configurable" for r in rows)
    assert report["rows_read"] == len(rows) == report["rows_written"] + report["rejected_rows"]
    assert any(n.startswith(f"{len(parents):,} parent rows left out, each listing its variant rows in "
                            "'configurable_variations[*].sku'") for n in report["notes"]), report["notes"]


def test_a_simple_product_listed_by_a_configurable_row_the_export_lacks_is_counted(magento_export, tmp_path):
    """An export cut after a configurable product's simple products lost the rows it lists: the note counts them; and
    a configurable row whose simple products are all missing is kept as an item of its own."""
    rows = table_rows(magento_export / "export_catalog_product.csv")
    parent = next(n for n, r in enumerate(rows) if r["product_type"] == "configurable")
    listed = rows[parent]["configurable_variations"].count("sku=")
    catalog = tmp_path / "export_catalog_product.csv"
    with open(catalog, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows[parent:])
    result = ingest(catalog, mapping=magento_export / "mapping.toml")
    assert any(n.startswith(f"{listed} variants listed in 'configurable_variations[*].sku' are no row's sku")
               for n in result.report.to_dict()["notes"])
    assert result.table.column("item_id")[0].as_py() == rows[parent]["sku"]


def test_the_derived_file_has_the_shape_of_an_amazon_flat_file(amazon_flat_file):
    """Two lines above the header (the template line, then labels); a parent row per product in several colours or
    sizes, with no price, colour or size, named by its children's parent_sku; children named "<title>, <colour>,
    <size>"; Amazon's departments, hyphenated item types and plain dollar prices beside a currency column."""
    first, labels, _ = (amazon_flat_file / "Flat.File.Clothing.txt").read_text(encoding="utf-8").split("\n", 2)
    rows = table_rows(amazon_flat_file / "Flat.File.Clothing.txt", "\t", skip_lines=2)
    assert first.startswith("TemplateType=fptcustom\t") and labels.split("\t")[:2] == ["Feed Product Type", "Item Sku"]
    parents = {r["item_sku"]: r for r in rows if r["parent_child"] == "parent"}
    children = [r for r in rows if r["parent_child"] == "child"]
    assert len(parents) > 1000 and len(children) > 2 * len(parents) and all(r["parent_sku"] in parents for r in children)
    assert all(not p["standard_price"] and not p["color_name"] for p in parents.values())
    assert all(r["item_name"].startswith(f"{parents[r['parent_sku']]['item_name']}, {r['color_name']}") for r in children)
    assert {r["department_name"] for r in rows} == {"mens", "womens", "boys", "girls", "unisex-adult"}
    assert sum("-" in r["item_type"] for r in rows) > 500 and {r["currency"] for r in rows} == {"USD"}
    assert all(re.fullmatch(r"\d+\.\d\d", r["standard_price"]) for r in rows if r["parent_child"] != "parent")


def test_a_mapping_written_from_the_docs_reads_the_flat_files_products(amazon_flat_file, shopify_export):
    """Ingested with its mapping (header_row = 3), the flat file gives the items the Shopify export gives: the same
    ids, titles (the options cut from the children's names), brands, genders, colours and descriptions, item types read
    as words ("track-pants": Track Pants), dollar prices; every parent row left out and listed."""
    rows = table_rows(amazon_flat_file / "Flat.File.Clothing.txt", "\t", skip_lines=2)
    amazon, report = _items_by_id(amazon_flat_file / "Flat.File.Clothing.txt")
    shop, _ = _items_by_id(shopify_export / "products_export.csv")
    assert set(amazon) == set(shop)
    for item_id, item in amazon.items():
        other = shop[item_id]
        assert item["name"] == " ".join(other["name"].split()), item_id
        for name in ("brand", "gender", "description"):
            assert item[name] == other[name], (item_id, name, item[name], other[name])
        assert item["article_type"].casefold() == other["article_type"].casefold().replace("-", " "), item_id
        assert item["base_colour"].casefold() == other["base_colour"].casefold(), item_id
        assert item["price"] == pytest.approx(other["price"] * 90 / 83, abs=0.011), item_id
    assert sum(r["reason"].startswith("the parent row of") for r in report["rejected"]) == sum(r["parent_child"] == "parent" for r in rows)
    assert report["rows_read"] == len(rows) == report["rows_written"] + report["rejected_rows"]
    assert report["notes"][0] == "the header is line 3 of Flat.File.Clothing.txt (header_row in the mapping); the lines above it are skipped"


def test_a_mapping_written_from_the_docs_reads_a_flipkart_crawl(flipkart_crawl, fixture_items):
    """The Flipkart-crawl shape, read with its mapping: the gender, type, colour and occasion from the entries of a
    Ruby-hash specifications list ("Men's, Women's" read as Unisex), every keyed entry as an attribute (the one without
    a key counted), the master and sub category from parts 0 and 2 of a ">>" path inside a JSON list, the first of a
    list of photo addresses nulled and counted."""
    rows = list(csv.DictReader(io.StringIO((flipkart_crawl / "flipkart_com-ecommerce_sample.csv").read_text(encoding="utf-8"))))
    assert rows[0]["product_specifications"].startswith('{"product_specification"=>[{"key"=>')
    result = ingest(flipkart_crawl / "flipkart_com-ecommerce_sample.csv", mapping=flipkart_crawl / "mapping.toml")
    report = result.report.to_dict()
    source = {item["item_id"]: item for item in fixture_items.to_pylist()}
    items = result.table.to_pylist()
    assert len(items) == len(rows) == report["rows_read"] and report["rejected_rows"] == 0
    for item in items:
        mine = source[dict(item["attributes"])["Style Code"].rsplit("_", 1)[1]]  # the style code ends in the product's id
        assert item["name"] == mine["name"]
        for name in ("gender", "article_type", "base_colour", "usage", "brand"):
            assert item[name] == mine[name], (item["name"], name, item[name], mine[name])
        assert item["sub_category"] == (mine["sub_category"] or None)
        attributes = dict(mine["attributes"] or {})
        expected = {k: attributes[k] for k in ("Fabric", "Pattern") if attributes.get(k)}
        assert {k: v for k, v in dict(item["attributes"]).items() if k in ("Fabric", "Pattern")} == expected, item["name"]
        assert set(dict(item["attributes"])) >= {"Ideal For", "Type", "Style Code"}
    assert {i["master_category"] for i in items} >= {"Clothing", "Footwear", "Watches", "Bags, Wallets & Belts"}
    assert sum(i["gender"] == "Unisex" for i in items) > 50
    assert report["values_nulled"]["feature_without_key"]["count"] == len(items) == report["values_nulled"]["image_url"]["count"]


def test_a_mapping_written_from_the_docs_reads_an_hm_articles_table(hm_articles, fixture_items):
    """H&M's articles.csv, read with its mapping: the gender and the age group both from the index group (children's
    wear read as Unisex kids), H&M's product types and colour groups as written, the graphical appearance as the
    pattern with "Unknown" nulled and counted, the catch-all colour "Other" refused and counted, no brand, no price."""
    rows = list(csv.DictReader(io.StringIO((hm_articles / "articles.csv").read_text(encoding="utf-8"))))
    assert list(rows[0])[:3] == ["article_id", "product_code", "prod_name"] and len(rows[0]["article_id"]) == 10
    result = ingest(hm_articles / "articles.csv", mapping=hm_articles / "mapping.toml")
    report = result.report.to_dict()
    items = {item["item_id"]: item for item in result.table.to_pylist()}
    source = {item["item_id"]: item for item in fixture_items.to_pylist() if item["name"]}
    assert len(items) == len(rows) == len(source) and report["rejected_rows"] == 0
    genders = {"Men": ("Men", "adult"), "Women": ("Women", "adult"), "Unisex": ("Unisex", "adult"),
               "Boys": ("Unisex", "kids"), "Girls": ("Unisex", "kids")}
    by_source = {row["article_id"]: str(int(row["article_id"][1:7])) for row in rows}
    for article_id, item in items.items():
        mine = source[by_source[article_id]]
        assert (item["gender"], item["age_group"]) == genders[mine["gender"]], article_id
        assert item["brand"] is None and item["price"] is None
        assert not mine["brand"] or not item["name"].startswith(mine["brand"] + " ")
    types = {item["article_type"] for item in items.values()}
    assert {"T-shirt", "Cap/peaked", "Leggings/Tights", "Trousers", "Sneakers"} <= types
    colours = {item["base_colour"] for item in items.values()}
    assert {"Dark Blue", "Black"} <= colours and "Other" not in colours
    multi = sum(item["base_colour"] == "Multi" for item in source.values())
    assert multi and report["values_nulled"]["refused_base_colour"]["count"] == multi
    patterns = {dict(item["attributes"]).get("Pattern") for item in items.values()}
    assert {"Solid", "All over pattern", "Stripe"} <= patterns and "Unknown" not in patterns


def test_a_mapping_written_from_the_docs_reads_a_catalog_whose_types_are_only_in_the_names(myntra_products, fixture_items):
    """The public Myntra products catalog's layout, read with its mapping: the type is the first product word of the
    name once the brand is cut out (a name without one rejected and counted, each such row under refused_article_type),
    a type written in several cases is one type (counted under repaired.case_of_article_type), "Unisex Kids" is a
    Unisex kids' item, the colour's leading space is trimmed and the whole-rupee prices are INR."""
    catalog = myntra_products / "myntra_products_catalog.csv"
    rows = list(csv.DictReader(io.StringIO(catalog.read_text(encoding="utf-8"))))
    assert list(rows[0]) == ["ProductID", "ProductName", "ProductBrand", "Gender", "Price (INR)", "NumImages", "Description", "PrimaryColor"]
    result = ingest(catalog, mapping=myntra_products / "mapping.toml")
    report = result.report.to_dict()
    items = result.table.to_pylist()
    source = {item["item_id"]: item for item in fixture_items.to_pylist()}
    assert report["rejected_rows"] == report["values_nulled"]["refused_article_type"]["count"] == len(rows) - len(items)
    assert len(items) >= 0.9 * len(rows)
    case_variants = {}
    for row in rows:
        for word in re.findall(r"[A-Za-z]+", row["ProductName"]):
            case_variants.setdefault(word.lower(), set()).add(word)
    assert len(case_variants["sweatshirt"]) > 1 and report["repaired"]["case_of_article_type"]["count"] > 0
    assert len({item["article_type"].lower() for item in items}) == len({item["article_type"] for item in items})
    agree = sum(fold(item["article_type"].split()[-1]) == fold(source[item["item_id"]]["article_type"].split()[-1]) for item in items)
    assert agree >= 0.85 * len(items), agree / len(items)
    for item in items:
        mine = source[item["item_id"]]
        assert (item["gender"], item["age_group"]) == (mine["gender"], mine["age_group"] or "adult"), item["item_id"]
        assert item["base_colour"] == mine["base_colour"] and item["price"] == (round(mine["price"]) if mine["price"] else None)
    assert currency_of(result.table) == "INR"


def test_a_mapping_written_from_the_docs_reads_a_retailers_own_catalog_in_the_zara_layout(zara_store, fixture_items):
    """The Zara dataset's layout, read with its mapping: semicolons, one brand, names in capitals without brand or
    gender, the type in "terms", the gender and age group from the store section (no gender for a unisex product), the
    colour from the name written "Navy Blue" (each counted under repaired.case_of_base_colour), dollar prices."""
    catalog = zara_store / "store_zara.csv"
    rows = list(csv.DictReader(io.StringIO(catalog.read_text(encoding="utf-8")), delimiter=";"))
    assert list(rows[0])[:3] == ["Product ID", "Product Position", "Promotion"] and {r["brand"] for r in rows} == {"Zara"}
    result = ingest(catalog, mapping=zara_store / "mapping.toml")
    report = result.report.to_dict()
    items = result.table.to_pylist()
    source = {item["item_id"]: item for item in fixture_items.to_pylist()}
    assert len(items) == len(rows) and report["rejected_rows"] == 0
    capitals = 0
    for item, row in zip(items, rows, strict=True):
        mine = source[str(int(item["item_id"]) - 100000)]
        adult = mine["gender"] in ("Men", "Women")
        expected = (None, None) if mine["gender"] == "Unisex" else (mine["gender"], "adult" if adult else "kids")
        assert (item["gender"], item["age_group"]) == expected, item["item_id"]
        assert item["article_type"] == row["terms"] and fold(row["terms"].split()[-1]) == fold(mine["article_type"].split()[-1])
        assert item["price"] == (float(row["price"]) if row["price"] else None) and item["name"] == row["name"]
        if item["base_colour"] is not None:
            assert item["base_colour"] in row["name"].title() and item["base_colour"] != item["base_colour"].upper()
            capitals += 1
    assert capitals > 0.8 * len(items) and report["repaired"]["case_of_base_colour"]["count"] == capitals
    assert sum(item["base_colour"] == source[str(int(item["item_id"]) - 100000)]["base_colour"] for item in items) > 0.8 * len(items)
    assert currency_of(result.table) == "USD"


def test_a_mapping_written_from_the_docs_reads_the_2023_myntra_dataset(myntra_2023, fixture_items):
    """The 2023 Myntra dataset's layout, read with its mapping: the type in "products", the gender from the name,
    the attributes from a Python dict written into a cell, the photos as web addresses (no photo, counted)."""
    catalog = myntra_2023 / "myntra202305041052.csv"
    rows = list(csv.DictReader(io.StringIO(catalog.read_text(encoding="utf-8"))))
    assert rows[0]["p_attributes"].startswith("{'")
    result = ingest(catalog, mapping=myntra_2023 / "mapping.toml")
    report = result.report.to_dict()
    items = result.table.to_pylist()
    source = {item["item_id"]: item for item in fixture_items.to_pylist()}
    assert len(items) == len(rows) and report["rejected_rows"] == 0
    for item in items:
        mine = source[str(int(item["item_id"]) - 1000000)]
        assert (item["article_type"], item["base_colour"], item["brand"]) == (mine["article_type"], mine["base_colour"], mine["brand"])
        assert dict(item["attributes"]) == dict(mine["attributes"] or []) and item["image_path"] is None
    gendered = sum(item["gender"] == source[str(int(item["item_id"]) - 1000000)]["gender"] for item in items)
    assert gendered > 0.85 * len(items)
    assert currency_of(result.table) == "INR"


def test_a_mapping_written_from_the_docs_reads_amazon_2023_item_metadata(amazon_2023_metadata, fixture_items):
    """The 2023 Amazon item metadata, read with its mapping: one item per parent_asin, the type from the category path
    or, where it is empty, from the product word at the end of the title (a clean-up from the title alone, a value map
    to the paths' names; a title with none rejected and counted), the gender from the details' department, dollar
    prices or none, the colour from the title; main_category, the same everywhere, is no category."""
    lines = (amazon_2023_metadata / "meta_Clothing_Shoes_and_Jewelry.jsonl").read_text(encoding="utf-8").splitlines()
    records = {r["parent_asin"]: r for r in map(json.loads, lines)}
    result = ingest(amazon_2023_metadata / "meta_Clothing_Shoes_and_Jewelry.jsonl", mapping=amazon_2023_metadata / "mapping.toml")
    report = result.report.to_dict()
    items = {item["item_id"]: item for item in result.table.to_pylist()}
    source = {item["item_id"]: item for item in fixture_items.to_pylist()}  # "Item model number" in details: the Myntra id
    assert {asin for asin, r in records.items() if r["categories"]} < set(items)
    assert report["rejected_rows"] == len(records) - len(items) == report["values_nulled"]["refused_article_type"]["count"]
    assert all(r["reason"].startswith("empty required field(s) article_type ([clean.article_type] kept nothing of ")
               for r in report["rejected"]) and len(items) > 0.9 * len(records)
    titled = 0
    for asin, item in items.items():
        record, mine = records[asin], source[records[asin]["details"]["Item model number"]]
        assert item["gender"] == mine["gender"] and item["price"] == record["price"] and item["brand"] == mine["brand"], asin
        if record["categories"]:
            assert (item["article_type"], item["sub_category"]) == (mine["article_type"], mine["sub_category"]), asin
        else:  # read from the title: Myntra's own type for nine in ten (the others mostly "Free Gifts" and Heels/Flats)
            titled += item["article_type"] == mine["article_type"]
        assert item["master_category"] != "AMAZON FASHION"
    untyped = [asin for asin in items if not records[asin]["categories"]]
    assert len(untyped) > len(items) / 6 and titled >= 0.85 * len(untyped), titled / len(untyped)
    assert currency_of(result.table) == "USD" and sum(item["price"] is None for item in items.values()) > len(items) / 5


def test_a_mapping_written_from_the_docs_reads_a_2014_amazon_dump(amazon_2014_dump, fixture_items):
    """The 2014-Amazon-dump shape, read with its mapping: a gzipped file named .json holding one Python dict per line
    (read as JSON lines, each line a Python literal, both noted), the type, gender and groups from the path under
    "Clothing, Shoes & Jewelry" wherever it stands in the list (a sports path first for some), a beauty product's type
    from its own path, the colour from the title's first colour word, dollar prices where there are any."""
    catalog = amazon_2014_dump / "meta_Clothing_Shoes_and_Jewelry.json.gz"
    lines = gzip.decompress(catalog.read_bytes()).decode("utf-8").splitlines()
    assert lines[0].startswith("{'asin': 'B0")
    with pytest.raises(ValueError):
        json.loads(lines[0])
    result = ingest(catalog, mapping=amazon_2014_dump / "mapping.toml")
    report = result.report.to_dict()
    assert report["rows_read"] == len(lines) == len(result.table) and report["rejected_rows"] == 0
    assert sum("Python dicts" in note or "JSON lines" in note for note in report["notes"]) == 2
    source = [item for item in fixture_items.to_pylist() if item["name"]]
    assert any("'categories': [['Sports & Outdoors'" in line for line in lines)  # a sports path before the clothing one
    agree = 0
    for item, mine in zip(result.table.to_pylist(), source, strict=True):
        assert item["name"] == mine["name"] and item["article_type"] == mine["article_type"]
        beauty = mine["master_category"] == "Personal Care"
        expected_gender = None if beauty else "Women" if mine["gender"] == "Unisex" else mine["gender"]  # a unisex item's first path is Women's
        assert item["gender"] == expected_gender and (item["sub_category"] is None) == (beauty or not mine["sub_category"])
        assert item["price"] is None or item["price"] == round(mine["price"] / 83.0, 2)
        agree += item["base_colour"] is not None and item["base_colour"].lower() == (mine["base_colour"] or "").lower()
    assert agree >= 0.85 * len(source)
    assert sum(item["price"] is None for item in result.table.to_pylist()) > len(source) / 6
    assert report["values_nulled"]["image_url"]["count"] == len(source)


@pytest.mark.parametrize(("text", "brand", "expected"), [
    ("Red Tape Men Brown Sandals", "Red Tape", "Brown"),
    ("RED TAPE Men Brown Sandals", "Red Tape", "Brown"),    # in any case
    ("Men Red Sandals by Red Tape", "Red Tape", "Red"),     # the brand is cut out wherever it stands, once
    ("Redwood Men Black Belt", "Red", "Black"),            # only as whole words
    ("Red Chief Men Tan Shoes", None, "Red"),               # an item without a brand: nothing to cut
])
def test_strip_brand_keeps_a_brand_name_from_being_read_as_the_colour(text, brand, expected):
    cleanup = FieldCleanup(strip_brand=True, extract=re.compile(r"\b(black|brown|red|tan)\b", re.IGNORECASE))
    assert cleanup.apply(text, brand)[0] == expected


def test_the_docs_type_pattern_reads_the_last_product_word_of_a_name():
    """docs/catalog.md's pattern for "Types only in the names", as written there: a sub-brand before the type
    (TataCLiQ's ``Calvin Klein Jeans ... T-Shirt``, the Brand column ``Calvin Klein``) names no type."""
    docs = (Path(__file__).parents[1] / "docs" / "catalog.md").read_text(encoding="utf-8")
    section = docs[docs.index("* **Types only in the names.**"):]
    pattern = re.search(r"^  extract = '(.+)'$", section, re.MULTILINE).group(1)
    cleanup = FieldCleanup(strip_brand=True, extract=re.compile(pattern, re.IGNORECASE))
    assert cleanup.apply("Calvin Klein Jeans Black Printed Slim Fit T-Shirt", "Calvin Klein")[0] == "T-Shirt"
    assert cleanup.apply("Roadster Men Navy Blue Slim Fit Jeans", "Roadster")[0] == "Jeans"
    assert cleanup.apply("Nike Men Sports Shoes", "Nike")[0] == "Sports Shoe"  # its number mapped by [values.article_type]


def test_a_mapping_written_from_the_docs_reads_an_asos_scrape(asos_scrape, fixture_items):
    """The ASOS-scrape shape, read with its mapping: Python-literal lists and dicts in CSV cells read as JSON would be,
    the gender and categories from the breadcrumb list, the brand and description from entries of the list of one-key
    dicts, that list as the attributes map and its "About Me" entry as the fabric, prices in pounds."""
    rows = list(csv.DictReader(io.StringIO((asos_scrape / "products_asos.csv").read_text(encoding="utf-8"))))
    assert rows[0]["category"].startswith("['") and rows[0]["description"].startswith("[{'Product Details': ")
    result = ingest(asos_scrape / "products_asos.csv", mapping=asos_scrape / "mapping.toml")
    source = [item for item in fixture_items.to_pylist() if item["name"]]
    for item, mine in zip(result.table.to_pylist(), source, strict=True):
        assert item["item_id"] == f"{mine['item_id']}.0"
        for name in ("name", "brand", "gender", "master_category", "article_type", "base_colour"):
            assert item[name] == mine[name], (name, item[name], mine[name])
        assert item["sub_category"] == (mine["sub_category"] or None)
        assert item["price"] == (round(mine["price"] * 0.0095, 2) if mine["price"] else None)
        assert item["description"].startswith(f"{mine['article_type']} by {mine['brand']}" if mine["brand"] else mine["article_type"])
        attributes = dict(item["attributes"])
        assert attributes["Product Code"] == mine["item_id"] and attributes.get("Fabric") == dict(mine["attributes"] or {}).get("Fabric")
    assert result.report.rejected == [] and result.report.to_dict()["values_nulled"]["image_url"]["count"] == len(source)


def test_a_folder_of_product_json_files_reads_every_product_and_counts_what_it_passes_over(scrape_folder, fixture_items, tmp_path):
    """A scrape saved as one JSON file per product, in subfolders, with a page file holding an array and the photos
    beside them: the folder is the catalog, read with its mapping in the order of the files' paths; every product of
    the fixture comes back with its fields, its photo inside the folder, and the photos counted as files passed over.
    A file that is not JSON is rejected with its path while the others are read; without a mapping, or with a format
    other than JSON, the folder is refused in one sentence."""
    folder = scrape_folder / "scrape"
    result = ingest(folder, mapping=scrape_folder / "mapping.toml")
    source = {f"MYN-{item['item_id']}": item for item in fixture_items.to_pylist() if item["name"]}
    items = result.table.to_pylist()
    assert len(items) == len(source) and [i["item_id"] for i in items] != sorted(source)  # the files' order, not the ids'
    for item in items:
        mine = source[item["item_id"]]
        for name in ("name", "brand", "gender", "master_category", "article_type", "base_colour", "price", "attributes"):
            assert item[name] == mine[name], (name, item[name], mine[name])
        assert (item["image_path"] is not None) == (mine["image_path"] is not None)
        assert item["image_path"] is None or Path(item["image_path"]).resolve().is_relative_to(folder.resolve())
    photos = sum(1 for _ in (folder / "images").glob("*.jpg"))
    assert photos >= 20 and f"{photos} other files in scrape/ are not JSON and were passed over (.jpg {photos})" in result.report.notes
    free = [i for i in source.values() if i["master_category"] == "Free Items"]  # read from the one page file's array
    assert json.loads((folder / "products" / "free-items" / "page-1.json").read_text(encoding="utf-8"))[0]["title"] == free[0]["name"]
    assert sum(i["master_category"] == "Free Items" for i in items) == len(free) >= 2

    broken = tmp_path / "broken"
    shutil.copytree(folder, broken)
    victim = sorted((broken / "products" / "apparel").glob("*.json"))[3]
    victim.write_text('{"id": "x", "title": ', encoding="utf-8")
    again = ingest(broken, mapping=scrape_folder / "mapping.toml")
    assert len(again.table) == len(items) - 1 and again.report.rejected[0]["row"] == f"products/apparel/{victim.name}"
    with pytest.raises(InputError, match="or a folder of product JSON files or of CSV parts, with a --mapping file"):
        ingest(broken)
    with pytest.raises(InputError, match=r"is a folder, which is read as JSON files .* format = 'csv'"):
        ingest(broken, mapping=mapping_file(tmp_path, 'format = "csv"\n' + (scrape_folder / "mapping.toml").read_text(encoding="utf-8")))
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no products here", encoding="utf-8")
    with pytest.raises(InputError, match="holds no .json or .jsonl file"):
        ingest(tmp_path / "empty", mapping=scrape_folder / "mapping.toml")


CODE_WORDS = {"FASHIONEARRING": "Earrings", "FASHIONRING": "Ring", "FASHIONNECKLACEBRACELETANKLET": "Necklace and Chains"}


def test_a_mapping_written_from_the_docs_reads_abo_listings(abo_listings, fixture_items):
    """Amazon Berkeley Objects' layout, read with its mapping: 16 gzipped JSON-lines files in a folder; the English
    value of every language-tagged text whatever its country (en_US, en_IN, en_GB), also after another language's
    entry; the department, group and type from the browse node's path (a listing without a node: its type code in
    words, no gender, and written as the nodes write it where they name it in the other number); the bullet points as
    sentences; the photos through the image table."""
    parts = sorted((abo_listings / "listings" / "metadata").iterdir())
    assert [p.name for p in parts] == [f"listings_{d}.json.gz" for d in "0123456789abcdef"]
    listings = [json.loads(line) for p in parts for line in gzip.decompress(p.read_bytes()).decode().splitlines()]
    tags = Counter(entry["language_tag"] for listing in listings for entry in listing["item_name"])
    assert {"en_US", "en_IN", "en_GB", "de_DE"} <= set(tags) and tags["en_US"] < len(listings)
    assert any(listing["item_name"][0]["language_tag"] == "de_DE" for listing in listings)
    result = ingest(abo_listings / "listings" / "metadata", mapping=abo_listings / "mapping.toml")
    items = {item["item_id"]: item for item in result.table.to_pylist()}
    assert len(items) == len(listings) and result.report.to_dict()["rejected_rows"] == 0
    source = {item["item_id"]: item for item in fixture_items.to_pylist()}
    for listing in listings:
        item, mine = items[listing["item_id"]], source[listing["model_number"][0]["value"]]
        assert item["name"] == mine["name"] and item["brand"] == mine["brand"] and item["base_colour"] == mine["base_colour"]
        node = listing.get("node")
        if node and "/Clothing, Shoes & Jewelry/" in node[0]["node_name"]:
            assert item["gender"] == ("Women" if mine["gender"] == "Unisex" else mine["gender"])
            assert item["age_group"] == ("kids" if mine["gender"] in ("Boys", "Girls") else "adult")
            assert item["article_type"] == node[0]["node_name"].rsplit("/", 1)[1] and item["master_category"]
        elif not node:  # "SHIRT" beside the nodes' "Shirts": one type, as most items write it; a code no word, mapped
            code = listing["product_type"][0]["value"]
            assert item["gender"] is None and fold(item["article_type"]) == fold(CODE_WORDS.get(code, code.replace("_", " ")))
    types = {item["article_type"] for item in items.values()}
    assert len({fold(t) for t in types}) == len(types) and {"Shirts", "Sandals", "T-Shirts"} <= types
    assert not [t for t in types if "_" in t or t.isupper()]  # "SPORTING_GOODS" reads "Sporting Goods"
    assert result.report.to_dict()["repaired"]["spelling_of_article_type"]["count"] > 20
    assert sum(item["article_type"] == "T-Shirts" for item in items.values()) > 100
    described = next(i for i in items.values() if i["description"] and ". " in i["description"])
    assert ".," not in described["description"]
    assert sum(item["image_path"] is not None for item in items.values()) == 30
