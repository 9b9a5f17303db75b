"""Programs on a repeat (bot.programs.repeats): each repeat and each occurrence decided once.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07

- ``program_repeats``: a program started on a `repeat:` (interval or cron) on a server or group;
- ``program_repeat_runs``: each occurrence on each server, once (unique repeat, server,
  occurrence): started with its run, missed, or refused.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.tables import Id, Int

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "program_repeats",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("program", sa.Text, nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("servers", sa.Text, nullable=False),
        sa.Column("repeat", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("first_due", sa.Float, nullable=False),
        sa.Column("timezone", sa.Text, nullable=False),
        sa.Column("every", Int),
        sa.Column("anchor", sa.Float),
        sa.Column("cron", sa.Text),
        sa.Column("dst_repeated", sa.Text),
        sa.Column("dst_skipped", sa.Text),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("created_by_id", Int, nullable=False),
        sa.Column("created_by_name", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.CheckConstraint("kind IN ('every', 'cron')", name="program_repeats_kind_check"),
        sa.CheckConstraint("state IN ('active', 'stopped')", name="program_repeats_state_check"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "program_repeat_runs",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("repeat_id", Id, sa.ForeignKey("program_repeats.id"), nullable=False),
        sa.Column("server", sa.Text, nullable=False),
        sa.Column("occurrence", sa.Float, nullable=False),
        sa.Column("run_id", Id, sa.ForeignKey("program_runs.id")),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("skipped", Int, nullable=False),
        sa.Column("reason", sa.Text),
        sa.Column("at", sa.Float, nullable=False),
        sa.CheckConstraint(
            "state IN ('started', 'missed', 'refused')", name="program_repeat_runs_state_check"
        ),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "program_repeat_runs_occurrence",
        "program_repeat_runs",
        ["repeat_id", "server", "occurrence"],
        unique=True,
    )
    op.create_index("program_repeat_runs_run", "program_repeat_runs", ["run_id"])


def downgrade() -> None:
    raise NotImplementedError("the bot's store moves forward only: restore a backup instead")
