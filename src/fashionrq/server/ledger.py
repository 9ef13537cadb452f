"""The server's append-only ledger: every submission and every score is one hash-chained row.

Each row carries the hash of the row before it (``prev``; the first row's is :data:`GENESIS`) and a server
timestamp; its ``hash`` is sha256 of the canonical JSON of its fields (``id`` aside) with the body replaced by
the body's sha256 (``body_sha256``). The public ledger serves that digest, not the body, so the chain can be
checked by anyone while a team's file hashes and scores stay its own; a body edited in the database no longer
hashes to the digest its row's hash covers. ``prev`` is unique in
the database, so two appends that read the same head cannot both commit: the loser retries on the new head
(:func:`append`). Anyone can fetch the rows (``GET /api/v1/ledger``) and check the chain with
:func:`verify_rows` (``fashionrq verify-ledger URL``); the head hash (``GET /api/v1/ledger/head``) can be
anchored elsewhere, e.g. in a git commit, so that a rewritten history no longer ends at it.
"""

from __future__ import annotations

import hashlib
import json
import time
from datetime import datetime, timezone

from fashionrq.errors import FashionRQError

GENESIS = "0" * 64
#: the fields a row's hash covers, in the ledger's public form
HASHED = ("kind", "ref", "team", "submission", "body_sha256", "created_at", "prev")


class LedgerError(FashionRQError):
    """The ledger does not verify: a row does not match its hash or does not chain to the row before it (exit 15)."""

    exit_code = 15


def canonical(obj) -> str:
    """Sorted keys, no spaces, UTF-8 kept: the one text a record hashes to."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def row_hash(row: dict) -> str:
    """sha256 of the canonical JSON of a row's :data:`HASHED` fields (``body_sha256`` computed from ``body`` when
    the row holds the body itself)."""
    fields = {key: row[key] for key in HASHED if key != "body_sha256"}
    fields["body_sha256"] = row["body_sha256"] if "body_sha256" in row else sha256_text(row["body"])
    return hashlib.sha256(canonical(fields).encode("utf-8")).hexdigest()


def now_utc() -> str:
    """The server timestamp of a row: UTC, ISO 8601, microseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def head(conn) -> str:
    """The hash of the newest row, or :data:`GENESIS` for an empty ledger."""
    import sqlalchemy as sa

    # deferred: sqlalchemy (the serve extra; the client, which needs only fashionrq, imports verify_rows from here)
    from fashionrq.server.db import ledger

    found = conn.execute(sa.select(ledger.c.hash).order_by(ledger.c.id.desc()).limit(1)).scalar()
    return found or GENESIS


class Duplicate(Exception):
    """The row's ``ref`` is taken: a replayed submission, or a submission scored already."""


def append(engine, kind: str, ref: str, team: str, submission: int | None, body: dict, *, check=None, also=None,
           tries: int = 200) -> dict:
    """Append one row in its own transaction and return it (with its ``id``).

    ``check(conn)`` runs inside the transaction after the head is read (a quota, say) and may raise to abort;
    ``also(conn, row)`` runs after the insert in the same transaction (a job row, a state change), so both land
    or neither does. A conflict on ``prev`` (another append won the race) is retried on the new head; a conflict
    on ``ref`` raises :class:`Duplicate`.
    """
    import sqlalchemy as sa

    # deferred: sqlalchemy (the serve extra; the client, which needs only fashionrq, imports verify_rows from here)
    from fashionrq.server.db import ledger

    for attempt in range(tries):
        try:
            with engine.begin() as conn:
                prev = head(conn)  # read before check(): a row committed after this read makes our insert conflict
                if check is not None:
                    check(conn)
                if conn.execute(sa.select(ledger.c.id).where(ledger.c.ref == ref)).first() is not None:
                    raise Duplicate(ref)
                row = {"kind": kind, "ref": ref, "team": team, "submission": submission, "body": canonical(body),
                       "created_at": now_utc(), "prev": prev}
                row["hash"] = row_hash(row)
                row["id"] = conn.execute(ledger.insert().values(**row)).inserted_primary_key[0]
                if also is not None:
                    also(conn, row)
                return row
        except sa.exc.IntegrityError:
            time.sleep(min(0.002 * (attempt + 1), 0.05))
    raise FashionRQError(f"the ledger stayed contended for {tries} tries; try again.")


def public_row(row) -> dict:
    """A row as the ledger endpoint serves it: its id, the hashed fields (the body's digest, computed from the stored
    body now, in place of the body) and the stored hash."""
    data = dict(row._mapping) if hasattr(row, "_mapping") else dict(row)
    data["body_sha256"] = sha256_text(data["body"])
    return {"id": data["id"], **{key: data[key] for key in HASHED}, "hash": data["hash"]}


def verify_rows(rows: list[dict], anchor: str | None = None) -> dict:
    """Check every row's hash and that each chains to the one before (rows in id order, from the first).

    With ``anchor`` (a head hash recorded earlier), the chain must also pass through it. Returns
    ``{"rows", "head", "submissions", "scores"}`` or raises :class:`LedgerError` naming the first bad row.
    """
    prev = GENESIS
    seen = set()
    for row in rows:
        try:
            fields = {key: row[key] for key in HASHED}
        except (KeyError, TypeError):
            raise LedgerError(f"ledger row {str(row)[:60]} lacks a field ({', '.join(HASHED)}); the server is not a fashionrq ledger.") from None
        if row_hash(fields) != row.get("hash"):
            raise LedgerError(f"ledger row {row.get('id')} does not match its own hash: it was rewritten after it was appended.")
        if row["prev"] != prev:
            raise LedgerError(f"ledger row {row.get('id')} does not chain to the row before it (prev {str(row['prev'])[:12]}…, "
                              f"expected {prev[:12]}…): a row was removed, inserted or reordered.")
        prev = row["hash"]
        seen.add(prev)
    if anchor is not None and anchor not in seen and not (anchor == GENESIS and not rows):
        raise LedgerError(f"the anchored head {anchor[:12]}… is not in the ledger: the history was rewritten since it was anchored.")
    kinds = [row["kind"] for row in rows]
    return {"rows": len(rows), "head": prev, "submissions": kinds.count("submit"), "scores": kinds.count("score")}
