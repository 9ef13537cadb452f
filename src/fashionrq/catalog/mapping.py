"""Generic catalogs: a CSV, JSONL or Parquet file plus a TOML mapping onto the canonical fields.

See ``docs/catalog.md`` for the mapping format and a worked example.
"""

from __future__ import annotations

import csv
import io
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from fashionrq.catalog.myntra import read_text
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.schema import (
    FIELDS,
    REQUIRED_FIELDS,
    clean_string,
    normalise_age_group,
    normalise_gender,
    parse_price,
    parse_year,
    strip_html,
)
from fashionrq.errors import InputError

SUPPORTED_FORMATS = ("csv", "jsonl", "parquet")


@dataclass
class Mapping:
    """How one catalog's columns map onto the canonical item fields."""

    columns: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)
    values: dict[str, dict[str, str]] = field(default_factory=dict)
    list_separator: str = "|"
    encoding: str = "utf-8"
    format: str | None = None
    source: str = "<identity mapping>"

    @classmethod
    def load(cls, path: Path) -> Mapping:
        """Read and validate a TOML mapping file."""
        if not path.exists():
            raise InputError(f"mapping file {path} does not exist; pass the path of a TOML mapping (see docs/catalog.md).")
        try:
            spec = tomllib.loads(read_text(path))
        except tomllib.TOMLDecodeError as err:
            raise InputError(f"mapping file {path} is not valid TOML ({err}); fix the syntax.") from None
        columns = spec.get("columns", {})
        unknown = sorted(set(columns) - set(FIELDS) - {"attributes"})
        if unknown:
            raise InputError(
                f"mapping file {path} maps unknown field(s) {', '.join(unknown)} in [columns]; "
                f"use canonical fields only ({', '.join(FIELDS)})."
            )
        fmt = spec.get("format")
        if fmt is not None and fmt not in SUPPORTED_FORMATS:
            raise InputError(f"mapping file {path} sets format = {fmt!r}; use one of {', '.join(SUPPORTED_FORMATS)}.")
        return cls(
            columns={k: str(v) for k, v in columns.items()},
            attributes={k: str(v) for k, v in spec.get("attributes", {}).items()},
            values={k: {str(a).lower(): str(b) for a, b in v.items()} for k, v in spec.get("values", {}).items()},
            list_separator=spec.get("list_separator", "|"),
            encoding=spec.get("encoding", "utf-8"),
            format=fmt,
            source=str(path),
        )

    def source_column(self, canonical: str) -> str:
        return self.columns.get(canonical, canonical)


def _detect_format(path: Path, mapping: Mapping) -> str:
    if mapping.format:
        return mapping.format
    name = path.name.lower().removesuffix(".gz")
    for fmt in SUPPORTED_FORMATS:
        if name.endswith("." + fmt) or (fmt == "jsonl" and name.endswith(".ndjson")):
            return fmt
    raise InputError(f"cannot tell the format of {path} from its name; rename it to .csv, .jsonl or .parquet, or set format in the mapping file.")


def _read_records(path: Path, mapping: Mapping, report: IngestReport) -> tuple[list[dict], list[str]]:
    fmt = _detect_format(path, mapping)
    if fmt == "parquet":
        try:
            table = pq.read_table(path)
        except Exception as err:  # pyarrow raises several types for unreadable files
            raise InputError(f"{path} is not a readable Parquet file ({err}); re-export it.") from None
        if table.num_rows == 0:
            raise InputError(f"{path} is empty; pass a catalog with at least one product.")
        report.rows_read = table.num_rows
        return table.to_pylist(), table.column_names
    text = read_text(path, mapping.encoding)
    if not text.strip():
        raise InputError(f"{path} is empty; pass a catalog with a header row and at least one product.")
    if fmt == "csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))
        columns = [c.strip() for c in reader.fieldnames or []]
        reader.fieldnames = columns
        records = []
        for line_no, row in enumerate(reader, start=2):
            report.rows_read += 1
            if None in row:  # more fields than the header
                report.reject(f"{path.name}:{line_no}", f"{len(columns) + len(row[None])} fields for {len(columns)} columns")
                continue
            records.append(row)
        if not records and not report.rejected:
            raise InputError(f"{path} has a header but no products; add at least one row.")
        return records, columns
    records, columns = [], {}
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        report.rows_read += 1
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            report.reject(f"{path.name}:{line_no}", f"malformed JSON ({err.msg})")
            continue
        if not isinstance(record, dict):
            report.reject(f"{path.name}:{line_no}", "a JSON line must be an object")
            continue
        columns.update(dict.fromkeys(record))
        records.append(record)
    return records, list(columns)


