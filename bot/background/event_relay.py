"""Several bot processes on one database: every process's bus hears every server's events.

A server's events are read by the process holding its lease (bot.background.fleet), which
records each in the shared event log (bot.store.event_log). The relay of every other process
reads the log after the last id it saw and hands those events to its own bus, marked relayed
(bot.events.event.Event.relayed): its dashboard's live feed and its Discord alerts have them;
the bus records nothing relayed, and the work done once per event (the plugins' listeners; the
crash guard and the health checks read the source itself, before the bus) stays the reader's.

Woken by the log's notice (``doom_events``) at once; a look every :data:`LOOK` seconds is the
fallback when a notice is lost, and a reconnected listener's empty notice wakes it to catch up.

Which rows: every row this process did not add itself (EventLog.written), rather than every row
of a server it does not hold now. When a lease moves, an event is read, shown and recorded by
exactly one process; the others see its row. Deciding by the lease held now would, in the
window around a move, show twice a row this process added just before it lost the server, and
lose the previous holder's last rows just after it gained one. The log commits ids in order,
so the cursor passes none that could still appear.
"""

from __future__ import annotations

__all__ = ["LOOK", "EventRelay"]

import asyncio
import contextlib
import logging
from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.aio import cancel_and_wait

if TYPE_CHECKING:
    from bot.events.bus import EventBus
    from bot.store.event_log import EventLog

log = logging.getLogger(__name__)

LOOK = 2.0  # seconds between looks when no notice came
BATCH = 200  # rows read at a time


class EventRelay:
    """Reads the events other processes added to the log onto this process's bus."""

    def __init__(
        self, events: EventLog, bus: EventBus, servers: Collection[str], *, look: float = LOOK
    ) -> None:
        self.events = events
        self.bus = bus
        self.servers = frozenset(servers)
        self.look = look
        self.cursor: int | None = None  # the last id read; None until the first read
        self.relayed = 0  # events handed to the bus, for tests
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Relay what is added from now on (what came before is on the events page)."""
        if self._task is not None:
            return
        with contextlib.suppress(Exception):  # the database is down: the first look sets it
            self.cursor = await self.events.newest_id()
        self._task = asyncio.create_task(self._run(), name="event-relay")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None

    def wake(self, payload: str = "") -> None:
        """A notice: look now. The notice of a row this process added itself needs no look."""
        if payload.isdigit() and int(payload) in self.events.written:
            return
        self._wake.set()

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.look)
            self._wake.clear()
            try:
                await self.catch_up()
            except Exception as exc:  # the database is away: the next look tries again
                log.debug("relaying the other processes' events failed: %s", exc)

    async def catch_up(self) -> int:
        """Hand every event added by another process since the last look to the bus; how many."""
        if self.cursor is None:
            self.cursor = await self.events.newest_id()
            return 0
        told = 0
        while True:
            found, cursor = await self.events.added_by_others(self.cursor, limit=BATCH)
            for stored in found:
                if stored.event.server in self.servers:
                    self.bus.relay(replace(stored.event, relayed=True))
                    told += 1
                    self.relayed += 1
            if cursor == self.cursor:
                break
            self.cursor = cursor
        return told
