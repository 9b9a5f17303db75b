"""The recent past of every server's events, kept across restarts: what the dashboard's event
page lists. The bus (bot.events.bus) hands each event here once it has told its readers.

Lazy texts (the bot's own alerts) are kept as English sentences; a reader of another language
gets them said again in theirs where the catalogs know them (bot.i18n.retranslate). The newest
`keep` events are kept; older ones are dropped as new ones come.
"""

from __future__ import annotations

__all__ = ["EventLog", "StoredEvent"]

import json
import sqlite3
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from bot.events.event import Event
from bot.i18n import use_locale

if TYPE_CHECKING:
    from bot.store.db import Database

_MIGRATIONS = [
    """
CREATE TABLE event_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    task_id TEXT NOT NULL,
    game_time INTEGER NOT NULL,
    details TEXT NOT NULL        -- JSON object of strings
);
"""
]
KEEP = 5000  # events kept, the newest
_PRUNE_EVERY = 100  # events added between two prunes


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as kept: its place in the log (`id`, newest highest) and the event."""

    id: int
    event: Event


class EventLog:
    """Events by the order they came, newest first when read."""

    def __init__(self, db: Database, *, keep: int = KEEP) -> None:
        self.db = db
        self.keep = keep
        self._migrated = False
        self._added = 0

    async def _ready(self) -> None:
        if not self._migrated:
            await self.db.migrate("event_log", _MIGRATIONS)
            self._migrated = True

    async def add(self, event: Event) -> None:
        with use_locale("en"):  # one language in the store; said again in the reader's
            details = {k: str(v) for k, v in event.details.items()}
        row = (
            event.server,
            event.seq,
            event.type,
            event.task_id,
            event.game_time,
            json.dumps(details, ensure_ascii=False),
        )
        self._added += 1
        prune = self._added % _PRUNE_EVERY == 1
        keep = self.keep

        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO event_log (server, seq, type, task_id, game_time, details)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                row,
            )
            if prune:
                db.execute(
                    "DELETE FROM event_log WHERE id <= (SELECT MAX(id) FROM event_log) - ?",
                    (keep,),
                )

        await self._ready()
        await self.db.run(work)

    async def recent(self, *, limit: int, before: int | None = None) -> list[StoredEvent]:
        """Up to `limit` events, newest first; `before`: only those older than that id."""
        await self._ready()

        def work(db: sqlite3.Connection) -> list[tuple[object, ...]]:
            return db.execute(
                "SELECT id, server, seq, type, task_id, game_time, details FROM event_log"
                " WHERE id < ? ORDER BY id DESC LIMIT ?",
                (before if before is not None else 2**63 - 1, limit),
            ).fetchall()

        return [_stored(r) for r in await self.db.run(work)]


def _stored(r: tuple[object, ...]) -> StoredEvent:
    try:
        found = json.loads(str(r[6]))
    except ValueError:
        found = {}
    details = {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}
    event = Event(
        server=str(r[1]),
        seq=int(str(r[2])),
        type=str(r[3]),
        task_id=str(r[4]),
        game_time=int(str(r[5])),
        details=MappingProxyType(details),
    )
    return StoredEvent(int(str(r[0])), event)
