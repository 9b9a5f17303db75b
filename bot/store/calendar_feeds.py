"""The secret addresses of the calendar feeds: the `calendar_feeds` component of the database.

One feed per scope (a server's name, or :data:`ALL` for every server). Only the SHA-256 of a
feed's secret is stored: the secret is in the address a moderator was given, and a copy of the
database does not open any feed. A renewal replaces the hash, so the old address stops working.
"""

from __future__ import annotations

__all__ = ["ALL", "Feed", "FeedStore", "digest"]

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select

from bot.store.db import Database
from bot.store.tables import calendar_feeds as feeds

ALL = "*"  # the scope of the feed of every server


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

    async def get(self, scope: str) -> Feed | None:
        query = select(
            feeds.c.scope, feeds.c.created_by_id, feeds.c.created_by_name, feeds.c.created_at
        ).where(feeds.c.scope == scope)
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _feed(tuple(row))

    async def put(self, scope: str, secret: str, by_id: int, by_name: str, now: datetime) -> Feed:
        """The scope's feed with this secret; any earlier secret of the scope stops working."""
        values = {
            "scope": scope,
            "secret_sha256": digest(secret),
            "created_by_id": by_id,
            "created_by_name": by_name,
            "created_at": now.timestamp(),
        }
        insert = self.db.insert(feeds).values(values)
        upsert = insert.on_conflict_do_update(
            index_elements=[feeds.c.scope],
            set_={k: insert.excluded[k] for k in values if k != "scope"},
        )
        async with self.db.begin() as conn:
            await conn.execute(upsert)
        return Feed(scope, by_id, by_name, now)

    async def scope_of(self, secret: str) -> str | None:
        """The scope whose feed has this secret, or None (unknown or renewed since)."""
        query = select(feeds.c.scope).where(feeds.c.secret_sha256 == digest(secret))
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else str(row[0])
