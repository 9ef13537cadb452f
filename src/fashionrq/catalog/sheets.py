"""The records of an Excel workbook (``.xlsx``, ``.xlsm``), read with openpyxl: the sheet the mapping names, else the
one with the most filled rows; each cell as the text a user sees in it, formulas as the values Excel last computed
(docs/catalog.md, "Excel workbooks"). Every failure is one sentence naming the file, the sheet and the fix."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import ParseError

from fashionrq.catalog.files import check_header, header_line_in_rows, read_bytes, refuse_narrow_header, table_records
from fashionrq.catalog.report import IngestReport
from fashionrq.errors import InputError

#: The first bytes of an OLE2 compound file: what Excel writes for a password-protected workbook (and an old .xls).
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: What openpyxl raises on a file that is no workbook, or a broken one (a truncated zip, missing parts, bad XML).
_BROKEN = (zipfile.BadZipFile, zlib.error, EOFError, KeyError, IndexError, TypeError, ValueError, ParseError, OSError)
#: Excel's error values (openpyxl's ``ERROR_CODES``), which a formula that failed shows.
ERROR_CODES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")
#: A sheet's rows: ``(row number, cells as text)``.
SheetRows = list[tuple[int, list[str]]]


@dataclass(frozen=True)
class Sheet:
    """One worksheet's rows as ``(row number, cells as text)``, trailing empty cells left out (an empty row is
    ``[]``); ``passed_over``: the workbook's other sheets when none was named; ``errors``: formula error cells
    (``#N/A``, ``#REF!`` ...), read as empty."""

    name: str
    rows: SheetRows
    passed_over: tuple[str, ...] = ()
    errors: int = 0

    def label(self, path: Path | str) -> str:
        return f"sheet {self.name!r} of {path}"

    def where(self, path: Path, row: int) -> str:
        """``product_master.xlsx Products!row 12``: the sheet written as Excel writes it in a reference."""
        sheet = self.name if re.fullmatch(r"\w+", self.name) else "'" + self.name.replace("'", "''") + "'"
        return f"{path.name} {sheet}!row {row}"


def cell_text(value: object) -> str:
    """A cell's value as the text a user sees in it, whatever its number format: ``1163`` for a whole number (also
    one stored as ``1163.0``), ``26.26``, ``TRUE``, ISO dates (``2024-03-01``; a time of day only when it has one),
    and an empty or error cell as empty."""
    if value is None or (isinstance(value, str) and value in ERROR_CODES):
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)


def _rows(worksheet) -> tuple[SheetRows, int]:
    """The worksheet's rows as text, and how many of its cells are formula errors."""
    worksheet.reset_dimensions()  # some writers record a wrong sheet size; read every row the sheet holds
    rows, errors = [], 0
    for number, values in enumerate(worksheet.iter_rows(values_only=True), start=1):
        cells = [cell_text(v) for v in values]
        errors += sum(isinstance(v, str) and v in ERROR_CODES for v in values)
        while cells and not cells[-1]:
            cells.pop()
        rows.append((number, cells))
    return rows, errors


def _broken(path: Path, err: Exception) -> InputError:
    return InputError(f"{path} is not a readable Excel workbook ({type(err).__name__}: {str(err)[:120] or 'no detail'}); open it in "
                      "Excel and save it again as .xlsx, or save the sheet as CSV (UTF-8) and pass that file.")


def _worksheets(path: Path, name: str | None) -> dict[str, tuple[SheetRows, int]]:
    """The rows of the sheet ``name``, or of every worksheet (chart sheets have none), by sheet name."""
    raw = read_bytes(path)
    if raw.startswith(_OLE2):
        raise InputError(f"{path} is a password-protected workbook (or an old .xls file named .xlsx); remove the password in Excel "
                         "(File > Info > Protect Workbook) and save it as .xlsx, or save the sheet as CSV (UTF-8) and pass that file.")
    import openpyxl  # deferred: openpyxl (a quarter of a second to import, in every process that imports the catalog)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # openpyxl warns about styles and extensions it does not read; the values are read
        try:
            book = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
        except _BROKEN as err:
            raise _broken(path, err) from None
        try:
            sheets = {worksheet.title: worksheet for worksheet in book.worksheets}
            if name is not None and name not in sheets:
                raise InputError(f"{path} has no sheet {name!r} (its sheets: {', '.join(map(repr, sheets))}); set sheet in the mapping "
                                 "file to one of them.")
            return {title: _rows(sheets[title]) for title in ([name] if name is not None else sheets)}
        except _BROKEN as err:
            raise _broken(path, err) from None
        finally:
            book.close()


