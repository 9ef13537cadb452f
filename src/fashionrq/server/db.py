"""Tables, engines and migrations of the server's database (SQLite by default, PostgreSQL by URL).

The schema is owned by alembic (``migrations/``): :func:`connect` upgrades a database to the newest revision, so a
database written by an older fashionrq is migrated, never rebuilt by hand. Three tables:

* ``ledger`` — append-only, hash-chained rows (``fashionrq.server.ledger``): one ``submit`` row per submission and
  one ``score`` row per scored submission; ``ref`` (unique) makes a replayed submission and a second score
  impossible, ``prev`` (unique) makes two rows claiming the same predecessor impossible;
* ``jobs`` — the scoring queue: one row per submission, its state and the lease of the worker scoring it;
* ``tokens`` — team tokens, stored as sha256 only.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from fashionrq.errors import InputError

metadata = sa.MetaData()

ledger = sa.Table(
    "ledger", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("ref", sa.String(128), nullable=False, unique=True),
    sa.Column("team", sa.String(64), nullable=False, index=True),
    sa.Column("submission", sa.Integer, nullable=True, index=True),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("prev", sa.String(64), nullable=False, unique=True),
    sa.Column("hash", sa.String(64), nullable=False, unique=True),
)

jobs = sa.Table(
    "jobs", metadata,
    sa.Column("submission", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("state", sa.String(16), nullable=False, index=True),
    sa.Column("claim", sa.String(64), nullable=True),
    sa.Column("lease_until", sa.Float, nullable=False, server_default="0"),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
)

tokens = sa.Table(
    "tokens", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("team", sa.String(64), nullable=False, index=True),
    sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("revoked_at", sa.String(40), nullable=True),
)

MIGRATIONS = Path(__file__).parent / "migrations"


def database_url(db: str | None, data: Path) -> str:
    """The SQLAlchemy URL for ``--db``: ``DATA/server.db`` (SQLite) when None; ``postgresql://`` uses psycopg 3."""
    if not db:
        return f"sqlite:///{(Path(data) / 'server.db').resolve()}"
    if db.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + db.split("://", 1)[1]
    if db.startswith(("sqlite:///", "postgresql+psycopg://")):
        return db
    raise InputError(f"--db {db[:80]!r} is neither sqlite:///PATH nor postgresql://USER@HOST/NAME; give one of those.")


def _sqlite_setup(engine: sa.Engine) -> None:
    """WAL, a busy timeout, and BEGIN IMMEDIATE: a transaction takes the write lock when it starts, so two processes
    never deadlock upgrading a read lock (pysqlite's own transaction handling is switched off for this)."""

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi, _record):
        dbapi.isolation_level = None
        dbapi.execute("PRAGMA journal_mode=WAL")
        dbapi.execute("PRAGMA busy_timeout=60000")
        dbapi.execute("PRAGMA synchronous=FULL")

    @sa.event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def connect(url: str, *, migrate: bool = True) -> sa.Engine:
    """An engine for ``url``, upgraded to the newest schema revision (alembic) unless ``migrate`` is False."""
    try:
        engine = sa.create_engine(url, pool_pre_ping=True, **({"pool_size": 20, "max_overflow": 20} if url.startswith("postgresql") else {}))
    except (sa.exc.ArgumentError, ImportError) as err:
        raise InputError(f"cannot open database {url.split('@')[-1][:80]} ({str(err).splitlines()[0][:120]}); check --db.") from None
    if url.startswith("sqlite"):
        _sqlite_setup(engine)
    if migrate:
        upgrade(engine)
    return engine


def upgrade(engine: sa.Engine) -> None:
    """Run alembic's migrations up to ``head`` on ``engine`` (a no-op on an up-to-date database)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
    except sa.exc.OperationalError as err:
        raise InputError(f"cannot reach database {engine.url.render_as_string(hide_password=True)[:120]} "
                         f"({str(err.orig).splitlines()[0][:160]}); check --db and that the server runs.") from None
