"""The secret addresses of the calendar feeds: the `calendar_feeds` component of the database.

One feed per scope (a server's name, or :data:`ALL` for every server). Only the SHA-256 of a
feed's secret is stored: the secret is in the address a moderator was given, and a copy of the
database does not open any feed. A renewal replaces the hash, so the old address stops working.
"""

from __future__ import annotations

__all__ = ["ALL", "Feed", "FeedStore", "digest"]

import hashlib
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.store.db import Database

ALL = "*"  # the scope of the feed of every server

_MIGRATIONS = [
    """
CREATE TABLE calendar_feeds (
    scope TEXT PRIMARY KEY,        -- a server's name, or '*' for every server
    secret_sha256 TEXT NOT NULL UNIQUE,
    created_by_id INTEGER NOT NULL,
    created_by_name TEXT NOT NULL,
    created_at REAL NOT NULL       -- UTC epoch seconds
);
""",
]


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Feed:
    """A feed as stored: whose it is and when its address was made (never the secret)."""

    scope: str
    created_by_id: int
    created_by_name: str
    created_at: datetime


def _feed(row: tuple[object, ...]) -> Feed:
    return Feed(
        str(row[0]), int(str(row[1])), str(row[2]), datetime.fromtimestamp(float(str(row[3])), UTC)
    )


class FeedStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._migrated = False

    async def migrate(self) -> None:
        if not self._migrated:
            await self.db.migrate("calendar_feeds", _MIGRATIONS)
            self._migrated = True

    async def get(self, scope: str) -> Feed | None:
        await self.migrate()
        row = await self.db.run(
            lambda db: db.execute(
                "SELECT scope, created_by_id, created_by_name, created_at FROM calendar_feeds"
                " WHERE scope = ?",
                (scope,),
            ).fetchone()
        )
        return None if row is None else _feed(row)

    async def put(self, scope: str, secret: str, by_id: int, by_name: str, now: datetime) -> Feed:
        """The scope's feed with this secret; any earlier secret of the scope stops working."""
        await self.migrate()

        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO calendar_feeds (scope, secret_sha256, created_by_id,"
                " created_by_name, created_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(scope) DO UPDATE SET secret_sha256 = excluded.secret_sha256,"
                " created_by_id = excluded.created_by_id,"
                " created_by_name = excluded.created_by_name, created_at = excluded.created_at",
                (scope, digest(secret), by_id, by_name, now.timestamp()),
            )

        await self.db.run(work)
        return Feed(scope, by_id, by_name, now)

    async def scope_of(self, secret: str) -> str | None:
        """The scope whose feed has this secret, or None (unknown or renewed since)."""
        await self.migrate()
        row = await self.db.run(
            lambda db: db.execute(
                "SELECT scope FROM calendar_feeds WHERE secret_sha256 = ?", (digest(secret),)
            ).fetchone()
        )
        return None if row is None else str(row[0])
