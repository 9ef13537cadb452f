"""Every user mistake in a catalog or mapping file: one sentence naming the file, row or field and the fix, a
non-zero exit, no traceback; and bad values nulled with a counted reason, never stored or dropped silently."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import MYNTRA_SMALL, OTHER_SCHEMA
from fashionrq.catalog import ingest, save_ingest
from fashionrq.cli import main
from fashionrq.errors import InputError

MAPPING = (OTHER_SCHEMA / "mapping.toml").read_text(encoding="utf-8")
HEADER = "sku,title,vendor,department,category,product_type,colors,list_price,body_html,fabric,pattern"
ROWS = [  # real products of the other_schema fixture, descriptions shortened
    "SKU-1530,Puma Men Ferrari Track Jacket,Puma,M,Apparel,Jackets,Red,4299,Track jacket,Cotton,Solid",
    "SKU-1550,Puma Cat Trainer-WBL Football,Puma,U,Sporting Goods,Footballs,White|Black,999,A football,,",
    "SKU-1567,Nike Men Blue Tshirt,Nike,M,Apparel,Tshirts,Blue,795,A tee,Cotton,Printed",
]


def cli_error(capsys, *args: str) -> str:
    """Run the CLI in-process; it must exit 2 with one error sentence and no traceback. Returns the message."""
    with pytest.raises(SystemExit) as stop:
        main([str(a) for a in args])
    err = " ".join(capsys.readouterr().err.split())
    assert stop.value.code == 2, err
    assert "Traceback" not in err and err.startswith("error:"), err
    return err.removeprefix("error: ")


def write_catalog(folder: Path, rows: list[str], header: str = HEADER, mapping: str = MAPPING, name: str = "catalog.csv") -> tuple[Path, Path]:
    (folder / name).write_bytes(("\n".join([header, *rows]) + "\n").encode())
    (folder / "mapping.toml").write_text(mapping, encoding="utf-8")
    return folder / name, folder / "mapping.toml"


def ingest_error(capsys, tmp_path: Path, catalog: Path, mapping: Path | None = None) -> str:
    args = ["ingest", catalog, "--out", tmp_path / "out"] + (["--mapping", mapping] if mapping else [])
    message = cli_error(capsys, *args)
    assert not (tmp_path / "out").exists()
    return message


# ---- files that cannot be read ------------------------------------------------------------------------------
def test_a_10_mb_csv_field_names_its_line(capsys, tmp_path):
    catalog, mapping = write_catalog(tmp_path, [ROWS[0], ROWS[1].replace("A football", '"' + "x" * 10_000_000 + '"')])
    message = ingest_error(capsys, tmp_path, catalog, mapping)
    assert "catalog.csv line 3" in message and "unclosed quote" in message and "131,072" in message


def _read_as_nobody(path: Path) -> str:
    """Ingest ``path`` in a forked child that dropped root (root reads any file); return the error it got."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: fashionrq is already imported, so only the catalog file is read as nobody
        message = "no error"
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            ingest(path)
        except InputError as err:
            message = f"InputError: {err}"
        except BaseException as err:  # noqa: BLE001 - reported to the parent, which fails the test
            message = f"{type(err).__name__}: {err}"
        os.write(write, message.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        message = handle.read().decode()
    os.waitpid(pid, 0)
    return message


def test_an_unreadable_catalog_file_is_one_sentence(capsys):
    folder = Path(tempfile.mkdtemp(prefix="fashionrq-perm-"))
    try:
        folder.chmod(0o755)
        catalog, _ = write_catalog(folder, ROWS)
        catalog.chmod(0o000)
        if os.geteuid() == 0:
            message = _read_as_nobody(catalog)
        else:
            message = "InputError: " + ingest_error(capsys, folder, catalog)
        assert message.startswith("InputError: cannot read"), message
        assert str(catalog) in message and "Permission denied" in message and "permissions" in message
    finally:
        catalog.chmod(0o644)
        for p in folder.iterdir():
            p.unlink()
        folder.rmdir()


def test_a_catalog_that_is_a_folder_of_nothing_known(capsys, tmp_path):
    (tmp_path / "c").mkdir()
    assert "no styles.csv" in ingest_error(capsys, tmp_path, tmp_path / "c")


def test_a_catalog_none_of_whose_rows_gives_an_item_says_why_in_one_sentence(capsys, tmp_path):
    """Every row rejected (here for a type column left empty, and a row without an id): the sentence counts the rows
    and gives each reason with its first row, since no ingest folder is written to look them up in."""
    untyped = [",".join(f if i != 5 else "" for i, f in enumerate(row.split(","))) for row in ROWS]
    catalog, mapping = write_catalog(tmp_path, untyped + ["," + ROWS[0].split(",", 1)[1]])
    err = cli_error(capsys, "ingest", catalog, "--mapping", mapping, "--out", tmp_path / "out")
    assert err.startswith(f"no product in {catalog} could be ingested: 4 rows rejected (3 for empty required field(s) article_type "
                          "(first: catalog.csv:2 (id SKU-1530)); 1 for empty id in column 'sku' (first: catalog.csv:5))")
    assert err.endswith("fix the file or the mapping there.")
    assert not (tmp_path / "out").exists()


def test_the_refusal_of_a_catalog_of_no_item_counts_a_variant_of_each_product_as_one_reason(capsys, tmp_path):
    """A Tokopedia scrape's repeated ids under [variants] key, with no type: each repeat had been its own reason ("1
    for a variant of the product at r7.csv:2 ...; 1 for ... at r7.csv:4 ...; and 2 other reasons"); the sentence now
    counts them as one kind, with the first row and its reason, as the printed report does. A row repeated whole (an
    El Corte Inglés crawl listed 286 products twice) is a repeat, one that differs a variant."""
    untyped = [",".join(f if i != 5 else "" for i, f in enumerate(row.split(","))) for row in ROWS]
    catalog, mapping = write_catalog(tmp_path, [row for row in untyped for _ in range(3)],
                                     mapping=MAPPING + '\n[variants]\nkey = ["sku"]\n')
    err = cli_error(capsys, "ingest", catalog, "--mapping", mapping, "--out", tmp_path / "out")
    assert err.startswith(f"no product in {catalog} could be ingested: 9 rows rejected (6 for a repeat of the row at … (every "
                          "field the same) (first: catalog.csv:3, a repeat of the row at catalog.csv:2 (every field the same)); 3 "
                          "for empty required field(s) article_type (first: catalog.csv:2 (id SKU-1530))); fix"), err
    # a row of the same sku that differs (another size) is a variant, and says so
    catalog, mapping = write_catalog(tmp_path, [row + suffix for row in untyped for suffix in ("", " ")],
                                     mapping=MAPPING + '\n[variants]\nkey = ["sku"]\n')
    err = cli_error(capsys, "ingest", catalog, "--mapping", mapping, "--out", tmp_path / "out")
    assert "3 for a variant of the product at … (the same sku) (first: catalog.csv:3, a variant of the product at catalog.csv:2" in err


@pytest.mark.parametrize("layout", ["myntra", "mapped"])
def test_a_truncated_gzip_catalog_is_one_sentence(capsys, tmp_path, layout):
    if layout == "myntra":
        (tmp_path / "m").mkdir()
        catalog, mapping = tmp_path / "m", None
        data = gzip.compress((MYNTRA_SMALL / "styles.csv").read_bytes(), mtime=0)
        (catalog / "styles.csv.gz").write_bytes(data[: len(data) // 2])
        name = "styles.csv.gz"
    else:
        catalog, mapping = write_catalog(tmp_path, ROWS)
        data = gzip.compress((OTHER_SCHEMA / "catalog.csv").read_bytes(), mtime=0)
        catalog = tmp_path / "catalog.csv.gz"
        catalog.write_bytes(data[: len(data) // 2])
        name = "catalog.csv.gz"
    message = ingest_error(capsys, tmp_path, catalog, mapping)
    assert name in message and "truncated or corrupt gzip" in message and "gzip -t" in message


# ---- mapping files ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("edit", "needles"), [
    (('list_separator = "|"', 'list_separator = ""'), ["list_separator = ''", "non-empty string"]),
    (('list_separator = "|"', "list_separator = 5"), ["list_separator = 5", "non-empty string"]),
    (('encoding = "utf-8"', "encoding = 5"), ["encoding = 5", "non-empty string"]),
    (('encoding = "utf-8"', 'encoding = "utf-99"'), ["unknown text encoding 'utf-99'"]),
    (("[values.gender]", '[values]\ngender = "x"\n[values.x_unused]'), ["gender = 'x' under [values]", "[values.gender]"]),
    (('list_separator = "|"', 'list_seperator = "|"'), ["unknown key 'list_seperator'", "did you mean 'list_separator'?"]),
    (("[values.gender]", "[values.gendr]"), ["[values.gendr]", "did you mean 'gender'?"]),
    (("[columns]", "[colums]"), ["unknown section [colums]", "did you mean 'columns'?"]),
    (('brand = "vendor"', 'brnd = "vendor"'), ["unknown field 'brnd' in [columns]", "did you mean 'brand'?"]),
    (('Fabric = "fabric"', "Fabric = 3"), ["Fabric = 3 in [attributes]", "source column name"]),
    (('format = "csv"', 'format = "xls"'), ["format = 'xls'", "csv, tsv, jsonl, json, parquet, xml, xlsx", "save it as an Excel workbook (.xlsx)", "save the sheet as CSV"]),
    (("[columns]", '[clean.article_type]\nfrom = "title"\n\n[columns]'),
     ["from = 'title' in [clean.article_type]", "not one of the references article_type reads ('product_type')", "name one of them"]),
    (("[columns]", '[clean.article_type]\nfrom = 3\n\n[columns]'), ["from = 3 in [clean.article_type]", 'e.g. from = "title"']),
    (("[columns]", '[clean.brand]\nstarts_with = "Red Tape"\n\n[columns]'),
     ["starts_with = 'Red Tape' in [clean.brand]", 'e.g. starts_with = ["Red Tape", "Only"]']),
    (("[values.gender]", '[values.article_type]\nКуртка = "Jackets"\n[values.gender]'),
     ["is not valid TOML", "write the key 'Куртка' in quotes (\"Куртка\" = ...)"]),
    (('brand = "vendor"', 'brand = '), ["is not valid TOML", "fix the syntax."]),
])
def test_mapping_mistakes_are_refused_with_the_fix(capsys, tmp_path, edit, needles):
    assert edit[0] in MAPPING
    catalog, mapping = write_catalog(tmp_path, ROWS, mapping=MAPPING.replace(edit[0], edit[1], 1))
    message = ingest_error(capsys, tmp_path, catalog, mapping)
    assert "mapping.toml" in message
    for needle in needles:
        assert needle in message, message


# ---- bad values -----------------------------------------------------------------------------------------
def _report(result) -> dict:
    return result.report.to_dict()


def test_non_finite_and_unparsable_prices_are_nulled_with_counted_reasons(tmp_path):
    prices = ["inf", "1e309", "abc", "NaN", "-inf", "0.1"]
    rows = [ROWS[2].replace("SKU-1567", f"SKU-{i}").replace(",795,", f",{p},") for i, p in enumerate(prices)]
    catalog, mapping = write_catalog(tmp_path, rows)
    result = ingest(catalog, mapping=mapping)
    assert result.table.column("price").null_count == len(prices)  # none is stored
    nulled = _report(result)["values_nulled"]
    assert nulled["non_finite_price"] == {"count": 3, "ids": ["SKU-0", "SKU-1", "SKU-4"]}
    assert nulled["unparsable_price"] == {"count": 2, "ids": ["SKU-2", "SKU-3"]}
    assert nulled["placeholder_price"] == {"count": 1, "ids": ["SKU-5"]}
    json.dumps(_report(result), allow_nan=False)


def test_non_finite_prices_in_parquet_and_jsonl_are_nulled(tmp_path):
    table = pa.table({"item_id": ["a", "b", "c"], "name": ["x", "y", "z"], "article_type": ["Tshirts"] * 3,
                      "price": [float("inf"), float("nan"), 499.0]})
    pq.write_table(table, tmp_path / "c.parquet")
    result = ingest(tmp_path / "c.parquet")
    assert result.table.column("price").to_pylist() == [None, None, 499.0]
    assert set(_report(result)["values_nulled"]) == {"non_finite_price", "unparsable_price"}
    (tmp_path / "c.jsonl").write_text('{"item_id": "a", "name": "x", "article_type": "Tshirts", "price": Infinity, "year": 1e400}\n')
    result = ingest(tmp_path / "c.jsonl")
    assert result.table.column("price").to_pylist() == [None] and result.table.column("year").to_pylist() == [None]
    assert set(_report(result)["values_nulled"]) == {"non_finite_price", "unparsable_year"}


def test_a_duplicated_header_column_is_refused(capsys, tmp_path):
    catalog, mapping = write_catalog(tmp_path, [r + ",Red" for r in ROWS], header=HEADER + ",colors")
    message = ingest_error(capsys, tmp_path, catalog, mapping)
    assert "catalog.csv has the column 'colors' twice" in message and "columns 7 and 12" in message
    (tmp_path / "m").mkdir()
    styles = (MYNTRA_SMALL / "styles.csv").read_text(encoding="utf-8").splitlines()[:4]
    (tmp_path / "m" / "styles.csv").write_text("\n".join([styles[0].replace("season", "usage"), *styles[1:]]) + "\n")
    assert "styles.csv has the column 'usage' twice" in ingest_error(capsys, tmp_path, tmp_path / "m")
    table = pa.Table.from_arrays([pa.array(["a"]), pa.array(["x"]), pa.array(["T"]), pa.array(["y"])],
                                 names=["item_id", "name", "article_type", "name"])
    pq.write_table(table, tmp_path / "d.parquet")
    assert "d.parquet has the column 'name' twice" in ingest_error(capsys, tmp_path, tmp_path / "d.parquet")


def test_parquet_struct_list_and_map_values_are_converted_not_repr(tmp_path):
    table = pa.table({
        "sku": ["p1", "p2"],
        "title": [["Slim", "Jeans"], ["Linen", "Shirt"]],  # list<string> in a text field
        "type": ["Jeans", "Shirts"],
        "colors": [["Blue", "Unknown"], ["White"]],
        "details": pa.array([{"Fabric": "Denim", "Fit": "Slim Fit"}, {"Fabric": "Linen", "Fit": "N/A"}],
                            pa.map_(pa.string(), pa.string())),
        "care": pa.array([{"wash": "cold", "iron": None}, None], pa.struct([("wash", pa.string()), ("iron", pa.string())])),
        "sizes": [["S", "M"], []],
    })
    pq.write_table(table, tmp_path / "c.parquet")
    (tmp_path / "m.toml").write_text('[columns]\nitem_id = "sku"\nname = "title"\narticle_type = "type"\ncolours = "colors"\n'
                                     'attributes = "details"\n[attributes]\nCare = "care"\nSizes = "sizes"\n')
    result = ingest(tmp_path / "c.parquet", mapping=tmp_path / "m.toml")
    rows = result.table.to_pylist()
    assert [r["name"] for r in rows] == ["Slim, Jeans", "Linen, Shirt"]
    assert [r["colours"] for r in rows] == [["Blue"], ["White"]]
    assert dict(rows[0]["attributes"]) == {"Fabric": "Denim", "Fit": "Slim Fit", "Care": '{"iron": null, "wash": "cold"}', "Sizes": "S, M"}
    assert dict(rows[1]["attributes"]) == {"Fabric": "Linen"}
    placeholders = _report(result)["placeholders"]
    assert placeholders["colours"] == {"count": 1, "values": {"Unknown": 1}}
    assert placeholders["attributes.Fit"]["count"] == 1 and placeholders["attributes.Sizes"]["count"] == 1


def test_placeholders_become_null_and_are_counted_per_field(tmp_path):
    spellings = ["Unknown", "undefined", "N/A", "NA", "-", "", "UNKNOWN", " n/a "]
    rows = [f"SKU-{i},Nike Tee {i},{p},{p},Apparel,Tshirts,Blue|{p},795,A tee,{p},Solid" for i, p in enumerate(spellings)]
    catalog, mapping = write_catalog(tmp_path, rows)
    result = ingest(catalog, mapping=mapping)
    table = result.table.to_pylist()
    assert all(r["brand"] is None and r["gender"] is None and r["colours"] == ["Blue"] for r in table)
    assert all("Fabric" not in dict(r["attributes"]) for r in table)
    placeholders = _report(result)["placeholders"]
    for field in ("brand", "gender", "colours", "attributes.Fabric"):
        assert placeholders[field]["count"] == len(spellings), field
    assert placeholders["brand"]["values"] == {"": 1, "-": 1, "N/A": 1, "NA": 1, "UNKNOWN": 1, "Unknown": 1, "n/a": 1, "undefined": 1}
    assert _report(result)["missing"]["brand"] == len(spellings)


def test_a_csv_with_a_byte_order_mark_ingests(tmp_path):
    catalog, mapping = write_catalog(tmp_path, ROWS)
    catalog.write_bytes(b"\xef\xbb\xbf" + catalog.read_bytes())
    assert ingest(catalog, mapping=mapping).table.num_rows == 3
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "styles.csv").write_bytes(b"\xef\xbb\xbf" + (MYNTRA_SMALL / "styles.csv").read_bytes())
    assert ingest(tmp_path / "m").table.num_rows == 2181


@pytest.mark.parametrize(("bad_id", "what"), [("SKU 1550", "whitespace"), ("SKU-1550\t", None), ("SKU\x07", "a control character")])
def test_ids_are_validated_at_ingest(capsys, tmp_path, bad_id, what):
    catalog, mapping = write_catalog(tmp_path, [ROWS[0], ROWS[1].replace("SKU-1550", bad_id)])
    if what is None:  # surrounding whitespace is trimmed, not an error
        assert "SKU-1550" in ingest(catalog, mapping=mapping).table.column("item_id").to_pylist()
        return
    message = ingest_error(capsys, tmp_path, catalog, mapping)
    assert f"catalog.csv:3: item id {bad_id!r} contains {what}" in message and "remove it from the ids" in message
    lines = (MYNTRA_SMALL / "styles.csv").read_text(encoding="utf-8").splitlines()[:3]
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "styles.csv").write_text("\n".join([lines[0], lines[1], bad_id + "," + lines[2].split(",", 1)[1]]) + "\n")
    assert "styles.csv line 3: item id" in ingest_error(capsys, tmp_path, tmp_path / "m")


def test_empty_ids_are_rejected_and_counted(tmp_path):
    catalog, mapping = write_catalog(tmp_path, [ROWS[0], ROWS[1].replace("SKU-1550", "N/A"), ROWS[2]])
    report = _report(ingest(catalog, mapping=mapping))
    assert report["rejected"] == [{"row": "catalog.csv:3", "reason": "empty id in column 'sku'"}]


# ---- outputs --------------------------------------------------------------------------------------------
def test_ingest_out_naming_an_existing_file_or_folder(capsys, tmp_path):
    (tmp_path / "taken").write_text("keep me")
    for extra in ([], ["--force"]):  # a file is never replaced by a folder
        message = cli_error(capsys, "ingest", MYNTRA_SMALL, "--out", tmp_path / "taken", *extra)
        assert "taken is an existing file" in message and "name a folder" in message
    assert (tmp_path / "taken").read_text() == "keep me"
    save_ingest(ingest(OTHER_SCHEMA / "catalog.csv", mapping=OTHER_SCHEMA / "mapping.toml"), tmp_path / "items")
    message = cli_error(capsys, "ingest", MYNTRA_SMALL, "--out", tmp_path / "items")
    assert "items already exists" in message and "--force" in message
    with pytest.raises(SystemExit) as stop:
        main(["ingest", str(MYNTRA_SMALL), "--out", str(tmp_path / "items"), "--force"])
    assert stop.value.code in (0, None)
    assert pq.read_metadata(tmp_path / "items" / "items.parquet").num_rows == 2181
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary folder left


def test_an_ingested_folder_reingests_with_every_attribute(tmp_path):
    first = ingest(MYNTRA_SMALL)
    save_ingest(first, tmp_path / "items")
    for route in (tmp_path / "items", tmp_path / "items" / "items.parquet"):
        again = ingest(route).table
        assert again.equals(first.table), route
    assert sum(bool(a) for a in first.table.column("attributes").to_pylist()) > 1500


def test_a_mapped_image_path_must_stay_inside_the_catalogs_folder(tmp_path, capsys):
    """Issue 26: a mapped catalog with image_path=/etc/passwd built, and public/images/<id> became a hard link to
    /etc/passwd. A path that leaves the catalog's folder (absolute, ``..`` or a link) is refused; one inside is
    resolved (the control: the same rows with a photo in the folder ingest)."""
    mapping = MAPPING.replace('description = "body_html"', 'description = "body_html"\nimage_path = "photo"')
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "a.jpg").write_bytes(b"jpeg")
    (tmp_path / "photos" / "link.jpg").symlink_to("/etc/passwd")
    for photo in ("/etc/passwd", "../outside.jpg", "photos/link.jpg"):
        catalog, spec = write_catalog(tmp_path, [ROWS[0] + f",{photo}"], HEADER + ",photo", mapping)
        message = ingest_error(capsys, tmp_path, catalog, spec)
        assert "image_path" in message and "lies outside" in message and "SKU-1530" in message, message
    catalog, spec = write_catalog(tmp_path, [ROWS[0] + ",photos/a.jpg"], HEADER + ",photo", mapping)
    table = ingest(catalog, spec).table
    assert table.column("image_path").to_pylist() == [str((tmp_path / "photos" / "a.jpg").resolve())]
