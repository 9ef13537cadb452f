"""The shapes real catalog exports come in (issue 22 item 1), each cut from the same 200 real Myntra products of
tests/fixtures/other_schema: semicolon and tab separated files, JSON arrays, nested JSON values (listings with
language-tagged names and colour objects), category paths, size variants, photo URLs. Each must give the items the
plain CSV gives, with every left-out row and nulled value counted."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FIXTURES, MYNTRA_SMALL, OTHER_SCHEMA, derive_shape, main_code, mapping_file
from fashionrq.catalog import ingest, save_ingest
from fashionrq.catalog.draft import draft_mapping
from fashionrq.catalog.fieldpath import FieldPath, parse_reference
from fashionrq.catalog.schema import json_text, normalise_age_group, normalise_gender
from fashionrq.errors import InputError

MAPPING = (OTHER_SCHEMA / "mapping.toml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with open(OTHER_SCHEMA / "catalog.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def reference() -> list[dict]:
    return ingest(OTHER_SCHEMA / "catalog.csv", mapping=OTHER_SCHEMA / "mapping.toml").table.to_pylist()


def _write_csv(path: Path, rows: list[dict], delimiter: str) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), delimiter=delimiter)
        writer.writeheader()
        writer.writerows(rows)
    return path


def _without_format(text: str) -> str:
    return text.replace('format = "csv"\n', "")


def test_a_semicolon_file_reads_like_the_csv_once_the_mapping_names_its_delimiter(tmp_path, rows, reference):
    catalog = _write_csv(tmp_path / "catalog.csv", rows, ";")
    with pytest.raises(InputError, match=r"separated by semicolons, not commas; set delimiter = \";\" in the mapping file"):
        ingest(catalog, mapping=mapping_file(tmp_path, MAPPING))
    assert ingest(catalog, mapping=mapping_file(tmp_path, 'delimiter = ";"\n' + MAPPING)).table.to_pylist() == reference


def test_a_tsv_file_is_read_with_tabs_from_its_name(tmp_path, rows, reference):
    catalog = _write_csv(tmp_path / "feed.tsv", rows, "\t")
    assert ingest(catalog, mapping=mapping_file(tmp_path, _without_format(MAPPING))).table.to_pylist() == reference
    renamed = catalog.rename(tmp_path / "feed.csv")
    tab = ingest(renamed, mapping=mapping_file(tmp_path, 'delimiter = "tab"\n' + MAPPING)).table.to_pylist()
    assert tab == reference


@pytest.mark.parametrize("wrap, array", [(lambda rows: rows, None), (lambda rows: {"count": len(rows), "products": rows}, "products"),
                                          (lambda rows: {"data": {"total": len(rows), "facets": ["a"], "items": rows}}, "data.items")])
def test_a_json_array_reads_like_the_csv(tmp_path, rows, reference, wrap, array):
    """A JSON array of products, alone, in an object, or deeper in an API's answer (the one array of objects)."""
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps(wrap(rows)), encoding="utf-8")
    result = ingest(catalog, mapping=mapping_file(tmp_path, _without_format(MAPPING)))
    assert result.table.to_pylist() == reference
    assert result.report.rows_read == len(rows)
    assert [note for note in result.report.notes if "products read from the array" in note] == (
        [f"products read from the array {array!r} of catalog.json"] if array else [])


def test_a_json_object_of_products_keyed_by_their_ids_reads_like_the_csv(tmp_path, rows, reference):
    """``{"SKU-1530": {...}, ...}`` (as Polyvore's item metadata): each value a product, its key in the column _key,
    also when each holds arrays of its own (a Shopify crawl's variants, which had been refused); an API's answer whose
    other members are objects too still reads its one array of products."""
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({row["sku"]: {k: v for k, v in row.items() if k != "sku"} for row in rows}), encoding="utf-8")
    result = ingest(catalog, mapping=mapping_file(tmp_path, _without_format(MAPPING).replace('item_id = "sku"', 'item_id = "_key"')))
    assert result.table.to_pylist() == reference
    assert f"catalog.json is an object of {len(rows):,} products by their keys, read with each key in the column '_key'" in result.report.notes
    catalog.write_text(json.dumps({"data": {"items": rows}, "meta": {"page": 1, "of": 1}}), encoding="utf-8")
    assert ingest(catalog, mapping=mapping_file(tmp_path, _without_format(MAPPING))).table.to_pylist() == reference
    # a Shopify crawl keyed by handle, each product with its own variants: the products, not 2,000 arrays of variants
    catalog.write_text(json.dumps({row["sku"]: {**{k: v for k, v in row.items() if k != "sku"}, "variants": [{"size": "M"}, {"size": "L"}]}
                                   for row in rows}), encoding="utf-8")
    keyed = ingest(catalog, mapping=mapping_file(tmp_path, _without_format(MAPPING).replace('item_id = "sku"', 'item_id = "_key"')))
    assert keyed.table.to_pylist() == reference


def test_a_json_object_with_two_arrays_is_refused_with_their_names(tmp_path, rows):
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({"products": rows[:2], "variants": rows[2:4]}), encoding="utf-8")
    with pytest.raises(InputError, match=r"2 arrays of objects \('products', 'variants'\)"):
        ingest(catalog, mapping=mapping_file(tmp_path, _without_format(MAPPING)))
    catalog.write_text(json.dumps({"data": {"products": rows[:2], "related": {"items": rows[2:4]}}}), encoding="utf-8")
    with pytest.raises(InputError, match=r"2 arrays of objects \('data.products', 'data.related.items'\)"):
        ingest(catalog, mapping=mapping_file(tmp_path, _without_format(MAPPING)))


def _listing(row: dict) -> dict:
    """The row as a nested listing: language-tagged names, a brand object, colour objects, a category path."""
    return {
        "sku": row["sku"],
        "title": [{"language_tag": "de_DE", "value": f"{row['title']} (DE)"}, {"language_tag": "en_US", "value": row["title"]}],
        "vendor": {"name": row["vendor"]},
        "department": row["department"],
        "path": f"{row['department']} > {row['category']} > {row['product_type']}",
        "colors": [{"value": c} for c in row["colors"].split("|")] if row["colors"] else [],
        "list_price": row["list_price"],
        "body_html": row["body_html"],
        "details": json.dumps({"fabric": row["fabric"], "pattern": row["pattern"]}),
    }


NESTED_MAPPING = '''
[columns]
item_id = "sku"
name = "title[language_tag=en_US].value"
brand = "vendor.name"
gender = "department"
master_category = "path"
article_type = "path"
colours = "colors[*].value"
price = "list_price"
description = "body_html"

[attributes]
Fabric = "details.fabric"
Pattern = "details.pattern"

[clean.master_category]
split = ">"
part = 1

[clean.article_type]
split = ">"

[values.gender]
M = "Men"
F = "Women"
B = "Boys"
G = "Girls"
U = "Unisex"
'''


def test_nested_values_and_category_paths_read_like_the_flat_columns(tmp_path, rows, reference):
    """A JSON-lines export whose name is a list of language-tagged objects, brand an object, colours a list of
    objects, attributes a JSON text, and categories one path, mapped by paths and [clean] parts."""
    catalog = tmp_path / "listings.jsonl"
    catalog.write_text("".join(json.dumps(_listing(row)) + "\n" for row in rows), encoding="utf-8")
    result = ingest(catalog, mapping=mapping_file(tmp_path, NESTED_MAPPING))
    assert result.table.to_pylist() == reference
    cleaned = result.report.to_dict()["repaired"]
    assert cleaned["cleaned_article_type"]["count"] == cleaned["cleaned_master_category"]["count"] == len(rows)


@pytest.mark.parametrize(("reference_text", "needle"), [
    ("title[language_tag=en_US.value", "neither a column nor a path"),
    ("titel[language_tag=en_US].value", "whose column 'titel'"),
    ("title[]", "neither a column nor a path"),
])
def test_a_broken_path_is_refused_in_one_sentence(tmp_path, rows, reference_text, needle):
    catalog = tmp_path / "listings.jsonl"
    catalog.write_text(json.dumps(_listing(rows[0])) + "\n", encoding="utf-8")
    mapping = NESTED_MAPPING.replace('"title[language_tag=en_US].value"', json.dumps(reference_text))
    with pytest.raises(InputError, match="maps name") as caught:
        ingest(catalog, mapping=mapping_file(tmp_path, mapping))
    assert needle in str(caught.value)


