"""Writing a checked plan file, all or nothing: each write is recorded with its undo, and when
one fails part-way (the server goes down after half the entries, Discord refuses an event) the
writes before it are undone, newest first: the tasks it made cancelled, its rows cancelled,
its Discord events cancelled, what a change had cancelled made again from its entry, and the
program versions it saved removed (kept when a run has started with one since).

The writes go through the operations (/schedule's, /event create's), so each is checked and
audited as the faces' are; the undo goes to the services directly, so it acts on exactly what
the import made (a planned row and a task can share an id), and the import's one audit entry
says it.
"""

from __future__ import annotations

__all__ = ["Writer", "request"]

import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from bot import errors
from bot.calendar.plan_file import (
    EventEntry,
    PlannedEntry,
    ProgramEntry,
    RepeatEntry,
    TaskEntry,
    condition_options,
)
from bot.i18n import _
from bot.operations import discord_events, plan_events, plan_programs, plan_repeats
from bot.operations import schedule as schedule_ops
from bot.programs.model import steps_json
from bot.store.schedules import Creator

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.operations.plan_steps import Step
    from bot.services import ServerServices
    from bot.store.guild_events import EventRow
    from bot.store.program_repeats import ProgramRepeat
    from bot.store.programs import Program
    from bot.store.schedules import Schedule

log = logging.getLogger(__name__)

Undo = Callable[[], Awaitable[object]]


def request(
    target: ServerServices, entry: PlannedEntry | TaskEntry
) -> schedule_ops.ScheduleRequest:
    """The /schedule request that makes an entry."""
    conditions: dict[str, Any] = condition_options(entry)
    if isinstance(entry, PlannedEntry):
        return schedule_ops.ScheduleRequest(
            server=target.name,
            run=entry.run,
            id=entry.id,
            when=entry.when,
            repeat=entry.repeat,
            timezone=entry.timezone,
            announce=entry.announce,
            dst_repeated=entry.dst_repeated,
            dst_skipped=entry.dst_skipped,
            retry=entry.retry,
            retry_delay=entry.retry_delay,
            as_player=entry.as_player,
            on_doubt=entry.on_doubt,
            **conditions,
        )
    return schedule_ops.ScheduleRequest(
        server=target.name,
        run=entry.run,
        id=entry.id,
        time=entry.time,
        unit="tick",  # a plan file's `time` is the task's remaining delay in ticks
        every=entry.every,
        retry=entry.retry,
        retry_delay=entry.retry_delay,
        as_player=entry.as_player,
        on_doubt=entry.on_doubt,
        **conditions,
    )


