"""Making, changing and cancelling an event from the bot's side: both halves, or neither.

The Discord event is made through discord.py and its start and end tasks through
:class:`~bot.discord.guildevents.event_tasks.EventTasks`; whichever call fails, the half already
made is undone (:class:`~bot.discord.guildevents.halves.Halves`), so there is never an event
without its tasks nor tasks without their event. A create the bot died in the middle of is
undone at the next start (:meth:`EventLifecycle.recover`).
"""

from __future__ import annotations

__all__ = ["EventLifecycle"]

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord

from bot.calendar.event_draft import (
    DEFAULT_LENGTH,
    MAX_LOCATION,
    Draft,
    check_description,
    check_name,
    check_offsets,
    default_end_run,
    default_start_run,
    read_end,
    task_id,
    whole_second,
)
from bot.discord.guildevents.context import MOVE_TOLERANCE, discord_error, joined
from bot.discord.guildevents.readiness import event_permission_problem
from bot.errors import ValidationError
from bot.i18n import Lazy, _, lazy, use_locale
from bot.i18n.words import event_state
from bot.minecraft.pack_input import check_run_text
from bot.store.guild_events import LIVE_STATES, EventRow, NewEvent
from bot.times.when import parse_timezone, parse_when

if TYPE_CHECKING:
    from bot.discord.guildevents.context import EventContext
    from bot.discord.guildevents.halves import Halves
    from bot.discord.guildevents.notices import EventNotices
    from bot.services import ServerServices

log = logging.getLogger(__name__)


