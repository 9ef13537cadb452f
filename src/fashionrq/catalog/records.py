"""The records of a mapped catalog file (CSV or TSV with any delimiter, JSON lines, a JSON array, Parquet, an XML
feed, an Excel workbook's sheet) or of a folder of JSON files or of CSV or TSV parts of one table, each with where it came from, before any field is mapped. Every failure is one sentence naming the file and the fix."""

from __future__ import annotations

import ast
import codecs
import json
import re
from collections import Counter
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from fashionrq.catalog.files import (check_header, csv_rows, csv_table, header_line_in_rows, read_bytes, read_text,
                                     refuse_narrow_header, table_records)
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.schema import python_expression, python_literal
from fashionrq.catalog.sheets import sheet_records
from fashionrq.catalog.xmlfeed import xml_records
from fashionrq.errors import InputError

FORMATS = ("csv", "tsv", "jsonl", "json", "parquet", "xml", "xlsx")
#: File name endings (before any ``.gz``) and the format each means.
SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
            ".json": "json", ".parquet": "parquet", ".pq": "parquet", ".xml": "xml", ".xlsx": "xlsx", ".xlsm": "xlsx"}
DEFAULT_DELIMITERS = {"csv": ",", "tsv": "\t"}
#: Spreadsheets fashionrq does not read: old binary Excel, OpenDocument, Apple Numbers.
SPREADSHEETS = (".xls", ".ods", ".numbers")
SAVE_AS_CSV = "save the sheet as CSV (UTF-8) and pass that file"
#: Delimiters a header that reads as one column is checked for, with the words the fix names them by.
DELIMITER_NAMES = {";": "semicolons", "\t": "tabs", "|": "vertical bars", ",": "commas"}

#: ``(where, record)``: where a record came from (``file:line``, ``file row n`` or ``file record n``) and its raw
#: values by column.
Records = list[tuple[str, dict]]


def detect_format(path: Path, declared: str | None) -> str:
    """The mapping's ``format`` if it names one, else the format the file name says; a folder is read as JSON files,
    or as the parts of one CSV or TSV table when it holds those and no JSON file."""
    if path.is_dir():
        parts = table_parts(path)
        if parts and declared in (None, parts[0][1]):
            return parts[0][1]
        if declared not in (None, "json", "jsonl"):
            raise InputError(f"{path} is a folder, which is read as JSON files (one or more products each) or as CSV or TSV "
                             f"parts of one table, but the mapping sets format = {declared!r}; drop that line, or pass the "
                             f"{declared} file itself.")
        return "json"
    if declared:
        return declared
    suffix = Path(path.name.lower().removesuffix(".gz")).suffix
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    if suffix in SPREADSHEETS:
        raise InputError(f"{path} is a spreadsheet, which fashionrq does not read ({suffix}); save it as an Excel workbook (.xlsx), "
                         f"or {SAVE_AS_CSV}.")
    txt = " (a .txt export is usually tab-separated: format = \"tsv\")" if suffix == ".txt" else ""
    raise InputError(f"cannot tell the format of {path} from its name; rename it to .csv, .tsv, .jsonl, .json, .parquet, .xml or .xlsx, "
                     f"or set format in the mapping file{txt}.")


