"""Reading catalog files: permissions, gzip, text encodings, BOMs, CSV quoting and headers, each failure one sentence."""

from __future__ import annotations

import csv
import gzip
import io
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from itertools import islice, takewhile
from pathlib import Path

from fashionrq.catalog.report import IngestReport
from fashionrq.errors import InputError

#: ``(number, fields)``: a row of a table (a CSV line, a sheet's row), by the number a user sees it under.
Rows = Iterable[tuple[int, list[str]]]


def read_bytes(path: Path) -> bytes:
    """The bytes of ``path`` (gunzipped for ``.gz``), refusing unreadable files and broken gzip streams."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read {path} ({err.strerror or err}); check that it is a file you may read (permissions, path).") from None
    if path.suffix != ".gz":
        return raw
    try:
        return gzip.decompress(raw)
    except (EOFError, OSError, zlib.error):
        raise InputError(f"{path} is a truncated or corrupt gzip file; download or compress it again (check it with `gzip -t`).") from None


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """Read a (possibly gzipped) text file; a leading byte-order mark is dropped, decoding failures are one sentence."""
    raw = read_bytes(path)
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as err:
        raise InputError(
            f"{path} is not valid {encoding} (byte 0x{raw[err.start]:02x} at offset {err.start}); "
            "re-save it as UTF-8, or for a mapped catalog set encoding = \"latin-1\" (or the right one) in the mapping file."
        ) from None
    except LookupError:
        raise InputError(f"the mapping file names an unknown text encoding {encoding!r}; use one Python knows, e.g. \"utf-8\".") from None
    return text.removeprefix("\ufeff")


def check_header(path: Path | str, columns: list[str]) -> None:
    """Refuse a header that names one column twice (readers would silently keep only one of them); ``path`` names the
    file (or its sheet)."""
    first: dict[str, int] = {}
    for position, name in enumerate(columns, start=1):
        if name and first.setdefault(name, position) != position:
            raise InputError(
                f"{path} has the column {name!r} twice in its header (columns {first[name]} and {position}); "
                "rename or remove one of them so it is clear which holds the values."
            )


def csv_rows(path: Path, text: str, delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """``(first line, fields)`` of every CSV row, header included; a quoting error names its line and the fix."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    while True:
        start = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            limit = csv.field_size_limit()
            hint = (f"a field longer than {limit:,} characters usually means an unclosed quote, so fix the quoting of that row"
                    if "field limit" in str(err) else "fix the quoting of that row")
            raise InputError(f"{path} line {start} cannot be read as CSV ({err}); {hint}.") from None
        yield start, fields


def csv_table(path: Path, text: str, delimiter: str = ",", header_row: int = 1) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """The checked, trimmed header of a CSV text (its row ``header_row``; the rows above it are skipped) and an
    iterator over its ``(line, fields)`` data rows."""
    rows = csv_rows(path, text, delimiter)
    for _ in range(header_row - 1):
        next(rows, None)
    _, header = next(rows, (1, []))
    header = [h.strip() for h in header]
    check_header(path, header)
    return header, rows


def header_line_in_rows(rows: Rows) -> int | None:
    """The row that names the columns of a table whose first row has fewer fields than most rows (a file with lines
    above its header, as Amazon's flat files have: a template line, then labels, then the field names): of the rows
    with at least as many fields as most (a sheet's rows leave out their empty last cells, so its header may be the
    widest), from the first one on, the last that reads as names (every field filled, none twice, none a number)
    before the data; ``None`` when the first row is as wide as most rows."""
    rows = [(number, fields) for number, fields in islice(rows, 200) if fields]
    if len(rows) < 3:
        return None
    width = Counter(len(fields) for _, fields in rows[1:]).most_common(1)[0][0]
    if len(rows[0][1]) >= width:
        return None
    wide = [(number, fields) for number, fields in rows[:10] if len(fields) >= width]
    names = list(takewhile(lambda row: _reads_as_names(row[1]), wide))
    return names[-1][0] if names else wide[0][0] if wide else None


def _reads_as_names(fields: list[str]) -> bool:
    cells = [f.strip() for f in fields]
    return all(cells) and len(set(cells)) == len(cells) and not any(re.fullmatch(r"[-+]?[\d.,]+", c) for c in cells)


def table_records(columns: list[str], rows: Rows, where: Callable[[int], str], report: IngestReport) -> tuple[list[tuple[str, dict]], int]:
    """The ``(where, record)`` of each data row of a table, blank rows skipped, and how many rows were rejected for
    having more fields than ``columns`` (each counted in ``report``)."""
    records, too_long = [], 0
    for number, fields in rows:
        if not fields:  # a blank line
            continue
        report.rows_read += 1
        if len(fields) > len(columns):
            too_long += 1
            report.reject(where(number), f"{len(fields)} fields for {len(columns)} columns")
            continue
        records.append((where(number), dict(zip(columns, fields))))
    return records, too_long


def refuse_narrow_header(header: str, unit: str, header_row: int, width: int, rows: Rows) -> None:
    """Refuse a header (``header``: what it is and where, e.g. ``x.csv's header (line 1)``) narrower than most
    ``rows`` when another row names the columns, with the ``header_row`` line to set."""
    line = header_line_in_rows(rows)
    if line is not None and line != header_row:
        raise InputError(f"{header} has {width} fields but most rows have more: its columns are named on {unit} {line}; "
                         f"set header_row = {line} in the mapping file.")
