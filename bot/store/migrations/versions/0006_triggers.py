"""Triggers (bot.triggers): what starts a program when something happens on a server.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-07

- ``triggers``: each trigger, with its cool-down and day's limit as they stand;
- ``trigger_fires``: each firing, once per occurrence;
- ``program_runs.fire_id`` (one run a firing) and ``program_runs.player`` (the executor).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.tables import Id, Int

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "triggers",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("server", sa.Text, nullable=False),
        sa.Column("program", sa.Text, nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("cooldown", sa.Float, nullable=False),
        sa.Column("per_day", Int, nullable=False),
        sa.Column("enabled", Int, nullable=False),
        sa.Column("created_by_id", Int, nullable=False),
        sa.Column("created_by_name", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("last_fired", sa.Float),
        sa.Column("day_start", sa.Float),
        sa.Column("day_count", Int, nullable=False),
        sa.Column("limit_said", sa.Float),
        sa.CheckConstraint(
            "kind IN ('started', 'players', 'join', 'log', 'interest')",
            name="triggers_kind_check",
        ),
        sqlite_autoincrement=True,
    )
    op.create_index("triggers_name", "triggers", ["name"], unique=True)
    op.create_table(
        "trigger_fires",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column(
            "trigger_id",
            Id,
            sa.ForeignKey("triggers.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("occurrence", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("player", sa.Text),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("reason", sa.Text),
        sa.CheckConstraint(
            "state IN ('fired', 'started', 'refused')", name="trigger_fires_state_check"
        ),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "trigger_fires_occurrence", "trigger_fires", ["trigger_id", "occurrence"], unique=True
    )
    op.create_index("trigger_fires_state", "trigger_fires", ["state"])
    op.add_column("program_runs", sa.Column("fire_id", Id))
    op.add_column("program_runs", sa.Column("player", sa.Text))
    op.create_index("program_runs_fire", "program_runs", ["fire_id"], unique=True)


def downgrade() -> None:
    raise NotImplementedError("the bot's store moves forward only: restore a backup instead")
