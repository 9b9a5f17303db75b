"""A second reader of the event source the bot uses, for the selftest's own events.

The selftest must see its marker's events arrive the way the bot's alerts do, but it must not
move the bot's saved place: a selftest run while the bot is down would otherwise mark the
alerts logged in the meantime as delivered. So the probe is a new source of the same class
with the same path or pack client, keeping its cursor in memory: a log tailer starts at the
end of the live log, a storage poller after the newest event in the ring buffer.
"""

from __future__ import annotations

__all__ = ["EventProbe", "MemoryCursors", "probe_for"]

import asyncio
import contextlib
import logging
from collections.abc import Callable
from contextlib import aclosing

from bot.aio import cancel_and_wait
from bot.events.event import Event
from bot.events.log_tail import LogTailer
from bot.events.storage_poll import StoragePoller
from bot.i18n import Lazy, lazy

log = logging.getLogger(__name__)

_MAX_LOG_POLL = 0.25  # s: the probe need not wait as long between looks as the bot does
_MAX_RCON_POLL = 0.5


class MemoryCursors:
    """A cursor store that forgets everything when the selftest ends."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get_cursor(self, key: str) -> str | None:
        return self.values.get(key)

    def set_cursor(self, key: str, value: str) -> None:
        self.values[key] = value


def probe_for(source: object) -> LogTailer | StoragePoller | None:
    """A fresh source like `source` (same file or pack client), with a memory cursor."""
    inner = getattr(source, "inner", None)  # the crash guard's wrapper (bot.events.guarded)
    if isinstance(inner, LogTailer | StoragePoller):
        source = inner
    if isinstance(source, LogTailer):
        return LogTailer(
            source.path,
            source.server,
            MemoryCursors(),
            poll_interval=min(source.poll_interval, _MAX_LOG_POLL),
            cursor_key="selftest",
            reorder_window=source.reorder_window,  # Paper's late say lines, as the bot's
            files=source.files,  # this machine's disk, or the server's over SFTP
        )
    if isinstance(source, StoragePoller):
        poller = StoragePoller(
            source.pack,
            source.server,
            MemoryCursors(),
            poll_interval=min(source.poll_interval, _MAX_RCON_POLL),
            broadcast_rcon_to_ops=False,  # the bot's own poller already says so; not twice
            cursor_key="selftest",
        )
        return poller
    return None


class EventProbe:
    """Collects the events whose task id passes `keep`, from a started probe source."""

    def __init__(self, source: LogTailer | StoragePoller, keep: Callable[[str], bool]) -> None:
        self.source = source
        self.keep = keep
        self.events: list[Event] = []
        self.error: BaseException | None = None
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def reads_log(self) -> bool:
        return isinstance(self.source, LogTailer)

    @property
    def kind(self) -> Lazy:
        """Where it reads, said in the report's language."""
        if isinstance(self.source, LogTailer):
            return lazy("the log {path}", path=self.source.path)
        return lazy("the pack's ring buffer over RCON")

    async def start(self, limit: float = 5.0) -> bool:
        """Start reading; True once the source knows where it starts (a poller: after its
        first poll, which only fixes the starting seq)."""
        self._task = asyncio.create_task(self._pump(), name="selftest event probe")
        ready = asyncio.ensure_future(self.source.ready.wait())
        # a source that fails before it is ready ends the wait too
        await asyncio.wait([ready, self._task], timeout=limit, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():
            ready.cancel()
            return False
        return not self._task.done()

    async def _pump(self) -> None:
        try:
            async with aclosing(self.source.events()) as stream:
                async for event in stream:
                    if self.keep(event.task_id):
                        self.events.append(event)
                        self._changed.set()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # reported by the check that waits for the events
            log.warning("the selftest's event probe failed: %s", exc)
            self.error = exc
            self._changed.set()

    async def wait_changed(self, limit: float) -> None:
        """Until a new event (or a failure) arrives, or `limit` seconds pass."""
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(limit, 0.0)):
                await self._changed.wait()

    async def stop(self) -> None:
        if self._task is None:
            return
        await cancel_and_wait(self._task)
        self._task = None
