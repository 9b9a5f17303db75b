"""Run history: every run the bot knows of, by task id, kept `DOOM_HISTORY_DAYS` days.

Two sources, one timeline: the wall-clock rows' runs (bot.store.schedules: due, hand-over, run,
lateness, outcome, attempts, who ran it now) and the game-time tasks' runs the bot knows of
(bot.store.task_runs: its run-now copies and the pack's events about the tasks it made). Older
runs are pruned when the history is read or written and once an hour while the bot runs.
"""

from __future__ import annotations

__all__ = ["HistoryEntry", "RunHistory"]

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from bot.events.event import Event
from bot.minecraft.pack_base import NOMINAL_TPS
from bot.minecraft.pack_client import handed_over
from bot.store.schedules import Run, ScheduleStore
from bot.store.task_runs import TaskRun, TaskRunStore
from bot.times.clock import Clock, SystemClock

log = logging.getLogger(__name__)

PRUNE_EVERY = timedelta(hours=1)
# the pack's events that are a run of a task (`restored` is not: the task only moves back);
# `ran` says a run of a task the bot made (with its key) before its command, so a failure that
# follows it is that run's outcome
RUN_EVENTS = (
    "ran",
    "retry",
    "retry_exhausted",
    "offline",
    "dropped",
    "invalid",
    "skipped",
    "waited",
)
_FAILED = ("retry", "retry_exhausted", "invalid")
# what a handed-over wall-clock run became, by the pack's event about its task: `retry` means
# it waits for its next attempt, as the hand-over's `queued` says
_PLANNED_OUTCOMES = {
    "ran": "ran",
    "retry": "queued",
    "retry_exhausted": "retry_exhausted",
    "invalid": "invalid",
    "dropped": "dropped",
    "offline": "waiting_player",
    "waited": "waited",
}
_PLANNED_KEY = re.compile(r"^w(\d+)d(\d+)$")  # bot.wallclock.staging.task_key
Kind = Literal["planned", "game"]
# the server's game time now, by server name (the pack's get_time)
GameTime = Callable[[str], Awaitable[int]]
ANCHOR_FRESH = 1.0  # seconds a reading of the game time serves the events read after it
ANCHOR_RETRY = 10.0  # seconds before a failed reading is tried again
READ_LIMIT = 2.0  # seconds a reading may take before the event is timed by when it was read


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One run as every face shows it. `planned` is the wall-clock row's number (None for a
    game-time task's run)."""

    kind: Kind
    due: datetime
    handed_over: datetime | None
    ran: datetime | None
    lateness: float | None
    outcome: str
    attempts: int
    triggered_by: str | None
    planned: int | None = None

    @staticmethod
    def of_planned(run: Run) -> HistoryEntry:
        return HistoryEntry(
            "planned",
            run.due,
            run.handed_over,
            run.ran_in_game,
            run.lateness,
            run.outcome,
            run.attempts,
            run.triggered_by,
            run.schedule_id,
        )

    @staticmethod
    def of_game(run: TaskRun) -> HistoryEntry:
        return HistoryEntry(
            "game",
            run.due,
            run.handed_over,
            run.ran,
            run.lateness,
            run.outcome,
            run.attempts,
            run.triggered_by,
        )


