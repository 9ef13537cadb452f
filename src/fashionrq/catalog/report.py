"""The ingest report: every row read, repaired or rejected is counted, with ids and reasons."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from fashionrq.catalog.schema import FIELDS, ITEMS_SCHEMA, to_text
from fashionrq.errors import InputError
from fashionrq.io import atomic_write_text


@dataclass
class IngestReport:
    """What happened to every row of a catalog during ingestion."""

    source: str
    layout: str
    rows_read: int = 0
    repaired: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    rejected: list[dict[str, str]] = field(default_factory=list)
    values_nulled: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    placeholders: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    notes: list[str] = field(default_factory=list)
    rows_written: int = 0
    missing: dict[str, int] = field(default_factory=dict)

    def repair(self, reason: str, item_id: str) -> None:
        """Record that the row of ``item_id`` was repaired for ``reason``."""
        self.repaired[reason].append(item_id)

    def reject(self, where: str, reason: str) -> None:
        """Record that the row at ``where`` was rejected for ``reason``."""
        self.rejected.append({"row": where, "reason": reason})

    def null_value(self, reason: str, item_id: str) -> None:
        """Record a value that was set to null (e.g. a placeholder price)."""
        self.values_nulled[reason].append(item_id)

    def placeholder(self, field_name: str, value: object) -> None:
        """Record a placeholder (``Unknown``, ``N/A``, ``-``, empty, NaN ...) read as null in ``field_name``."""
        text = to_text(value)
        self.placeholders[field_name]["NaN" if text is None else text.strip()] += 1

    @property
    def repaired_rows(self) -> int:
        return len({i for ids in self.repaired.values() for i in ids})

    def finish(self, table: pa.Table) -> None:
        """Count written rows and per-field missing values of the final table."""
        self.rows_written = table.num_rows
        self.missing = {name: int(table.column(name).null_count) for name in FIELDS}
        for name in ("colours", "attributes"):  # list-like fields: an empty value counts as missing
            column = table.column(name)
            if pa.types.is_map(column.type):
                column = column.cast(pa.list_(pa.struct([("key", pa.string()), ("value", pa.string())])))
            lengths = pc.list_value_length(column)
            self.missing[name] += int(pc.sum(pc.equal(lengths, 0)).as_py() or 0)

    def to_dict(self) -> dict:
        """A JSON-ready view, with ids sorted for byte-stable output."""
        return {
            "source": self.source,
            "layout": self.layout,
            "rows_read": self.rows_read,
            "rows_written": self.rows_written,
            "repaired_rows": self.repaired_rows,
            "repaired": {k: {"count": len(v), "ids": v} for k, v in sorted(self.repaired.items())},
            "rejected_rows": len(self.rejected),
            "rejected": self.rejected,
            "values_nulled": {k: {"count": len(v), "ids": v} for k, v in sorted(self.values_nulled.items())},
            "placeholders": {
                k: {"count": sum(v.values()), "values": dict(sorted(v.items()))} for k, v in sorted(self.placeholders.items())
            },
            "missing": self.missing,
            "notes": self.notes,
        }

    def counts(self) -> dict:
        """The report's counts without ids: rows read, rejected and repaired, values nulled and placeholders per reason."""
        summary = self.to_dict()
        return {
            "rows_read": self.rows_read,
            "rejected_rows": len(self.rejected),
            "repaired_rows": self.repaired_rows,
            "values_nulled": {k: v["count"] for k, v in summary["values_nulled"].items()},
            "placeholders": {k: v["count"] for k, v in summary["placeholders"].items()},
        }

    def write(self, path: Path) -> None:
        atomic_write_text(path, json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n")


def rows_to_table(rows: list[dict], source: str) -> pa.Table:
    """Build the canonical items table, refusing duplicate ids with the rows that clash."""
    seen: dict[str, int] = {}
    for position, row in enumerate(rows, start=1):
        first = seen.setdefault(row["item_id"], position)
        if first != position:
            raise InputError(
                f"{source} has duplicate item id {row['item_id']!r} (items {first:,} and {position:,} as read); ids must be "
                "unique, so remove or renumber the duplicate, or, where one product is listed twice (a scrape that fetched "
                "it again), add [variants] key = [\"<the id column>\"] to the mapping to keep its first row and list the others."
            )
    columns = {name: [row.get(name) for row in rows] for name in FIELDS}
    columns["colours"] = [c or [] for c in columns["colours"]]
    columns["attributes"] = [sorted((a or {}).items()) for a in columns["attributes"]]
    return pa.table(columns, schema=ITEMS_SCHEMA)
