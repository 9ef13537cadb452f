"""alembic migrations of the server's database (``fashionrq.server.db.upgrade`` runs them)."""
