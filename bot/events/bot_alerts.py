"""Alerts the bot makes itself (the crash guard's restore, the wall-clock scheduler's missed and
late runs), handed to a server's event stream (bot.events.guarded) so that every face reading
the bus sees them: the alerts cog posts them, the dashboard's live feed shows them.

An alert made while nobody reads the stream (before the alerts cog loaded, between two restarts
of the source) waits here and goes to the first reader; past `backlog` the oldest is dropped.
"""

from __future__ import annotations

__all__ = ["BotAlerts", "Sink"]

import contextlib
from collections import deque
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bot.events.event import Event

BACKLOG = 1000


class Sink(Protocol):
    """Where a reader takes alerts: an asyncio.Queue, of events or of more than events."""

    def put_nowait(self, item: Event, /) -> None: ...


class BotAlerts:
    """One producer's alerts for one server, fanned out to every stream reading them."""

    def __init__(self, backlog: int = BACKLOG) -> None:
        self._sinks: list[Sink] = []
        self._unsent: deque[Event] = deque(maxlen=backlog)

    def subscribe(self, sink: Sink) -> None:
        self._sinks.append(sink)
        while self._unsent:
            sink.put_nowait(self._unsent.popleft())

    def unsubscribe(self, sink: Sink) -> None:
        with contextlib.suppress(ValueError):
            self._sinks.remove(sink)

    def emit(self, event: Event) -> None:
        if not self._sinks:
            self._unsent.append(event)
        for sink in self._sinks:
            sink.put_nowait(event)

    @property
    def unsent(self) -> int:
        """Alerts waiting for a reader."""
        return len(self._unsent)