def read_records(path: Path, fmt: str, report: IngestReport, encoding: str = "utf-8",
                 delimiter: str | None = None, header_row: int = 1, sheet: str | None = None,
                 record: str | None = None) -> tuple[Records, list[str]]:
    """Every record of the catalog file ``path`` in format ``fmt``, and its columns (rows counted in ``report``); a
    CSV file's or a workbook sheet's header is its row ``header_row``, the rows above it skipped and counted in a
    note; a workbook's sheet is ``sheet``, else the one with the most filled rows; an XML feed's records are its
    ``record`` elements (default: its repeated product element). A folder is read as a folder of JSON files
    (:func:`_folder_records`), or as the parts of one table (:func:`_parts_records`)."""
    if record is not None and fmt != "xml":
        raise InputError(f"the mapping file sets record = {record!r}, which names the product element of an XML feed, but {path} "
                         f"is read as {fmt}; remove record from the mapping file.")
    if fmt == "xml":
        return xml_records(path, report, record)
    if fmt == "xlsx":
        return sheet_records(path, report, sheet, header_row)
    if sheet is not None:
        raise InputError(f"the mapping names the sheet {sheet!r}, but {path} is no Excel workbook; remove the sheet line.")
    if path.is_dir():
        if fmt in DEFAULT_DELIMITERS:
            return _parts_records(path, report, encoding, delimiter or DEFAULT_DELIMITERS[fmt], header_row)
        return _folder_records(path, report, encoding)
    if fmt == "parquet":
        return _parquet_records(path, report)
    text = read_text(path, encoding)
    if not text.strip():
        raise InputError(f"{path} is empty; pass a catalog with a header row and at least one product.")
    if fmt == "jsonl":
        return _objects(_jsonl_entries(path.name, text, report), report)
    if fmt == "json":
        return _json_records(path, text, report)
    return _csv_records(path, text, report, delimiter or DEFAULT_DELIMITERS[fmt], header_row)


def _parquet_records(path: Path, report: IngestReport) -> tuple[Records, list[str]]:
    try:
        parquet = pq.ParquetFile(pa.BufferReader(read_bytes(path)))
        check_header(path, parquet.schema_arrow.names)
        table = parquet.read()
    except (pa.ArrowException, OSError) as err:
        raise InputError(f"{path} is not a readable Parquet file ({err}); re-export it.") from None
    if table.num_rows == 0:
        raise InputError(f"{path} is empty; pass a catalog with at least one product.")
    try:
        rows = table.to_pylist(maps_as_pydicts="strict")
    except KeyError as err:
        raise InputError(f"{path} has a map value that repeats a key ({err.args[0]}); keep each key once per map.") from None
    report.rows_read = table.num_rows
    return [(f"{path.name} row {i}", row) for i, row in enumerate(rows, start=1)], table.column_names


def _check_delimiter(path: Path, columns: list[str], delimiter: str) -> None:
    """Refuse a header that reads as one column because its fields are separated by something else."""
    if len(columns) != 1:
        return
    other = next((d for d in DELIMITER_NAMES if d != delimiter and d in columns[0]), None)
    if other is not None:
        raise InputError(
            f"{path}'s header reads as one column ({columns[0][:60]!r}) because its fields are separated by "
            f"{DELIMITER_NAMES[other]}, not {DELIMITER_NAMES.get(delimiter, repr(delimiter))}; set delimiter = "
            f"{json.dumps(other)} in the mapping file (`fashionrq draft-mapping {path.name}` writes a first one with it).")


def header_line(path: Path, text: str, delimiter: str) -> int | None:
    """The line that names the columns of a CSV text whose first row has fewer fields than most rows
    (:func:`~fashionrq.catalog.files.header_line_in_rows`); ``None`` when the first row is as wide as most rows."""
    return header_line_in_rows(csv_rows(path, text, delimiter))


def _csv_records(path: Path, text: str, report: IngestReport, delimiter: str, header_row: int = 1) -> tuple[Records, list[str]]:
    columns, rows = csv_table(path, text, delimiter, header_row)
    if header_row > 1:
        report.notes.append(f"the header is line {header_row} of {path.name} (header_row in the mapping); the lines above it are skipped")
    _check_delimiter(path, columns, delimiter)
    records, too_long = table_records(columns, rows, lambda line: f"{path.name}:{line}", report)
    if too_long > len(records):
        refuse_narrow_header(f"{path}'s header (line {header_row})", "line", header_row, len(columns), csv_rows(path, text, delimiter))
    if not records and not report.rejected:
        raise InputError(f"{path} has a header but no products; add at least one row.")
    return records, columns


