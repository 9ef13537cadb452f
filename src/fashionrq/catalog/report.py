"""The ingest report: every row read, repaired or rejected is counted, with ids and reasons."""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from fashionrq.catalog.schema import FIELDS, ITEMS_SCHEMA, to_text
from fashionrq.errors import InputError
from fashionrq.io import atomic_write_text

#: Rejected rows listed one per line in a summary; the rest are counted (every one is in ingest_report.json).
REJECTED_SHOWN = 20
#: Ids listed per repair reason in a summary.
IDS_SHOWN = 10
#: The characters of an id those lines show: a longer one (a product page address as the id) is cut, with "…".
ID_SHOWN_CHARS = 48
#: What makes one rejection's reason differ from another's of its kind: a place (``feed.tsv:2``), a quoted value (in
#: the double quotes ``repr`` gives a value with an apostrophe: ``"Women's Clothing"``), a number.
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_PARTICULARS = re.compile(rf"\S+:\d+|{_QUOTED.pattern}|\b\d[\d,]*\b")
#: Quoted values shown for each kind of reason in :func:`reason_kinds`.
EXAMPLES_SHOWN = 3


#: The start of the repair reason of a value a ``[clean.<field>]`` section changed (``cleaned_article_type``).
CLEANED = "cleaned_"


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

    def reject(self, where: str, reason: str, item_id: str | None = None, cause: tuple[str, ...] = ()) -> None:
        """Record that the row at ``where`` was rejected for ``reason``; ``item_id``: a row rejected once its values
        were read, whose repairs and nulled values (the last recorded) are taken back, it gives no item, but for those
        of the reasons in ``cause``, which say why (``refused_article_type``: a clean-up left the required type empty)."""
        self.rejected.append({"row": where, "reason": reason})
        for table in (self.repaired, self.values_nulled) if item_id is not None else ():
            for reason_ids in [r for r in table if r not in cause]:
                ids = table[reason_ids]
                while ids and ids[-1] == item_id:
                    ids.pop()
                if not ids:
                    del table[reason_ids]

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

    @property
    def cleaned_only_rows(self) -> int:
        """The repaired rows whose only repairs are the mapping's ``[clean.<field>]`` sections' (``cleaned_<field>``:
        a type read from the name as mapped), no fault of the data."""
        other = {i for reason, ids in self.repaired.items() if not reason.startswith(CLEANED) for i in ids}
        return len({i for reason, ids in self.repaired.items() if reason.startswith(CLEANED) for i in ids} - other)

    def finish(self, table: pa.Table) -> None:
        """Count written rows and per-field missing values of the final table."""
        self.rows_written = table.num_rows
        self.missing = missing_counts(table)

    def to_dict(self) -> dict:
        """A JSON-ready view, with ids sorted for byte-stable output."""
        return {
            "source": self.source,
            "layout": self.layout,
            "rows_read": self.rows_read,
            "rows_written": self.rows_written,
            "repaired_rows": self.repaired_rows,
            "cleaned_only_rows": self.cleaned_only_rows,
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


def percent(share: float) -> str:
    """A share as a whole percentage that says 100% only of all and 0% only of none: 99.5% is "99%", 0.2% "1%"."""
    whole = math.floor(share * 100)
    return f"{1 if whole == 0 and share > 0 else 99 if whole == 100 and share < 1 else whole}%"


def summary_counts(summary: dict) -> str:
    """``20,000 rows read, 11,151 items written, 12,074 rows repaired, 8,849 rows rejected`` of a report's
    :meth:`IngestReport.to_dict` (said after its source)."""
    def rows(count: int, noun: str = "row") -> str:
        return f"{count:,} {noun}{'s' * (count != 1)}"

    cleaned = summary.get("cleaned_only_rows", 0)
    only = f" ({cleaned:,} of them only by the mapping's [clean] sections)" if cleaned else ""
    return (f"{rows(summary['rows_read'])} read, {rows(summary['rows_written'], 'item')} written, "
            f"{rows(summary['repaired_rows'])} repaired{only}, {rows(summary['rejected_rows'])} rejected")


def summary_lines(summary: dict) -> list[str]:
    """The lines below the counts, as the CLI prints them and the demo report writes them: each repair with its
    first :data:`IDS_SHOWN` ids, the first :data:`REJECTED_SHOWN` rejected rows and the rest counted by the kind of
    their reason, the values nulled, the placeholders per field and the notes (every id and row is in
    ingest_report.json)."""
    lines = []
    for reason, entry in summary["repaired"].items():
        more = f", … ({entry['count'] - IDS_SHOWN:,} more in ingest_report.json)" if entry["count"] > IDS_SHOWN else ""
        ids = ", ".join(i if len(i) <= ID_SHOWN_CHARS else i[:ID_SHOWN_CHARS - 1] + "…" for i in entry["ids"][:IDS_SHOWN])
        lines.append(f"repaired ({reason}): {entry['count']:,} — ids {ids}{more}")
    lines += [f"rejected {row['row']}: {row['reason']}" for row in summary["rejected"][:REJECTED_SHOWN]]
    if len(summary["rejected"]) > REJECTED_SHOWN:
        lines.append(f"… and {len(summary['rejected']) - REJECTED_SHOWN:,} more rows rejected, each with its reason in "
                     f"ingest_report.json; all {len(summary['rejected']):,} by reason: {reason_kinds(summary['rejected'])}")
    lines += [f"values set to null ({reason}): {entry['count']:,}" for reason, entry in summary["values_nulled"].items()]
    lines += [f"placeholders read as null in {name}: {entry}" for name, entry in _placeholder_lines(summary["placeholders"])]
    return lines + [f"note: {note}" for note in summary["notes"]]


def reason_kind(reason: str) -> str:
    """A rejected row's reason without its places, quoted values and numbers (``a variant of the product at …``)."""
    return _PARTICULARS.sub("…", reason)


def reason_kinds(rejected: list[dict]) -> str:
    """The rejected rows counted by the kind of their reason (its places, quoted values and numbers left out), the
    five commonest kinds first, each with the first :data:`EXAMPLES_SHOWN` quoted values its reasons name (the names
    a clean-up kept no type of)."""
    kinds = Counter(reason_kind(row["reason"]) for row in rejected)
    examples: dict[str, list[str]] = {}
    for row in rejected:
        shown = examples.setdefault(reason_kind(row["reason"]), [])
        quoted = [q for q in _QUOTED.findall(row["reason"]) if q not in shown]
        shown.extend(quoted[:EXAMPLES_SHOWN - len(shown)])

    def said(kind: str, count: int) -> str:
        cut = [q if len(q) <= ID_SHOWN_CHARS else q[:ID_SHOWN_CHARS - 2] + "…" + q[0] for q in examples[kind]]  # quoted still
        return f"{kind} ({count:,}" + (f"; e.g. {', '.join(cut)})" if cut else ")")

    shown = "; ".join(said(kind, count) for kind, count in kinds.most_common(5))
    return shown + (f"; {len(kinds) - 5:,} other kinds" if len(kinds) > 5 else "")


def _placeholder_lines(placeholders: dict) -> list[tuple[str, str]]:
    """One line per field (every ``attributes.<key>`` folded into one), with the commonest spellings."""
    folded: dict[str, Counter] = {}
    for name, entry in placeholders.items():
        folded.setdefault("attributes" if name.startswith("attributes.") else name, Counter()).update(entry["values"])
    return [(name, f"{sum(c.values()):,} (" + ", ".join(f"{v!r} {n:,}" for v, n in c.most_common(4)) + ")")
            for name, c in folded.items()]


def refuse_duplicate_ids(rows: list[dict], source: str, places: list[str] | None = None) -> None:
    """Refuse the first item id two rows share, naming both: by ``places`` (a file and line, ``b.csv:12``) where
    given, else by their positions as read."""
    seen: dict[str, int] = {}
    for position, row in enumerate(rows):
        first = seen.setdefault(row["item_id"], position)
        if first != position:
            where = f"{places[first]} and {places[position]}" if places else f"items {first + 1:,} and {position + 1:,} as read"
            raise InputError(
                f"{source} has duplicate item id {row['item_id']!r} ({where}); ids must be unique, so remove or renumber "
                "the duplicate, or, where one product is listed twice (a scrape that fetched it again), add [variants] key = "
                "[\"<the id column>\"] to the mapping to keep its first row and list the others."
            )


def rows_to_table(rows: list[dict]) -> pa.Table:
    """Build the canonical items table of rows whose ids are unique (:func:`refuse_duplicate_ids`, by each reader)."""
    columns = {name: [row.get(name) for row in rows] for name in FIELDS}
    columns["colours"] = [c or [] for c in columns["colours"]]
    columns["attributes"] = [sorted((a or {}).items()) for a in columns["attributes"]]
    return pa.table(columns, schema=ITEMS_SCHEMA)


def missing_counts(table: pa.Table) -> dict[str, int]:
    """The null values of every field of an items table; of the colours and attributes, the empty ones too."""
    missing = {name: int(table.column(name).null_count) for name in FIELDS}
    for name in ("colours", "attributes"):
        column = table.column(name)
        if pa.types.is_map(column.type):
            column = column.cast(pa.list_(pa.struct([("key", pa.string()), ("value", pa.string())])))
        missing[name] += int(pc.sum(pc.equal(pc.list_value_length(column), 0)).as_py() or 0)
    return missing


def types_nearly_one_each(table: pa.Table) -> int | None:
    """The number of product types of an items table of 20 items or more whose items have nearly one type each (half
    as many types as items or more: the name read as the type), else ``None``: no type groups its items."""
    types = len(pc.unique(table.column("article_type")))
    return types if table.num_rows >= 20 and types >= 0.5 * table.num_rows else None