def test_path_steps_index_match_and_spread(tmp_path):
    """``[-1]``, ``.0`` on a list, a key that is a number, a match on a number, and a missing step read as nothing."""
    record = {"a": [{"k": 1, "v": "x"}, {"k": 2, "v": "y"}], "b": {"2": "two"}, "c": '[{"v": "p"}, {"w": 1}, {"v": "q"}]'}
    columns = list(record)
    assert FieldPath.parse("a[-1].v", columns, "m").get(record) == "y"
    assert FieldPath.parse("a.0.v", columns, "m").get(record) == "x"
    assert FieldPath.parse("a[k=2].v", columns, "m").get(record) == "y"
    assert FieldPath.parse("b.2", columns, "m").get(record) == "two"
    assert FieldPath.parse("c[*].v", columns, "m").get(record) == ["p", "q"]
    assert FieldPath.parse("a[k=3].v", columns, "m").get(record) is None
    assert FieldPath.parse("a[5]", columns, "m").get(record) is None
    paths = {"categories": "[['Sports & Outdoors', 'Fitness'], ['Clothing, Shoes & Jewelry', 'Women', 'Tops'], []]"}
    assert FieldPath.parse("categories[0=Clothing, Shoes & Jewelry][-1]", ["categories"], "m").get(paths) == "Tops"
    tagged = {"name": [{"language_tag": "de_DE", "value": "Hemd"}, {"language_tag": "en_IN", "value": "Shirt"},
                       {"language_tag": "en_US", "value": "Shirt (US)"}]}
    assert FieldPath.parse("name[language_tag=en_*].value", ["name"], "m").get(tagged) == "Shirt"  # any English: the first
    assert FieldPath.parse("name[language_tag=en_GB|en_US].value", ["name"], "m").get(tagged) == "Shirt (US)"
    assert FieldPath.parse("name[language_tag=EN_us].value", ["name"], "m").get(tagged) == "Shirt (US)"  # in any case
    assert FieldPath.parse("name[language_tag=fr_*].value", ["name"], "m").get(tagged) is None
    assert FieldPath.parse("categories[1=Women][0]", ["categories"], "m").get(paths) == "Clothing, Shoes & Jewelry"
    assert FieldPath.parse("categories[0=Beauty][-1]", ["categories"], "m").get(paths) is None


def _python_cells(row: dict) -> dict:
    """The row as pandas writes a scrape whose cells held Python lists and dicts: single quotes, ``None``."""
    listing = _listing(row)
    return {**listing, "title": str(listing["title"]), "vendor": str(listing["vendor"]), "colors": str(listing["colors"]),
            "details": str({**json.loads(listing["details"]), "care": None})}


def test_python_literal_cells_read_like_json_cells(tmp_path, rows, reference):
    """A CSV whose cells hold Python lists and dicts (``[{'language_tag': 'en_US', ...}]``, ``{'fabric': 'Cotton',
    'care': None}``) reads as the same cells written as JSON would; a text that only starts with a bracket stays text."""
    catalog = tmp_path / "scrape.csv"
    _write_csv(catalog, [_python_cells(row) for row in rows], ",")
    assert "'language_tag': 'de_DE'" in catalog.read_text(encoding="utf-8")
    result = ingest(catalog, mapping=mapping_file(tmp_path, NESTED_MAPPING))
    assert result.table.to_pylist() == reference
    assert json_text("[Sale] Black Dress") == "[Sale] Black Dress" and json_text("{1, 2}") == "{1, 2}"
    assert json_text("[" * 100_000) == "[" * 100_000  # nested too deep to be a value: kept as text, no RecursionError


def test_a_name_that_reads_as_odd_python_prints_no_warning(tmp_path, reference, recwarn):
    """A Tokopedia scrape's names (``[BEST] Paket 9in1 Kalung Wanita``) start with a bracket, so they are tried as
    Python literals; Python's parser had printed "SyntaxWarning: invalid decimal literal" for each, six lines of
    noise around the draft's output. The names are still read as text, and no warning is given."""
    catalog = tmp_path / "scrape.csv"
    _write_csv(catalog, [{"id": item["item_id"], "name": f"[BEST] Paket {n}in1 {item['name']}", "type": item["article_type"]}
                         for n, item in enumerate(reference)], ",")
    table = ingest(catalog, mapping=mapping_file(tmp_path, '[columns]\nitem_id = "id"\nname = "name"\narticle_type = "type"\n')).table
    assert [item["name"] for item in table.to_pylist()] == [f"[BEST] Paket {n}in1 {item['name']}" for n, item in enumerate(reference)]
    assert draft_mapping(catalog).text()  # the draft reads every cell as a value first
    assert json_text("[BEST] Paket 9in1 Kalung Wanita") == "[BEST] Paket 9in1 Kalung Wanita"
    assert not [w for w in recwarn if issubclass(w.category, SyntaxWarning)], [str(w.message) for w in recwarn]


def test_a_json_file_of_python_dict_lines_reads_like_json_lines_and_runs_no_code(tmp_path, rows, reference):
    """A file named .json that holds one product per line (as public metadata dumps are named), each a Python dict
    (``{'sku': '15970', ...}``, the 2014 Amazon dumps' lines): read as JSON lines of Python literals, both noted.
    A line that would run code, names a key twice or nests too deep is rejected with its line, and nothing runs."""
    marker = tmp_path / "ran"
    lines = [str(_listing(row)) for row in rows]
    bad = [f"{{'sku': __import__('pathlib').Path({str(marker)!r}).touch()}}", "{'sku': 'a', 'sku': 'b'}", "[" * 100_000,
           "{'sku': 'c', 'brand': {'name': 'Puma', 'name': 'Nike'}}"]
    catalog = tmp_path / "meta.json"
    catalog.write_text("\n".join(lines[:5] + bad + lines[5:]) + "\n", encoding="utf-8")
    result = ingest(catalog, mapping=mapping_file(tmp_path, NESTED_MAPPING))
    assert result.table.to_pylist() == reference and not marker.exists()
    report = result.report.to_dict()
    assert report["rows_read"] == len(rows) + 4
    assert [r["row"] for r in result.report.rejected] == ["meta.json:6", "meta.json:7", "meta.json:8", "meta.json:9"]
    assert "names the key 'sku' twice" in result.report.rejected[1]["reason"]
    assert "names the key 'name' twice" in result.report.rejected[3]["reason"]  # in a dict inside the line's
    assert any(f"{len(rows):,} lines of meta.json are Python dicts" in note for note in report["notes"])
    assert any("one product per line (JSON lines)" in note for note in report["notes"])


def test_a_json_or_python_printout_catalog_that_names_a_key_twice_is_refused_in_one_sentence(tmp_path, rows, capsys):
    """A JSON array whose object names a key twice, or a whole-file Python printout with a dict, at any depth, that
    does: refused in one sentence naming the key (and the printout's line), never read with one of the two values
    dropped (a JSON file had been read as a Python printout, keeping the last)."""
    listings = [_listing(row) for row in rows[:20]]
    text = json.dumps(listings, indent=1)
    mapping = mapping_file(tmp_path, NESTED_MAPPING)
    catalog = tmp_path / "listings.json"
    catalog.write_text(text.replace('"sku": ', '"sku": "0", "sku": ', 1), encoding="utf-8")
    assert main_code(["ingest", str(catalog), "--mapping", str(mapping), "--out", str(tmp_path / "a")]) == 2
    assert capsys.readouterr().err.replace("\n", " ").strip() == (
        f"error: {catalog} has an object in which the key 'sku' appears twice; a reader would keep only one of its values: fix the file.")
    printout = tmp_path / "listings.txt"
    mapping = mapping_file(tmp_path, 'format = "json"\n' + NESTED_MAPPING)
    lines = [repr(listing) + "," for listing in listings]
    vendor = repr(listings[3]["vendor"])
    printed = lines[:3] + [lines[3].replace(vendor, vendor[:-1] + ", 'name': 'Nike'}", 1)] + lines[4:]
    printout.write_text("[\n" + "\n".join(printed) + "\n]", encoding="utf-8")
    with pytest.raises(InputError, match=r"a Python dict that names the key 'name' twice \(line 5\)"):  # the 4th product's
        ingest(printout, mapping=mapping)
    printout.write_text("[\n" + "\n".join(lines) + "\n]", encoding="utf-8")  # the same printout without it reads
    assert len(ingest(printout, mapping=mapping).table) == 20


def test_magento_code_value_texts_read_as_objects():
    """Magento's additional_attributes (``code=value`` pairs, ``|`` between a multiple choice's values, a comma inside
    a value kept) and configurable_variations (``|`` between variations) read as an object and a list of objects, so
    paths reach into them; other texts with ``=`` stay texts."""
    assert json_text("brand=Puma,color=Black,material=Cotton|Polyester,size=M") == {
        "brand": "Puma", "color": "Black", "material": ["Cotton", "Polyester"], "size": "M"}
    assert json_text("care=Hand wash, do not bleach,color=Navy Blue") == {"care": "Hand wash, do not bleach", "color": "Navy Blue"}
    assert json_text("sku=15970-S,color=Navy Blue,size=S|sku=15970-M,color=Navy Blue,size=M") == [
        {"sku": "15970-S", "color": "Navy Blue", "size": "S"}, {"sku": "15970-M", "color": "Navy Blue", "size": "M"}]
    variations = parse_reference("configurable_variations[*].sku", ["configurable_variations"], "m")
    assert variations.get({"configurable_variations": "sku=A,color=Red|sku=B,color=Blue"}) == ["A", "B"]
    for text in ("https://shop.example.com/?id=7", "2+2=4", "Tee (size=M)", "= Black"):
        assert json_text(text) == text