class _RepeatedKey(ValueError):
    """An object names a key twice (a reader would keep only one value); ``line``: where, when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    keys = [k for k, _ in pairs]
    repeated = next((k for k in keys if keys.count(k) > 1), None)
    if repeated is not None:
        raise _RepeatedKey(f"the key {repeated!r} appears twice")
    return dict(pairs)


def _refuse_repeated_keys(node: ast.expr) -> None:
    """Raise a :class:`_RepeatedKey` for the first dict of a parsed Python literal, at any depth, that names a key
    twice (Python would keep only the last value)."""
    for found in ast.walk(node):
        if isinstance(found, ast.Dict):
            keys = [ast.dump(k) for k in found.keys if k is not None]
            if len(set(keys)) != len(keys):
                repeated = next(k for k in found.keys if k is not None and keys.count(ast.dump(k)) > 1)
                raise _RepeatedKey(f"a Python dict that names the key {ast.unparse(repeated)} twice", repeated.lineno)


def _objects(entries: list[tuple[str, object]], report: IngestReport) -> tuple[Records, list[str]]:
    """The JSON objects among ``entries`` (``(where, value)``), each other value rejected with its place."""
    records, columns = [], {}
    for where, record in entries:
        report.rows_read += 1
        if not isinstance(record, dict):
            report.reject(where, "a catalog record must be a JSON object")
            continue
        columns.update(dict.fromkeys(record))
        records.append((where, record))
    return records, list(columns)


def _jsonl_entries(name: str, text: str, report: IngestReport) -> list[tuple[str, object]]:
    """The values of the file ``name``, one product per line: JSON, or a Python dict literal (``{'asin': 'B00...',
    'price': 3.17}``, as the public Amazon metadata dumps of 2014 write their lines), each such line counted in a
    note; a line that is neither is rejected with its place."""
    entries, literals = [], 0
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{line_no}"
        try:
            value, literal = _line_value(line)
        except ValueError as err:
            report.rows_read += 1
            report.reject(where, f"malformed JSON ({err})")
            continue
        entries.append((where, value))
        literals += literal
    if literals:
        report.notes.append(f"{literals:,} line{'s' * (literals != 1)} of {name} {'are Python dicts' if literals != 1 else 'is a Python dict'} "
                            "(single quotes, None), not JSON, read as Python literals (no code is run)")
    return entries


def _line_value(line: str) -> tuple[object, bool]:
    """The value one line writes, as JSON or else as a Python dict literal, and whether it was the latter; a
    ``ValueError`` saying why for a line that is neither (a :class:`_RepeatedKey` for a dict that names a key twice)."""
    try:
        return json.loads(line, object_pairs_hook=_unique_keys), False
    except (ValueError, RecursionError) as err:
        record = _python_dict(line)
        if record is None:
            raise ValueError(getattr(err, "msg", str(err))) from None
        return record, True


def _python_dict(line: str) -> dict | None:
    """The dict a line writes as a Python literal, or ``None`` for a line that is none; a dict that names a key twice,
    at any depth, is refused with a :class:`_RepeatedKey` (Python would keep only the last value)."""
    try:
        node = python_expression(line)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(node, ast.Dict):
        return None
    _refuse_repeated_keys(node)
    record = python_literal(node)
    return record if isinstance(record, dict) else None


def _holds_lines(text: str) -> bool:
    """Whether ``text`` is JSON lines (its first line one whole object, another line after it), as dumps named
    ``.json`` often are."""
    lines = [line for line in islice(text.splitlines(), 1000) if line.strip()]
    if len(lines) < 2:
        return False
    try:
        return isinstance(_line_value(lines[0])[0], dict)
    except _RepeatedKey:  # a dict with a repeated key: a line, rejected as such
        return True
    except ValueError:
        return False


def _printout(path: Path, text: str) -> object:
    """The list or dict a whole file prints as a Python literal (a ThredUp scrape's ``print(items)``: single quotes,
    ``True``, ``None``), read without running code, or ``None`` for a file that is none; a file whose dicts name a key
    twice is refused (Python would keep only the last value)."""
    if text.lstrip()[:1] not in ("[", "{"):
        return None
    try:
        node = python_expression(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    try:
        _refuse_repeated_keys(node)
    except _RepeatedKey as err:
        raise InputError(f"{path} is a Python printout of its products, {err} (line {err.line}); a reader would keep only "
                         "one of its values: fix the file.") from None
    return python_literal(node)


def _json_records(path: Path, text: str, report: IngestReport) -> tuple[Records, list[str]]:
    """A JSON file holding an array of product objects, an object with one such array (``{"products": [...]}``) or
    with one deeper in (``{"data": {"items": [...]}}``), an object of product objects keyed by their ids (each key in
    :data:`KEY_COLUMN`), or one product per line (JSON lines in a file named ``.json``, noted)."""
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError) as err:
        if _holds_lines(text):
            report.notes.append(f"{path.name} holds one product per line (JSON lines), read as such")
            return _objects(_jsonl_entries(path.name, text, report), report)
        if isinstance(err, _RepeatedKey):
            raise InputError(f"{path} has an object in which {err}; a reader would keep only one of its values: fix the file.") from None
        value = _printout(path, text)
        if value is None:
            where = f" (line {err.lineno}, column {err.colno})" if isinstance(err, json.JSONDecodeError) else ""
            raise InputError(f"{path} is not valid JSON{where}: {getattr(err, 'msg', err)}; fix the file, or name a JSON-lines "
                             "file .jsonl (one product per line).") from None
        report.notes.append(f"{path.name} is a Python printout of its products (single quotes, True, None), not JSON, "
                            "read as a Python literal (no code is run)")  # a ThredUp scrape's print(items)
    if isinstance(value, dict):
        arrays = [((key,), v) for key, v in value.items() if isinstance(v, list)]
        if len(arrays) != 1:  # an API's answer: {"data": {"total": 2180, "items": [...]}}
            arrays = [(keys, v) for keys, v in _nested_arrays(value) if v and sum(isinstance(e, dict) for e in v) * 2 > len(v)]
        names = [".".join(keys) for keys, _ in arrays]
        if len(arrays) != 1 and _keyed_products(value):  # each product may hold its own arrays (a Shopify crawl's variants)
            report.notes.append(f"{path.name} is an object of {len(value):,} products by their keys, read with each key in "
                                f"the column {KEY_COLUMN!r}")  # {"211990161": {"title": ...}, ...}, as Polyvore's item metadata
            return _objects([(f"{path.name} record {i} ({key[:40]})", {KEY_COLUMN: key, **v})
                             for i, (key, v) in enumerate(value.items(), start=1)], report)
        if len(arrays) != 1:
            raise InputError(f"{path} holds a JSON object with {len(arrays)} arrays of objects ({', '.join(map(repr, names[:5])) or 'none'}); "
                             "a JSON catalog is an array of products, an object with exactly one array of products in it, "
                             "or an object of products keyed by their ids.")
        report.notes.append(f"products read from the array {names[0]!r} of {path.name}")
        value = arrays[0][1]
    if not isinstance(value, list) or not value:
        raise InputError(f"{path} holds no array of products; a JSON catalog is an array of product objects.")
    return _objects([(f"{path.name} record {i}", v) for i, v in enumerate(value, start=1)], report)


#: The column that holds each product's key in a JSON object of products keyed by their ids.
KEY_COLUMN = "_key"


def _keyed_products(value: dict) -> bool:
    """Whether ``value`` is an object of two or more products by their keys: every value an object, and two or more
    of the first one's keys (its one key, if it has one) in nine in ten of them (the products of one shop share their
    fields; an API answer's ``{"filters": {"facets": [...]}, "data": {"items": [...]}}`` does not)."""
    objects = list(value.values())
    if len(objects) < 2 or not all(isinstance(v, dict) for v in objects):
        return False
    shared = [key for key in objects[0] if sum(key in v for v in objects) >= 0.9 * len(objects)]
    return bool(shared) and len(shared) >= min(2, len(objects[0]))


