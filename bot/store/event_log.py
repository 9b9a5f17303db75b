"""The recent past of every server's events, kept across restarts: what the dashboard's event
page lists. The bus (bot.events.bus) hands each event here once it has told its readers.

Lazy texts (the bot's own alerts) are kept as English sentences; a reader of another language
gets them said again in theirs where the catalogs know them (bot.i18n.retranslate). The newest
`keep` events are kept; older ones are dropped as new ones come.

Several processes on PostgreSQL: each added event is told on the ``doom_events`` channel (its
id), and the other processes read what came after the last id they saw
(:meth:`EventLog.added_by_others`, bot.background.event_relay). For that cursor to miss nothing,
ids are committed in their order: each add takes a transaction lock first, so a row with a lower
id cannot become visible after one with a higher id (an event is a short insert; the lock is
held for no longer).
"""

from __future__ import annotations

__all__ = ["EventLog", "StoredEvent"]

import json
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from sqlalchemy import delete, func, select, text

from bot.events.event import Event
from bot.i18n import use_locale
from bot.store.notify import EVENTS, notify
from bot.store.tables import event_log

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bot.store.db import Database

KEEP = 5000  # events kept, the newest
_PRUNE_EVERY = 100  # events added between two prunes
# PostgreSQL's advisory lock taken by each add, so ids commit in order (any number unique here)
_ORDER_LOCK = 0x600D5E71


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
        # the ids this process added, above the cursor of added_by_others: not relayed back
        self.written: set[int] = set()

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
            shared = conn.dialect.name == "postgresql"
            if shared:
                await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _ORDER_LOCK})
            newest = int((await conn.execute(insert)).scalar_one())
            if shared:  # known as this process's before another can read it
                self.written.add(newest)
                if len(self.written) > self.keep:  # no reader passes them: those pruned go
                    self.written = {i for i in self.written if i > newest - self.keep}
            if prune:
                await conn.execute(delete(event_log).where(event_log.c.id <= newest - self.keep))
            if shared:
                await notify(conn, EVENTS, str(newest))

    async def newest_id(self) -> int:
        """The id of the newest event kept (0 when none is)."""
        async with self.db.connect() as conn:
            found = (await conn.execute(select(func.max(event_log.c.id)))).scalar()
        return int(found or 0)

    async def added_by_others(self, cursor: int, *, limit: int) -> tuple[list[StoredEvent], int]:
        """The events other processes added with ids above `cursor`, oldest first, and the id
        read up to (the next cursor): up to `limit` rows are read, this process's own skipped."""
        e = event_log.c
        query = select(e.id, e.server, e.seq, e.type, e.task_id, e.game_time, e.details)
        query = query.where(e.id > cursor).order_by(e.id).limit(limit)
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        found = [_stored(r) for r in rows]
        if not found:
            return [], cursor
        last = found[-1].id
        others = [s for s in found if s.id not in self.written]
        self.written = {i for i in self.written if i > last}
        return others, last

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