def test_numbered_option_columns_and_lists_of_references():
    """``Option{n} Value[Option{n} Name=Color|Colour]`` reads the value beside the option named a colour, in any case and
    at any number; ``Color {n}`` reads every numbered value; a list reads the first reference with a value (a
    placeholder such as ``N/A`` is none)."""
    columns = ["Option1 Name", "Option1 Value", "Option2 Name", "Option2 Value", "Color 1", "Color 2", "sale", "price"]
    option = parse_reference("Option{n} Value[Option{n} Name=Color|Colour]", columns, "m")
    assert option.needs == ("Option1 Value", "Option2 Value", "Option1 Name", "Option2 Name")
    assert option.get({"Option1 Name": "Size", "Option1 Value": "M", "Option2 Name": "COLOUR", "Option2 Value": "Navy"}) == "Navy"
    assert option.get({"Option1 Name": "Color", "Option1 Value": "Red", "Option2 Name": "Size", "Option2 Value": "S"}) == "Red"
    assert option.get({"Option1 Name": "Title", "Option1 Value": "Default Title"}) is None
    assert parse_reference("Color {n}", columns, "m").get({"Color 1": "Black", "Color 2": " "}) == ["Black"]
    first = parse_reference(["sale", "price"], columns, "m")
    assert first.get({"sale": "N/A", "price": "12.50"}) == "12.50" and first.get({"sale": "9", "price": "12"}) == "9"
    assert first.get({"sale": "", "price": ""}) is None


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda m: m + '[variants]\nkey = ["sku"]\nfill = "name"\n', "give the columns a variant row takes from its parent or first row"),
    (lambda m: m + '[variants]\nparent = "sku"\n', "sets parent without parent_id in [variants]; give both"),
    (lambda m: m + '[variants]\nparent = ["sku"]\nparent_id = ["sku"]\n', "give the one column in which a variant names its parent row"),
    (lambda m: m + '[variants]\nparent = "parent"\nparent_id = ["sku"]\n', "names under [variants] parent column 'parent', which catalog.csv does not have"),
    (lambda m: m + '[variants]\nchildren = "variations[*].sku"\n', "sets children without variant_id in [variants]; give both"),
    (lambda m: m + '[variants]\nparent = "sku"\nparent_id = ["sku"]\nchildren = "sku"\nvariant_id = ["sku"]\n',
     "sets both parent and children in [variants]; a catalog links a variant to its parent one way"),
    (lambda m: m + '[variants]\nkey = ["sku"]\ntake = "name"\n', "even when it has its own value, e.g. take = [\"name\"]"),
    (lambda m: m + '[variants]\nkey = ["sku"]\nfill = ["nom"]\n', "lists under [variants] fill column 'nom', which catalog.csv does not have"),
    (lambda m: m.replace('Fabric = "fabric"', "Fabric = []"), "or a list of columns to read in turn"),
    (lambda m: m.replace('Fabric = "fabric"', 'Fabric = ["fabric", "Option{n} Value[Option{n} Name=Fabric]"]'),
     "whose column 'Option1 Value' catalog.csv does not have"),
    (lambda m: "header_row = 0\n" + _without_format(m), "give the line number of the header"),
    (lambda m: "header_row = true\n" + _without_format(m), "give the line number of the header"),
    (lambda m: 'format = "jsonl"\nheader_row = 2\n' + _without_format(m), "only CSV and TSV files and Excel sheets have a header row"),
    (lambda m: m + '[skip]\nstatus = "draft"\n', "give a list of the values (regular expressions, matched whole, in any case)"),
    (lambda m: m + '[skip]\ncategory = ["("]\n', "in [skip] category is no regular expression"),
    (lambda m: m + '[skip]\nstatus = ["draft"]\n', "lists under [skip] column 'status', which catalog.csv does not have"),
])
def test_mistakes_in_the_later_mapping_keys_are_refused_with_the_fix(tmp_path, edit, needle):
    """Fallback lists, numbered columns, [variants] fill and parent, header_row and [skip]."""
    with pytest.raises(InputError, match="mapping") as caught:
        ingest(OTHER_SCHEMA / "catalog.csv", mapping=mapping_file(tmp_path, edit(MAPPING + "\n")))
    assert needle in str(caught.value)