def _check_columns(path: Path, mapping: Mapping, columns: list[str]) -> None:
    available = set(columns)
    for canonical, column in sorted(mapping.columns.items()):
        if column not in available:
            raise InputError(
                f"{mapping.source} maps {canonical} to column {column!r}, which {path.name} does not have "
                f"(columns: {', '.join(columns)}); fix the column name in the mapping."
            )
    for key, column in sorted(mapping.attributes.items()):
        if column not in available:
            raise InputError(
                f"{mapping.source} maps attribute {key!r} to column {column!r}, which {path.name} does not have "
                f"(columns: {', '.join(columns)}); fix the column name in the mapping."
            )
    for canonical in REQUIRED_FIELDS:
        if mapping.source_column(canonical) not in available:
            raise InputError(
                f"{path} is missing the required column {mapping.source_column(canonical)!r} for field {canonical}; "
                f"add it, or map another column to {canonical} under [columns] in a mapping file."
            )


def _list_value(value: object, separator: str) -> list[str]:
    if isinstance(value, list | tuple):
        items = value
    else:
        text = clean_string(value)
        items = text.split(separator) if text else []
    return [c for c in (clean_string(v) for v in items) if c]


def read_generic(path: Path, mapping: Mapping, report: IngestReport) -> list[dict]:
    """Read a generic catalog file through ``mapping`` into canonical item dicts."""
    records, columns = _read_records(path, mapping, report)
    _check_columns(path, mapping, columns)
    items = []
    id_column = mapping.source_column("item_id")
    for position, record in enumerate(records, start=1):
        raw = {name: record.get(mapping.source_column(name)) for name in FIELDS}
        for name, table in mapping.values.items():
            if name in raw and clean_string(raw[name]) is not None:
                raw[name] = table.get(str(raw[name]).strip().lower(), raw[name])
        item_id = clean_string(raw["item_id"])
        if item_id is None:
            report.reject(f"{path.name} record {position}", f"empty id in column {id_column!r}")
            continue
        missing_required = [f for f in REQUIRED_FIELDS if clean_string(raw[f]) is None]
        if missing_required:
            report.reject(f"{path.name} record {position} (id {item_id})", f"empty required field(s) {', '.join(missing_required)}")
            continue
        price, placeholder = parse_price(raw["price"])
        if placeholder:
            report.null_value("placeholder_price", item_id)
        discounted, placeholder = parse_price(raw["discounted_price"])
        if placeholder:
            report.null_value("placeholder_discounted_price", item_id)
        attributes = raw["attributes"] if isinstance(raw["attributes"], dict) else {}
        attributes = {str(k): clean_string(v) for k, v in attributes.items()}
        attributes.update({key: clean_string(record.get(column)) for key, column in mapping.attributes.items()})
        colours = _list_value(raw["colours"], mapping.list_separator)
        base = clean_string(raw["base_colour"]) or (colours[0] if colours else None)
        items.append(
            {
                "item_id": item_id,
                "name": clean_string(raw["name"]),
                "brand": clean_string(raw["brand"]),
                "gender": normalise_gender(raw["gender"]),
                "age_group": normalise_age_group(raw["age_group"]),
                "master_category": clean_string(raw["master_category"]),
                "sub_category": clean_string(raw["sub_category"]),
                "article_type": clean_string(raw["article_type"]),
                "base_colour": base,
                "colours": list(dict.fromkeys(([base] if base else []) + colours)),
                "season": clean_string(raw["season"]),
                "year": parse_year(raw["year"]),
                "usage": clean_string(raw["usage"]),
                "price": price,
                "discounted_price": discounted,
                "description": strip_html(raw["description"]),
                "attributes": {k: v for k, v in attributes.items() if v is not None},
                "image_path": clean_string(raw["image_path"]),
            }
        )
    return items