def _filled(rows: SheetRows) -> int:
    return sum(1 for _, cells in rows if cells)


def read_sheet(path: Path, name: str | None = None) -> Sheet:
    """The sheet ``name`` of the workbook ``path``; without a name, its only sheet, else the one with the most filled
    rows (the first of them on a tie). Products split over sheets with the same header are refused, since one
    sheet would read only some of them."""
    found = _worksheets(path, name)
    chosen = max(found, key=lambda title: _filled(found[title][0]), default=None)
    if chosen is None or not _filled(found[chosen][0]):
        raise InputError(f"{path} has no filled cells (sheets: {', '.join(map(repr, found)) or 'none'}); pass a workbook with a "
                         "header row and at least one product.")
    rows, errors = found[chosen]
    twin = next((title for title in found if title != chosen and _header_cells(found[title][0]) == _header_cells(rows)), None)
    if twin is not None:
        raise InputError(f"{path} holds products with the same columns on the sheets {chosen!r} and {twin!r}; fashionrq reads one "
                         f"sheet: move them onto one sheet, or set sheet = {json.dumps(chosen, ensure_ascii=False)} in the mapping "
                         "file to read only it.")
    return Sheet(chosen, rows, tuple(title for title in found if title != chosen), errors)


def guessed_header_row(rows: SheetRows) -> int:
    """The row that seems to name a sheet's columns: the one :func:`header_line_in_rows` finds below lines of another
    width (a title), else the first filled row; ``1`` for a sheet without one."""
    return header_line_in_rows(rows) or next((number for number, cells in rows if cells), 1)


def _header_cells(rows: SheetRows) -> list[str]:
    return rows[guessed_header_row(rows) - 1][1] if rows else []


def sheet_records(path: Path, report: IngestReport, name: str | None = None,
                  header_row: int = 1) -> tuple[list[tuple[str, dict]], list[str]]:
    """Every record of a workbook's sheet (:func:`read_sheet`) and its columns, the sheet's row ``header_row`` the
    header; the rows above it skipped, the sheet chosen and the unnamed columns that hold values noted in ``report``."""
    sheet = read_sheet(path, name)
    if sheet.passed_over:
        report.notes.append(f"read the sheet {sheet.name!r} of {path.name}, the one with the most filled rows; passed over "
                            f"{', '.join(map(repr, sheet.passed_over))} (set sheet in the mapping file to read another)")
    if header_row > 1:
        report.notes.append(f"the header is row {header_row} of {sheet.label(path.name)} (header_row in the mapping); the rows "
                            "above it are skipped")
    if sheet.errors:
        report.notes.append(f"{sheet.errors:,} formula error cells (#N/A, #REF!, ...) of {sheet.label(path.name)} read as empty")
    header = [cell.strip() for cell in sheet.rows[header_row - 1][1]] if header_row <= len(sheet.rows) else []
    if not header:
        raise InputError(f"row {header_row} of {sheet.label(path)} is empty, so it names no columns; set header_row = "
                         f"{guessed_header_row(sheet.rows)} (the row that seems to name them) in the mapping file.")
    check_header(f"{sheet.label(path)} (row {header_row})", header)
    data = sheet.rows[header_row:]
    records, too_long = table_records(header, data, lambda row: sheet.where(path, row), report)
    if too_long > len(records):
        refuse_narrow_header(f"the header of {sheet.label(path)} (row {header_row})", "row", header_row, len(header), sheet.rows)
    if not records and not report.rejected:
        raise InputError(f"{sheet.label(path)} has a header but no products; add at least one row.")
    _note_unnamed(sheet, path, header_row, header, data, report)
    return records, header


def _note_unnamed(sheet: Sheet, path: Path, header_row: int, header: list[str], data: SheetRows, report: IngestReport) -> None:
    """Note the columns without a name in the header that hold values (a merged header cell names only its first
    column); no mapping can name them."""
    from openpyxl.utils import get_column_letter  # deferred: openpyxl, as in _worksheets

    unnamed = [i for i, name in enumerate(header) if not name and any(i < len(cells) and cells[i] for _, cells in data)]
    if unnamed:
        report.notes.append(f"the column(s) {', '.join(get_column_letter(i + 1) for i in unnamed)} of {sheet.label(path.name)} hold "
                            f"values but have no name in row {header_row} (a merged header cell names only its first "
                            "column); name them there to map them")
