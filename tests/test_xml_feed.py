"""XML product feeds: the Google Merchant feed derived from the Myntra fixture, written as Google's RSS 2.0 XML, reads
the same items as its TSV twin with the same mapping; Atom feeds and plain exports read as records of their elements
(local names, lists, nested objects); and every feed that cannot be read is one sentence, exit 2, no traceback."""

from __future__ import annotations

import csv
import gzip
import io
import time
from pathlib import Path
from xml.etree import ElementTree

from conftest import derive_shape
from fashionrq.catalog import ingest
from fashionrq.catalog.draft import draft_mapping
from fashionrq.catalog.records import read_records
from fashionrq.catalog.report import IngestReport
from test_catalog_bad_input import ingest_error

G = "{http://base.google.com/ns/1.0}"


def _tsv_rows(feed: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((feed / "catalog.tsv").read_text(encoding="utf-8")), delimiter="\t"))


def _records(path: Path, record: str | None = None) -> tuple[list[tuple[str, dict]], list[str], IngestReport]:
    report = IngestReport(source=str(path), layout="mapped")
    records, columns = read_records(path, "xml", report, record=record)
    return records, columns, report


def test_the_derived_xml_feed_is_a_google_merchant_rss_feed_of_the_tsv_feeds_rows(merchant_xml, merchant_feed, tmp_path):
    """One <item> per row of the TSV feed, in order: Google's attributes under g:, RSS's title, link and description
    without a prefix, empty columns left out, 1-2 additional photos and a shipping block; the same bytes when derived
    again."""
    root = ElementTree.parse(merchant_xml / "catalog.xml").getroot()
    items, rows = root.findall("channel/item"), _tsv_rows(merchant_feed)
    assert root.tag == "rss" and root.get("version") == "2.0" and len(items) == len(rows) > 6000
    photos = []
    for item, row in zip(items, rows, strict=True):
        assert (item.findtext(f"{G}id"), item.findtext("title"), item.findtext("link"), item.findtext(f"{G}price"),
                item.findtext(f"{G}color"), item.findtext(f"{G}product_type")) == \
            (row["id"], row["title"], row["link"], row["price"], row["color"], row["product_type"])
        assert item.findtext("description") == (row["description"] or None)
        assert (item.find(f"{G}sale_price") is None) == (not row["sale_price"]) and item.find(f"{G}title") is None
        photos.append([e.text for e in item.findall(f"{G}additional_image_link")])
        shipping = item.find(f"{G}shipping")
        paid = float((row["sale_price"] or row["price"]).split()[0])
        assert (shipping.findtext(f"{G}country"), shipping.findtext(f"{G}price")) == ("IN", "0.00 INR" if paid >= 799 else "79.00 INR")
    assert {len(p) for p in photos} == {1, 2} and all(p.startswith("https://assets.example.com/") for ps in photos for p in ps)
    again = derive_shape(tmp_path / "again", "merchant-xml", via_script=True)  # the script itself, run as a user runs it
    assert (again / "catalog.xml").read_bytes() == (merchant_xml / "catalog.xml").read_bytes()
    assert (again / "mapping.toml").read_text(encoding="utf-8").split("\n", 3)[3] == \
        (merchant_feed / "mapping.toml").read_text(encoding="utf-8").split("\n", 2)[2]  # the TSV feed's mapping, comment aside


def test_the_xml_feed_reads_the_same_items_as_the_tsv_feed(merchant_xml, merchant_feed):
    """Read with the TSV feed's mapping, g:price as price and so on, the XML feed gives the very items table of the
    TSV feed, and leaves out the same size variants, each named by its record."""
    xml = ingest(merchant_xml / "catalog.xml", mapping=merchant_xml / "mapping.toml")
    tsv = ingest(merchant_feed / "catalog.tsv", mapping=merchant_feed / "mapping.toml")
    items = xml.table.to_pylist()
    assert items == tsv.table.to_pylist() and len(items) > 2000
    first = items[0]
    assert (first["item_id"], first["name"], first["gender"], first["article_type"], first["colours"], first["price"]) == \
        ("15970-L", "Turtle Check Men Navy Blue Shirt", "Men", "Shirts", ["Navy Blue", "White"], 1195.0)
    assert dict(first["attributes"]) == {"Fabric": "Cotton", "Pattern": "Checked"}
    mine, theirs = xml.report.to_dict(), tsv.report.to_dict()
    assert mine["rows_read"] == theirs["rows_read"] == len(_tsv_rows(merchant_feed))
    assert [r["row"] for r in mine["rejected"]] == [f"catalog.xml record {int(r['row'].split(':')[1]) - 1}" for r in theirs["rejected"]]
    assert mine["values_nulled"] == theirs["values_nulled"] and mine["missing"] == theirs["missing"]


