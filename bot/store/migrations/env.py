"""Alembic's environment for the bot's store: always run by bot.store.db on a connection it
holds (in the migration lock's transaction), never from an ini file."""

from __future__ import annotations

from alembic import context

from bot.store.tables import metadata

connection = context.config.attributes["connection"]
# batch mode: SQLite changes a table by copying it, PostgreSQL alters it in place
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