class RunHistory:
    """The runs of both kinds, paged per task id, pruned past `days`."""

    def __init__(
        self,
        schedules: ScheduleStore,
        tasks: TaskRunStore,
        *,
        days: float = 30.0,
        clock: Clock | None = None,
        game_time: GameTime | None = None,
    ) -> None:
        self.schedules = schedules
        self.tasks = tasks
        self.keep = timedelta(days=days)
        self.clock: Clock = clock or SystemClock()
        self.game_time = game_time
        self._pruned_at: datetime | None = None
        # server -> (game time, the clock's time then, monotonic time then); None: the reading
        # failed (the monotonic time says when)
        self._anchors: dict[str, tuple[int, datetime, float] | tuple[None, None, float]] = {}

    async def prune(self) -> int:
        """Forget every run due more than `days` ago; how many were forgotten."""
        cutoff = self.clock.now() - self.keep
        self._pruned_at = self.clock.now()
        return await self.schedules.prune_runs(cutoff) + await self.tasks.prune(cutoff)

    async def prune_due(self) -> None:
        """Prune when the last prune is more than PRUNE_EVERY ago (by the clock)."""
        if self._pruned_at is None or self.clock.now() - self._pruned_at >= PRUNE_EVERY:
            removed = await self.prune()
            if removed:
                log.info("history: %d run(s) older than %s pruned", removed, self.keep)

    async def page(
        self, server: str, task_id: str, *, offset: int = 0, limit: int = 10
    ) -> tuple[list[HistoryEntry], int]:
        """A page of the runs of this task id on this server (its wall-clock rows, whatever
        their state, and its game-time runs), newest first, and how many there are."""
        await self.prune_due()
        rows = await self.schedules.rows_of(server, task_id)
        planned, planned_total = await self.schedules.history(
            [r.id for r in rows], offset=0, limit=offset + limit
        )
        game, game_total = await self.tasks.runs(server, task_id, offset=0, limit=offset + limit)
        merged = [HistoryEntry.of_planned(r) for r in planned] + [
            HistoryEntry.of_game(r) for r in game
        ]
        merged.sort(key=lambda e: e.due, reverse=True)
        return merged[offset : offset + limit], planned_total + game_total

    async def record_copy(
        self,
        server: str,
        task_id: str,
        *,
        due: datetime,
        handed_over: datetime,
        ran: datetime | None,
        outcome: str,
        by: str,
    ) -> None:
        """A run-now copy of a game-time task the bot handed over."""
        await self.tasks.record(
            server,
            task_id,
            due=due,
            handed_over=handed_over,
            ran=ran,
            lateness=(handed_over - due).total_seconds(),
            outcome=outcome,
            triggered_by=by,
        )
        await self.prune_due()

    async def saw_event(self, event: Event, request: Mapping[str, object]) -> None:
        """A pack event about a task the bot made (`request`: what it sent): a run."""
        key = request.get("key")
        if event.type not in RUN_EVENTS:
            return
        if isinstance(key, str) and handed_over(key):
            # a run-now copy is recorded where it was handed over; a wall-clock run too, but
            # the pack may run it later (held after a start, retrying, its player away)
            planned = _PLANNED_KEY.match(key)
            outcome = _PLANNED_OUTCOMES.get(event.type)
            if planned is not None and outcome is not None:
                ran = await self.ran_at(event) if event.type == "ran" else None
                await self.schedules.saw_in_game(
                    int(planned.group(1)), int(planned.group(2)), outcome, ran
                )
            return
        late_ticks = _number(event.details.get("late"))
        lateness = late_ticks / NOMINAL_TPS
        retries = _number(request.get("retry"))
        left = _number(event.details.get("retry"))
        attempts = {"retry": retries - left, "retry_exhausted": retries + 1}.get(event.type, 1)
        if event.type in _FAILED and "k" in event.details:
            amended = await self.tasks.amend_last_ran(
                event.server, event.task_id, outcome=event.type, attempts=max(1, attempts)
            )
            if amended:
                return
        ran = await self.ran_at(event)
        await self.tasks.record(
            event.server,
            event.task_id,
            due=ran - timedelta(seconds=lateness),
            ran=ran,
            lateness=lateness,
            outcome=event.type,
            attempts=max(1, attempts),
        )
        await self.prune_due()

    async def ran_at(self, event: Event) -> datetime:
        """When the server did what `event` says, on the clock: the time of a reading of the
        server's game time less the ticks from the event's game time to it, at 20 a second.
        That is exact while the server ticked at full speed from the event to the reading; a
        server that lagged, paused while empty or was stopped in between makes it later than
        the truth by as long, never later than now. An event read as it happens (the bot
        running) is timed to within its reading; one read after the bot was down (the log or
        the ring read on start) gets its own time rather than the start's. Without a reading
        (no reader, RCON down) or when the game time now is below the event's (the server
        went back to an older save since): the time the bot read it."""
        now = self.clock.now()
        anchor = await self._anchor(event.server)
        if anchor is None or anchor[0] < event.game_time:
            return now
        game, at = anchor
        # said in a tick at game time t: the tick that takes it to t + 1 (#tick runs before the
        # world's tick adds one: ../shared/notes/vanilla-1.21.md, "tick")
        ticks = max(0, game - (event.game_time + 1))
        return min(now, at - timedelta(seconds=ticks / NOMINAL_TPS))

    async def _anchor(self, server: str) -> tuple[int, datetime] | None:
        """A reading of the server's game time with the clock's time it was taken at: one
        round trip at most every ANCHOR_FRESH seconds (a burst of events shares it)."""
        if self.game_time is None:
            return None
        mono = time.monotonic()
        kept = self._anchors.get(server)
        if kept is not None:
            game, at, taken = kept
            if game is not None and at is not None and mono - taken < ANCHOR_FRESH:
                return game, at
            if game is None and mono - taken < ANCHOR_RETRY:
                return None
        try:
            async with asyncio.timeout(READ_LIMIT):
                game = await self.game_time(server)
        except Exception as e:  # the server down or slow: the event's read time will do
            log.info("history: no game time of %s (%s); runs timed when read", server, e)
            self._anchors[server] = (None, None, mono)
            return None
        at = self.clock.now()
        self._anchors[server] = (game, at, time.monotonic())
        return game, at


def _number(value: object) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        return 0