ATOM = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:g="http://base.google.com/ns/1.0">
  <title>Example Store</title>
  <entry>
    <g:id>15970</g:id>
    <title>Turtle Check Men Navy Blue Shirt</title>
    <g:title>Turtle Men Shirt</g:title>
    <link href="https://www.example.com/15970" rel="alternate"/>
    <g:product_type>Men &gt; Apparel &gt; Topwear &gt; Shirts</g:product_type>
    <g:price>1195.00 INR</g:price>
    <g:additional_image_link>https://assets.example.com/15970_2.jpg</g:additional_image_link>
    <g:shipping><g:country>IN</g:country><g:price>0.00 INR</g:price></g:shipping>
  </entry>
  <entry>
    <g:id>21379</g:id>
    <title>Manchester United Men Solid Black Track Pants</title>
    <g:product_type>Men &gt; Apparel &gt; Bottomwear &gt; Track Pants</g:product_type>
    <g:price>1699.00 INR</g:price>
    <g:additional_image_link>https://assets.example.com/21379_2.jpg</g:additional_image_link>
    <g:additional_image_link>https://assets.example.com/21379_3.jpg</g:additional_image_link>
    <g:shipping><g:country>IN</g:country><g:price>0.00 INR</g:price></g:shipping>
    <g:shipping><g:country>AE</g:country><g:price>25.00 AED</g:price></g:shipping>
  </entry>
</feed>
"""

ATOM_MAPPING = """[columns]
item_id = "id"
name = "title"
article_type = "product_type"
price = "price"

[attributes]
Shipping = "shipping[country=IN].price"
Photo = "additional_image_link[-1]"

[clean.article_type]
split = ">"
"""


def test_an_atom_feed_reads_entries_by_local_name_with_lists_and_nested_elements(tmp_path):
    """Atom's <entry> elements are the records; g:price reads as price, but g:title beside Atom's title keeps its
    prefix; an element repeated in any record is a list in every record, one with children an object, an element's
    attributes are not read; so the mapping's paths reach the shipping price and the last photo of every entry."""
    path = tmp_path / "feed.xml"
    path.write_text(ATOM, encoding="utf-8")
    (tmp_path / "mapping.toml").write_text(ATOM_MAPPING, encoding="utf-8")
    records, columns, report = _records(path)
    assert [where for where, _ in records] == ["feed.xml record 1", "feed.xml record 2"] and report.rows_read == 2
    assert records[0][1] == {"id": "15970", "title": "Turtle Check Men Navy Blue Shirt", "g:title": "Turtle Men Shirt", "link": "",
                             "product_type": "Men > Apparel > Topwear > Shirts", "price": "1195.00 INR",
                             "additional_image_link": ["https://assets.example.com/15970_2.jpg"],
                             "shipping": [{"country": "IN", "price": "0.00 INR"}]}
    assert records[1][1]["shipping"][1] == {"country": "AE", "price": "25.00 AED"} and report.notes == []
    assert columns == ["id", "title", "g:title", "link", "product_type", "price", "additional_image_link", "shipping"]
    items = ingest(path, mapping=tmp_path / "mapping.toml").table.to_pylist()
    assert [(i["item_id"], i["name"], i["article_type"], i["price"], dict(i["attributes"])) for i in items] == [
        ("15970", "Turtle Check Men Navy Blue Shirt", "Shirts", 1195.0,
         {"Shipping": "0.00 INR", "Photo": "https://assets.example.com/15970_2.jpg"}),
        ("21379", "Manchester United Men Solid Black Track Pants", "Track Pants", 1699.0,
         {"Shipping": "0.00 INR", "Photo": "https://assets.example.com/21379_3.jpg"})]


EXPORT = """<?xml version="1.0" encoding="ISO-8859-1"?>
<export>
  <products>
    <product id="15970" sku="x"><name>Turtle Check Men Navy Blue Shirt</name><sku>TUR-15970</sku><type>Shirts</type>
      <description>A <b>100% cotton</b> plaid check shirt</description>
      <colours><colour>Navy Blue</colour><colour>White</colour></colours><price>1195</price></product>
    <product id="21379"><name>Manchester United Men Solid Black Track Pants \xe9t\xe9</name><sku>MU-21379</sku><type>Track Pants</type>
      <colours><colour>Black</colour></colours><price>1699</price></product>
    <product/>
  </products>
</export>
"""


