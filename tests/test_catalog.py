"""Catalog ingestion on real Myntra data: repairs, missing values, mapped catalogs and every bad-input error."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import MYNTRA_SMALL, OTHER_SCHEMA
from fashionrq.catalog import FIELDS, ingest, load_items, save_ingest
from fashionrq.errors import InputError

REPAIRED_IDS = {"44065", "3413", "23101", "23108", "4854", "23109", "23100", "23107", "59768", "23114", "23112",
                "23115", "23124", "3428", "23103", "3418", "23110", "23117", "23116", "23111", "23118", "23127"}


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fashionrq", *args], capture_output=True, text=True)


def test_bundled_catalog_ingests_every_product_and_reports_the_22_repairs(bundled):
    table, report = bundled  # ingest("bundled"), shared by the workers (conftest.py)
    assert table.num_rows == 44_446
    assert report["rows_read"] == 44_446 and report["rejected_rows"] == 0
    assert set(report["repaired"]["unquoted_comma_in_name"]["ids"]) == REPAIRED_IDS
    assert set(report["missing"]) == set(FIELDS)
    # the names of repaired rows keep their commas
    names = dict(zip(table.column("item_id").to_pylist(), table.column("name").to_pylist()))
    assert all("," in names[i] for i in REPAIRED_IDS)
    # PROVENANCE.md: 316 literal "NA" usages plus 1 empty -> null; 21 empty seasons
    assert report["missing"]["usage"] == 317 and report["missing"]["season"] == 21


def test_fixture_fields_are_normalised(fixture_items):
    rows = fixture_items.to_pylist()
    by_id = {r["item_id"]: r for r in rows}
    assert len(rows) == 2181
    assert {r["gender"] for r in rows} <= {"Men", "Women", "Boys", "Girls", "Unisex"}
    assert {r["age_group"] for r in rows} <= {"adult", "kids", None}
    assert all(r["description"] is None or "<" not in r["description"] for r in rows)
    assert all(r["price"] is None or r["price"] > 1 for r in rows)
    assert all("NA" not in dict(r["attributes"]).values() for r in rows)
    assert sum(bool(r["attributes"]) for r in rows) > 1500
    assert by_id["12347"]["brand"] is None and by_id["12347"]["article_type"] is not None  # no JSON record
    images = [r["image_path"] for r in rows if r["image_path"]]
    assert len(images) == 30 and all(Path(p).exists() for p in images)


def test_placeholder_prices_are_counted_not_dropped():
    result = ingest(MYNTRA_SMALL)
    nulled = result.report.to_dict()["values_nulled"]["placeholder_price"]["ids"]
    prices = dict(zip(result.table.column("item_id").to_pylist(), result.table.column("price").to_pylist()))
    assert nulled and all(prices[i] is None for i in nulled)


def test_ingest_is_byte_identical_across_runs(tmp_path):
    for name in ("a", "b"):
        save_ingest(ingest(MYNTRA_SMALL), tmp_path / name)
    assert (tmp_path / "a/items.parquet").read_bytes() == (tmp_path / "b/items.parquet").read_bytes()
    assert (tmp_path / "a/ingest_report.json").read_bytes() == (tmp_path / "b/ingest_report.json").read_bytes()
    assert load_items(tmp_path / "a").num_rows == 2181


def test_other_schema_ingests_through_a_mapping_file(tmp_path):
    result = ingest(OTHER_SCHEMA / "catalog.csv", mapping=OTHER_SCHEMA / "mapping.toml")
    rows = {r["item_id"]: r for r in result.table.to_pylist()}
    assert len(rows) == 200
    assert {r["gender"] for r in rows.values()} <= {"Men", "Women", "Boys", "Girls", "Unisex"}
    myntra = {r["item_id"]: r for r in ingest(MYNTRA_SMALL).table.to_pylist()}
    for sku, row in list(rows.items())[:50]:
        original = myntra[sku.removeprefix("SKU-")]
        assert row["name"] == original["name"]
        assert row["gender"] == original["gender"]
        assert row["article_type"] == original["article_type"]
        assert row["base_colour"] == original["base_colour"]
        assert row["price"] == original["price"]
        assert dict(row["attributes"]).get("Fabric") == dict(original["attributes"]).get("Fabric")


def test_cli_ingest_writes_table_and_report(tmp_path):
    done = run_cli("ingest", str(MYNTRA_SMALL), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stderr.split())  # 22 names with unquoted commas, 23 kidswear items called Men or Women
    assert "45 rows repaired" in said and "repaired (gender_from_age_group): 23" in said
    assert pq.read_metadata(tmp_path / "out" / "items.parquet").num_rows == 2181
    assert (tmp_path / "out" / "ingest_report.json").exists()


def _header_and_rows(n: int = 5) -> list[str]:
    return (MYNTRA_SMALL / "styles.csv").read_text(encoding="utf-8").splitlines()[: n + 1]


def _myntra_folder(tmp_path: Path, lines: list[str] | bytes) -> Path:
    folder = tmp_path / "catalog"
    folder.mkdir()
    data = lines if isinstance(lines, bytes) else ("\n".join(lines) + "\n").encode()
    (folder / "styles.csv").write_bytes(data)
    return folder


def _assert_clean_error(done: subprocess.CompletedProcess, *needles: str) -> None:
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    message = " ".join(done.stderr.split())
    for needle in needles:
        assert needle in message, message


def test_missing_required_column(tmp_path):
    lines = [line.replace("articleType", "kind") for line in _header_and_rows()]
    done = run_cli("ingest", str(_myntra_folder(tmp_path, lines)), "--out", str(tmp_path / "o"))
    _assert_clean_error(done, "styles.csv", "'articleType'", "add it")


def test_empty_file(tmp_path):
    done = run_cli("ingest", str(_myntra_folder(tmp_path, b"")), "--out", str(tmp_path / "o"))
    _assert_clean_error(done, "styles.csv is empty")


def test_duplicate_ids(tmp_path):
    lines = _header_and_rows()
    done = run_cli("ingest", str(_myntra_folder(tmp_path, [*lines, lines[2]])), "--out", str(tmp_path / "o"))
    _assert_clean_error(done, "duplicate item id", lines[2].split(",")[0], "unique")


def test_unreadable_encoding(tmp_path):
    data = ("\n".join(_header_and_rows()) + "\n").encode().replace(b"Men", "Mén".encode("latin-1"), 1)
    done = run_cli("ingest", str(_myntra_folder(tmp_path, data)), "--out", str(tmp_path / "o"))
    _assert_clean_error(done, "not valid utf-8", "offset", "UTF-8")


def test_mapping_names_a_missing_column(tmp_path):
    mapping = (OTHER_SCHEMA / "mapping.toml").read_text().replace('vendor"', 'brand_name"')
    (tmp_path / "mapping.toml").write_text(mapping)
    done = run_cli("ingest", str(OTHER_SCHEMA / "catalog.csv"), "--mapping", str(tmp_path / "mapping.toml"),
                   "--out", str(tmp_path / "o"))
    _assert_clean_error(done, "'brand_name'", "catalog.csv does not have", "fix the column name")


def test_catalog_path_does_not_exist(tmp_path):
    done = run_cli("ingest", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"))
    _assert_clean_error(done, "does not exist", "bundled")


def test_malformed_rows_are_rejected_and_counted(tmp_path):
    lines = _header_and_rows()
    lines.insert(3, "99999999,Men,Apparel")  # too few fields
    result = ingest(_myntra_folder(tmp_path, lines))
    report = result.report.to_dict()
    assert report["rejected_rows"] == 1 and "expected 10 fields, found 3" in report["rejected"][0]["reason"]
    assert result.table.num_rows == 5 and report["rows_read"] == 6


def test_mapped_rows_without_required_fields_are_rejected(tmp_path):
    text = (OTHER_SCHEMA / "catalog.csv").read_text(encoding="utf-8")
    header, first, *rest = text.splitlines(keepends=True)
    broken = first.split(",", 1)[0] + ",," + first.split(",", 2)[2]  # empty title
    (tmp_path / "c.csv").write_text(header + broken + "".join(rest), encoding="utf-8")
    result = ingest(tmp_path / "c.csv", mapping=OTHER_SCHEMA / "mapping.toml")
    assert result.report.to_dict()["rejected_rows"] == 1
    assert "name" in result.report.rejected[0]["reason"]


def test_jsonl_catalog_with_a_gzip_json_layout(tmp_path):
    # the Myntra JSON may also come as styles/<id>.json files
    folder = _myntra_folder(tmp_path, _header_and_rows(3))
    (folder / "styles").mkdir()
    with gzip.open(MYNTRA_SMALL / "styles_json.jsonl.gz", "rt", encoding="utf-8") as handle:
        wanted = {line.split(",", 1)[0] for line in _header_and_rows(3)[1:]}
        for line in handle:
            item_id = line.split('"id":', 1)[1].split(",", 1)[0]
            if item_id in wanted:
                (folder / "styles" / f"{item_id}.json").write_text(line.strip())
    rows = ingest(folder).table.to_pylist()
    assert sum(r["brand"] is not None for r in rows) == len(list((folder / "styles").glob("*.json")))
    with pytest.raises(InputError):
        ingest(folder, images=tmp_path / "no-images")


def test_the_report_counts_one_row_in_the_singular():
    from fashionrq.catalog.report import summary_counts

    assert summary_counts({"rows_read": 2, "rows_written": 1, "repaired_rows": 0, "rejected_rows": 1}) == (
        "2 rows read, 1 item written, 0 rows repaired, 1 row rejected")
