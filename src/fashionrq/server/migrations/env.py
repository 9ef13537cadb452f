"""alembic environment: runs on the connection ``fashionrq.server.db.upgrade`` passes in (online mode only)."""

from alembic import context

from fashionrq.server.db import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