class Writer:
    """One import's writes on one server, and their undo."""

    def __init__(self, ops: Operations, caller: Caller, target: ServerServices) -> None:
        self.ops = ops
        self.caller = caller
        self.target = target
        self._undo: list[tuple[str, Undo]] = []  # the entry each undo belongs to
        self._at = ""  # the entry being written
        self.saved: dict[str, int] = {}  # the version each program was saved as

    async def write(
        self,
        planned: Sequence[Step[PlannedEntry, Schedule]],
        tasks: Sequence[Step[TaskEntry, TaskEntry]],
        events: Sequence[Step[EventEntry, EventRow]],
        programs: Sequence[Step[ProgramEntry, Program]] = (),
        repeats: Sequence[Step[RepeatEntry, ProgramRepeat]] = (),
    ) -> None:
        """Every step but the ones left; ImportFailed (after the undo) when one fails."""
        # a task is paused by its id: the server's tasks of a changed id are cancelled first,
        # then the paused ones are made before the others, so each pause finds the one just
        # made as the only one of its id in the queue
        ordered = sorted(tasks, key=lambda s: not s.entry.paused)
        try:
            # the programs first: a save is one row in the bot's database, so an import that
            # fails later (a server gone) removes them again
            for program in programs:
                await self._each(program, self._program)
            for step in planned:
                await self._each(step, self._planned)
            for task in tasks:
                await self._each(task, self._cancel_tasks)
            for task in ordered:
                await self._each(task, self._task)
            for event in events:
                await self._each(event, self._event)
            for repeat in repeats:  # last: their programs are saved
                await self._each(repeat, self._repeat)
        except Exception as exc:
            text = await self._undone(exc)
            await self.ops.audit(
                self.caller, self.target, "plan import", {"failed": self._at}, text
            )
            if isinstance(exc, errors.BotError):
                raise errors.ImportFailed(text) from exc
            raise

    async def _each(self, step: Step[Any, Any], write: Callable[[Any], Awaitable[None]]) -> None:
        if step.verdict != "leave":
            self._at = step.label
            await write(step)

    def _then(self, undo: Undo) -> None:
        self._undo.append((self._at, undo))

    # -- the writes, each followed by its undo --------------------------------------------------

    async def _planned(self, step: Step[PlannedEntry, Schedule]) -> None:
        scheduler = self.ops.scheduler()
        for old, row in step.replaces:
            await scheduler.cancel(row.id)
            self._then(functools.partial(self._make_row, old))
        row = await self._make_row(step.entry, then=True)
        if step.entry.paused:
            await scheduler.pause(row.id)

    async def _make_row(self, entry: PlannedEntry, *, then: bool = False) -> Schedule:
        made = await schedule_ops.schedule(self.ops, self.caller, request(self.target, entry))
        row = made.planned
        assert row is not None
        scheduler = self.ops.scheduler()
        if then:
            self._then(lambda: scheduler.cancel(row.id))
        elif entry.paused:  # made again by the undo: as it was
            await scheduler.pause(row.id)
        return row

    async def _cancel_tasks(self, step: Step[TaskEntry, TaskEntry]) -> None:
        """A changed id: the server's tasks of that id go (made again by the undo)."""
        if step.replaces:
            await self.target.pack.cancel_all(step.entry.id)
            for old, _held in step.replaces:
                self._then(functools.partial(self._make_task, old))

    async def _task(self, step: Step[TaskEntry, TaskEntry]) -> None:
        await self._make_task(step.entry, then=True)

    async def _make_task(self, entry: TaskEntry, *, then: bool = False) -> None:
        pack = self.target.pack
        await schedule_ops.schedule(self.ops, self.caller, request(self.target, entry))
        if then:  # before the pause, so a pause that fails still has the task undone
            self._then(lambda: pack.cancel_one(entry.id))
        if entry.paused:
            await pack.pause(entry.id)

    async def _event(self, step: Step[EventEntry, EventRow]) -> None:
        for old, row in step.replaces:
            await self._cancel_event(row.id)
            self._then(functools.partial(self._make_event, old))
        made = await self._make_event(step.entry)
        self._then(lambda: self._cancel_event(made.id))

    async def _make_event(self, entry: EventEntry) -> EventRow:
        req = plan_events.request(self.target, entry)
        return (await discord_events.create(self.ops, self.caller, req)).row

    async def _cancel_event(self, number: int) -> None:
        ref = discord_events.EventRef(event=str(number))
        await discord_events.cancel(self.ops, self.caller, ref)

    async def _program(self, step: Step[ProgramEntry, Program]) -> None:
        store = plan_programs.store(self.ops)
        by = Creator(self.caller.user_id, self.caller.name)
        made = await store.save(step.entry.name, steps_json(step.entry.steps), by, self.ops.now())
        self.saved[made.name] = made.version
        self._then(functools.partial(self._drop, made))

    async def _drop(self, made: Program) -> None:
        if not await plan_programs.store(self.ops).drop(made):
            raise errors.ValidationError(
                _("a run has started with version {version} since: it stays.", version=made.version)
            )

    async def _repeat(self, step: Step[RepeatEntry, ProgramRepeat]) -> None:
        repeats = plan_repeats.store(self.ops)
        for _old, held in step.replaces:
            await repeats.stop(held.id)
            self._then(functools.partial(repeats.reactivate, held.id))
        made = await plan_repeats.make(self.ops, self.caller, self.target.name, step.entry)
        self._then(functools.partial(plan_repeats.unmake, self.ops, made))

    # -- the undo -------------------------------------------------------------------------------

    async def _undone(self, exc: Exception) -> str:
        """Undo every write, newest first; the sentence that says what failed and what is left."""
        left: list[str] = []
        for entry, undo in reversed(self._undo):
            try:
                await undo()
            except Exception as failed:  # the others are undone all the same
                log.warning(
                    "plan import on %s: undoing %s failed", self.target.name, entry, exc_info=True
                )
                left.append(f"{entry}: {failed}")
        why = exc if isinstance(exc, errors.BotError) else _("an internal error")
        head = _(
            "The plan file's entry {entry} could not be written: {why}", entry=self._at, why=why
        )
        if left:
            tail = _(
                "The import undid {n} of its {total} change(s); these could not be undone: {left}",
                n=len(self._undo) - len(left),
                total=len(self._undo),
                left="; ".join(left),
            )
        elif self._undo:
            tail = _(
                "The import undid the {n} change(s) it had made before: nothing was changed.",
                n=len(self._undo),
            )
        else:
            tail = _("Nothing was changed.")
        return f"{head} {tail}"
