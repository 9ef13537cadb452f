"""Reading catalog files: permissions, gzip, text encodings, BOMs, CSV quoting and headers, each failure one sentence."""

from __future__ import annotations

import csv
import gzip
import io
import zlib
from collections.abc import Iterator
from pathlib import Path

from fashionrq.errors import InputError


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


def check_header(path: Path, columns: list[str]) -> None:
    """Refuse a header that names one column twice (readers would silently keep only one of them)."""
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
