"""The wall-clock scheduler: one asyncio task that sleeps until the earliest due row.

Modelled on SpacetimeDB's schedule tables: rows with an instant or an interval, a heap of due
times, woken when rows change (no per-second polling: idle, it wakes once per
:data:`bot.times.clock.MAX_SLEEP`). At due time a row's run is recorded, then handed to the
pack as a task due now (bot.minecraft.handover), so context capture, retry and offline parking
are the pack's. Repeating rows re-arm on their next boundary strictly after now, anchored.

Late runs (bot down, server unreachable): within `grace` a run is on time; a `once` row runs late
up to `max_late`, else it is missed; a repeating row runs its latest boundary when that one may
still run and counts the others as skipped. Each missed, skipped, late or failed run is an
:class:`~bot.events.event.Event` (`wallclock_*`) on the server's :meth:`Scheduler.feed`, which
joins that server's event stream (bot.events.guarded): the alerts cog posts it and the
dashboard's live feed shows it, like the pack's own events.
"""

from __future__ import annotations

__all__ = ["ALERT_TYPES", "Scheduler"]

import asyncio
import heapq
import itertools
import logging
from collections.abc import Coroutine, Mapping
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Protocol

from bot.aio import cancel_and_wait
from bot.config import ServerConfig
from bot.errors import BotError, ValidationError
from bot.events.event import Event
from bot.events.feed import AlertFeed
from bot.i18n import N_, Text, lazy, use_locale
from bot.i18n.formats import stamp
from bot.i18n.words import schedule_state
from bot.minecraft import handover
from bot.minecraft.conditions import conditions_from, pack_cond
from bot.minecraft.pack_client import PackClient, Staged
from bot.minecraft.pack_input import check_player, check_run_text, check_task_input
from bot.store.schedules import (
    ACTIVE_STATES,
    Creator,
    OnDoubt,
    Run,
    Schedule,
    ScheduleStore,
    State,
)
from bot.times.clock import Clock, SystemClock
from bot.times.when import (
    DEFAULT_TIMEZONE,
    Missed,
    Spec,
    boundaries,
    build_spec,
    human,
    latest_boundary,
    next_boundary,
    next_runs,
)
from bot.wallclock.delivery import Delivery, drop_staged, task_key

log = logging.getLogger(__name__)

ALERT_TYPES = (
    "wallclock_missed",
    "wallclock_skipped",
    "wallclock_late",
    "wallclock_failed",
    "wallclock_waiting",
)
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)  # seconds between hand-over attempts
GRACE = timedelta(seconds=5)  # later than this is "late" (alerted), not on time
ANNOUNCE_GRACE = 5.0  # an announcement more than this late (bot was down) is not sent
OFFLINE_RETRY = 15.0  # seconds between hand-over attempts while the as_player is offline
EVENT_BACKLOG = 1000
# A run's request is written to the server this long before its due time, so that at the due
# time one RCON call queues it (PackClient.stage / submit_staged): the hand-over's latency is
# then one round trip, not two. Without a staged request (staging failed, the row was made less
# than this before its time, the server restarted since) the hand-over writes it then.
STAGE_LEAD = 2.0
# pack answers that say the server restarted or dropped mid hand-over, not a refusal
RUN_NOW_WAIT = 10.0  # seconds a run-now answer waits for its hand-over (it goes on after)
_STAGE = -1  # the offset of a heap entry that stages (announcements: > 0, the run itself: 0)


class _Server(Protocol):
    @property
    def config(self) -> ServerConfig: ...
    @property
    def pack(self) -> PackClient: ...
    @property
    def checker(self) -> _Checker: ...


class _Checker(Protocol):
    def check(self, command: str) -> None: ...


def _taken(server: str, task_id: str) -> Text:
    return lazy(
        "A planned schedule `{id}` already exists on {server}: cancel it first or "
        "choose another id.",
        id=task_id,
        server=server,
    )