def test_a_plain_export_reads_the_repeated_element_of_its_single_wrapper_with_the_record_elements_attributes(tmp_path):
    """<export><products><product id=".."> (gzipped, Latin-1 as its declaration says): the products are the repeated
    element under the root's one wrapper, their own attributes are fields where no child element has the name, a
    list inside an element reads as a list, inline markup as text, and a record with nothing in it is rejected by its
    number."""
    path = tmp_path / "export.xml.gz"
    path.write_bytes(gzip.compress(EXPORT.encode("latin-1"), mtime=0))
    records, columns, report = _records(path)
    assert [fields for _, fields in records] == [
        {"name": "Turtle Check Men Navy Blue Shirt", "sku": "TUR-15970", "type": "Shirts",
         "description": "A 100% cotton plaid check shirt", "colours": {"colour": ["Navy Blue", "White"]}, "price": "1195", "id": "15970"},
        {"name": "Manchester United Men Solid Black Track Pants été", "sku": "MU-21379", "type": "Track Pants",
         "colours": {"colour": ["Black"]}, "price": "1699", "id": "21379"}]
    assert report.rows_read == 3 and report.rejected == [
        {"row": "export.xml.gz record 3", "reason": "a <product> element with no child elements or attributes holds no fields"}]
    assert report.notes == ["products read from the <product> elements of export.xml.gz"] and columns[-1] == "id"


YML = """<yml_catalog><shop><name>Example</name><offers>
<offer id="15970"><name>Turtle Check Men Navy Blue Shirt</name><typePrefix>Shirts</typePrefix><price>1195</price></offer>
<offer id="21379"><name>Manchester United Men Solid Black Track Pants</name><typePrefix>Track Pants</typePrefix><price>1699</price></offer>
</offers></shop></yml_catalog>
"""
YML_MAPPING = 'record = "offer"\n\n[columns]\nitem_id = "id"\nname = "name"\narticle_type = "typePrefix"\n'


def test_a_feed_whose_products_are_deeper_needs_record_and_reads_with_it(capsys, tmp_path):
    """A Yandex-Market-style feed (<yml_catalog><shop>…<offers><offer>): nothing repeats under the root or its wrapper,
    so ingest names the element that does; with record = "offer" it reads; a misspelt record is refused with the same
    hint."""
    path = tmp_path / "yml.xml"
    path.write_text(YML, encoding="utf-8")
    message = ingest_error(capsys, tmp_path, path)
    assert message.startswith(f"{path} has no element that repeats under its root <yml_catalog> to read as products")
    assert message.endswith('e.g. record = "offer" (elements that repeat: <offer> 2 times).')
    (tmp_path / "mapping.toml").write_text(YML_MAPPING, encoding="utf-8")
    items = ingest(path, mapping=tmp_path / "mapping.toml").table.to_pylist()
    assert [(i["item_id"], i["name"], i["article_type"]) for i in items] == [
        ("15970", "Turtle Check Men Navy Blue Shirt", "Shirts"), ("21379", "Manchester United Men Solid Black Track Pants", "Track Pants")]
    (tmp_path / "mapping.toml").write_text(YML_MAPPING.replace('"offer"', '"ofer"'), encoding="utf-8")
    message = ingest_error(capsys, tmp_path, path, tmp_path / "mapping.toml")
    assert message == f'{path} has no <ofer> element (record in the mapping file); name the product element in the mapping file, ' \
                      'e.g. record = "offer" (elements that repeat: <offer> 2 times).'


def test_a_feed_with_two_repeated_elements_is_refused_with_the_record_line(capsys, tmp_path):
    path = tmp_path / "catalog.xml"
    categories = "".join(f"<category><name>{name}</name></category>" for name in ("Shirts", "Track Pants"))
    products = "".join(f"<product><name>{name}</name></product>" for name in ("Turtle Check Men Navy Blue Shirt",
                       "Manchester United Men Solid Black Track Pants", "Puma Men Ferrari Track Jacket"))
    path.write_text(f"<catalog>{categories}{products}</catalog>", encoding="utf-8")
    assert ingest_error(capsys, tmp_path, path) == (f"{path} repeats more than one element where products are expected (<product> "
                                                    '3 times, <category> 2 times); name the product element in the mapping '
                                                    'file, e.g. record = "product".')


