"""The wall-clock scheduler: one asyncio task that sleeps until the earliest due row.

Modelled on SpacetimeDB's schedule tables: rows with an instant or an interval, a heap of due
times (bot.wallclock.due_heap), woken when rows change. At due time a row's run is recorded,
then handed to the pack as a task due now (bot.wallclock.delivery, bot.minecraft.handover), so
context capture, retry and offline parking are the pack's; STAGE_LEAD before it, its request is
written to the server (bot.wallclock.staging). Repeating rows re-arm on their next boundary
strictly after now, anchored; late runs follow the late rules (bot.wallclock.firing). Each
missed, skipped, late or failed run is an alert on the server's :meth:`Scheduler.alerts_of`
(bot.wallclock.alerts). What a row may be is bot.wallclock.rules.
"""

from __future__ import annotations

__all__ = ["Scheduler"]

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine, Mapping
from datetime import datetime, timedelta

from bot.aio import cancel_and_wait
from bot.errors import BotError
from bot.events.bot_alerts import BotAlerts
from bot.i18n import Text
from bot.minecraft.pack_input import check_player, check_run_text
from bot.store.schedules import (
    ACTIVE_STATES,
    Creator,
    Fence,
    OnDoubt,
    Run,
    Schedule,
    ScheduleStore,
    State,
)
from bot.times.clock import Clock, SystemClock
from bot.times.when import DEFAULT_TIMEZONE, Missed, Spec, next_runs
from bot.wallclock.alerts import Alerts
from bot.wallclock.delivery import Delivery
from bot.wallclock.due_heap import DueHeap
from bot.wallclock.firing import Firing
from bot.wallclock.inflight import Inflight
from bot.wallclock.rules import RowRules, ServerParts
from bot.wallclock.staging import Staging, announce

log = logging.getLogger(__name__)

BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)  # seconds between hand-over attempts
GRACE = timedelta(seconds=5)  # later than this is "late" (alerted), not on time
OFFLINE_RETRY = 15.0  # seconds between hand-over attempts while the as_player is offline
RUN_NOW_WAIT = 10.0  # seconds a run-now answer waits for its hand-over (it goes on after)
REFRESH = 1.0  # seconds between looks for rows another process made, shared
MARK_KEEP = 3600.0  # seconds a run's hand-over mark is kept after its record (delivery)


def _every_server(server: str) -> bool:
    return True


def _no_fence(server: str) -> Fence | None:
    return None


