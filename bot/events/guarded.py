"""A server's event source with its crash guard on it (bot.background.crash_guard), and the
alerts the bot makes itself joined to it.

The guard's record follows the pack's events as they pass. The bot's own alerts
(bot.events.bot_alerts: the guard's one alert per restore, the wall-clock scheduler's missed,
late and skipped runs) join the stream, so every face reading the bus (the alerts cog, the
dashboard's live feed) has them as it has the pack's events: no channel logic of their own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING

from bot.aio import cancel_and_wait, stop_whole
from bot.events.event import Event

if TYPE_CHECKING:
    from bot.background.crash_guard import CrashGuard
    from bot.background.event_source import EventSource
    from bot.events.bot_alerts import BotAlerts, Sink

__all__ = ["Gate", "GuardedEvents"]

log = logging.getLogger(__name__)

READ_STOP = 5.0  # seconds a stopped read gets to save its place before it is cut short


class Gate:
    """Open while this process may read a server's events (it holds the server's lease)."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()
        self.closed = asyncio.Event()
        self.closed.set()

    @property
    def is_open(self) -> bool:
        return self.opened.is_set()

    def open(self) -> None:
        self.closed.clear()
        self.opened.set()

    def close(self) -> None:
        self.opened.clear()
        self.closed.set()


class GuardedEvents:
    """Wraps an EventSource (same `ready` and `events()`); `inner` is the wrapped one."""

    def __init__(self, inner: EventSource, guard: CrashGuard) -> None:
        self.inner = inner
        self.guard = guard
        self.ready = inner.ready
        self.alerts: list[BotAlerts] = [guard.alerts]  # the bot's own, beside the pack's
        self._readers: list[Sink] = []  # one per running events()
        self.last_seq = -1  # the newest pack event that came through (bot.background.health)
        # several processes on one database: open while this one holds the server's lease
        # (bot.background.fleet); None: always read
        self.gate: Gate | None = None

    def add_alerts(self, alerts: BotAlerts) -> None:
        """Join another producer's alerts to the stream (streams already running get them too)."""
        if alerts in self.alerts:
            return
        self.alerts.append(alerts)
        for sink in self._readers:
            alerts.subscribe(sink)

    def __getattr__(self, name: str) -> object:
        # counters of the wrapped source (lines_read, ...) for /status and tests
        return getattr(self.inner, name)

    async def events(self) -> AsyncGenerator[Event, None]:
        # the pack's events and the bot's alerts in one queue, in the order they come
        queue: asyncio.Queue[Event | BaseException] = asyncio.Queue()

        async def read() -> None:
            async with aclosing(self.inner.events()) as stream:
                async for event in stream:
                    try:
                        await self.guard.saw_event(event)
                    except BaseException:
                        # not in the record (or stopped while recording it): a source that
                        # can read it again must
                        refuse = getattr(self.inner, "not_taken", None)
                        if refuse is not None:
                            refuse(event)
                        raise
                    self.last_seq = max(self.last_seq, event.seq)
                    queue.put_nowait(event)

        async def pump() -> None:
            try:
                while True:
                    gate = self.gate
                    if gate is None:
                        await read()
                        return
                    await gate.opened.wait()
                    # read while this process holds the server's lease; stop at once when it
                    # is lost (another process reads from the saved place on)
                    reading = asyncio.create_task(read())
                    closing = asyncio.create_task(gate.closed.wait())
                    try:
                        done, _ = await asyncio.wait(
                            {reading, closing}, return_when=asyncio.FIRST_COMPLETED
                        )
                    except BaseException:
                        # stopped while reading: the read stops too, and its clean-up (the
                        # source saving its place) ends before this does, so before the bot
                        # closes the database under it; left running, it outlived the bot and
                        # could wait for ever on the closed database
                        closing.cancel()
                        await stop_whole(reading, READ_STOP)
                        raise
                    await cancel_and_wait(closing)
                    if reading in done:
                        reading.result()
                        return
                    await stop_whole(reading, READ_STOP)  # its place saved for the next holder
                    if not reading.cancelled():
                        reading.exception()  # the lease is gone: how its read ended is moot
            except Exception as e:  # handed to the consumer, which restarts the source
                queue.put_nowait(e)

        self._readers.append(queue)
        for alerts in self.alerts:
            alerts.subscribe(queue)
        task = asyncio.create_task(pump())
        try:
            while True:
                item = await queue.get()
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            self._readers.remove(queue)
            for alerts in self.alerts:
                alerts.unsubscribe(queue)
            # the pump waits for its read's clean-up: so does the stream (see pump)
            await stop_whole(task, READ_STOP + 1)
