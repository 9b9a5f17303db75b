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

from bot.aio import cancel_and_wait
from bot.events.event import Event

if TYPE_CHECKING:
    from bot.background.crash_guard import CrashGuard
    from bot.background.event_source import EventSource
    from bot.events.bot_alerts import BotAlerts, Sink

__all__ = ["GuardedEvents"]

log = logging.getLogger(__name__)


class GuardedEvents:
    """Wraps an EventSource (same `ready` and `events()`); `inner` is the wrapped one."""

    def __init__(self, inner: EventSource, guard: CrashGuard) -> None:
        self.inner = inner
        self.guard = guard
        self.ready = inner.ready
        self.alerts: list[BotAlerts] = [guard.alerts]  # the bot's own, beside the pack's
        self._readers: list[Sink] = []  # one per running events()
        self.last_seq = -1  # the newest pack event that came through (bot.background.health)

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

        async def pump() -> None:
            try:
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
            await cancel_and_wait(task)
