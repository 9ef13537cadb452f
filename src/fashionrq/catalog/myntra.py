"""Reader for the Myntra "Fashion Product Images" layout: styles.csv, per-item JSON, optional images."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from fashionrq.catalog.clean import RowCleaner, check_item_id
from fashionrq.catalog.files import csv_table, read_text
from fashionrq.catalog.photos import PhotoFolder, note_found_by_id
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.schema import clean_string, strip_html
from fashionrq.errors import InputError
from fashionrq.progress import track

STYLES_COLUMNS = (
    "id", "gender", "masterCategory", "subCategory", "articleType",
    "baseColour", "season", "year", "usage", "productDisplayName",
)
REQUIRED_STYLES_COLUMNS = ("id", "articleType", "productDisplayName")
JSON_NAMES = ("styles_json.jsonl.gz", "styles_json.jsonl", "styles.jsonl.gz", "styles.jsonl")


def is_myntra_layout(path: Path) -> bool:
    """True when ``path`` is a folder holding a Myntra ``styles.csv`` (or ``styles.csv.gz``)."""
    return path.is_dir() and any((path / name).exists() for name in ("styles.csv", "styles.csv.gz"))


def _styles_rows(path: Path, report: IngestReport) -> list[dict]:
    text = read_text(path)
    if not text.strip():
        raise InputError(f"{path} is empty; a Myntra styles.csv needs the header {','.join(STYLES_COLUMNS)} and one line per product.")
    header, reader = csv_table(path, text)
    for column in REQUIRED_STYLES_COLUMNS:
        if column not in header:
            raise InputError(
                f"{path} is missing the required column {column!r} (header: {','.join(header)}); "
                "add it, or ingest the file as a generic catalog with a --mapping file."
            )
    width = len(header)
    name_at = header.index("productDisplayName")
    rows = []
    for line_no, fields in reader:
        report.rows_read += 1
        if len(fields) > width and name_at == width - 1:
            fields = fields[: width - 1] + [",".join(fields[width - 1:])]
            report.repair("unquoted_comma_in_name", fields[header.index("id")].strip())
        if len(fields) != width:
            report.reject(f"{path.name}:{line_no}", f"expected {width} fields, found {len(fields)}")
            continue
        row = dict(zip(header, fields))
        if clean_string(row["id"]) is None:
            report.reject(f"{path.name}:{line_no}", "empty id")
            continue
        check_item_id(row["id"].strip(), f"{path} line {line_no}")
        rows.append(row)
    return rows


def _json_records(folder: Path, report: IngestReport) -> dict[str, dict]:
    """Per-item JSON ``data`` records keyed by id, from ``styles/<id>.json`` or a ``.jsonl(.gz)`` file."""
    records: dict[str, dict] = {}
    jsonl = next((folder / n for n in JSON_NAMES if (folder / n).exists()), None)
    if jsonl is not None:
        lines = read_text(jsonl).splitlines()
        sources: Iterator[tuple[str, str]] = ((f"{jsonl.name}:{i}", line) for i, line in enumerate(lines, 1) if line.strip())
        total = len(lines)
    elif (folder / "styles").is_dir():
        files = sorted((folder / "styles").glob("*.json"))
        sources = ((f"styles/{f.name}", read_text(f)) for f in files)
        total = len(files)
    else:
        report.notes.append("no per-item JSON found (styles/<id>.json or styles_json.jsonl[.gz]); rich fields are missing")
        return records
    for where, text in track(sources, "reading item JSON", total=total):
        try:
            record = json.loads(text)
        except json.JSONDecodeError as err:
            report.reject(where, f"malformed JSON record ({err.msg}); its item keeps only the styles.csv fields")
            continue
        data = record.get("data", record) if isinstance(record, dict) else None
        if not isinstance(data, dict) or clean_string(data.get("id")) is None:
            report.reject(where, "JSON record without a data.id; its item keeps only the styles.csv fields")
            continue
        records[str(data["id"]).strip()] = data
    return records


def _description(data: dict) -> str | None:
    descriptors = data.get("productDescriptors") or {}
    desc = descriptors.get("description") if isinstance(descriptors, dict) else None
    return strip_html(desc.get("value") if isinstance(desc, dict) else desc)


def _item(clean: RowCleaner, row: dict, data: dict) -> dict:
    """The canonical fields of one product from its styles.csv row and JSON record."""
    base = clean.text("base_colour", row.get("baseColour")) or clean.text("base_colour", data.get("baseColour"))
    age_group = clean.age_group(data.get("ageGroup"))
    colours = [base, clean.text("colours", data.get("colour1")), clean.text("colours", data.get("colour2"))]
    attributes = data.get("articleAttributes")
    return {
        "item_id": clean.item_id,
        "name": clean.text("name", row.get("productDisplayName")),
        "brand": clean.text("brand", data.get("brandName")),
        "gender": clean.gender(row.get("gender"), age_group),
        "age_group": age_group,
        "master_category": clean.text("master_category", row.get("masterCategory")),
        "sub_category": clean.text("sub_category", row.get("subCategory")),
        "article_type": clean.text("article_type", row.get("articleType")),
        "base_colour": base,
        "colours": list(dict.fromkeys(c for c in colours if c)),
        "season": clean.text("season", row.get("season")),
        "year": clean.year(row.get("year")),
        "usage": clean.text("usage", row.get("usage")),
        "price": clean.price("price", data.get("price")),
        "discounted_price": clean.price("discounted_price", data.get("discountedPrice")),
        "description": clean.text("description", _description(data)),
        "attributes": clean.attributes(attributes if isinstance(attributes, dict) else None),
    }


def read_myntra(folder: Path, report: IngestReport, images: Path | None = None) -> list[dict]:
    """Read a Myntra-layout folder into canonical item dicts, repairing and counting as it goes; each item's photo is
    the one ``images`` (default ``folder/images``) holds under its id (:class:`~fashionrq.catalog.photos.PhotoFolder`)."""
    styles = folder / "styles.csv" if (folder / "styles.csv").exists() else folder / "styles.csv.gz"
    rows = _styles_rows(styles, report)
    records = _json_records(folder, report)
    image_dir = images if images is not None else folder / "images"
    photos = PhotoFolder.scan(image_dir)
    without_json = []
    items = []
    for row in rows:
        item_id = row["id"].strip()
        data = records.get(item_id)
        if data is None:
            without_json.append(item_id)
            data = {}
        item = _item(RowCleaner(report, item_id), row, data)
        item["image_path"] = str(photo) if (photo := photos.photo_of(item_id)) is not None else None
        items.append(item)
    if images is not None:  # a folder the user names: say how many photos it gave, refuse one that gave none
        note_found_by_id(report, photos, sum(item["image_path"] is not None for item in items), len(items),
                         items[0]["item_id"] if items else None)
    if without_json:
        report.notes.append(f"{len(without_json)} items have no JSON record and keep only styles.csv fields: {', '.join(without_json)}")
    orphan_json = len(set(records) - {row['id'].strip() for row in rows})
    if orphan_json:
        report.notes.append(f"{orphan_json} JSON records have no styles.csv row and were not ingested")
    return items
