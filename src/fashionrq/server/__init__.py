"""``fashionrq serve``: an evaluation server that holds a whole release and never serves a label byte (docs/server.md).

Modules: :mod:`.db` (tables, engines, alembic migrations), :mod:`.ledger` (the hash-chained, append-only
submission ledger), :mod:`.auth` (hashed team tokens, daily quotas, failed-token throttling), :mod:`.store`
(uploads into run folders), :mod:`.worker` (scoring processes), :mod:`.scorer` (their scoring loop), :mod:`.board` (public summaries, the leaderboard
and its page), :mod:`.app` (the FastAPI application), :mod:`.run` (uvicorn and the worker processes) and :mod:`.client` (``fashionrq submit`` and
``fashionrq verify-ledger``; needs only httpx). Everything but the client needs the ``serve`` extra.
"""

from __future__ import annotations

from fashionrq.errors import FashionRQError

INSTALL_HINT = "fashionrq serve needs the serve extra, which is not installed: run pip install 'fashionrq[serve]'."


def require_extra() -> None:
    """Refuse, in one sentence, when the ``serve`` extra (FastAPI, uvicorn, SQLAlchemy, alembic) is missing."""
    try:
        import alembic  # noqa: F401
        import fastapi  # noqa: F401
        import python_multipart  # noqa: F401
        import sqlalchemy  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise FashionRQError(INSTALL_HINT) from None
