"""The schema the SQLite-only bot left: every component's scripts of bot.store.legacy run.

Revision ID: 0001
Revises:
Create Date: 2026-12-07

Nothing to do: bot.store.db runs the legacy scripts an older file has not run, then stamps it
with this revision. A database made fresh is created from the tables and stamped with the head.
"""

from __future__ import annotations

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
