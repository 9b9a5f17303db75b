"""What a row does when its due time comes (or the bot starts after it): the late rules.

Within `grace` a run is on time; a `once` row runs late up to `max_late`, else it is missed; a
repeating row runs its latest boundary when that one may still run and counts the others as
skipped, then re-arms on its next boundary strictly after now, anchored. A run is recorded
before it is handed over (bot.wallclock.delivery), so never twice; a run or a miss another
process recorded first is left to it (the store says it lost)."""

from __future__ import annotations

__all__ = ["Firing"]

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Protocol

from bot.i18n import N_, Text
from bot.store.schedules import Fence, Schedule, ScheduleStore, State
from bot.times.clock import Clock
from bot.times.when import boundaries, human, latest_boundary, next_boundary
from bot.wallclock.due_heap import DueHeap, due_row


class _Alerting(Protocol):
    def alert(self, row: Schedule, kind: str, due: datetime, **details: Text) -> None: ...


# hands one recorded run over: (row, run id, due)
Deliver = Callable[[Schedule, int, datetime], Awaitable[None]]


def _no_fence(server: str) -> Fence | None:
    return None


class Firing:
    """Decides, for a row that came due, whether its run goes ahead, is skipped or missed;
    records that, re-arms a repeating row and hands the run over."""

    def __init__(
        self,
        store: ScheduleStore,
        clock: Clock,
        heap: DueHeap,
        alerting: _Alerting,
        deliver: Deliver,
        *,
        grace: timedelta,
        max_late: timedelta,
    ) -> None:
        self.store = store
        self.clock = clock
        self.heap = heap
        # the scheduler's: re-arm a row (only if this process holds its server), and the
        # check a run's record makes in its transaction that it still does
        self.arm: Callable[[Schedule], None] = heap.arm
        self.fence_for: Callable[[str], Fence | None] = _no_fence
        # the scheduler itself, looked up at each alert (a test may wrap Scheduler.alert)
        self.alerting = alerting
        self.deliver = deliver
        self.grace = grace
        self.max_late = max_late

    async def fire_id(self, schedule_id: int, due: float) -> None:
        row = await due_row(self.store, schedule_id, due)
        if row is not None:
            await self.fire(row)

    async def fire(self, row: Schedule) -> None:
        """A row reached its due time (or the bot started after it): run, skip or miss it."""
        assert row.next_due is not None
        now = self.clock.now()
        due = row.next_due
        if row.kind == "at":
            if self.may_run(row, now - due):
                # the row stays active (cancellable) until its run ends: done, or missed
                planned = await self.store.begin_run(
                    row.id, due, None, "active", fence=self.fence_for(row.server)
                )
                if planned is not None:  # None: another process planned it and hands it over
                    await self.deliver(row, planned, due)
            elif await self.store.record_missed(
                row.id, due, "missed", None, "missed", fence=self.fence_for(row.server)
            ):
                late = human(int((now - due).total_seconds()))
                self.alerting.alert(
                    row,
                    "wallclock_missed",
                    due,
                    late=late,
                    reason=self._away(
                        N_("the bot was not running at its time"),
                        N_("the bot was not running, or could not reach its database, at its time"),
                    ),
                )
            return
        spec = row.spec
        latest = latest_boundary(spec, now) or due
        latest = max(latest, due)
        nxt = next_boundary(spec, now)
        skipped = boundaries(spec, due, latest) - 1
        runnable = self.may_run(row, now - latest)
        if not runnable:
            skipped += 1
        state: State = "active" if nxt is not None else "done"
        run_id: int | None = None
        # a miss another process recorded first is its to say, and its run to hand over
        fence = self.fence_for(row.server)
        moved_on = skipped == 0 or await self.store.record_missed(
            row.id, due, f"skipped {skipped}", latest if runnable else nxt, state, fence=fence
        )
        if skipped > 0 and moved_on:
            self.alerting.alert(
                row,
                "wallclock_skipped",
                due,
                skipped=str(skipped),
                reason=self._away(
                    N_("the bot was not running at those times"),
                    N_("the bot was not running, or could not reach its database, at those times"),
                ),
            )
        if runnable and moved_on:
            run_id = await self.store.begin_run(row.id, latest, nxt, state, fence=fence)
        moved = await self.store.get(row.id) or row
        self.arm(moved)
        if run_id is not None:
            await self.deliver(row, run_id, latest)

    def _away(self, alone: Text, shared: Text) -> Text:
        # on a shared database the processes stop while it is away (their leases cannot be
        # renewed), so a time can pass with every process running
        return alone if self.store.db.is_sqlite else shared

    def may_run(self, row: Schedule, late: timedelta) -> bool:
        return late <= self.grace or (row.missed == "once" and late <= self.max_late)

    def resumed_due(self, row: Schedule) -> datetime | None:
        """A resumed one-shot keeps its time (late rules apply if it passed); a repeating row
        goes on at its next boundary strictly after now."""
        if row.kind == "at":
            return row.next_due
        return next_boundary(row.spec, self.clock.now())