def _nested_arrays(value: dict, keys: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], list]]:
    """Every array inside the objects of ``value`` (not inside other arrays), with the keys that lead to it."""
    for key, inner in value.items():
        if isinstance(inner, list):
            yield (*keys, key), inner
        elif isinstance(inner, dict):
            yield from _nested_arrays(inner, (*keys, key))


#: The files a folder catalog is read from: JSON and JSON lines, gzipped or not.
_JSON_FILE = re.compile(r"\.(?:json|jsonl|ndjson)(?:\.gz)?$", re.IGNORECASE)
_LINES_FILE = re.compile(r"\.(?:jsonl|ndjson)(?:\.gz)?$", re.IGNORECASE)


def _folder_records(folder: Path, report: IngestReport, encoding: str) -> tuple[Records, list[str]]:
    """Every product of a folder of JSON files, as a scrape saves one file per product: a file's object is one
    product, an array its elements, JSON lines its lines. The files are read in the order of their paths, below the
    folder too; one that cannot be read is rejected with its path, and other files (photos) are passed over and
    counted in a note."""
    files, others = [], Counter()
    for file in sorted((f for f in folder.rglob("*") if f.is_file()), key=lambda f: f.relative_to(folder).as_posix()):
        if _JSON_FILE.search(file.name) and not file.name.startswith("."):
            files.append(file)
        else:
            others[file.suffix.lower() or file.name] += 1
    if not files:
        raise InputError(f"catalog folder {folder} holds no .json or .jsonl file; pass a folder of product JSON files, or the "
                         "catalog file itself.")
    entries = [entry for file in files for entry in _file_entries(file, file.relative_to(folder).as_posix(), report, encoding)]
    report.notes.append(f"products read from {len(files):,} JSON files in {folder.name}/ (a file's object is one product)")
    if others:
        kinds = ", ".join(f"{kind} {n:,}" for kind, n in sorted(others.items(), key=lambda kv: (-kv[1], kv[0]))[:5])
        report.notes.append(f"{sum(others.values()):,} other files in {folder.name}/ are not JSON and were passed over ({kinds})")
    return _objects(entries, report)