class Scheduler:
    """Wall-clock schedules of every server: create, cancel, pause, resume, list, run."""

    def __init__(
        self,
        store: ScheduleStore,
        servers: Mapping[str, _Server],
        *,
        clock: Clock | None = None,
        max_late: float = 600.0,
        default_timezone: str = DEFAULT_TIMEZONE,
        grace: timedelta = GRACE,
        backoff: tuple[float, ...] = BACKOFF,
        offline_retry: float = OFFLINE_RETRY,
    ) -> None:
        self.store = store
        self.servers = servers
        self.clock: Clock = clock or SystemClock()
        self.max_late = timedelta(seconds=max_late)
        self.default_timezone = default_timezone
        self.grace = grace
        self.backoff = backoff
        self.offline_retry = offline_retry
        self._heap: list[tuple[float, int, int, float, int]] = []  # (at, seq, id, due, offset)
        # only (due, id) stay in memory, ~250 bytes a row: the row itself is read when it fires
        self._due: dict[int, float] = {}  # id -> the due its heap entries are valid for
        self._staged: dict[int, Staged] = {}  # id -> its next run's request, staged ahead
        self._seq = itertools.count()
        self._event_seq = itertools.count(1)
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._inflight: set[asyncio.Task[None]] = set()
        self._loop_task: asyncio.Task[None] | None = None
        self._feeds: dict[str, AlertFeed] = {}  # server -> its alerts (see feed())
        self._lock = asyncio.Lock()  # create/cancel/pause/resume one at a time
        self.handed_over = 0  # hand-overs completed, for /status and tests

    # -- life -----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the active rows, resume unfinished hand-overs, start the loop (idempotent)."""
        if self._loop_task is not None:
            return
        await self.store.migrate()
        for schedule_id, due, announce in await self.store.armed():
            self._arm_at(schedule_id, due, announce)
        for run in await self.store.sending():
            owner = await self.store.get(run.schedule_id)
            if owner is not None:
                self.spawn(
                    Delivery(
                        self,
                        owner,
                        run.id,
                        run.due,
                        recovered=True,
                        extra=run.triggered_by is not None,
                    ).run()
                )
        self._loop_task = asyncio.create_task(self._loop(), name="wallclock-scheduler")

    async def stop(self) -> None:
        tasks = [t for t in (self._loop_task, *self._inflight) if t is not None]
        self._loop_task = None
        await cancel_and_wait(*tasks)
        self._inflight.clear()

    @property
    def running(self) -> bool:
        return self._loop_task is not None and not self._loop_task.done()

    async def settled(self, within: float = 10.0) -> None:
        """For tests: return once every due row was dealt with and every hand-over finished or
        waits on the clock (bounded; the scheduler itself never polls)."""
        async with asyncio.timeout(within):
            while True:
                self._idle.clear()
                self._wake.set()
                await self._idle.wait()
                await asyncio.sleep(0)
                if all(t.done() or self._sleeping(t) for t in self._inflight):
                    await asyncio.sleep(0)
                    if self._idle.is_set():
                        return
                await asyncio.sleep(0.001)

    def _sleeping(self, task: asyncio.Task[None]) -> bool:
        return getattr(task, "wallclock_sleeping", False)

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
    ) -> Schedule:
        """Check everything, store the row, arm it; ValidationError (nothing stored) otherwise.
        `on_doubt`: what the crash guard does with a run a crash leaves unknown
        (bot.background.doubt)."""
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
        )
        async with self._lock:
            if await self.store.find(server, task_id) is not None:
                raise ValidationError(_taken(server, task_id), field="id")
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
    ) -> Spec:
        """Every check `create` makes, nothing stored: the Spec the row would have (its next
        runs: :func:`bot.times.when.next_runs`); ValidationError naming the input otherwise."""
        target = self._server(server)
        text = check_task_input(command, task_id, retry, retry_delay, as_player)
        conditions_from(conditions)
        target.checker.check(text)
        spec = build_spec(
            when,
            repeat,
            timezone,
            announce,
            now=self.clock.now(),
            default_timezone=self.default_timezone,
            missed=missed,
        )
        if await self.store.find(server, task_id) is not None:
            raise ValidationError(_taken(server, task_id), field="id")
        return spec

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
            raise ValidationError(lazy("There is no planned schedule #{n}.", n=schedule_id))
        now = self.clock.now()
        run_id = await self.store.begin_extra_run(row.id, now, by)
        task = self.spawn(Delivery(self, row, run_id, now, extra=True).run())
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

    def feed(self, server: str) -> AlertFeed:
        """The scheduler's alerts (missed, skipped, late, failed, waiting) for one server; an
        alert made before anyone reads it waits there (the newest EVENT_BACKLOG)."""
        found = self._feeds.get(server)
        if found is None:
            found = self._feeds[server] = AlertFeed(EVENT_BACKLOG)
        return found

    # -- internals ------------------------------------------------------------------------------

    def _server(self, name: str) -> _Server:
        try:
            return self.servers[name]
        except KeyError:
            known = ", ".join(sorted(self.servers)) or "none"
            raise ValidationError(
                lazy(
                    "There is no server called {name} (configured: {known}).",
                    name=repr(name),
                    known=known,
                )
            ) from None

    async def _change(self, schedule_id: int, state: State) -> Schedule:
        async with self._lock:
            row = await self.store.get(schedule_id)
            if row is None:
                raise ValidationError(lazy("There is no planned schedule #{n}.", n=schedule_id))
            allowed = {
                "cancelled": ("active", "paused"),
                "paused": ("active",),
                "active": ("paused",),
            }[state]
            if row.state not in allowed:
                # raised in the asker's locale context: the state word is said in it now
                said = {"id": row.task_id, "state": schedule_state(row.state)}
                raise ValidationError(
                    {
                        "cancelled": lazy(
                            "The planned schedule `{id}` is {state}: it cannot be cancelled.",
                            **said,
                        ),
                        "paused": lazy(
                            "The planned schedule `{id}` is {state}: it cannot be paused.", **said
                        ),
                        "active": lazy(
                            "The planned schedule `{id}` is {state}: it cannot be resumed.", **said
                        ),
                    }[state]
                )
            next_due = row.next_due
            if state == "active":
                next_due = self._resumed_due(row)
            changed = await self.store.set_state(schedule_id, state, next_due)
            assert changed is not None
        if state == "active":
            self._arm(changed)
        else:
            self._disarm(schedule_id)
            self._unstage(changed)
        return changed

    def _resumed_due(self, row: Schedule) -> datetime | None:
        """A resumed one-shot keeps its time (late rules apply if it passed); a repeating row
        goes on at its next boundary strictly after now."""
        if row.kind == "at":
            return row.next_due
        return next_boundary(row.spec, self.clock.now())

    def _arm(self, row: Schedule) -> None:
        if row.state != "active" or row.next_due is None:
            self._disarm(row.id)
            return
        self._arm_at(row.id, row.next_due.timestamp(), row.announce)

    def _arm_at(self, schedule_id: int, due: float, announce: tuple[int, ...]) -> None:
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

    def _disarm(self, schedule_id: int) -> None:
        # heap entries stay; they are skipped when their due no longer matches (lazy deletion)
        self._due.pop(schedule_id, None)

    def spawn(self, work: Coroutine[object, object, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(work)
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)
        task.add_done_callback(_report)
        return task

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            now = self.clock.now().timestamp()
            while self._heap and self._heap[0][0] <= now:
                _, _, sid, due, offset = heapq.heappop(self._heap)
                if self._due.get(sid) != due:
                    continue  # cancelled, paused or moved since it was pushed
                if offset == _STAGE:
                    heapq.heappush(self._heap, (due, next(self._seq), sid, due, 0))
                    self.spawn(self._stage(sid, due))
                elif offset:
                    self.spawn(self._announce(sid, due, offset))
                else:
                    self._disarm(sid)
                    self.spawn(self._fire_id(sid, due))
            self._idle.set()
            deadline = self._heap[0][0] if self._heap else None
            when = None if deadline is None else datetime.fromtimestamp(deadline, UTC)
            await self.clock.wait(when, self._wake)

    async def sleep(self, seconds: float) -> None:
        task = asyncio.current_task()
        setattr(task, "wallclock_sleeping", True)  # noqa: B010 - a flag settled() reads
        try:
            await self.clock.sleep(seconds)
        finally:
            setattr(task, "wallclock_sleeping", False)  # noqa: B010

    async def _current(self, schedule_id: int, due: float) -> Schedule | None:
        """The row, if it is still active and due then (the heap holds only ids)."""
        row = await self.store.get(schedule_id)
        if row is None or row.state != "active" or row.next_due is None:
            return None
        return row if row.next_due.timestamp() == due else None

    async def _fire_id(self, schedule_id: int, due: float) -> None:
        row = await self._current(schedule_id, due)
        if row is not None:
            await self._fire(row)

    async def _stage(self, schedule_id: int, due: float) -> None:
        """Write the run's request to the server ahead of its due time (see STAGE_LEAD)."""
        row = await self._current(schedule_id, due)
        server = self.servers.get(row.server) if row is not None else None
        if row is None or server is None:
            return
        try:
            staged = await server.pack.stage(
                row.command,
                row.task_id,
                key=f"w{row.id}",
                retry=row.retry,
                retry_delay=row.retry_delay,
                task_key=task_key(row.id, due),
                cond=pack_cond(row.conditions),
                on_doubt=row.on_doubt,
            )
        except (BotError, ValueError) as e:  # the hand-over writes it at its time instead
            log.info("staging %s on %s failed: %s", row.task_id, row.server, e)
            return
        if self._due.get(schedule_id) == due:
            self._staged[schedule_id] = staged
        else:  # fired (staging was slow), cancelled or paused meanwhile
            self.spawn(drop_staged(server.pack, staged.key))

    def _unstage(self, row: Schedule) -> None:
        staged = self._staged.pop(row.id, None)
        server = self.servers.get(row.server)
        if staged is not None and server is not None:
            self.spawn(drop_staged(server.pack, staged.key))

    def take_staged(self, schedule_id: int) -> Staged | None:
        """The row's next run's request, staged ahead, if there is one (taken: used once)."""
        return self._staged.pop(schedule_id, None)

    async def _announce(self, schedule_id: int, due: float, offset: int) -> None:
        row = await self._current(schedule_id, due)
        server = self.servers.get(row.server) if row is not None else None
        if row is None or server is None:
            return
        try:
            with use_locale(server.config.locale):  # players read it: the server's language
                said = handover.announcement(row.task_id, offset)
            await server.pack.rcon.command(said)
        except BotError as e:  # a countdown that cannot be said is not worth an alert
            log.info("announcement of %s on %s failed: %s", row.task_id, row.server, e)

    async def _fire(self, row: Schedule) -> None:
        """A row reached its due time (or the bot started after it): run, skip or miss it."""
        assert row.next_due is not None
        now = self.clock.now()
        due = row.next_due
        if row.kind == "at":
            if self._may_run(row, now - due):
                # the row stays active (cancellable) until its run ends: done, or missed
                run_id = await self.store.begin_run(row.id, due, None, "active")
                await Delivery(self, row, run_id, due).run()
            else:
                await self.store.record_missed(row.id, due, "missed", None, "missed")
                late = human(int((now - due).total_seconds()))
                self.alert(
                    row,
                    "wallclock_missed",
                    due,
                    late=late,
                    reason=N_("the bot was not running at its time"),
                )
            return
        spec = row.spec
        latest = latest_boundary(spec, now) or due
        latest = max(latest, due)
        nxt = next_boundary(spec, now)
        skipped = boundaries(spec, due, latest) - 1
        runnable = self._may_run(row, now - latest)
        if not runnable:
            skipped += 1
        state: State = "active" if nxt is not None else "done"
        if skipped > 0:
            await self.store.record_missed(
                row.id, due, f"skipped {skipped}", latest if runnable else nxt, state
            )
            self.alert(
                row,
                "wallclock_skipped",
                due,
                skipped=str(skipped),
                reason=N_("the bot was not running at those times"),
            )
        if runnable:
            run_id = await self.store.begin_run(row.id, latest, nxt, state)
        moved = await self.store.get(row.id) or row
        self._arm(moved)
        if runnable:
            await Delivery(self, row, run_id, latest).run()

    def _may_run(self, row: Schedule, late: timedelta) -> bool:
        return late <= self.grace or (row.missed == "once" and late <= self.max_late)

    # the alerts cog shows a detail's name and a fixed reason translated: marked here for it
    _DETAIL_NAMES = (
        N_("schedule"),
        N_("due"),
        N_("late"),
        N_("skipped"),
        N_("player"),
        N_("reason"),
    )

    def alert(self, row: Schedule, kind: str, due: datetime, **details: Text) -> None:
        fields = {"schedule": f"#{row.id}", "due": stamp(due), **details}
        event = Event(
            row.server, next(self._event_seq), kind, row.task_id, -1, MappingProxyType(fields)
        )
        log.warning("%s %s on %s: %s", kind, row.task_id, row.server, details)
        self.feed(row.server).emit(event)


def _report(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("a wall-clock run failed", exc_info=task.exception())
