"""Run history: every run the bot knows of, by task id, kept `DOOM_HISTORY_DAYS` days.

Two sources, one timeline: the wall-clock rows' runs (bot.store.schedules: due, hand-over, run,
lateness, outcome, attempts, who ran it now) and the game-time tasks' runs the bot knows of
(bot.store.task_runs: its run-now copies and the pack's events about the tasks it made). Older
runs are pruned when the history is read or written and once an hour while the bot runs.
"""

from __future__ import annotations

__all__ = ["HistoryEntry", "RunHistory"]

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from bot.events.event import Event
from bot.minecraft.pack_base import NOMINAL_TPS
from bot.minecraft.pack_client import handed_over
from bot.store.schedules import Run, ScheduleStore
from bot.store.task_runs import TaskRun, TaskRunStore
from bot.wallclock.clock import Clock, SystemClock

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
Kind = Literal["planned", "game"]


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
    ) -> None:
        self.schedules = schedules
        self.tasks = tasks
        self.keep = timedelta(days=days)
        self.clock: Clock = clock or SystemClock()
        self._pruned_at: datetime | None = None

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
        if event.type not in RUN_EVENTS or (isinstance(key, str) and handed_over(key)):
            return  # a wall-clock run or a run-now copy: recorded where it was handed over
        late_ticks = _number(event.details.get("late"))
        lateness = late_ticks / NOMINAL_TPS
        retries = _number(request.get("retry"))
        left = _number(event.details.get("retry"))
        attempts = {"retry": retries - left, "retry_exhausted": retries + 1}.get(event.type, 1)
        now = self.clock.now()
        if event.type in _FAILED and "k" in event.details:
            amended = await self.tasks.amend_last_ran(
                event.server, event.task_id, outcome=event.type, attempts=max(1, attempts)
            )
            if amended:
                return
        await self.tasks.record(
            event.server,
            event.task_id,
            due=now - timedelta(seconds=lateness),
            ran=now,
            lateness=lateness,
            outcome=event.type,
            attempts=max(1, attempts),
        )
        await self.prune_due()


def _number(value: object) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        return 0
