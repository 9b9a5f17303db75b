"""The asyncio tasks the wall-clock scheduler starts beside its loop: stagings, announcements
and runs being handed over."""

from __future__ import annotations

__all__ = ["Inflight"]

import asyncio
import logging
from collections.abc import Coroutine

from bot.aio import cancel_and_wait
from bot.errors import BotError
from bot.times.clock import Clock

log = logging.getLogger(__name__)


class Inflight:
    """Starts and keeps the scheduler's tasks: each failure logged, all cancelled at stop, and
    each one's sleep on the clock flagged so that tests can tell waiting from working."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[object, object, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_report)
        return task

    async def sleep(self, seconds: float) -> None:
        task = asyncio.current_task()
        setattr(task, "wallclock_sleeping", True)  # noqa: B010 - a flag quiet() reads
        try:
            await self.clock.sleep(seconds)
        finally:
            setattr(task, "wallclock_sleeping", False)  # noqa: B010

    def quiet(self) -> bool:
        """Every task finished or waits on the clock."""
        return all(t.done() or _sleeping(t) for t in self._tasks)

    async def stop(self, *others: asyncio.Task[None] | None) -> None:
        """Cancel every task, and `others` with them, and wait for them to end."""
        await cancel_and_wait(*others, *self._tasks)
        self._tasks.clear()


def _sleeping(task: asyncio.Task[None]) -> bool:
    return getattr(task, "wallclock_sleeping", False)


def _report(task: asyncio.Task[None]) -> None:
    if task.cancelled() or (error := task.exception()) is None:
        return
    if isinstance(error, BotError):  # a fault said in words (the database away): no traceback
        log.warning("a wall-clock run failed: %s", error)
    else:
        log.error("a wall-clock run failed", exc_info=error)
