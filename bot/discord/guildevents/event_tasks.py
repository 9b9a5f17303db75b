"""The in-game half of an event: what the binding needs from the wall-clock schedules.

:class:`EventTasks` is the seam: make a one-shot task at an instant (with its countdown
announcements), cancel it, read how it went. :class:`SchedulerTasks` is it on the wall-clock
:class:`~bot.wallclock.scheduler.Scheduler`, so an event's start and end commands get
everything a planned `/schedule when:` gets: the pack's context, retry and offline parking, runs on
a server paused because it is empty, never twice, late/missed alerts.
"""

from __future__ import annotations

__all__ = ["EventTasks", "SchedulerTasks", "TaskStatus", "task_failed"]

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from bot.errors import ValidationError
from bot.i18n import _
from bot.i18n.formats import stamp
from bot.i18n.words import run_outcome

if TYPE_CHECKING:
    from bot.wallclock.scheduler import Scheduler

# outcomes of a run that did what it should (bot.store.schedules: ran, queued = retrying or capped
# in the pack, waiting_player = parked until its player is back)
GOOD_OUTCOMES = ("ran", "queued", "waiting_player", "paused", "sending")


@dataclass(frozen=True, slots=True)
class TaskStatus:
    """One bound task as the schedules keep it."""

    id: int
    due: datetime | None  # the next (or only) due time; None once it ran or was cancelled
    state: str  # active, paused, done, cancelled, missed
    last_outcome: str | None  # ran, queued, waiting_player, missed, failed: <code>, ...
    last_due: datetime | None


def task_failed(status: TaskStatus | None) -> str | None:
    """Why a task that was due did not run as it should, or None when it did (or is not due)."""
    if status is None:
        return _("its task is gone from the schedules")
    if status.state == "missed":
        outcome = run_outcome(status.last_outcome) if status.last_outcome else _("not run")
        return _("it was missed ({outcome})", outcome=outcome)
    if status.last_outcome is not None and not status.last_outcome.startswith(GOOD_OUTCOMES):
        return run_outcome(status.last_outcome)
    return None


class EventTasks(Protocol):
    async def schedule(
        self,
        *,
        server: str,
        task_id: str,
        command: str,
        due: datetime,
        announce: tuple[int, ...],
        by_id: int,
        by_name: str,
        conditions: Mapping[str, str] | None = None,
    ) -> int:
        """Store a one-shot task due at `due` (UTC) with countdown announcements `announce`
        seconds before, run only under `conditions` (bot.minecraft.conditions); its id.
        ValidationError (nothing stored) when it cannot be."""
        ...

    async def cancel(self, task: int) -> None:
        """Cancel it; a task that already ran or was cancelled is left as it is."""
        ...

    async def status(self, task: int) -> TaskStatus | None: ...

    async def find(self, server: str, task_id: str) -> int | None:
        """The live task with this id on that server (what a crashed create may have left)."""
        ...


class SchedulerTasks:
    """:class:`EventTasks` on the wall-clock scheduler."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler

    async def schedule(
        self,
        *,
        server: str,
        task_id: str,
        command: str,
        due: datetime,
        announce: tuple[int, ...],
        by_id: int,
        by_name: str,
        conditions: Mapping[str, str] | None = None,
    ) -> int:
        from bot.store.schedules import Creator

        # the scheduler reads times as moderators type them; a Discord timestamp is the exact
        # instant in its grammar, so no second date format is needed here
        row = await self.scheduler.create(
            server=server,
            command=command,
            task_id=task_id,
            created_by=Creator(by_id, by_name),
            when=stamp(due),
            announce=",".join(f"{s}s" for s in announce) if announce else None,
            conditions=conditions,
        )
        return row.id

    async def cancel(self, task: int) -> None:
        row = await self.scheduler.get(task)
        if row is None or row.state not in ("active", "paused"):
            return
        try:
            await self.scheduler.cancel(task)
        except ValidationError:  # it ran (or was cancelled) in between: nothing left to undo
            return

    async def status(self, task: int) -> TaskStatus | None:
        row = await self.scheduler.get(task)
        if row is None:
            return None
        return TaskStatus(row.id, row.next_due, row.state, row.last_outcome, row.last_due)

    async def find(self, server: str, task_id: str) -> int | None:
        row = await self.scheduler.find(server, task_id)
        return None if row is None else row.id
