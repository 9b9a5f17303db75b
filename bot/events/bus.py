"""An in-process fan-out of each server's event source, so that several faces read one stream.

A source (a log tailer, a ring-buffer poller) can be read by one consumer only: two readers
would each see part of it and save each other's cursor. The bus reads each server's source once,
while anyone listens, and hands every event to every subscriber: the alerts cog, and the web
dashboard's live feed and metrics. When the last subscriber of a server leaves, its source is
closed (it saves its cursor).

Several processes on one database: the events of a server another process reads come from the
shared event log (bot.background.event_relay) through :meth:`EventBus.relay`, to the same
subscribers, marked relayed: not recorded again, and not counted (each process counts what it
read, so the fleet's counts add up).
"""

from __future__ import annotations

__all__ = ["EventBus", "Subscription"]

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.aio import cancel_and_wait
from bot.errors import BotError

if TYPE_CHECKING:
    from bot.background.event_source import EventSource
    from bot.events.event import Event

log = logging.getLogger(__name__)

RESTART_DELAY = 5.0  # seconds before a failed source is read again
HISTORY = 200  # recent events kept for a page that opens late


@dataclass(eq=False)
class Subscription:
    """One subscriber's queue. `maxsize=0` never drops (alerts); a bounded one (a browser tab)
    drops its oldest event rather than hold the bus up, and counts what it dropped."""

    server: str
    queue: asyncio.Queue[Event]
    dropped: int = 0

    def offer(self, event: Event) -> None:
        if self.queue.maxsize and self.queue.full():
            self.queue.get_nowait()
            self.dropped += 1
        self.queue.put_nowait(event)

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._iter()

    async def _iter(self) -> AsyncIterator[Event]:
        while True:
            yield await self.queue.get()


@dataclass(eq=False)
class _Pump:
    task: asyncio.Task[None]
    subscribers: list[Subscription] = field(default_factory=list)


class EventBus:
    """Per server, one reader of its source and any number of subscribers."""

    restart_delay: float = RESTART_DELAY

    def __init__(self) -> None:
        # where each event is kept once told (bot.store.event_log), for pages read after a restart
        self.recorder: Callable[[Event], Awaitable[None]] | None = None
        self._pumps: dict[str, _Pump] = {}
        self.history: deque[Event] = deque(maxlen=HISTORY)
        self.counts: dict[tuple[str, str], int] = {}  # (server, type) -> events seen

    @contextlib.asynccontextmanager
    async def subscribe(
        self, server: str, source: EventSource, *, maxsize: int = 0
    ) -> AsyncIterator[Subscription]:
        """Receive every event of `server` from now on, for as long as the block runs."""
        sub = Subscription(server, asyncio.Queue(maxsize))
        pump = self._pumps.get(server)
        if pump is None or pump.task.done():
            task = asyncio.create_task(self._pump(server, source), name=f"event-bus-{server}")
            pump = self._pumps[server] = _Pump(task)
        pump.subscribers.append(sub)
        try:
            yield sub
        finally:
            pump.subscribers.remove(sub)
            if not pump.subscribers and self._pumps.get(server) is pump:
                del self._pumps[server]
                await cancel_and_wait(pump.task)

    def reading(self, server: str) -> bool:
        """Whether the bus is reading this server's source now."""
        pump = self._pumps.get(server)
        return pump is not None and not pump.task.done()

    async def _pump(self, server: str, source: EventSource) -> None:
        while True:
            try:
                async with contextlib.aclosing(source.events()) as stream:
                    async for event in stream:
                        self._publish(server, event)
                        await self._record(event)
            except asyncio.CancelledError:
                raise
            except BotError as e:  # the server or the database away: said in a line
                log.warning("event source of %s stopped (%s); restarting it", server, e)
                await asyncio.sleep(self.restart_delay)
            except Exception:  # a broken source is restarted, not given up on
                log.exception("event source of %s failed; restarting it", server)
                await asyncio.sleep(self.restart_delay)

    async def _record(self, event: Event) -> None:
        if self.recorder is None:
            return
        try:
            await self.recorder(event)
        except BotError as exc:  # the database away: said in words; the page misses this one
            log.warning("keeping event %s of %s failed: %s", event.seq, event.server, exc)
        except Exception:  # a full disk must not stop the alerts: the page misses this one
            log.exception("keeping event %s of %s failed", event.seq, event.server)

    def relay(self, event: Event) -> None:
        """Hand a relayed event (read by another process) to the subscribers of its server."""
        self.history.append(event)
        self._offer(event.server, event)

    def _publish(self, server: str, event: Event) -> None:
        self.history.append(event)
        key = (event.server, event.type)
        self.counts[key] = self.counts.get(key, 0) + 1
        self._offer(server, event)

    def _offer(self, server: str, event: Event) -> None:
        pump = self._pumps.get(server)
        for sub in list(pump.subscribers if pump else ()):
            sub.offer(event)

    async def close(self) -> None:
        await cancel_and_wait(*(pump.task for pump in self._pumps.values()))
        self._pumps.clear()
