"""A second bot process's view of a test's database: its own Database (own connections, own
pool) on the same SQLite file or PostgreSQL database."""

from __future__ import annotations

__all__ = ["another_process"]

from bot.store.db import Database


def another_process(db: Database) -> Database:
    return Database(db.path if db.path is not None else db.url.render_as_string(False))