def test_lines_above_the_header_are_named_and_skipped_with_header_row(tmp_path, rows, reference):
    """A file with a template line and a line of labels above its header (as Amazon's flat files have) is refused
    with the header_row line to add; with it, it reads like the plain file, and a note says so."""
    catalog = tmp_path / "catalog.tsv"
    with open(catalog, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(["TemplateType=fptcustom", "Version=2026.1104"])
        writer.writerow([c.replace("_", " ").title() for c in rows[0]])
        writer.writerow(list(rows[0]))
        writer.writerows(r.values() for r in rows)
    with pytest.raises(InputError, match=r"header \(line 1\) has 2 fields but most rows have more: its columns are named on line 3; "
                                         r"set header_row = 3 in the mapping file"):
        ingest(catalog, mapping=mapping_file(tmp_path, _without_format(MAPPING)))
    result = ingest(catalog, mapping=mapping_file(tmp_path, "header_row = 3\n" + _without_format(MAPPING)))
    assert result.table.to_pylist() == reference
    assert any(n.startswith("the header is line 3 of catalog.tsv") for n in result.report.notes)


def test_a_txt_export_is_refused_with_the_format_to_set(tmp_path, rows):
    catalog = _write_csv(tmp_path / "Flat.File.txt", rows, "\t")
    with pytest.raises(InputError, match=r'a \.txt export is usually tab-separated: format = "tsv"'):
        ingest(catalog, mapping=mapping_file(tmp_path, _without_format(MAPPING)))


def test_size_variants_become_one_item_each_and_every_left_out_row_is_counted(tmp_path, rows, reference):
    """Each product as two or three size rows (distinct ids, one group id and colour): [variants] keeps the first."""
    variants = []
    for position, row in enumerate(rows):
        sizes = ("S", "M", "L")[: 2 + position % 2]
        variants += [{**row, "sku": row["sku"] if size == "S" else f"{row['sku']}-{size}", "group": row["sku"], "size": size}
                     for size in sizes]
    catalog = _write_csv(tmp_path / "catalog.csv", variants, ",")
    plain = ingest(catalog, mapping=mapping_file(tmp_path, MAPPING))
    assert plain.table.num_rows == len(variants)
    assert any(note.startswith(f"{len(variants) - len(rows)} items repeat the name, brand, colour, price and description") for note in plain.report.notes)
    result = ingest(catalog, mapping=mapping_file(tmp_path, MAPPING + '\n[variants]\nkey = ["group", "colors"]\n'))
    assert result.table.to_pylist() == reference
    report = result.report.to_dict()
    assert report["rows_read"] == len(variants) and report["rejected_rows"] == len(variants) - len(rows)
    for entry in report["rejected"]:  # each names its own line and the earlier line of its product
        kept = re.fullmatch(r"a variant of the product at catalog\.csv:(\d+) \(the same group, colors\)", entry["reason"])
        assert kept and int(kept.group(1)) < int(entry["row"].removeprefix("catalog.csv:")), entry
    assert not any("repeat the name" in note for note in report["notes"])


def test_photo_urls_and_missing_photo_files_are_nulled_and_counted(tmp_path, rows):
    """A web address is never downloaded and a file that is not there is no photo: both are null, counted and said;
    a photo beside the catalog is kept."""
    photo = next((MYNTRA_SMALL / "images").glob("*.jpg"))
    shutil.copy(photo, tmp_path / "kept.jpg")
    links = ["kept.jpg", "missing/none.jpg", "https://cdn.example.com/p/1.jpg", "//cdn.example.com/p/2.jpg"]
    with_photos = [{**row, "photo": links[i % 4]} for i, row in enumerate(rows[:8])]
    catalog = _write_csv(tmp_path / "catalog.csv", with_photos, ",")
    result = ingest(catalog, mapping=mapping_file(tmp_path, MAPPING.replace("[columns]\n", '[columns]\nimage_path = "photo"\n')))
    paths = result.table.column("image_path").to_pylist()
    assert paths == [str(tmp_path / "kept.jpg"), None, None, None] * 2
    nulled = result.report.to_dict()["values_nulled"]
    assert nulled["image_url"]["count"] == 4 and nulled["missing_image_file"]["count"] == 2
    assert any(note.startswith("4 image_path values are web addresses") for note in result.report.notes)


def test_a_photo_found_by_id_after_a_web_address_is_said_so(tmp_path, rows):
    """With --images, an item whose catalog names a web address (or a file that is not there) takes the photo the
    folder holds under its id; the notes say how many of the nulled addresses found one, not that all have none."""
    photo = next((MYNTRA_SMALL / "images").glob("*.jpg"))
    links = ["https://cdn.example.com/p/1.jpg", "missing/none.jpg"]
    with_photos = [{**row, "photo": links[i % 2]} for i, row in enumerate(rows[:6])]
    folder = tmp_path / "by-id"
    folder.mkdir()
    for row in with_photos[:3]:  # two of the three web addresses and one of the three missing files
        shutil.copy(photo, folder / f"{row['sku']}.jpg")
    catalog = _write_csv(tmp_path / "catalog.csv", with_photos, ",")
    result = ingest(catalog, mapping=mapping_file(tmp_path, MAPPING.replace("[columns]\n", '[columns]\nimage_path = "photo"\n')),
                    images=folder)
    assert [p is not None for p in result.table.column("image_path").to_pylist()] == [True, True, True, False, False, False]
    notes = result.report.notes
    assert f"3 image_path values are web addresses, which fashionrq does not download, so 2 of those items took the photo {folder} holds under their id; the rest (1) have no photo" in " ".join(notes)
    assert f"3 image_path values name no file in or below {tmp_path}; 1 of those items took the photo {folder}" in " ".join(notes)
    assert any(note.startswith("photos found by item id") and "for 3 of 6 items" in note for note in notes)


@pytest.mark.parametrize(("edit", "needle"), [
    ('delimiter = ";;"\n', "give the one character between fields"),
    ('[clean.article_type]\npart = 1\n', "beside split"),
    ('[clean.article_type]\nsplit = ""\n', "the text between the parts of a path"),
    ("[clean.gender]\nextract = '(women'\n", "extract is no regular expression"),
    ('[variants]\nkey = "group"\n', "give the columns that name one product"),
    ('[variants]\nkeys = ["group"]\n', "did you mean 'key'?"),
    ('[variants]\nkey = ["group"]\n', "lists under [variants] key column 'group', which catalog.csv does not have"),
])
def test_mapping_mistakes_in_the_new_keys_are_refused_with_the_fix(tmp_path, edit, needle):
    text = edit + MAPPING if not edit.startswith("[") else MAPPING + "\n" + edit
    with pytest.raises(InputError, match="mapping") as caught:
        ingest(OTHER_SCHEMA / "catalog.csv", mapping=mapping_file(tmp_path, text))
    assert needle in str(caught.value)


@pytest.mark.parametrize("suffix", [".xls", ".ods", ".numbers"])
def test_a_spreadsheet_other_than_an_excel_workbook_is_refused_with_the_way_to_save_it(tmp_path, suffix):
    sheet = tmp_path / f"catalog{suffix}"
    sheet.write_bytes(b"PK\x03\x04")
    with pytest.raises(InputError, match=rf"is a spreadsheet, which fashionrq does not read \({suffix}\); save it as an Excel workbook "
                                         r"\(\.xlsx\), or save the sheet as CSV \(UTF-8\)"):
        ingest(sheet, mapping=mapping_file(tmp_path, _without_format(MAPPING)))


def test_google_age_groups_reduce_to_the_four_segments():
    assert [normalise_age_group(v) for v in ("newborn", "infant", "toddler", "kids", "adult")] == [
        "baby", "baby", "toddler", "kids", "adult"]


def test_the_printed_report_shows_twenty_rejected_rows_and_counts_the_rest(tmp_path, rows):
    broken = [{**row, "title": ""} if i < 30 else row for i, row in enumerate(rows)]
    catalog = _write_csv(tmp_path / "catalog.csv", broken, ",")
    done = subprocess.run([sys.executable, "-m", "fashionrq", "ingest", str(catalog), "--mapping", str(mapping_file(tmp_path, MAPPING)),
                           "--out", str(tmp_path / "items")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    printed = done.stdout + done.stderr
    assert printed.count("  rejected catalog.csv:") == 20
    assert "… and 10 more rows rejected, each with its reason in ingest_report.json; all 30 by reason: empty required field(s) name (30)" in " ".join(printed.split())
    report = json.loads((tmp_path / "items" / "ingest_report.json").read_text(encoding="utf-8"))
    assert report["rejected_rows"] == 30
    # the demo report's catalog section says the same lines, as many (a catalog of 8,849 rejected rows once wrote them all)
    from fashionrq.report.demo import ingest_markdown

    written = [line[2:] for line in ingest_markdown(report).splitlines() if line.startswith("- ")]
    assert written == [line[2:] for line in printed.splitlines() if line.startswith("  ") and not line.startswith("   ")][:len(written)]
    assert sum(line.startswith("rejected catalog.csv:") for line in written) == 20 and written[20].startswith("… and 10 more rows rejected")


def test_the_printed_report_counts_rows_left_out_by_skip_as_one_kind_whatever_their_values(tmp_path, rows):
    """The reasons of rows left out by [skip] quote their values, in double quotes where a value holds an apostrophe
    (``"Women's Clothing"``): the printed count by reason reads every value as a particular, one kind in all."""
    skipped = [{**row, "category": ("Women's Clothing", "Men's Footwear", "Kids' Wear")[i % 3]} if i < 30 else row
               for i, row in enumerate(rows)]
    catalog = _write_csv(tmp_path / "catalog.csv", skipped, ",")
    mapping = mapping_file(tmp_path, MAPPING + "\n[skip]\ncategory = [\".*'.*\"]\n")
    done = subprocess.run([sys.executable, "-m", "fashionrq", "ingest", str(catalog), "--mapping", str(mapping),
                           "--out", str(tmp_path / "items")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    printed = " ".join((done.stdout + done.stderr).split())
    assert re.search(r"all 30 by reason: left out: its category is … \(\[skip\] in \S*mapping\.toml\) \(30; e\.g\. "
                     r"\"Women's Clothing\", \"Men's Footwear\", \"Kids' Wear\"\)(?!;)", printed), printed


def test_the_printed_report_shows_places_and_reasons_as_written(tmp_path, rows):
    """A row's place ``catalog.tsv:100:`` is no emoji code and ``[variants]`` in a reason is no markup: the printed
    report shows both as the JSON report has them."""
    one_line = [{**row, "body_html": " ".join(row["body_html"].split())} for row in rows[:100]]  # a row is a line
    parents = [{**row, "parent": ""} for row in one_line[:99]] + [{**one_line[99], "parent": one_line[98]["sku"]}]  # line 101 names line 100
    catalog = _write_csv(tmp_path / "catalog.tsv", parents, "\t")
    variants = '[variants]\nparent = "parent"\nparent_id = ["sku"]\n'
    done = subprocess.run([sys.executable, "-m", "fashionrq", "ingest", str(catalog), "--mapping",
                           str(mapping_file(tmp_path, _without_format(MAPPING) + variants)), "--out", str(tmp_path / "items")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    printed = " ".join(done.stderr.split())
    assert "rejected catalog.tsv:100: the parent row of 1 variant rows (their [variants] parent column 'parent' names it)" in printed


def test_amazon_departments_read_as_genders(tmp_path, rows, reference):
    """Amazon's department values mens, womens, boys, girls and unisex-adult need no value map."""
    spelled = {"M": "mens", "F": "womens", "B": "boys", "G": "girls", "U": "unisex-adult"}
    catalog = _write_csv(tmp_path / "catalog.csv", [{**row, "department": spelled[row["department"]]} for row in rows], ",")
    items = ingest(catalog, mapping=mapping_file(tmp_path, MAPPING.split("[values.gender]")[0])).table.to_pylist()
    assert [i["gender"] for i in items] == [r["gender"] for r in reference]


def test_a_path_that_matches_no_row_is_named_in_a_note(tmp_path):
    """A key spelled otherwise than the file spells it gives no value in any row: a note names the field and the
    reference, beside the field's 100 % missing."""
    catalog = tmp_path / "catalog.csv"
    catalog.write_text('id,name,type,specs\n1,Black Top,Tops,"[{""key"": ""Colour"", ""value"": ""Black""}]"\n', encoding="utf-8")
    mapping = mapping_file(tmp_path, '[columns]\nitem_id = "id"\narticle_type = "type"\nbase_colour = "specs[key=Color].value"\n')
    notes = ingest(catalog, mapping=mapping).report.notes
    assert any(n.startswith("base_colour is read from 'specs[key=Color].value', which holds no value in any row of 1") for n in notes)


@pytest.mark.parametrize(("cell", "read"), [
    ('{"product_specification"=>[{"key"=>"Fabric", "value"=>"Cotton"}, {"value"=>"Machine Wash"}]}', {"Fabric": "Cotton"}),
    ('[{"name": "Pattern", "value": "Solid"}, {"label": "Fit", "value": "Slim"}]', {"Pattern": "Solid", "Fit": "Slim"}),
])
def test_specification_lists_read_as_attributes(tmp_path, cell, read):
    """A Ruby hash (``=>``) reads as JSON, and a list of key/value objects as the attributes map."""
    catalog = tmp_path / "catalog.jsonl"
    catalog.write_text(json.dumps({"id": "1", "name": "Top", "type": "Tops", "specs": cell}) + "\n", encoding="utf-8")
    path = "specs.product_specification" if "=>" in cell else "specs"
    mapping = mapping_file(tmp_path, f'[columns]\nitem_id = "id"\narticle_type = "type"\nattributes = "{path}"\n')
    assert dict(ingest(catalog, mapping=mapping).table.column("attributes").to_pylist()[0]) == read


@pytest.mark.parametrize(("spelling", "gender"), [("Men's, Women's", "Unisex"), ("Boys & Girls", "Unisex"), ("men and women", "Unisex"),
                                                  ("unisex-adult", "Unisex"), ("Men, Boys", "Men, Boys")])
def test_a_gender_naming_both_is_unisex(spelling, gender):
    assert normalise_gender(spelling) == gender


def test_skip_leaves_out_the_rows_a_column_value_names_and_lists_each(tmp_path, rows, reference):
    """[skip] leaves out every row whose value in a column matches one of its patterns whole, in any case (here the
    Sporting Goods and Accessories products), lists each with the value, and keeps the rest as the plain mapping reads
    them."""
    result = ingest(OTHER_SCHEMA / "catalog.csv", mapping=mapping_file(tmp_path, MAPPING + '\n[skip]\ncategory = ["sporting goods", "access.*"]\n'))
    left_out = [r for r in rows if r["category"] in ("Sporting Goods", "Accessories")]
    assert 0 < len(left_out) < len(rows)
    assert result.table.to_pylist() == [item for item in reference if item["master_category"] not in ("Sporting Goods", "Accessories")]
    reasons = [r["reason"] for r in result.report.to_dict()["rejected"]]
    assert len(reasons) == len(left_out) and all(r.startswith("left out: its category is ") for r in reasons)
    assert any(n.startswith(f"{len(left_out)} products left out by [skip]") for n in result.report.notes)


def test_a_generic_brand_and_an_as_shown_colour_are_no_values(tmp_path, rows, reference):
    """Marketplace sellers write "Generic" for no brand and "As Shown" for no colour: both are placeholders, counted
    with their spellings, and never reach a query; a real brand or colour is untouched."""
    seller = [{**row, "vendor": ("Generic", "No Brand")[i % 2], "colors": ("As Shown", "picture color|Red")[i % 2]} if i < 6 else row
              for i, row in enumerate(rows)]
    result = ingest(_write_csv(tmp_path / "catalog.csv", seller, ","), mapping=mapping_file(tmp_path, MAPPING))
    items = result.table.to_pylist()
    assert [item["brand"] for item in items[:6]] == [None] * 6 and items[6:] == reference[6:]
    assert [item["colours"] for item in items[:6]] == [[], ["Red"]] * 3
    placeholders = result.report.to_dict()["placeholders"]
    assert placeholders["brand"]["values"] == {"Generic": 3, "No Brand": 3}
    assert placeholders["colours"]["values"] == {"As Shown": 3, "picture color": 3}


def test_brands_that_are_colour_or_fit_words_are_named_with_the_clean_up_that_refuses_them(tmp_path, rows, reference):
    """The public Flipkart crawl writes "Black", "Red" and "Regular" where the brand belongs (for 570 of its fashion
    items): ingest says so with the [clean.brand] line that reads them as no brand, and that line does; a catalog of
    real brands gets no such note."""
    crawl = [{**row, "vendor": ("Black", "Red", "Regular")[i % 3]} if i < 30 else row for i, row in enumerate(rows)]
    catalog = _write_csv(tmp_path / "catalog.csv", crawl, ",")
    notes = ingest(catalog, mapping=mapping_file(tmp_path, MAPPING)).report.notes
    said = [n for n in notes if "brand values are colour, fit or pattern words" in n]
    assert len(said) == 1 and said[0].startswith("30 brand values") and "'Black' 10, 'Red' 10, 'Regular' 10" in said[0], notes
    refuse = re.search(r"\[clean\.brand\] refuse = \[.*?\]", said[0]).group(0)
    result = ingest(catalog, mapping=mapping_file(tmp_path, MAPPING + "\n" + refuse.replace("] refuse", "]\nrefuse") + "\n"))
    assert [item["brand"] for item in result.table.to_pylist()[:30]] == [None] * 30
    assert not [n for n in result.report.notes if "brand values are" in n]
    assert not [n for n in ingest(OTHER_SCHEMA / "catalog.csv", mapping=OTHER_SCHEMA / "mapping.toml").report.notes if "brand values are" in n]


def test_a_catalog_without_an_id_column_numbers_its_records_with_row(tmp_path, rows, reference):
    """A scrape with no id column (an ASOS or Amazon.in scrape's): `item_id = "@row"` gives each record its number in
    the file, 1, 2, … as read, whatever rows are rejected or left out after it, says so in a note, and reads every
    other field as the id column would; the same file gives the same ids."""
    scraped = [{k: v for k, v in row.items() if k != "sku"} for row in rows]
    scraped[2]["title"] = ""  # rejected: its number is not given to the next record
    catalog = _write_csv(tmp_path / "scrape.csv", scraped, ",")
    mapping = mapping_file(tmp_path, MAPPING.replace('item_id = "sku"', 'item_id = "@row"'))
    result = ingest(catalog, mapping=mapping)
    items = result.table.to_pylist()
    assert [item["item_id"] for item in items] == [str(n) for n in range(1, len(rows) + 1) if n != 3]
    assert [{**item, "item_id": None} for item in items] == [{**item, "item_id": None} for i, item in enumerate(reference) if i != 2]
    assert any(n.startswith(f"item ids are the records' numbers in scrape.csv (1 to {len(rows)}, as read; @row in ") for n in result.report.notes)
    assert ingest(catalog, mapping=mapping).table.equals(result.table)


def test_a_colour_that_repeats_itself_is_read_once_and_counted(tmp_path, rows, reference):
    repeated = [{**row, "colors": ("Black or black", "Navy/Navy", "Red|red & RED")[i % 3]} if i < 6 else row
                for i, row in enumerate(rows)]
    result = ingest(_write_csv(tmp_path / "catalog.csv", repeated, ","), mapping=mapping_file(tmp_path, MAPPING))
    items = result.table.to_pylist()
    assert [item["colours"] for item in items[:6]] == [["Black"], ["Navy"], ["Red"]] * 2 and items[6:] == reference[6:]
    assert result.report.to_dict()["repaired"]["repeated_colour"]["count"] == 6  # one per item ("red & RED" of the third)


def test_a_mans_or_womans_item_for_kids_is_a_boys_or_girls_item(tmp_path, rows, reference):
    """Google's feeds say a boys' shirt as gender male and age group kids: read as Boys (counted), so no query asks
    for "kids' shirts for my husband"; an adult's gender is untouched."""
    aged = [{**row, "age": "kids" if i < 4 else "adult"} for i, row in enumerate(rows)]
    mapping = MAPPING.replace("[columns]\n", '[columns]\nage_group = "age"\n')
    result = ingest(_write_csv(tmp_path / "catalog.csv", aged, ","), mapping=mapping_file(tmp_path, mapping))
    items = result.table.to_pylist()
    expected = {"Men": "Boys", "Women": "Girls"}
    assert [i["gender"] for i in items[:4]] == [expected.get(r["gender"], r["gender"]) for r in reference[:4]]
    assert [i["gender"] for i in items[4:]] == [r["gender"] for r in reference[4:]]
    changed = sum(r["gender"] in expected for r in reference[:4])
    assert changed and result.report.to_dict()["repaired"]["gender_from_age_group"]["count"] == changed


def test_size_rows_of_a_product_without_colour_are_one_item(tmp_path, rows):
    """A perfume has no colour: its size rows share the group and an empty colour, and are still one product."""
    sizes = [{**rows[0], "colors": "", "sku": f"P-{ml}", "group": "P"} for ml in (30, 50, 100)]
    result = ingest(_write_csv(tmp_path / "catalog.csv", sizes, ","), mapping=mapping_file(tmp_path, MAPPING + '\n[variants]\nkey = ["group", "colors"]\n'))
    assert result.table.column("item_id").to_pylist() == ["P-30"] and result.report.to_dict()["rejected_rows"] == 2


def test_extract_reads_a_gender_from_the_titles(tmp_path, rows, reference):
    """No gender column: the gender word of each title ("Puma Men Ferrari Track Jacket"); a title without one gives
    no gender, counted."""
    mapping = MAPPING.replace('gender = "department"', 'gender = "title"') + "\n[clean.gender]\nextract = '\\b(women|men|girls|boys|unisex)\\b'\n"
    result = ingest(OTHER_SCHEMA / "catalog.csv", mapping=mapping_file(tmp_path, mapping))
    items = result.table.to_pylist()
    said = [i for i, row in enumerate(rows) if re.search(r"\b(women|men|girls|boys|unisex)\b", row["title"], re.IGNORECASE)]
    assert len(said) > 150 and all(items[i]["gender"] is None for i in range(len(rows)) if i not in said)
    agree = sum(items[i]["gender"] == reference[i]["gender"] for i in said)
    assert agree >= 0.95 * len(said)  # a title may name another gender than the department ("Men" in a unisex shoe)
    assert result.report.to_dict()["values_nulled"]["refused_gender"]["count"] == len(rows) - len(said)


def test_a_value_map_matches_a_number_as_its_digits(tmp_path):
    """A category id a JSON catalog writes as a number (``"webCategories": [{"id": 4438}]``) is mapped by its digits
    (docs/catalog.md: value maps match a value as text)."""
    catalog = tmp_path / "pdp.jsonl"
    catalog.write_text("".join(json.dumps({"id": f"p{n}", "name": f"Tee {n}", "type": "Tshirts", "webCategories": [{"id": cat}]}) + "\n"
                               for n, cat in enumerate((4438, 4438, 27110))), encoding="utf-8")
    mapping = mapping_file(tmp_path, '[columns]\nitem_id = "id"\nname = "name"\narticle_type = "type"\n'
                                     'master_category = "webCategories[0].id"\n\n[values.master_category]\n"4438" = "Apparel"\n')
    assert ingest(catalog, mapping=mapping).table.column("master_category").to_pylist() == ["Apparel", "Apparel", "27110"]


def test_a_saved_api_error_response_is_rejected_as_one(tmp_path):
    """A scrape that saved an API's error body in place of a product (``{"errorCode": "ProductNotFound", ...}``) gets
    that row rejected as an error response, not as a product with an empty id."""
    catalog = tmp_path / "pdp.jsonl"
    lines = [{"id": "p1", "name": "Tee", "type": "Tshirts"}, {"errorCode": "ProductNotFound", "errorMessage": "No product", "correlationId": "x"}]
    catalog.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = ingest(catalog, mapping=mapping_file(tmp_path, '[columns]\nitem_id = "id"\nname = "name"\narticle_type = "type"\n'))
    assert len(result.table) == 1
    assert result.report.rejected == [{"row": "pdp.jsonl:2", "reason": "an error response (errorCode='ProductNotFound'), not a product"}]


def test_photos_stored_as_bytes_in_a_hugging_face_parquet_are_said_and_never_read_as_paths(tmp_path):
    """A Hugging Face image column holds each photo's bytes: the draft leaves it out, commented, and a mapping that
    names it gives no photo (each counted under values_nulled.image_bytes, with a note that says how to use them),
    never a path made of the bytes' text; an image object with a path and no bytes names the photo's file. The hand
    mapping of the hf-parquet shape reads the fixture's items."""
    derived = derive_shape(tmp_path / "hf", "hf-parquet", FIXTURES / "myntra_images")  # the 300 photographed fixture items
    catalog = derived / "train-00000-of-00001.parquet"
    items = ingest(FIXTURES / "myntra_images").table.to_pylist()
    assert [row["image"]["bytes"][:2] for row in pq.read_table(catalog).to_pylist()] == [b"\xff\xd8"] * len(items)  # JPEG
    drafted, hand = draft_mapping(catalog).text(), ingest(catalog, mapping=derived / "mapping.toml").table.to_pylist()
    assert '# image_path = "image"   # the photos are stored inside the file as bytes' in drafted
    assert [(i["item_id"], i["article_type"], i["gender"], i["year"]) for i in hand] == [
        (i["item_id"], i["article_type"], i["gender"], i["year"]) for i in items]
    mapping = mapping_file(tmp_path, (derived / "mapping.toml").read_text(encoding="utf-8") + 'image_path = "image"\n')
    result = ingest(catalog, mapping=mapping)
    report = result.report.to_dict()
    assert result.table.num_rows == len(items) and result.table.column("image_path").null_count == len(items)
    assert report["values_nulled"]["image_bytes"]["count"] == len(items)
    assert any("stored inside the catalog as bytes" in note for note in report["notes"])
    rows = [{**row, "image": {"bytes": None, "path": f"images/{row['id']}.jpg"}} for row in pq.read_table(catalog).to_pylist()]
    shutil.copytree(FIXTURES / "myntra_images" / "images", tmp_path / "images")  # each photo's path and no bytes: the file
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "by-path.parquet")
    found = ingest(tmp_path / "by-path.parquet", mapping=mapping).table.column("image_path").to_pylist()
    assert found == [str((tmp_path / "images" / f"{i['item_id']}.jpg").resolve()) for i in items]


def test_an_image_path_that_cannot_be_a_file_name_is_no_photo_and_counted(tmp_path):
    """A photo column holding text too long to be a file name gives no photo, counted, and no traceback."""
    catalog = tmp_path / "catalog.csv"
    catalog.write_text("id,title,type,photo\n1,Roadster Men Blue Jeans,Jeans," + "a" * 300 + ".jpg\n2,Nike Men Black Shoes,Shoes,\n",
                       encoding="utf-8")
    mapping = mapping_file(tmp_path, '[columns]\nitem_id = "id"\nname = "title"\narticle_type = "type"\nimage_path = "photo"\n')
    result = ingest(catalog, mapping=mapping)
    assert result.table.column("image_path").to_pylist() == [None, None]
    assert result.report.to_dict()["values_nulled"]["image_path_not_a_file_name"]["count"] == 1


@pytest.fixture(scope="module")
def hm_with_photos(tmp_path_factory) -> Path:
    """H&M's articles table of the 300 photographed fixture items, each photo named by article id in a folder per
    first three digits, as H&M's data keeps them (images/001/0015977348.jpg)."""
    return derive_shape(tmp_path_factory.mktemp("hm-photos"), "hm", FIXTURES / "myntra_images")


def test_images_finds_a_mapped_catalogs_photos_by_item_id_in_folders_below(hm_with_photos):
    """`ingest --images DIR` on a mapped catalog (H&M's articles table, which names no photo) gives each item the photo
    DIR holds under its id, below it too, said in a note; without --images the items have none."""
    catalog, mapping = hm_with_photos / "articles.csv", hm_with_photos / "mapping.toml"
    photos = sorted((hm_with_photos / "images").rglob("*.jpg"))
    assert len(photos) == 300 and all(p.parent.name == p.stem[:3] for p in photos)
    assert ingest(catalog, mapping=mapping).table.column("image_path").null_count == 300
    result = ingest(catalog, mapping=mapping, images=hm_with_photos / "images")
    found = dict(zip(result.table.column("item_id").to_pylist(), result.table.column("image_path").to_pylist(), strict=True))
    assert found == {p.stem: str(p.resolve()) for p in photos}
    assert f"photos found by item id in {hm_with_photos / 'images'} for 300 of 300 items (the folder holds 300)" in result.report.notes


def test_images_finds_photos_of_ids_that_lost_their_leading_zeros_and_keeps_mapped_photos(hm_with_photos, tmp_path):
    """An id whose leading zeros a spreadsheet dropped (108775015) finds the photo named with them (0108775015.jpg);
    an item whose mapped image_path names a file keeps it; of two photos with one name the first in path order is
    taken and the other counted."""
    rows = list(csv.DictReader((hm_with_photos / "articles.csv").open(encoding="utf-8")))
    first = rows[0]["article_id"]
    (tmp_path / "own").mkdir()
    shutil.copy(next((hm_with_photos / "images").rglob(f"{rows[1]['article_id']}.jpg")), tmp_path / "own" / "mine.jpg")
    shutil.copytree(hm_with_photos / "images", tmp_path / "images")
    later = tmp_path / "images" / "zzz"
    later.mkdir()
    shutil.copy(tmp_path / "own" / "mine.jpg", later / f"{first}.jpg")
    with open(tmp_path / "articles.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=[*rows[0], "photo"])
        writer.writeheader()
        writer.writerows({**row, "article_id": str(int(row["article_id"])), "photo": "own/mine.jpg" if i == 1 else ""}
                         for i, row in enumerate(rows))
    text = (hm_with_photos / "mapping.toml").read_text(encoding="utf-8").replace("[columns]\n", '[columns]\nimage_path = "photo"\n')
    result = ingest(tmp_path / "articles.csv", mapping=mapping_file(tmp_path, text), images=tmp_path / "images")
    paths = result.table.column("image_path").to_pylist()
    assert result.table.column("item_id")[0].as_py() == str(int(first))
    assert paths[0] == str((tmp_path / "images" / first[:3] / f"{first}.jpg").resolve())
    assert paths[1] == str((tmp_path / "own" / "mine.jpg").resolve())
    assert all(paths) and len(set(paths)) == len(paths)
    assert any(note.endswith("for 299 of 300 items (the folder holds 300); 1 files share a name with an earlier one and were "
                             "passed over") for note in result.report.notes)


def test_a_link_in_the_images_folder_to_a_file_outside_it_is_no_photo(hm_with_photos, tmp_path):
    """A photo folder holding a link named by an item id to a file elsewhere (/etc/passwd): that item gets no photo,
    so no release publishes the file, and the note counts the link."""
    rows = list(csv.DictReader((hm_with_photos / "articles.csv").open(encoding="utf-8")))
    shutil.copytree(hm_with_photos / "images", tmp_path / "images")
    target = next((tmp_path / "images").rglob(f"{rows[0]['article_id']}.jpg"))
    target.unlink()
    target.symlink_to("/etc/passwd")
    result = ingest(hm_with_photos / "articles.csv", mapping=hm_with_photos / "mapping.toml", images=tmp_path / "images")
    paths = dict(zip(result.table.column("item_id").to_pylist(), result.table.column("image_path").to_pylist(), strict=True))
    assert paths[rows[0]["article_id"]] is None and sum(p is not None for p in paths.values()) == 299
    assert any(n.endswith("1 links to files outside the folder were passed over") for n in result.report.notes), result.report.notes


def test_an_images_folder_that_names_no_item_is_refused_in_one_sentence(hm_with_photos, tmp_path, capsys):
    """Photos named otherwise than by item id (Myntra's ids beside H&M's article ids), or a folder without photos, are
    refused with the folder, an example and the fix, exit code non-zero, no traceback."""
    catalog, mapping = hm_with_photos / "articles.csv", hm_with_photos / "mapping.toml"
    (tmp_path / "empty").mkdir()
    for folder, words in ((FIXTURES / "myntra_images" / "images", "holds 300 photos, but none is named by an item id"),
                          (tmp_path / "empty", "holds no photo")):
        assert main_code(["ingest", str(catalog), "--mapping", str(mapping), "--images", str(folder), "--out", str(tmp_path / "out")]) != 0
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / "out").exists()


def test_images_gives_an_ingested_catalogs_items_their_photos(hm_with_photos, tmp_path):
    """An ingested folder read again with --images (as `fashionrq images attributes OUT --images DIR` does): its items
    take the photos named by their ids, said in a note."""
    saved = save_ingest(ingest(hm_with_photos / "articles.csv", mapping=hm_with_photos / "mapping.toml"), tmp_path / "out")
    result = ingest(saved.parent, images=hm_with_photos / "images")
    assert result.table.column("image_path").null_count == 0
    assert any(note.startswith("photos found by item id") and "for 300 of 300 items" in note for note in result.report.notes)


def _beside(folder: Path, text: str) -> Path:
    """An edited mapping beside the catalog's own, whose [photos] paths it reads from there."""
    path = folder / "edited.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_photo_index_gives_each_image_id_its_file_and_counts_the_ids_it_lacks(abo_listings, tmp_path):
    """ABO names each photo by an image id, its file in images/metadata/images.csv.gz: [photos] index reads it, and
    folder is where the paths point; an id the index does not list gives no photo, counted."""
    listings = abo_listings / "listings" / "metadata"
    table = list(csv.DictReader(io.StringIO(gzip.decompress((abo_listings / "images/metadata/images.csv.gz").read_bytes()).decode())))
    result = ingest(listings, mapping=abo_listings / "mapping.toml")
    photos = [p for p in result.table.column("image_path").to_pylist() if p]
    assert len(photos) == len(table) == 30
    assert sorted(photos) == sorted(str((abo_listings / "images" / "small" / row["path"]).resolve()) for row in table)
    shorter = tmp_path / "images.csv"  # 5 ids fewer; a row repeating an id, one without a path: passed over, counted
    shorter.write_text("image_id,height,width,path\n" + "".join(f"{r['image_id']},300,225,{r['path']}\n" for r in table[5:])
                       + f"{table[5]['image_id']},300,225,elsewhere.jpg\n{table[0]['image_id']},300,225,\n", encoding="utf-8")
    text = (abo_listings / "mapping.toml").read_text(encoding="utf-8").replace('index = "images/metadata/images.csv.gz"',
                                                                               f'index = "{shorter}"')
    result = ingest(listings, mapping=_beside(abo_listings, text))
    assert result.table.column("image_path").null_count == result.table.num_rows - 25
    assert result.report.to_dict()["values_nulled"]["image_not_in_index"]["count"] == 5
    assert "5 image ids are not in the photo index (25 ids); those items have no photo" in result.report.notes
    assert "1 row of the photo index images.csv repeats an earlier row's image id; the first is read" in result.report.notes
    assert "1 row of the photo index images.csv has no image id or no path and was passed over" in result.report.notes


@pytest.mark.parametrize(("photos", "needle"), [
    ('folder = "images/small"\nindex = "images/metadata/images.csv.gz"\nid = "photo_id"',
     "has no column 'photo_id' (columns: image_id, height, width, path)"),
    ('folder = "images/big"', "sets folder = 'images/big' in [photos], but"),
    ('index = "images/metadata/missing.csv"', "sets index = 'images/metadata/missing.csv' in [photos], but"),
    ('folder = "images/small"\nid = "image_id"', "names the columns of a photo index in [photos] but no index"),
    ('foldr = "images/small"', "unknown key 'foldr' in [photos]; did you mean 'folder'?"),
    ('index = "mapping.toml"', "is, by its name, no CSV, TSV, JSON (lines) or Parquet file"),
    ('index = "empty.csv"', "is empty; give [photos] index the table of image ids and paths"),
])
def test_a_wrong_photos_section_is_refused_in_one_sentence(abo_listings, photos, needle):
    (abo_listings / "empty.csv").write_bytes(b"")
    text = (abo_listings / "mapping.toml").read_text(encoding="utf-8")
    start = text.index("[photos]")
    text = text[:start] + "[photos]\n" + photos + "\n\n" + text[text.index("[clean.gender]"):]
    with pytest.raises(InputError) as caught:
        ingest(abo_listings / "listings" / "metadata", mapping=_beside(abo_listings, text))
    assert needle in str(caught.value) and "\n" not in str(caught.value)


def test_photo_paths_written_from_the_stores_media_root_are_read_from_the_photos_folder(magento_export):
    """Magento writes a photo's path from its media folder's root (/1/5/15970.jpg): with [photos] folder naming
    that folder (pub/media/catalog/product, copied beside the export), each such path is read from there."""
    result = ingest(magento_export / "export_catalog_product.csv", mapping=magento_export / "mapping.toml")
    found = [p for p in result.table.column("image_path").to_pylist() if p]
    media = (magento_export / "pub" / "media" / "catalog" / "product").resolve()
    assert len(found) == len(list(media.rglob("*.jpg"))) > 0 and all(Path(p).parent.parent.parent == media for p in found)
    assert all(Path(p).stem == i.removeprefix("MG-").split("-")[0] for p, i in zip(
        result.table.column("image_path").to_pylist(), result.table.column("item_id").to_pylist(), strict=True) if p)


@pytest.mark.slow  # a whole build (README command 2 keeps under 5 minutes; CI runs it with -m slow)
def test_build_takes_the_photos_named_by_item_id_in_one_command(hm_with_photos, tmp_path):
    """`fashionrq build --images DIR` on H&M's table, which names no photo: the release publishes every item's photo
    under its public id and its manifest names the folder (by name, never by path)."""
    out = tmp_path / "BENCH"
    assert main_code(["build", "--catalog", str(hm_with_photos / "articles.csv"), "--mapping", str(hm_with_photos / "mapping.toml"),
                      "--images", str(hm_with_photos / "images"), "--out", str(out), "--seed", "0", "--sid-method", "rkmeans",
                      "--codebook-size", "8", "--allow-weak"]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["images"] == "images" and manifest["counts"]["photos"]["count"] == 300
    assert len(list((out / "public" / "images").glob("*.jpg"))) == 300


def test_a_myntra_folder_takes_its_photos_the_same_way_and_a_wrong_folder_is_refused(hm_with_photos, tmp_path):
    """The Myntra layout reads --images as a mapped catalog does: the photos its folder holds under the items' ids,
    said in a note, and a folder none of whose photos is named by an item id (H&M's article ids) refused."""
    result = ingest(FIXTURES / "myntra_images", images=FIXTURES / "myntra_images" / "images")
    assert result.table.column("image_path").null_count == 0
    assert any(n.startswith("photos found by item id") and "for 300 of 300 items" in n for n in result.report.notes)
    with pytest.raises(InputError, match="none is named by an item id"):
        ingest(FIXTURES / "myntra_images", images=hm_with_photos / "images")


def test_a_folder_of_csv_parts_reads_as_the_one_table_they_split(tmp_path, rows, reference):
    """An export split by category into CSV files of one header (a public Nordstrom scrape: nordstrom_Boots.csv,
    nordstrom_Flats.csv, ...): the folder reads as the whole table, each part's rows in the order of the parts'
    names, each rejected row's place naming its file; the draft of the folder is the draft of the whole file."""
    folder = tmp_path / "parts"
    folder.mkdir()
    by_category: dict[str, list[dict]] = {}
    for row in rows:
        by_category.setdefault(row["category"], []).append(row)
    for category, part in by_category.items():
        _write_csv(folder / f"catalog_{category.replace(' ', '_')}.csv", part, ",")
    (folder / "catalog_Apparel.csv").write_text((folder / "catalog_Apparel.csv").read_text(encoding="utf-8")
                                                + "SKU-X,,Puma,M,Apparel,Jackets,Red,100,,,\n", encoding="utf-8")
    (folder / "catalog_0_empty.csv").write_text("", encoding="utf-8")
    result = ingest(folder, mapping=mapping_file(tmp_path, _without_format(MAPPING)))
    order = sorted(by_category, key=lambda c: f"catalog_{c.replace(' ', '_')}.csv")
    by_id = {item["item_id"]: item for item in reference}
    assert result.table.to_pylist() == [by_id[r["sku"]] for c in order for r in by_category[c] if r["sku"] in by_id]
    report = result.report.to_dict()
    assert report["rows_read"] == len(rows) + 1
    assert [re.sub(r":\d+", ":N", r["row"]) for r in report["rejected"]] == ["catalog_Apparel.csv:N (id SKU-X)"]
    assert any(note.startswith(f"products read from {len(by_category)} files in parts/, the parts of one table") for note in report["notes"])
    assert "catalog_0_empty.csv is empty and was passed over" in report["notes"]
    # the same draft, and the part's name as a column (`@file`) it leaves unmapped here
    assert draft_mapping(folder).text().split("[columns]")[1] == \
        draft_mapping(OTHER_SCHEMA / "catalog.csv").text().split("[columns]")[1] + "\n# Not mapped: @file.\n"
    # a product in two parts: refused, naming each part's line (a Musinsa scrape's parts, listed again by date)
    first = by_category[order[0]][0]
    _write_csv(folder / "catalog_zz_again.csv", [first], ",")
    with pytest.raises(InputError, match=rf"duplicate item id '{first['sku']}' \(catalog_{order[0].replace(' ', '_')}\.csv:2 and catalog_zz_again\.csv:2\)"):
        ingest(folder, mapping=mapping_file(tmp_path, _without_format(MAPPING)))


def test_a_folder_of_parts_whose_headers_differ_reads_every_column_and_says_what_a_part_lacks(tmp_path, rows, reference):
    """A scrape whose parts do not share one header (SHEIN's shoe pages name the title `goods-title-link--jump` and
    have no column the clothes' pages have): the folder reads as one table of all the parts' columns, a column a
    part lacks empty in its rows and named in a note; a name mapped as a list of columns reads each part's own."""
    folder = tmp_path / "parts"
    folder.mkdir()
    _write_csv(folder / "a.csv", rows[:50], ",")
    _write_csv(folder / "b.csv", [{("title_jump" if k == "title" else k): v for k, v in row.items() if k != "fabric"}
                                  for row in rows[50:100]], ",")
    mapping = mapping_file(tmp_path, _without_format(MAPPING).replace('name = "title"', 'name = ["title", "title_jump"]'))
    result = ingest(folder, mapping=mapping)
    by_id = {item["item_id"]: item for item in reference}
    expected = [by_id[r["sku"]] for r in rows[:50] if r["sku"] in by_id] + [
        {**by_id[r["sku"]], "attributes": [kv for kv in by_id[r["sku"]]["attributes"] if kv[0] != "Fabric"]}
        for r in rows[50:100] if r["sku"] in by_id]
    assert any(key == "Fabric" for r in rows[50:100] if r["sku"] in by_id for key, _ in by_id[r["sku"]]["attributes"])
    assert result.table.to_pylist() == expected
    notes = result.report.to_dict()["notes"]
    assert "a.csv has no 'title_jump' column the other parts have: its 50 rows read it as empty" in notes
    assert "b.csv has no 'title', 'fabric' columns the other parts have: its 50 rows read them as empty" in notes


def test_a_folder_of_parts_in_two_encodings_reads_each_in_its_own_and_the_draft_says_which(tmp_path, rows):
    """A scrape saved at other times (a public SHEIN scrape: its women's file has a byte of cp1252, its shoes' file
    letters in UTF-8): with encoding = "cp1252" the part that is UTF-8 is still read as UTF-8 and the other as cp1252,
    each title as written, in a note; the draft checks every part and names the one that is not UTF-8."""
    folder = tmp_path / "parts"
    folder.mkdir()
    titled = [{**row, "title": f"{row['title']} Café"} for row in rows[:100]]
    for name, part, encoding in (("a.csv", titled[:50], "utf-8"), ("b.csv", titled[50:], "cp1252")):
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=list(part[0]))
        writer.writeheader()
        writer.writerows(part)
        (folder / name).write_bytes(text.getvalue().encode(encoding))
    with pytest.raises(InputError, match=r"b\.csv is not valid utf-8"):
        ingest(folder, mapping=mapping_file(tmp_path, _without_format(MAPPING)))
    draft = draft_mapping(folder)
    assert 'encoding = "cp1252"   # CHECK: b.csv is not UTF-8' in draft.text() and "the parts that are UTF-8 are read as UTF-8" in draft.text()
    result = ingest(folder, mapping=mapping_file(tmp_path, _without_format(MAPPING).replace('encoding = "utf-8"', 'encoding = "cp1252"')))
    names = result.table.column("name").to_pylist()
    assert len(names) >= 90 and all(name.endswith(" Café") for name in names)
    assert "1 of the 2 parts are not UTF-8 and were read as cp1252 (b.csv); the others are UTF-8" in result.report.notes


def test_names_in_another_script_are_said_to_make_a_cross_lingual_benchmark(tmp_path, rows):
    """A public Digikala scrape names its products in Persian with a Latin brand or code inside ("پیراهن زنانه ال سی
    وایکیکی مدل آستین بلند BO10357"): the ingest says so, and which encoder fits; English names say nothing."""
    persian = [{**row, "title": f"پیراهن زنانه مدل {row['vendor']} {n}"} for n, row in enumerate(rows[:200])]
    catalog = _write_csv(tmp_path / "catalog.csv", persian, ",")
    notes = ingest(catalog, mapping=mapping_file(tmp_path, MAPPING)).report.notes
    said = [note for note in notes if re.match(r"(9\d|100)% of the names are written in Arabic script: queries are written in "
                                                 r"English, so this benchmark is cross-lingual", note)]  # a long brand: Latin
    assert len(said) == 1 and "--encoder e5-small" in said[0]
    english = _write_csv(tmp_path / "english.csv", rows[:200], ",")
    assert not any("script" in note for note in ingest(english, mapping=mapping_file(tmp_path, MAPPING)).report.notes)


def test_a_folder_of_parts_of_other_tables_or_formats_is_one_sentence(tmp_path, rows, capsys):
    folder = tmp_path / "parts"
    folder.mkdir()
    _write_csv(folder / "a.csv", rows[:50], ",")
    (folder / "b.csv").write_text("order,customer\n1,2\n", encoding="utf-8")
    mapping = mapping_file(tmp_path, _without_format(MAPPING))
    with pytest.raises(InputError, match=r"b\.csv shares no column with the parts before it \(a\.csv, …\); a folder is read as"):
        ingest(folder, mapping=mapping)
    (folder / "b.csv").unlink()
    _write_csv(folder / "b.tsv", rows[50:100], "\t")
    with pytest.raises(InputError, match=r"holds both CSV and TSV files"):
        ingest(folder, mapping=mapping)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "a.csv").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match=r"every CSV or TSV file in catalog folder .*empty is empty"):
        ingest(empty, mapping=mapping)
    assert main_code(["ingest", str(folder), "--mapping", str(mapping), "--out", str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err
    assert "holds both CSV and TSV files" in err and "Traceback" not in err


def test_a_catalog_in_parts_by_gender_reads_the_gender_from_the_parts_names(tmp_path, rows, reference):
    """An export in one file per gender whose rows and names do not say it (a public AJIO scrape: AJIO_new_men_pants.csv,
    AJIO_popular_women_kurtas.csv, ...): each record has its part's name as the column `@file` ("catalog new men"),
    the draft reads the gender from it (a CHECK), and ingest gives each item its part's gender."""
    folder = tmp_path / "parts"
    folder.mkdir()
    genders = {"M": "men", "F": "women"}
    by_id = {item["item_id"]: item for item in reference}
    for code, word in genders.items():
        _write_csv(folder / f"catalog_new_{word}.csv", [
            {**{k: v for k, v in row.items() if k != "department"},
             "title": re.sub(r"\b(?:Men|Women|Boys|Girls|Unisex)(?:'s)?\b ?", "", row["title"], flags=re.IGNORECASE)}
            for row in rows if row["department"] == code], ",")
    draft = draft_mapping(folder)
    assert "the gender is read from the names of the parts, which say one for 100% of the records" in draft.checks
    assert 'gender = "@file"' in draft.text()
    read = ingest(folder, mapping=mapping_file(tmp_path, draft.text())).table.to_pylist()
    assert len(read) > 100 and {item["gender"] for item in read} == {"Men", "Women"}
    assert all(item["gender"] == by_id[item["item_id"]]["gender"] for item in read if item["item_id"] in by_id)


def test_a_price_of_zero_is_passed_over_for_the_next_reference(tmp_path, fixture_items):
    """A Shopify storefront crawl writes `compareAtPrice: 0` for "not on sale" beside the variant's price: with `price =
    ["variants[0].compareAtPrice", "variants[0].price"]` ingest had taken the 0 and nulled it as a placeholder, so 150
    of 479 items lost a real price. The fixture's products so written (a third of them on sale, the rest with 0 or
    "0.00"): each item's price is the price before the sale where there is one, else the variant's price, and no
    price is nulled."""
    items = [i for i in fixture_items.to_pylist() if i["name"] and i["price"]][:300]
    zero = lambda n: (0, "0.00")[n % 2]  # noqa: E731
    products = {f"handle-{i['item_id']}": {"id": i["item_id"], "title": i["name"], "productType": i["article_type"],
                                             "variants": [{"price": i["price"], "compareAtPrice": i["price"] * 1.5 if n % 3 == 0 else zero(n)}]}
                for n, i in enumerate(items)}
    catalog = tmp_path / "products.json"
    catalog.write_text(json.dumps(products), encoding="utf-8")
    mapping = mapping_file(tmp_path, '[columns]\nitem_id = "id"\nname = "title"\narticle_type = "productType"\n'
                                     'price = ["variants[0].compareAtPrice", "variants[0].price"]\ndiscounted_price = "variants[0].price"\n')
    result = ingest(catalog, mapping=mapping)
    read = {r["item_id"]: r for r in result.table.to_pylist()}
    assert len(read) == len(items) and not result.report.values_nulled
    for n, i in enumerate(items):
        assert read[i["item_id"]]["price"] == pytest.approx(i["price"] * (1.5 if n % 3 == 0 else 1))
        assert read[i["item_id"]]["discounted_price"] == pytest.approx(i["price"])
