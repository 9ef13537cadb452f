"""Excel workbooks as catalogs (catalog/sheets.py): a retailer's product master derived from the Myntra fixture by
scripts/derive_catalog_shapes.py --shape workbook, read through the mapping written from docs/catalog.md, and every
way a workbook can be wrong refused in one sentence."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import openpyxl
import pytest

from conftest import main_code, mapping_file
from fashionrq.catalog import ingest
from fashionrq.catalog.records import read_records
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.sheets import cell_text
from fashionrq.errors import InputError

MINIMAL = '[columns]\nitem_id = "Style Code"\nname = "Product Name"\narticle_type = "Product Type"\n'


def _workbook(path: Path, sheets: dict[str, list[list]]) -> Path:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


def _cli_error(capsys, *args) -> tuple[int, str]:
    code = main_code([str(a) for a in args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("value", "text"), [
    (1163, "1163"), (1163.0, "1163"), (26.26, "26.26"), (0.1 + 0.2, "0.30000000000000004"), (True, "TRUE"), (False, "FALSE"),
    (dt.datetime(2024, 3, 1), "2024-03-01"), (dt.datetime(2024, 3, 1, 9, 30), "2024-03-01T09:30:00"), (dt.date(2011, 7, 9), "2011-07-09"),
    (dt.time(18, 5), "18:05:00"), (None, ""), ("#N/A", ""), ("#REF!", ""), (" Navy Blue ", " Navy Blue "),
])
def test_a_cell_reads_as_the_text_a_user_sees(value, text):
    assert cell_text(value) == text


def test_the_derived_workbook_has_the_shape_of_a_product_master(product_workbook):
    """Checked with openpyxl itself, not fashionrq's reader: the sheets, the title and blank row above the header,
    number cells with a rupee format, date cells and the Sale Price formula with the value Excel would store."""
    book = openpyxl.load_workbook(product_workbook / "product_master.xlsx")
    assert book.sheetnames == ["Instructions", "Products", "Codes"]
    sheet = book["Products"]
    assert sheet["A1"].value.startswith("Product master") and all(c.value is None for c in sheet[2])
    assert [c.value for c in sheet[3]] == ["Style Code", "Product Name", "Brand", "Gender", "Category", "Sub Category", "Product Type",
                                           "Colour", "Fabric", "Launch Date", "MRP", "Discount", "Sale Price"]
    assert isinstance(sheet["A4"].value, int) and sheet["K4"].number_format == '"₹"#,##0.00' and sheet["J4"].is_date
    assert sheet["M4"].value == "=K4-L4"
    cached = openpyxl.load_workbook(product_workbook / "product_master.xlsx", data_only=True)["Products"]
    assert cached["M4"].value == cached["K4"].value - cached["L4"].value
    assert {c.value for c in sheet["D"][3:]} == {"M", "F", "U", "KB", "KG"}


def test_the_mapping_written_from_the_docs_reads_the_workbooks_real_values(product_workbook, fixture_items):
    """Ids read as written (1163, not 1163.0), prices as numbers, the Sale Price formula as its stored value, the
    kidswear codes through the value map: every item as the fixture has it."""
    result = ingest(product_workbook / "product_master.xlsx", mapping=product_workbook / "mapping.toml")
    items = result.table.to_pylist()
    source = {item["item_id"]: item for item in fixture_items.to_pylist() if item["name"]}
    assert [i["item_id"] for i in items] == list(source) and all(re.fullmatch(r"\d+", i["item_id"]) for i in items)
    for item in items:
        real = source[item["item_id"]]
        assert {k: item[k] for k in ("name", "gender", "article_type", "sub_category", "base_colour", "price")} == \
            {k: real[k] for k in ("name", "gender", "article_type", "sub_category", "base_colour", "price")}, item["item_id"]
        on_sale = real["discounted_price"] is not None and real["price"] and real["discounted_price"] < real["price"]
        assert item["discounted_price"] == (real["discounted_price"] if on_sale else real["price"]), item["item_id"]
    genders = [i["gender"] for i in items]
    assert genders.count("Boys") > 20 and genders.count("Girls") > 20 and genders.count("Unisex") > 20
    assert sum(i["discounted_price"] < i["price"] for i in items if i["price"]) > 100  # the formula's values, not the MRP
    report = result.report.to_dict()
    assert report["rows_read"] == len(items) == 2180 and report["rejected_rows"] == 0
    assert "the header is row 3 of sheet 'Products' of product_master.xlsx (header_row in the mapping); the rows above it are skipped" \
        in report["notes"]
    assert not any(n.startswith("read the sheet") for n in report["notes"])  # the mapping names it


def test_date_cells_read_as_iso_dates_and_each_record_names_its_sheet_row(product_workbook, fixture_items):
    report = IngestReport(source="t", layout="t")
    records, columns = read_records(product_workbook / "product_master.xlsx", "xlsx", report, header_row=3, sheet="Products")
    years = {item["item_id"]: item["year"] for item in fixture_items.to_pylist()}
    assert columns[9] == "Launch Date" and records[0][0] == "product_master.xlsx Products!row 4" and records[-1][0].endswith("row 2183")
    for _, record in records:
        year = years[record["Style Code"]]
        assert (re.fullmatch(rf"{year}-\d\d-\d\d", record["Launch Date"]) is not None) if year else record["Launch Date"] == ""
    assert report.rows_read == len(records) == 2180


def test_without_a_sheet_line_the_fullest_sheet_is_read_and_named_in_a_note(product_workbook, tmp_path):
    text = (product_workbook / "mapping.toml").read_text(encoding="utf-8").replace('sheet = "Products"\n', "")
    result = ingest(product_workbook / "product_master.xlsx", mapping=mapping_file(tmp_path, text))
    assert result.table.num_rows == 2180
    assert "read the sheet 'Products' of product_master.xlsx, the one with the most filled rows; passed over 'Instructions', 'Codes' " \
           "(set sheet in the mapping file to read another)" in result.report.notes


@pytest.mark.parametrize(("line", "says"), [
    ('sheet = "Nope"', "product_master.xlsx has no sheet 'Nope' (its sheets: 'Instructions', 'Products', 'Codes'); set sheet in the "
                       "mapping file to one of them."),
    ('shet = "Products"', "has an unknown key 'shet'; did you mean 'sheet'?"),
    ("sheet = 2", "sets sheet = 2; give the name of the workbook's sheet to read, e.g. sheet = \"Products\"."),
    ('format = "csv"\nsheet = "Products"', "sets sheet with format = 'csv'; only Excel workbooks have sheets."),
])
def test_a_wrong_sheet_line_is_one_sentence(product_workbook, tmp_path, capsys, line, says):
    text = (product_workbook / "mapping.toml").read_text(encoding="utf-8").replace('sheet = "Products"', line)
    code, err = _cli_error(capsys, "ingest", product_workbook / "product_master.xlsx", "--mapping", mapping_file(tmp_path, text),
                           "--out", tmp_path / "out")
    assert code == 2 and says in " ".join(err.split()) and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()


def test_a_sheet_line_for_a_csv_file_is_refused(tmp_path):
    catalog = tmp_path / "c.csv"
    catalog.write_text("Style Code,Product Name,Product Type\n1,Red Top,Tops\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"names the sheet 'Products', but .*c\.csv is no Excel workbook; remove the sheet line"):
        ingest(catalog, mapping=mapping_file(tmp_path, 'sheet = "Products"\n' + MINIMAL))


def test_a_header_below_a_title_is_refused_with_the_header_row_to_set(product_workbook, tmp_path):
    text = (product_workbook / "mapping.toml").read_text(encoding="utf-8").replace("header_row = 3", "")
    with pytest.raises(InputError) as caught:
        ingest(product_workbook / "product_master.xlsx", mapping=mapping_file(tmp_path, text))
    assert str(caught.value).endswith("product_master.xlsx (row 1) has 1 fields but most rows have more: its columns are named on "
                                      "row 3; set header_row = 3 in the mapping file.")


@pytest.mark.parametrize("damage", ["truncated", "not a zip", "password"])
def test_a_broken_workbook_is_one_sentence_and_exit_2(product_workbook, tmp_path, capsys, damage):
    raw = (product_workbook / "product_master.xlsx").read_bytes()
    broken = {"truncated": raw[: len(raw) // 2], "not a zip": b"Style Code,Product Name\n1,Top\n",
              "password": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + raw[:512]}[damage]
    catalog = tmp_path / "product_master.xlsx"
    catalog.write_bytes(broken)
    code, err = _cli_error(capsys, "ingest", catalog, "--mapping", product_workbook / "mapping.toml", "--out", tmp_path / "out")
    message = " ".join(err.split())
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err and message.count(". ") == 0, err
    fix = "remove the password in Excel" if damage == "password" else "is not a readable Excel workbook (BadZipFile"
    assert fix in message and "save the sheet as CSV (UTF-8)" in message, message
    assert not (tmp_path / "out").exists()


def test_a_header_that_names_a_column_twice_is_refused(tmp_path):
    catalog = _workbook(tmp_path / "c.xlsx", {"Products": [["Style Code", "Product Name", "Product Type", "Product Name"],
                                                          [1163, "Red Top", "Tops", "Red Top (old)"]]})
    with pytest.raises(InputError, match=r"sheet 'Products' of .*c\.xlsx \(row 1\) has the column 'Product Name' twice in its header "
                                         r"\(columns 2 and 4\); rename or remove one"):
        ingest(catalog, mapping=mapping_file(tmp_path, MINIMAL))


def test_products_split_over_sheets_with_one_header_are_refused(tmp_path):
    header = ["Style Code", "Product Name", "Product Type"]
    catalog = _workbook(tmp_path / "c.xlsx", {"Men": [header, [1, "Blue Shirt", "Shirts"], [2, "Grey Shirt", "Shirts"]],
                                              "Women": [header, [3, "Red Top", "Tops"]]})
    with pytest.raises(InputError, match=r"holds products with the same columns on the sheets 'Men' and 'Women'; fashionrq reads one "
                                         r'sheet: move them onto one sheet, or set sheet = "Men" in the mapping file'):
        ingest(catalog, mapping=mapping_file(tmp_path, MINIMAL))
    assert ingest(catalog, mapping=mapping_file(tmp_path, 'sheet = "Women"\n' + MINIMAL)).table.column("name").to_pylist() == ["Red Top"]


def test_blank_rows_error_cells_unnamed_columns_and_formulas_never_calculated(tmp_path):
    """Blank rows are skipped like blank CSV lines; #N/A reads as empty (noted); values under a header cell left empty
    (a merged header) are noted; a formula openpyxl wrote has no stored value, so it reads as empty."""
    catalog = _workbook(tmp_path / "c.xlsx", {"Products": [
        ["Style Code", "Product Name", "Product Type", "MRP", None, "Sale Price"],
        [1163, "Red Top", "Tops", 799, "extra", "=D2*0.9"],
        [],
        [1164.0, "Blue Top", "Tops", "#N/A", None, 500, None, None],
    ]})
    mapping = mapping_file(tmp_path, MINIMAL + 'price = "MRP"\ndiscounted_price = "Sale Price"\n')
    result = ingest(catalog, mapping=mapping)
    assert [(i["item_id"], i["price"], i["discounted_price"]) for i in result.table.to_pylist()] == [("1163", 799.0, None),
                                                                                                   ("1164", None, 500.0)]
    assert result.report.rows_read == 2 and not result.report.rejected
    notes = "\n".join(result.report.notes)
    assert "1 formula error cells (#N/A, #REF!, ...) of sheet 'Products' of c.xlsx read as empty" in notes
    assert "the column(s) E of sheet 'Products' of c.xlsx hold values but have no name in row 1" in notes


def test_an_empty_header_row_or_an_empty_workbook_is_one_sentence(product_workbook, tmp_path):
    text = (product_workbook / "mapping.toml").read_text(encoding="utf-8").replace("header_row = 3", "header_row = 2")
    with pytest.raises(InputError, match=r"row 2 of sheet 'Products' of .*product_master\.xlsx is empty, so it names no columns; "
                                         r"set header_row = 3 \(the row that seems to name them\)"):
        ingest(product_workbook / "product_master.xlsx", mapping=mapping_file(tmp_path, text))
    empty = _workbook(tmp_path / "empty.xlsx", {"Sheet1": [], "Sheet2": [[None, None]]})
    with pytest.raises(InputError, match=r"empty\.xlsx has no filled cells \(sheets: 'Sheet1', 'Sheet2'\); pass a workbook"):
        ingest(empty, mapping=mapping_file(tmp_path, MINIMAL))