def test_the_draft_names_the_product_element_and_its_mapping_reads_the_feed(tmp_path):
    """draft-mapping writes the record line: active, marked CHECK, where ingest would refuse the feed without it (the
    Yandex-style feed's <offer> lies deeper; a feed repeating <product> and <category> side by side), commented where
    ingest finds it (RSS 2.0's <item>); the drafted mapping then reads every product."""
    deep = tmp_path / "yml.xml"
    deep.write_text(YML, encoding="utf-8")
    categories = "".join(f"<category><name>{name}</name></category>" for name in ("Shirts", "Track Pants"))
    products = "".join(f"<product><id>{i}</id><name>{name}</name><type>{kind}</type></product>" for i, (name, kind) in enumerate(
        [("Turtle Check Men Navy Blue Shirt", "Shirts"), ("Manchester United Men Solid Black Track Pants", "Track Pants"),
         ("Puma Men Ferrari Track Jacket", "Jackets")], start=1))
    side = tmp_path / "side.xml"
    side.write_text(f"<catalog>{categories}{products}</catalog>", encoding="utf-8")
    for path, line, names in (
            (deep, 'record = "offer"   # CHECK: the element that repeats most (<offer> 2 times)', 2),
            (side, 'record = "product"   # CHECK: the element that repeats most (<product> 3 times, <category> 2 times)', 3)):
        draft = draft_mapping(path)
        assert draft.top == [line] and draft.checks[0].startswith("the product element of the feed is a guess"), draft.top
        (tmp_path / "drafted.toml").write_text(draft.text(), encoding="utf-8")
        assert len(ingest(path, mapping=tmp_path / "drafted.toml").table) == names
    rss = tmp_path / "feed.xml"
    rss.write_text(ATOM, encoding="utf-8")
    draft = draft_mapping(rss)
    assert draft.top[0] == '# record = "entry"   # the products of an Atom feed; ingest finds it without this line'


def test_malformed_xml_names_its_line_and_column(capsys, tmp_path):
    path = tmp_path / "catalog.xml"
    path.write_text('<rss xmlns:g="http://base.google.com/ns/1.0" version="2.0"><channel>\n<item><g:id>1</g:id></item>\n'
                    "<item><g:id>2</g:id><title>Puma & Co Tee</title></item>\n</channel></rss>\n", encoding="utf-8")
    message = ingest_error(capsys, tmp_path, path)
    assert message == (f"{path} is not well-formed XML (line 3, column 34: not well-formed (invalid token)); fix the file there "
                       "(often an & written for &amp; or a tag left open), or export the feed again.")
    path.write_text("id,name\n1,Tee\n", encoding="utf-8")  # a CSV file named .xml
    assert "is not well-formed XML (line 1, column 1: syntax error)" in ingest_error(capsys, tmp_path, path)
    path.write_text("", encoding="utf-8")
    assert ingest_error(capsys, tmp_path, path) == f"{path} is empty; pass a feed with at least one product element."


LAUGHS = ["&lol;"] + [f"&lol{n};" for n in range(1, 9)]  # what each entity of the bomb repeats ten times
BOMB = """<?xml version="1.0"?>
<!DOCTYPE products [
  <!ENTITY lol "lol">
""" + "".join(f'  <!ENTITY lol{n} "{LAUGHS[n - 1] * 10}">\n' for n in range(1, 10)) + """]>
<products><product><id>1</id><name>&lol9;</name></product><product><id>2</id><name>Tee</name></product></products>
"""


def test_a_doctype_that_declares_entities_is_refused_before_anything_is_expanded(capsys, tmp_path):
    """A billion-laughs DOCTYPE (10⁹ "lol"s, gigabytes once expanded) and an external entity (a file to read) are
    refused at once, naming the entity; nothing is expanded or fetched."""
    path = tmp_path / "catalog.xml"
    path.write_text(BOMB, encoding="utf-8")
    start = time.perf_counter()
    message = ingest_error(capsys, tmp_path, path)
    assert time.perf_counter() - start < 5
    assert message == (f"{path} declares the entity 'lol' in its DOCTYPE, which fashionrq does not expand; remove the DOCTYPE "
                       "(a product feed needs none) and write the text itself.")
    path.write_text('<!DOCTYPE p [<!ENTITY secret SYSTEM "file:///etc/passwd">]><p><product><id>&secret;</id></product></p>',
                    encoding="utf-8")
    assert "declares the entity 'secret'" in ingest_error(capsys, tmp_path, path)


def test_record_is_checked_like_every_mapping_key(capsys, tmp_path):
    path = tmp_path / "catalog.csv"
    path.write_text("id,name,type\n15970,Turtle Check Men Navy Blue Shirt,Shirts\n", encoding="utf-8")
    mapping = tmp_path / "mapping.toml"
    for text, expected in [
        ('recrod = "product"', "has an unknown key 'recrod'; did you mean 'record'?"),
        ('record = "g:product"', "sets record = 'g:product'; give the name of the element that holds one product, without a "
                                 'namespace prefix or brackets, e.g. record = "product".'),
        ('format = "csv"\nrecord = "product"', "sets record with format = 'csv'; only an XML feed has a record element."),
        ('record = "product"', f"which names the product element of an XML feed, but {path} is read as csv; remove record "
                               "from the mapping file."),
    ]:
        mapping.write_text(text + '\n\n[columns]\nitem_id = "id"\narticle_type = "type"\n', encoding="utf-8")
        assert ingest_error(capsys, tmp_path, path, mapping).endswith(expected), text