#: The column a folder of parts adds to each record: the name of its part, without the extension, its underscores,
#: hyphens and dots read as spaces (``AJIO_new_men_pants.csv``: ``AJIO new men pants``), for a catalog split by
#: gender or category whose rows do not say it (``gender = "@file"`` with an ``extract``).
PART_FILE = "@file"
#: The files a folder catalog in parts is read from: CSV or TSV, gzipped or not.
_TABLE_FILE = re.compile(r"\.(csv|tsv|tab)(?:\.gz)?$", re.IGNORECASE)


def table_parts(folder: Path) -> list[tuple[Path, str]]:
    """The CSV or TSV files of a folder that holds no JSON file, in the order of their paths, each with its format;
    none for a folder of JSON files or of neither. A folder of both CSV and TSV files is refused."""
    files = sorted((f for f in folder.rglob("*") if f.is_file() and not f.name.startswith(".")),
                   key=lambda f: f.relative_to(folder).as_posix())
    if any(_JSON_FILE.search(f.name) for f in files):
        return []
    parts = [(f, SUFFIXES["." + m.group(1).lower()]) for f in files if (m := _TABLE_FILE.search(f.name))]
    if len({fmt for _, fmt in parts}) > 1:
        raise InputError(f"catalog folder {folder} holds both CSV and TSV files; a folder is read as the parts of one table, so keep "
                         "the parts of one format in it.")
    return parts