class EventLifecycle:
    """`/event create`, `/event edit`, `/event cancel`, and the undo of a create cut short."""

    def __init__(self, ctx: EventContext, halves: Halves, notices: EventNotices) -> None:
        self.ctx = ctx
        self.halves = halves
        self.notices = notices

    def location(self, server: ServerServices) -> str:
        """Where the Discord event says it is: the server's public address, else its name."""
        address = getattr(server.config, "public_address", None)
        return (address or _("Minecraft server {name}", name=server.name))[:MAX_LOCATION]

    def check_commands(self, server: ServerServices, *commands: str) -> None:
        """Each start or end command through the server's command checker, which raises."""
        for command in commands:
            server.checker.check(check_run_text(command))

    async def create(
        self,
        guild: discord.Guild,
        server: ServerServices,
        draft: Draft,
        *,
        start_run: str | None,
        end_run: str | None,
        by_id: int,
        by_name: str,
        anchor: datetime | None = None,
        previous: EventRow | None = None,
        conditions: Mapping[str, str] | None = None,
    ) -> EventRow:
        """Make the Discord event and its tasks, or nothing: ValidationError says what failed.
        `conditions`: the start task's (a next occurrence keeps its previous one's)."""
        problem = event_permission_problem(guild)
        if problem is not None:
            raise ValidationError(problem)
        begin = start_run.strip() if start_run and start_run.strip() else None
        finish = end_run.strip() if end_run and end_run.strip() else None
        with use_locale(server.config.locale):  # the players read these: the server's language
            begin = begin or default_start_run(draft.name)
            finish = finish or default_end_run(draft.name)
        self.check_commands(server, begin, finish)
        with use_locale(self.ctx.guild_locale(guild)):  # shown on the event to every member
            location = self.location(server)
        new = NewEvent(
            server.name,
            guild.id,
            draft.name,
            draft.description,
            location,
            draft.start,
            draft.end,
            begin,
            finish,
            draft.announce,
            draft.reminders,
            draft.repeat,
            anchor or (draft.start if draft.repeat else None),
            draft.timezone,
            by_id,
            by_name,
            previous.occurrence + 1 if previous else 1,
            previous.id if previous else None,
            conditions if conditions is not None else previous.conditions if previous else None,
        )
        row = await self.ctx.store.insert(new, self.ctx.clock.now())
        async with self.ctx.lock(row.id):
            try:
                made = await guild.create_scheduled_event(
                    name=draft.name,
                    description=draft.description or discord.utils.MISSING,
                    start_time=draft.start,
                    end_time=draft.end,
                    entity_type=discord.EntityType.external,
                    privacy_level=discord.PrivacyLevel.guild_only,
                    location=location,
                    reason=_("/event create by {user}", user=by_name),
                )
            except discord.HTTPException as exc:
                await self.ctx.store.delete(row.id)
                raise ValidationError(
                    _(
                        "Discord refused to create the event {name}: {error}. Nothing was made.",
                        name=repr(draft.name),
                        error=discord_error(exc),
                    )
                ) from None
            try:
                row = await self.ctx.store.update(row.id, discord_id=made.id)
            except ValidationError:
                # another row holds this id (the store keeps one row per Discord event): the
                # Discord event is that row's, and deleting it would cancel that row too (the
                # gateway's delete), so only this half-made row goes
                await self.ctx.store.delete(row.id)
                raise ValidationError(
                    _(
                        "Discord gave {name} the event id {id}, which the bot already keeps for"
                        " another event: {name} was not stored, and that Discord event was left"
                        " to the other one.",
                        name=repr(draft.name),
                        id=made.id,
                    )
                ) from None
            try:
                start_task, end_task = await self.halves.schedule_pair(row, draft.start, draft.end)
            except Exception as exc:
                await self.halves.undo_discord(row, lazy("its tasks could not be stored"))
                await self.ctx.store.delete(row.id)
                reason = str(exc) if isinstance(exc, ValidationError) else _("an internal error")
                log.warning("event %s: tasks not stored", row.id, exc_info=True)
                raise ValidationError(
                    _(
                        "The tasks of {name} could not be stored ({reason}), so its Discord event "
                        "was removed again. Nothing was made.",
                        name=repr(draft.name),
                        reason=reason,
                    )
                ) from None
            try:
                row = await self.ctx.store.update(
                    row.id, start_task=start_task, end_task=end_task, state="scheduled"
                )
            except Exception:
                log.exception("event %s: binding not stored", row.id)
                await self.halves.cancel_tasks((start_task, end_task))
                await self.halves.undo_discord(row, lazy("it could not be stored"))
                raise
        self.ctx.wake.set()
        return row

    async def recover(self) -> int:
        """Undo every create the bot died in the middle of: its tasks (found by their ids) are
        cancelled, its Discord event deleted, its row removed. The number undone."""
        undone = 0
        for row in await self.ctx.store.in_states(("creating",)):
            for role in ("start", "end"):
                for revision in range(row.revision + 1):
                    name = task_id(row.name, row.id, role, revision)
                    task = await self.ctx.tasks.find(row.server, name)
                    if task is not None:
                        await self.halves.cancel_tasks((task,))
            await self.halves.undo_discord(row, lazy("the bot stopped while making it"))
            await self.ctx.store.delete(row.id)
            log.warning("event %s (%s): a create cut short was undone", row.id, row.name)
            undone += 1
        return undone

    async def edit(
        self,
        row: EventRow,
        *,
        name: str | None,
        description: str | None,
        start: str | None,
        end: str | None,
    ) -> tuple[EventRow, list[Lazy]]:
        """Change the Discord event and move the tasks, or change nothing."""
        async with self.ctx.lock(row.id):
            current = await self.ctx.store.get(row.id)
            if current is None or current.state != "scheduled":
                state = event_state(current.state if current else "gone")
                raise ValidationError(
                    _(
                        "{name} is {state}: only an event that has not started can be edited.",
                        name=repr(row.name),
                        state=state,
                    )
                )
            row = current
            now = self.ctx.clock.now()
            tz = parse_timezone(row.timezone)
            title = check_name(name) if name is not None else row.name
            text = check_description(description) if description is not None else None
            begin = whole_second(parse_when(start, now, tz)) if start else row.start
            length = row.end - row.start
            finish = read_end(end, begin, now, row.timezone) if end else begin + length
            finish = whole_second(finish)
            if not end and finish <= begin:
                finish = begin + DEFAULT_LENGTH
            moved = (
                abs((begin - row.start).total_seconds()) >= MOVE_TOLERANCE
                or abs((finish - row.end).total_seconds()) >= MOVE_TOLERANCE
            )
            if moved:
                check_offsets(row.announce, "announce", begin, now)
                check_offsets(row.reminders, "reminder", begin, now)
            changes: dict[str, Any] = {}
            if title != row.name:
                changes["name"] = title
            if description is not None:
                changes["description"] = text or ""
            if moved:
                changes["scheduled_start_time"] = begin.isoformat()
                changes["scheduled_end_time"] = finish.isoformat()
            if not changes:
                raise ValidationError(
                    _("Nothing to change: give a new name, description, start or end.")
                )
            new_tasks: tuple[int, int] | None = None
            if moved:  # the new tasks first: if Discord refuses, they go and the old ones stay
                new_tasks = await self.halves.schedule_pair(
                    row, begin, finish, None, row.revision + 1
                )
            assert row.discord_id is not None
            try:
                await self.ctx.bot.http.edit_scheduled_event(
                    row.guild_id, row.discord_id, reason=_("/event edit"), **changes
                )
            except discord.HTTPException as exc:
                if new_tasks is not None:
                    await self.halves.cancel_tasks(new_tasks)
                raise ValidationError(
                    _(
                        "Discord refused the change to {name}: {error}. Nothing was changed.",
                        name=repr(row.name),
                        error=discord_error(exc),
                    )
                ) from None
            notes: list[Lazy] = []
            update: dict[str, Any] = {"name": title}
            if description is not None:
                update["description"] = text
            if new_tasks is not None:
                notes = await self.halves.cancel_tasks((row.start_task, row.end_task))
                update.update(
                    start=begin,
                    end=finish,
                    start_task=new_tasks[0],
                    end_task=new_tasks[1],
                    reminders_sent=(),
                    revision=row.revision + 1,
                )
            row = await self.ctx.store.update(row.id, **update)
        self.ctx.wake.set()
        return row, notes

    async def cancel(self, row: EventRow, *, by_name: str) -> EventRow:
        """Cancel the Discord event (delete it) and its tasks; if Discord refuses, keep both."""
        async with self.ctx.lock(row.id):
            current = await self.ctx.store.get(row.id)
            if current is None or current.state not in LIVE_STATES:
                state = event_state(current.state if current else "gone")
                raise ValidationError(
                    _("{name} is already {state}.", name=repr(row.name), state=state)
                )
            row = current
            if row.discord_id is not None:
                try:
                    await self.ctx.bot.http.delete_scheduled_event(
                        row.guild_id,
                        row.discord_id,
                        reason=_("/event cancel by {user}", user=by_name),
                    )
                except discord.NotFound:
                    pass  # already gone in Discord: the tasks go too
                except discord.HTTPException as exc:
                    raise ValidationError(
                        _(
                            "Discord refused to delete {name}: {error}. Its tasks were kept, so "
                            "the two still match.",
                            name=repr(row.name),
                            error=discord_error(exc),
                        )
                    ) from None
            failed = await self.halves.cancel_tasks(row.tasks)
            row = await self.ctx.store.update(row.id, state="cancelled")
        if failed:
            await self.notices.alert(
                row,
                lazy(
                    "it was cancelled, but some tasks could not be: {tasks}", tasks=joined(failed)
                ),
            )
        self.ctx.wake.set()
        return row
