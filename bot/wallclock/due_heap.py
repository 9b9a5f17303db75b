"""When each armed row's next work is due, and the one loop that waits for it.

A heap of due times, woken when rows change (no per-second polling: idle, it wakes once per
:data:`bot.times.clock.MAX_SLEEP`). Each row has one entry at first, its staging STAGE_LEAD
before its due time, which pushes the run's own entry; announcements have theirs. Only
(due, id) stay in memory, ~250 bytes a row: the row itself is read back when it comes due
(:func:`due_row`)."""

from __future__ import annotations

__all__ = ["ANNOUNCE_GRACE", "STAGE_LEAD", "DueHeap", "due_row"]

import asyncio
import heapq
import itertools
from collections.abc import Callable
from datetime import UTC, datetime

from bot.store.schedules import Schedule, ScheduleStore
from bot.times.clock import Clock

ANNOUNCE_GRACE = 5.0  # an announcement more than this late (bot was down) is not sent
# A run's request is written to the server this long before its due time, so that at the due
# time one RCON call queues it (PackClient.stage / submit_staged): the hand-over's latency is
# then one round trip, not two. Without a staged request (staging failed, the row was made less
# than this before its time, the server restarted since) the hand-over writes it then.
STAGE_LEAD = 2.0
_STAGE = -1  # the offset of a heap entry that stages (announcements: > 0, the run itself: 0)


async def due_row(store: ScheduleStore, schedule_id: int, due: float) -> Schedule | None:
    """The row, if it is still active and due then (the heap holds only ids)."""
    row = await store.get(schedule_id)
    if row is None or row.state != "active" or row.next_due is None:
        return None
    return row if row.next_due.timestamp() == due else None


class DueHeap:
    """Keeps the due times of the armed rows and, in :meth:`run`, hands each entry out when
    the clock reaches it: a staging, an announcement or the run itself."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._heap: list[tuple[float, int, int, float, int]] = []  # (at, seq, id, due, offset)
        self._due: dict[int, float] = {}  # id -> the due its heap entries are valid for
        self._seq = itertools.count()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()

    def arm(self, row: Schedule) -> None:
        if row.state != "active" or row.next_due is None:
            self.disarm(row.id)
            return
        self.arm_at(row.id, row.next_due.timestamp(), row.announce)

    def arm_at(self, schedule_id: int, due: float, announce: tuple[int, ...]) -> None:
        self._due[schedule_id] = due
        now = self.clock.now().timestamp()
        # one entry a row: its staging, which pushes the run's own entry (100,000 rows held
        # 45 MiB with both in the heap from the start, 34 MiB so)
        if due - STAGE_LEAD >= now:
            heapq.heappush(
                self._heap, (due - STAGE_LEAD, next(self._seq), schedule_id, due, _STAGE)
            )
        else:
            heapq.heappush(self._heap, (due, next(self._seq), schedule_id, due, 0))
        if announce:
            for offset in announce:
                at = due - offset
                if at >= now - ANNOUNCE_GRACE:
                    heapq.heappush(self._heap, (at, next(self._seq), schedule_id, due, offset))
        if self._heap[0][0] <= due:
            self._wake.set()

    def disarm(self, schedule_id: int) -> None:
        # heap entries stay; they are skipped when their due no longer matches (lazy deletion)
        self._due.pop(schedule_id, None)

    def armed(self, schedule_id: int, due: float) -> bool:
        """The row is still armed for this due (not fired, cancelled, paused or moved)."""
        return self._due.get(schedule_id) == due

    async def run(
        self,
        stage: Callable[[int, float], object],
        announce: Callable[[int, float, int], object],
        fire: Callable[[int, float], object],
    ) -> None:
        """Forever: hand out each entry whose time came (to `stage`, `announce` or `fire`,
        which start its work and return), then sleep until the earliest or a change."""
        while True:
            self._wake.clear()
            now = self.clock.now().timestamp()
            while self._heap and self._heap[0][0] <= now:
                _, _, sid, due, offset = heapq.heappop(self._heap)
                if self._due.get(sid) != due:
                    continue  # cancelled, paused or moved since it was pushed
                if offset == _STAGE:
                    heapq.heappush(self._heap, (due, next(self._seq), sid, due, 0))
                    stage(sid, due)
                elif offset:
                    announce(sid, due, offset)
                else:
                    self.disarm(sid)
                    fire(sid, due)
            self._idle.set()
            deadline = self._heap[0][0] if self._heap else None
            when = None if deadline is None else datetime.fromtimestamp(deadline, UTC)
            await self.clock.wait(when, self._wake)

    async def one_pass(self) -> None:
        """For tests (through Scheduler.settled): wake the loop and wait until it went over
        the heap once."""
        self._idle.clear()
        self._wake.set()
        await self._idle.wait()

    def idle(self) -> bool:
        """The loop went over the heap since the last :meth:`one_pass` began."""
        return self._idle.is_set()