def _parts_records(folder: Path, report: IngestReport, encoding: str, delimiter: str, header_row: int) -> tuple[Records, list[str]]:
    """Every record of a folder of CSV or TSV files that are the parts of one table (an export split by category),
    read in the order of their paths, each record's place naming its file. Parts whose headers differ (a scrape whose
    shoe pages have a column more) read as one table of all their columns, a column a part lacks empty in its rows and
    said in a note; a part that shares no column with the parts before it is refused (it is another table)."""
    parts = [file for file, _ in table_parts(folder)]
    tables, read, other_encoding = [], [], []
    for file in parts:
        text, utf8 = _part_text(file, encoding)
        if not utf8:
            other_encoding.append(file.relative_to(folder).as_posix())
        if not text.strip():
            report.notes.append(f"{file.relative_to(folder)} is empty and was passed over")
            continue
        part, names = _csv_records(file, text, report, delimiter, header_row)
        if tables and not set(names) & {c for _, columns in tables for c in columns}:
            raise InputError(f"{file} shares no column with the parts before it ({read[0].name}, …); a folder is read as the parts of one table, so move "
                             "the files of another table out of it, or ingest it on its own.")
        words = re.sub(r"[_\-.\s]+", " ", _TABLE_FILE.sub("", file.name)).strip()
        tables.append(([(where, {**record, PART_FILE: words}) for where, record in part], names))
        read.append(file)
    if not tables:
        raise InputError(f"every CSV or TSV file in catalog folder {folder} is empty; pass a folder with a header row and at "
                         "least one product in its files.")
    columns = list(dict.fromkeys(c for _, names in tables for c in names))
    lacking = [(file, [c for c in columns if c not in names], len(part)) for file, (part, names) in zip(read, tables)
               if len(names) < len(columns)]
    report.notes.append(f"products read from {len(read):,} files in {folder.name}/, the parts of one table "
                        f"({', '.join(file.name for file in read[:5])}{', …' if len(read) > 5 else ''})")
    if other_encoding and len(other_encoding) < len(parts):
        report.notes.append(f"{len(other_encoding):,} of the {len(parts):,} parts are not UTF-8 and were read as {encoding} "
                            f"({', '.join(other_encoding[:5])}{', …' if len(other_encoding) > 5 else ''}); the others are UTF-8")
    for file, missing, rows in lacking[:5]:
        report.notes.append(f"{file.relative_to(folder)} has no {', '.join(map(repr, missing[:5]))}{' …' if len(missing) > 5 else ''} "
                            f"column{'s' if len(missing) > 1 else ''} the other parts have: its {rows:,} rows read "
                            f"{'them' if len(missing) > 1 else 'it'} as empty")
    if len(lacking) > 5:
        report.notes.append(f"{len(lacking) - 5:,} more parts lack columns the others have; their rows read them as empty")
    empty = {file: dict.fromkeys(missing, "") for file, missing, _ in lacking}
    records = [(where, {**record, **empty[file]} if file in empty else record) for file, (part, _) in zip(read, tables)
               for where, record in part]
    return records, [*columns, PART_FILE]


def _part_text(file: Path, encoding: str) -> tuple[str, bool]:
    """The text of one part of a table and whether it is UTF-8: a part that is valid UTF-8 is read as UTF-8 whatever
    encoding the mapping names (scrapes written at other times mix them, and text in another encoding with letters
    outside ASCII is almost never valid UTF-8), the others in the mapping's encoding."""
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        utf8 = True  # read_text names the unknown encoding
    if not utf8:
        try:
            return read_bytes(file).decode("utf-8").removeprefix("\ufeff"), True
        except UnicodeDecodeError:
            pass
    return read_text(file, encoding), utf8


def _file_entries(file: Path, name: str, report: IngestReport, encoding: str) -> list[tuple[str, object]]:
    """The values one file of a folder catalog holds, each with its place; a file that cannot be read, as one rejected
    row."""
    try:
        text = read_text(file, encoding)
    except InputError as err:
        report.rows_read += 1
        report.reject(name, str(err))
        return []
    if _LINES_FILE.search(name):
        return _jsonl_entries(name, text, report)
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError) as err:
        if _holds_lines(text):
            return _jsonl_entries(name, text, report)
        report.rows_read += 1
        report.reject(name, f"malformed JSON ({getattr(err, 'msg', err)})")
        return []
    if isinstance(value, list):
        return [(f"{name} record {i}", v) for i, v in enumerate(value, start=1)]
    return [(name, value)]
