"""Team tokens (stored as sha256 only), the per-team daily submission quota, and throttling of failed tokens.

A token is 32 random bytes (``secrets.token_urlsafe``): guessing one is hopeless, and a client that keeps
presenting wrong tokens is refused outright (:class:`Throttle`) before the database is asked again.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from datetime import datetime, timezone

import sqlalchemy as sa

from fashionrq.errors import InputError
from fashionrq.server.db import ledger, tokens
from fashionrq.server.ledger import now_utc

TEAM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
TOKEN_PREFIX = "frq_"


class QuotaExceeded(Exception):
    """The team has used its submissions for the day (UTC)."""


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def check_team(team: str) -> str:
    if not TEAM_NAME.match(team or ""):
        raise InputError(f"team name {team[:80]!r} is not 1-64 letters, digits, '_', '.' or '-' (starting with a letter or digit); choose another.")
    return team


def issue_token(engine, team: str) -> str:
    """A new token for ``team`` (shown once; only its sha256 is stored)."""
    check_team(team)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with engine.begin() as conn:
        conn.execute(tokens.insert().values(team=team, token_sha256=token_digest(token), created_at=now_utc()))
    return token


def revoke(engine, team: str) -> int:
    """Revoke every live token of ``team``; returns how many were revoked."""
    with engine.begin() as conn:
        done = conn.execute(sa.update(tokens).where(tokens.c.team == team, tokens.c.revoked_at.is_(None))
                            .values(revoked_at=now_utc()))
    return done.rowcount


def team_of(engine, token: str | None) -> str | None:
    """The team a live token belongs to, or None."""
    if not token or len(token) > 256:
        return None
    with engine.connect() as conn:
        return conn.execute(sa.select(tokens.c.team).where(tokens.c.token_sha256 == token_digest(token),
                                                           tokens.c.revoked_at.is_(None))).scalar()


def today() -> str:
    return datetime.now(timezone.utc).date().isoformat()


def quota_check(team: str, quota: int):
    """A ``check`` for :func:`fashionrq.server.ledger.append`: refuse a submission past ``quota`` today (UTC)."""
    def check(conn) -> None:
        used = conn.execute(sa.select(sa.func.count()).select_from(ledger).where(
            ledger.c.kind == "submit", ledger.c.team == team, ledger.c.created_at >= today())).scalar()
        if used >= quota:
            raise QuotaExceeded(f"team {team} has used its {quota} submissions for {today()} (UTC); submit again tomorrow.")

    return check


class Throttle:
    """Refuse a client for ``window`` seconds once it has presented ``limit`` wrong tokens within that window."""

    def __init__(self, limit: int = 20, window: float = 60.0) -> None:
        self.limit, self.window = limit, window
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def blocked(self, client: str) -> bool:
        with self._lock:
            recent = [t for t in self._failures.get(client, []) if t > time.monotonic() - self.window]
            self._failures[client] = recent
            return len(recent) >= self.limit

    def failed(self, client: str) -> None:
        with self._lock:
            self._failures.setdefault(client, []).append(time.monotonic())
