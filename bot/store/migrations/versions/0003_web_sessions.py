"""The dashboard's state in the database, so every process that serves it shares it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-08

- ``web_keys``: the key that signs cookies, links and tokens, made once;
- ``web_sessions``: logged-in browsers (by their id's SHA-256), so a logout ends one in every
  process;
- ``web_links_spent``: the /dashboard links already used;
- ``rate_limits``: the dashboard's rate limits, counted across processes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.tables import Int

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_keys",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "web_sessions",
        sa.Column("sid_sha256", sa.Text, primary_key=True),
        sa.Column("user_id", Int, nullable=False),
        sa.Column("guild_id", Int, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("rank", Int),
        sa.Column("seen_rank", Int),
        sa.Column("seen_at", sa.Float),
        sa.Column("csrf", sa.Text, nullable=False),
        sa.Column("flashes", sa.Text, nullable=False, server_default="[]"),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("web_sessions_expires", "web_sessions", ["expires"])
    op.create_table(
        "web_links_spent",
        sa.Column("nonce_sha256", sa.Text, primary_key=True),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_table(
        "rate_limits",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("tat", sa.Float, nullable=False),
    )
    op.create_index("rate_limits_tat", "rate_limits", ["tat"])


def downgrade() -> None:
    raise NotImplementedError("the bot's store moves forward only: restore a backup instead")
