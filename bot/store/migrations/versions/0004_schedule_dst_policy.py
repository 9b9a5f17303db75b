"""A repeating wall-clock row's DST policy (bot.times.dst).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-07

- ``schedules.dst_repeated``: 'first', 'second' or 'both': which pass of the hour the clocks
  repeat the row runs in;
- ``schedules.dst_skipped``: 'shift' or 'skip': whether its times in the hour the clocks skip run
  when the clock jumps or not at all.

Both NULL on every existing row: the default, which is what those rows did before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # nullable, no default: a plain ADD COLUMN on both engines, no table copy on SQLite
    op.add_column("schedules", sa.Column("dst_repeated", sa.Text))
    op.add_column("schedules", sa.Column("dst_skipped", sa.Text))


def downgrade() -> None:
    raise NotImplementedError("the bot's store moves forward only: restore a backup instead")
