"""Programs (bot.programs): named, versioned lists of steps and their runs.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-07

- ``programs``: one row per saved version of a name (the steps as JSON);
- ``program_runs``: a started program on a server, with the version it started with;
- ``program_steps``: each step of a run and its one-shot planned row once made.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.tables import Id, Int

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "programs",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("version", Int, nullable=False),
        sa.Column("steps", sa.Text, nullable=False),
        sa.Column("created_by_id", Int, nullable=False),
        sa.Column("created_by_name", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("programs_version", "programs", ["name", "version"], unique=True)
    op.create_table(
        "program_runs",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("program", sa.Text, nullable=False),
        sa.Column("version", Int, nullable=False),
        sa.Column("server", sa.Text, nullable=False),
        sa.Column("start", sa.Float, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("created_by_id", Int, nullable=False),
        sa.Column("created_by_name", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.CheckConstraint(
            "state IN ('running', 'paused', 'done', 'cancelled', 'stopped')",
            name="program_runs_state_check",
        ),
        sqlite_autoincrement=True,
    )
    op.create_index("program_runs_state", "program_runs", ["state", "server"])
    op.create_table(
        "program_steps",
        sa.Column("run_id", Id, sa.ForeignKey("program_runs.id"), primary_key=True),
        sa.Column("step", Int, primary_key=True),
        sa.Column("schedule_id", Id, sa.ForeignKey("schedules.id")),
        sa.Column("status", sa.Text),
    )
    op.create_index("program_steps_schedule", "program_steps", ["schedule_id"])


def downgrade() -> None:
    raise NotImplementedError("the bot's store moves forward only: restore a backup instead")
