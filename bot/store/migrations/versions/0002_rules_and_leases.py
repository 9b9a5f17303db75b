"""The rules in the database, and leases: what several processes on one database need.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-07

- one row per planned run of a schedule (``schedule_runs_planned``); runs an older bot
  recorded twice are kept, the later copies marked as such, so the rule can hold from now on;
- one live schedule per server and task id (``schedules_live``); older duplicates (which the
  single process never made) would stop the upgrade, and are said;
- one ledger row per task key (``ledger_tasks_bkey_unique``, replacing the plain index);
- ``ledger_early`` numbered by an ``id`` (it was ordered by SQLite's rowid);
- the ``leases`` table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.tables import Id, Int

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

DUPLICATE = "duplicate before upgrade"  # triggered_by of a planned run recorded twice


def upgrade() -> None:
    bind = op.get_bind()
    # keep the first row of each planned run; mark the others, which the rule then ignores
    bind.execute(
        sa.text(
            "UPDATE schedule_runs SET triggered_by = :mark WHERE triggered_by IS NULL AND id NOT IN"
            " (SELECT MIN(id) FROM schedule_runs WHERE triggered_by IS NULL"
            " GROUP BY schedule_id, due)"
        ),
        {"mark": DUPLICATE},
    )
    op.create_index(
        "schedule_runs_planned",
        "schedule_runs",
        ["schedule_id", "due"],
        unique=True,
        sqlite_where=sa.text("triggered_by IS NULL"),
        postgresql_where=sa.text("triggered_by IS NULL"),
    )
    op.create_index(
        "schedules_live",
        "schedules",
        ["server", "task_id"],
        unique=True,
        sqlite_where=sa.text("state IN ('active', 'paused')"),
        postgresql_where=sa.text("state IN ('active', 'paused')"),
    )
    op.drop_index("ledger_tasks_bkey", table_name="ledger_tasks")
    op.create_index(
        "ledger_tasks_bkey_unique",
        "ledger_tasks",
        ["server", "bkey"],
        unique=True,
        sqlite_where=sa.text("bkey IS NOT NULL"),
        postgresql_where=sa.text("bkey IS NOT NULL"),
    )
    op.rename_table("ledger_early", "ledger_early_old")
    op.create_table(
        "ledger_early",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("server", sa.Text, nullable=False),
        sa.Column("bkey", sa.Text, nullable=False),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("game_time", Int, nullable=False),
        sqlite_autoincrement=True,
    )
    order = "rowid" if bind.dialect.name == "sqlite" else "ctid"
    bind.execute(
        sa.text(
            "INSERT INTO ledger_early (server, bkey, type, game_time)"
            f" SELECT server, bkey, type, game_time FROM ledger_early_old ORDER BY {order}"
        )
    )
    op.drop_table("ledger_early_old")
    op.create_table(
        "leases",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("holder", sa.Text, nullable=False),
        sa.Column("token", Int, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Column("acquired", sa.Float, nullable=False),
    )


def downgrade() -> None:
    raise NotImplementedError("the bot's store moves forward only: restore a backup instead")
