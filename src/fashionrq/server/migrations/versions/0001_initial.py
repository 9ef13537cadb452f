"""The first schema: ledger, jobs and tokens.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ledger",
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
    op.create_table(
        "jobs",
        sa.Column("submission", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("state", sa.String(16), nullable=False, index=True),
        sa.Column("claim", sa.String(64), nullable=True),
        sa.Column("lease_until", sa.Float, nullable=False, server_default="0"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("team", sa.String(64), nullable=False, index=True),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("revoked_at", sa.String(40), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("tokens")
    op.drop_table("jobs")
    op.drop_table("ledger")
