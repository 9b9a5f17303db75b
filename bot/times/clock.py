"""The scheduler's clock, injected: the system clock in the bot, a manual one in tests (so tests
move days in microseconds and never sleep for real)."""

from __future__ import annotations

__all__ = ["MAX_SLEEP", "Clock", "ManualClock", "SystemClock"]

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from typing import Protocol

# The longest the scheduler sleeps in one go even with nothing due sooner: a wall clock that jumps
# (NTP, suspend) is noticed within this, at a cost of one wake-up per 5 minutes, not per second.
MAX_SLEEP = 300.0


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, UTC-aware."""
        ...

    async def sleep(self, seconds: float) -> None: ...

    async def wait(self, deadline: datetime | None, wake: asyncio.Event) -> None:
        """Return at `deadline` (None: never) or as soon as `wake` is set."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def wait(self, deadline: datetime | None, wake: asyncio.Event) -> None:
        timeout = MAX_SLEEP
        if deadline is not None:
            timeout = min(MAX_SLEEP, max(0.0, (deadline - self.now()).total_seconds()))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), timeout)


class ManualClock:
    """A clock that moves only when told (`advance`/`set`); sleepers wake when it passes their
    deadline."""

    def __init__(self, start: datetime) -> None:
        self._now = start.astimezone(UTC)
        self._sleepers: list[tuple[datetime, asyncio.Future[None]]] = []

    def now(self) -> datetime:
        return self._now

    def set(self, when: datetime) -> None:
        self._now = when.astimezone(UTC)
        for deadline, fut in list(self._sleepers):
            if deadline <= self._now and not fut.done():
                fut.set_result(None)
        self._sleepers = [(d, f) for d, f in self._sleepers if not f.done()]

    def advance(self, seconds: float) -> None:
        self.set(self._now + timedelta(seconds=seconds))

    @property
    def sleepers(self) -> int:
        return sum(1 for _, f in self._sleepers if not f.done())

    async def sleep(self, seconds: float) -> None:
        await self._until(self._now + timedelta(seconds=max(0.0, seconds)))

    async def _until(self, deadline: datetime) -> None:
        if deadline <= self._now:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((deadline, fut))
        try:
            await fut
        finally:
            if not fut.done():
                fut.cancel()

    async def wait(self, deadline: datetime | None, wake: asyncio.Event) -> None:
        waker = asyncio.ensure_future(wake.wait())
        timer = asyncio.ensure_future(self._until(deadline)) if deadline is not None else None
        pending = {waker} | ({timer} if timer is not None else set())
        try:
            await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in pending:
                task.cancel()
