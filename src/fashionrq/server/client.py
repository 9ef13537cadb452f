"""The client side of ``fashionrq serve`` (needs only httpx): ``fashionrq submit`` and ``fashionrq verify-ledger``."""

from __future__ import annotations

import time
from pathlib import Path

from fashionrq.errors import FashionRQError, InputError
from fashionrq.server.ledger import LedgerError, verify_rows
from fashionrq.server.store import ALLOWED

#: how long ``submit`` waits for its scores before it stops waiting (the submission stays queued on the server)
WAIT = 3600.0


class ServerError(FashionRQError):
    """The server refused a request or could not be reached (exit 2)."""


def _client(server: str, token: str | None = None, timeout: float = 120.0):
    import httpx

    if not server.startswith(("http://", "https://")):
        raise InputError(f"--server {server[:80]!r} is not an http:// or https:// URL; give the server's address.")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=server.rstrip("/"), headers=headers, timeout=timeout)


def _call(client, method: str, path: str, **kwargs) -> dict:
    import httpx

    try:
        response = client.request(method, path, **kwargs)
    except httpx.HTTPError as err:
        raise ServerError(f"cannot reach {client.base_url} ({type(err).__name__}: {str(err)[:120]}); check --server.") from None
    try:
        data = response.json()
    except ValueError:
        data = {}
    if response.status_code >= 400:
        detail = data.get("detail") if isinstance(data, dict) else None
        raise ServerError(f"the server refused {path} ({response.status_code}): {detail if isinstance(detail, str) else response.text[:200]}")
    return data


def upload(run: Path, server: str, token: str, *, publish: bool = False) -> dict:
    """Send RUN's committed files; returns the new submission's status."""
    files = sorted(p for p in Path(run).iterdir() if p.name in ALLOWED and p.is_file())
    with _client(server, token) as client:
        handles = [(p.name, p.open("rb")) for p in files]
        try:
            return _call(client, "POST", "/api/v1/submissions", data={"publish": "true" if publish else "false"},
                         files=[("files", (name, handle, "application/octet-stream")) for name, handle in handles])
        finally:
            for _, handle in handles:
                handle.close()


def wait(server: str, token: str, ident: int, *, progress=None, timeout: float = WAIT, poll: float = 0.5) -> dict:
    """Poll the submission until it is scored or rejected; ``progress(state)`` sees every state. Returns its scores."""
    deadline = time.monotonic() + timeout
    with _client(server, token) as client:
        while True:
            result = _call(client, "GET", f"/api/v1/submissions/{ident}/scores")
            if progress is not None:
                progress(result["state"])
            if result["state"] in ("scored", "rejected"):
                return result
            if time.monotonic() > deadline:
                raise ServerError(f"submission {ident} was not scored within {timeout:.0f} s; it stays queued, check it later.")
            time.sleep(poll)


def fetch_ledger(server: str) -> tuple[list[dict], str]:
    """Every ledger row (paged) and the head the server reports."""
    rows: list[dict] = []
    with _client(server) as client:
        while True:
            page = _call(client, "GET", "/api/v1/ledger", params={"after": rows[-1]["id"] if rows else 0})
            if not isinstance(page, dict) or not isinstance(page.get("rows"), list):
                raise ServerError(f"{server} did not answer /api/v1/ledger with a ledger; is it a fashionrq server?")
            rows += page["rows"]
            if not page["rows"] or page["rows"][-1]["hash"] == page["head"]:
                return rows, page["head"]


def verify_ledger(server: str, anchor: str | None = None) -> dict:
    """Fetch the ledger and check it (:func:`fashionrq.server.ledger.verify_rows`); also that it ends at the head
    the server reports. Raises ``LedgerError`` on any break."""
    rows, head = fetch_ledger(server)
    result = verify_rows(rows, anchor)
    if result["head"] != head:
        raise LedgerError(f"the chain ends at {result['head'][:12]}…, but the server reports head {head[:12]}…; the ledger changed while read, or was edited.")
    return result
