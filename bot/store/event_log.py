"""The recent past of every server's events, kept across restarts: what the dashboard's event
page lists. The bus (bot.events.bus) hands each event here once it has told its readers.

Lazy texts (the bot's own alerts) are kept as English sentences; a reader of another language
gets them said again in theirs where the catalogs know them (bot.i18n.retranslate). The newest
`keep` events are kept; older ones are dropped as new ones come.
"""

from __future__ import annotations

__all__ = ["EventLog", "StoredEvent"]

import json
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from sqlalchemy import delete, select

from bot.events.event import Event
from bot.i18n import use_locale
from bot.store.tables import event_log

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bot.store.db import Database

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
        self._added = 0

    async def add(self, event: Event) -> None:
        with use_locale("en"):  # one language in the store; said again in the reader's
            details = {k: str(v) for k, v in event.details.items()}
        self._added += 1
        prune = self._added % _PRUNE_EVERY == 1
        insert = (
            event_log.insert()
            .values(
                server=event.server,
                seq=event.seq,
                type=event.type,
                task_id=event.task_id,
                game_time=event.game_time,
                details=json.dumps(details, ensure_ascii=False),
            )
            .returning(event_log.c.id)
        )
        async with self.db.begin() as conn:
            newest = int((await conn.execute(insert)).scalar_one())
            if prune:
                await conn.execute(delete(event_log).where(event_log.c.id <= newest - self.keep))

    async def recent(self, *, limit: int, before: int | None = None) -> list[StoredEvent]:
        """Up to `limit` events, newest first; `before`: only those older than that id."""
        e = event_log.c
        query = select(e.id, e.server, e.seq, e.type, e.task_id, e.game_time, e.details)
        if before is not None:
            query = query.where(e.id < before)
        async with self.db.connect() as conn:
            rows = (await conn.execute(query.order_by(e.id.desc()).limit(limit))).all()
        return [_stored(r) for r in rows]


def _stored(r: Sequence[object]) -> StoredEvent:
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