class Scheduler:
    """Wall-clock schedules of every server: create, cancel, pause, resume, list, run. The
    facade the services, the operations and the faces hold; the work is its parts'."""

    def __init__(
        self,
        store: ScheduleStore,
        servers: Mapping[str, ServerParts],
        *,
        clock: Clock | None = None,
        max_late: float = 600.0,
        default_timezone: str = DEFAULT_TIMEZONE,
        grace: timedelta = GRACE,
        backoff: tuple[float, ...] = BACKOFF,
        offline_retry: float = OFFLINE_RETRY,
        mark_keep: float = MARK_KEEP,
    ) -> None:
        self.store = store
        self.servers = servers
        self.clock: Clock = clock or SystemClock()
        self.max_late = timedelta(seconds=max_late)
        self.default_timezone = default_timezone
        self.grace = grace
        self.backoff = backoff
        self.offline_retry = offline_retry
        self.mark_keep = mark_keep
        self.rules = RowRules(store, servers, self.clock, default_timezone)
        self.heap = DueHeap(self.clock)
        self.inflight = Inflight(self.clock)
        self.staging = Staging(store, servers, self.heap, self.inflight.spawn)
        self.alerts = Alerts()
        self.firing = Firing(
            store, self.clock, self.heap, self, self._deliver, grace=grace, max_late=self.max_late
        )
        self._loop_task: asyncio.Task[None] | None = None
        # create/cancel/pause/resume one at a time in this process (a taken id is refused
        # before anything is stored); another process's duplicate the database refuses
        self._lock = asyncio.Lock()
        self.handed_over = 0  # hand-overs completed, for /status and tests
        # Several processes on one database (bot.background.fleet): whether this one holds a
        # server now, and the check a run's record makes in its own transaction that it still
        # does. Alone: every server, no check.
        self.owns: Callable[[str], bool] = _every_server
        self.fence_for: Callable[[str], Fence | None] = _no_fence
        self.refresh_interval = REFRESH
        self._server_of: dict[int, str] = {}  # armed row -> its server
        self._delivering: set[int] = set()  # runs being handed over by this process
        self._refreshing: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self.firing.arm = self._arm
        self.firing.fence_for = lambda server: self.fence_for(server)

    @property
    def shared(self) -> bool:
        """Other processes may hold some of the servers (ownership is not everyone's)."""
        return self.owns is not _every_server

    # -- life -----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the active rows, resume unfinished hand-overs, start the loop (idempotent).
        Shared with other processes: only the loop; each server's rows come with its lease
        (:meth:`take`)."""
        if self._loop_task is not None:
            return
        if not self.shared:
            for schedule_id, due, announced in await self.store.armed():
                self.heap.arm_at(schedule_id, due, announced)
            await self._resume(await self.store.sending())
        else:
            self._refreshing = asyncio.create_task(self._refresh_loop(), name="wallclock-refresh")
        self._loop_task = asyncio.create_task(self._loop(), name="wallclock-scheduler")

    async def stop(self) -> None:
        loop_task, self._loop_task = self._loop_task, None
        await cancel_and_wait(self._refreshing)
        self._refreshing = None
        await self.inflight.stop(loop_task)

    async def _resume(self, sending: list[Run]) -> None:
        """Hand-overs recorded as `sending` that no hand-over of this process carries: a
        process stopped (or lost the server) before it saw their end. Resumed as after a
        restart: the pack's mark says whether the server has the task already."""
        for run in sending:
            if run.id in self._delivering:
                continue
            owner = await self.store.get(run.schedule_id)
            if owner is not None and self.owns(owner.server):
                self.inflight.spawn(
                    self._tracked(
                        run.id,
                        Delivery(
                            self,
                            owner,
                            run.id,
                            run.due,
                            recovered=True,
                            extra=run.triggered_by is not None,
                        ),
                    )
                )

    async def _tracked(self, run_id: int, delivery: Delivery) -> None:
        self._delivering.add(run_id)
        try:
            await delivery.run()
        finally:
            self._delivering.discard(run_id)

    # -- several processes ----------------------------------------------------------------------

    async def take(self, server: str) -> None:
        """This process now holds `server` (its lease): arm its rows and resume the hand-overs
        another process left unfinished."""
        await self._arm_rows([server])
        await self._resume(await self.store.sending([server]))

    async def drop(self, server: str) -> None:
        """This process no longer holds `server`: its rows leave the heap; a hand-over under
        way stops before its next attempt (Delivery checks), leaving its run `sending` for
        the new holder."""
        for schedule_id, of in list(self._server_of.items()):
            if of == server:
                self.heap.disarm(schedule_id)
                del self._server_of[schedule_id]

    async def _arm_rows(self, servers: list[str]) -> None:
        rows = await self.store.armed_of(servers) if servers else []
        for schedule_id, due, announced, server in rows:
            if not self.owns(server):
                continue
            self._server_of[schedule_id] = server
            if not self.heap.armed(schedule_id, due):
                self.heap.arm_at(schedule_id, due, announced)

    async def _refresh_loop(self) -> None:
        """Rows another process made or changed for a server this one holds: armed within
        :attr:`refresh_interval` (the heap drops a changed row's old entry by itself)."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), self.refresh_interval)
            self._changed.clear()
            held = [name for name in self.servers if self.owns(name)]
            try:
                await self._arm_rows(held)
            except BotError as exc:  # the database away for a moment: the next look tries again
                log.warning("re-reading the wall-clock rows failed: %s", exc)
            except Exception:
                log.warning("re-reading the wall-clock rows failed", exc_info=True)

    def changed(self, server: str = "") -> None:
        """Another process made or changed a row of `server` (LISTEN/NOTIFY): look now."""
        if not server or self.owns(server):
            self._changed.set()

    def _arm(self, row: Schedule) -> None:
        """Arm a row if this process holds its server; else leave it to the one that does."""
        if self.owns(row.server):
            self._server_of[row.id] = row.server
            self.heap.arm(row)
        else:
            self.heap.disarm(row.id)

    @property
    def running(self) -> bool:
        return self._loop_task is not None and not self._loop_task.done()

    async def settled(self, within: float = 10.0) -> None:
        """For tests: return once every due row was dealt with and every hand-over finished or
        waits on the clock (bounded; the scheduler itself never polls)."""
        async with asyncio.timeout(within):
            while True:
                await self.heap.one_pass()
                await asyncio.sleep(0)
                if self.inflight.quiet():
                    await asyncio.sleep(0)
                    if self.heap.idle():
                        return
                await asyncio.sleep(0.001)

    def _loop(self) -> Coroutine[object, object, None]:
        spawn = self.inflight.spawn
        mine = self._mine
        return self.heap.run(
            stage=lambda sid, due: mine(sid) and spawn(self.staging.stage(sid, due)),
            announce=lambda sid, due, offset: (
                mine(sid) and spawn(announce(self.store, self.servers, sid, due, offset))
            ),
            fire=lambda sid, due: mine(sid) and spawn(self.firing.fire_id(sid, due)),
        )

    def _mine(self, schedule_id: int) -> bool:
        """A heap entry's row is this process's to act on (its server is held)."""
        server = self._server_of.get(schedule_id)
        return not self.shared if server is None else self.owns(server)

    async def _deliver(self, row: Schedule, run_id: int, due: datetime) -> None:
        await self._tracked(run_id, Delivery(self, row, run_id, due))

    # -- the public operations ------------------------------------------------------------------

    async def create(
        self,
        *,
        server: str,
        command: str,
        task_id: str,
        created_by: Creator,
        when: str | None = None,
        repeat: str | None = None,
        timezone: str | None = None,
        announce: str | None = None,
        retry: int = 0,
        retry_delay: int = 1,
        as_player: str | None = None,
        missed: Missed | None = None,
        conditions: Mapping[str, str] | None = None,
        on_doubt: OnDoubt = "skip",
        dst_repeated: str | None = None,
        dst_skipped: str | None = None,
    ) -> Schedule:
        """Check everything, store the row, arm it; ValidationError (nothing stored) otherwise.
        `on_doubt`: what the crash guard does with a run a crash leaves unknown
        (bot.background.doubt); `dst_repeated`, `dst_skipped`: what a repeating row does when
        the clocks change (bot.times.dst; None: the default)."""
        spec = await self.preview(
            server=server,
            command=command,
            task_id=task_id,
            when=when,
            repeat=repeat,
            timezone=timezone,
            announce=announce,
            retry=retry,
            retry_delay=retry_delay,
            as_player=as_player,
            missed=missed,
            conditions=conditions,
            dst_repeated=dst_repeated,
            dst_skipped=dst_skipped,
        )
        return await self._insert(
            spec,
            server=server,
            command=command,
            task_id=task_id,
            created_by=created_by,
            retry=retry,
            retry_delay=retry_delay,
            as_player=as_player,
            conditions=conditions,
            on_doubt=on_doubt,
        )

    async def create_at(
        self,
        *,
        due: datetime,
        server: str,
        command: str,
        task_id: str,
        created_by: Creator,
        as_player: str | None = None,
        conditions: Mapping[str, str] | None = None,
    ) -> Schedule:
        """A one-shot row due at an instant its caller worked out (a program's step: its
        start and offset), with every check `create` makes but the time's; a due already
        passed fires at once, under the late rules."""
        self.rules.check_row(server, command, task_id, 0, 1, as_player, conditions)
        spec = Spec("at", due, self.default_timezone, at=due)
        return await self._insert(
            spec,
            server=server,
            command=command,
            task_id=task_id,
            created_by=created_by,
            as_player=as_player,
            conditions=conditions,
        )

    async def _insert(
        self,
        spec: Spec,
        *,
        server: str,
        command: str,
        task_id: str,
        created_by: Creator,
        retry: int = 0,
        retry_delay: int = 1,
        as_player: str | None = None,
        conditions: Mapping[str, str] | None = None,
        on_doubt: OnDoubt = "skip",
    ) -> Schedule:
        async with self._lock:
            await self.rules.check_free(server, task_id)
            row = await self.store.insert(
                spec,
                server=server,
                command=check_run_text(command),
                task_id=task_id,
                retry=retry,
                retry_delay=retry_delay,
                as_player=check_player(as_player) if as_player is not None else None,
                created_by=created_by,
                now=self.clock.now(),
                conditions=conditions or None,
                on_doubt=on_doubt,
            )
        self._arm(row)
        return row

    async def preview(
        self,
        *,
        server: str,
        command: str,
        task_id: str,
        when: str | None = None,
        repeat: str | None = None,
        timezone: str | None = None,
        announce: str | None = None,
        retry: int = 0,
        retry_delay: int = 1,
        as_player: str | None = None,
        missed: Missed | None = None,
        conditions: Mapping[str, str] | None = None,
        dst_repeated: str | None = None,
        dst_skipped: str | None = None,
    ) -> Spec:
        """Every check `create` makes, nothing stored: the Spec the row would have (its next
        runs: :func:`bot.times.when.next_runs`); ValidationError naming the input otherwise."""
        return await self.rules.check_new(
            server=server,
            command=command,
            task_id=task_id,
            when=when,
            repeat=repeat,
            timezone=timezone,
            announce=announce,
            retry=retry,
            retry_delay=retry_delay,
            as_player=as_player,
            missed=missed,
            conditions=conditions,
            dst_repeated=dst_repeated,
            dst_skipped=dst_skipped,
        )

    async def get(self, schedule_id: int) -> Schedule | None:
        return await self.store.get(schedule_id)

    async def find(self, server: str, task_id: str) -> Schedule | None:
        """The active or paused row of `server` with this task id."""
        return await self.store.find(server, task_id)

    async def cancel(self, schedule_id: int) -> Schedule:
        return await self._change(schedule_id, "cancelled")

    async def pause(self, schedule_id: int) -> Schedule:
        return await self._change(schedule_id, "paused")

    async def resume(self, schedule_id: int) -> Schedule:
        return await self._change(schedule_id, "active")

    async def run_now(self, schedule_id: int, by: str, *, within: float = RUN_NOW_WAIT) -> Run:
        """Hand a row over once, now, as an extra run recorded as triggered `by` someone: its
        next due and state stay. Returns the run as it stands after at most `within` seconds
        (a run waiting for its player, or retrying an unreachable server, goes on after)."""
        row = await self.store.get(schedule_id)
        if row is None or row.state not in ACTIVE_STATES:
            raise self.rules.missing(schedule_id)
        now = self.clock.now()
        run_id = await self.store.begin_extra_run(row.id, now, by)
        task = self.inflight.spawn(Delivery(self, row, run_id, now, extra=True).run())
        await asyncio.wait({task}, timeout=within)
        run = await self.store.get_run(run_id)
        assert run is not None
        return run

    async def planned(
        self, server: str, *, offset: int = 0, limit: int = 20, search: str = ""
    ) -> tuple[list[Schedule], int]:
        return await self.store.planned(server, offset=offset, limit=limit, search=search)

    async def runs(self, schedule_id: int, limit: int = 10) -> list[Run]:
        return await self.store.runs(schedule_id, limit)

    async def task_ids(self, server: str, prefix: str = "", limit: int = 25) -> list[str]:
        return await self.store.task_ids(server, prefix, limit)

    def upcoming(self, row: Schedule, count: int = 3) -> list[datetime]:
        """The next `count` runs of a row (one for a one-shot), from its next due."""
        return [] if row.next_due is None else next_runs(row.spec, count, row.next_due)

    def alerts_of(self, server: str) -> BotAlerts:
        """The scheduler's alerts (missed, skipped, late, failed, waiting) for one server; an
        alert made before anyone reads it waits there (the newest EVENT_BACKLOG)."""
        return self.alerts.of(server)

    def alert(self, row: Schedule, kind: str, due: datetime, **details: Text) -> None:
        """Every alert of the scheduler and its runs goes through here (one place to watch)."""
        self.alerts.alert(row, kind, due, **details)

    async def _change(self, schedule_id: int, state: State) -> Schedule:
        async with self._lock:
            row = await self.store.get(schedule_id)
            if row is None:
                raise self.rules.missing(schedule_id)
            self.rules.check_change(row, state)
            next_due = row.next_due
            if state == "active":
                next_due = self.firing.resumed_due(row)
            changed = await self.store.set_state(schedule_id, state, next_due)
            assert changed is not None
        if state == "active":
            self._arm(changed)
        else:
            self.heap.disarm(schedule_id)
            self.staging.unstage(changed)
        return changed
