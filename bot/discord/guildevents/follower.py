"""Following Discord's own changes: a move, cancel, end or delete made in Discord's UI arrives
as a gateway event and is applied to the in-game tasks, and one notice says so. The bot's own edits
come back the same way and change nothing (the stored times already match)."""

from __future__ import annotations

__all__ = ["DiscordFollower"]

import logging
from typing import TYPE_CHECKING

import discord

from bot.calendar.event_draft import task_id, whole_second
from bot.discord.guildevents.context import MOVE_TOLERANCE, joined
from bot.i18n import Lazy, Text, lazy
from bot.i18n.formats import stamp
from bot.store.guild_events import LIVE_STATES, EventRow

if TYPE_CHECKING:
    from bot.discord.guildevents.context import EventContext
    from bot.discord.guildevents.halves import Halves
    from bot.discord.guildevents.notices import EventNotices

log = logging.getLogger(__name__)


class DiscordFollower:
    """Applies to the tasks what Discord says happened to a bound event."""

    def __init__(self, ctx: EventContext, halves: Halves, notices: EventNotices) -> None:
        self.ctx = ctx
        self.halves = halves
        self.notices = notices

    async def updated(self, event: discord.ScheduledEvent) -> None:
        """The event changed in Discord: cancelled there cancels the tasks; moved moves them."""
        row = await self.ctx.store.by_discord(event.id)
        if row is None:
            return
        async with self.ctx.lock(row.id):
            row = await self.ctx.store.get(row.id) or row
            if row.state not in LIVE_STATES:
                return
            if event.status in (discord.EventStatus.cancelled, discord.EventStatus.ended):
                if event.status is discord.EventStatus.cancelled:
                    await self._cancelled(
                        row,
                        lazy("it was cancelled in Discord, so its in-game tasks were cancelled."),
                    )
                elif row.state == "scheduled":  # ended by hand before it started: nothing runs
                    await self._cancelled(
                        row,
                        lazy(
                            "it was ended before its start in Discord, so its in-game tasks "
                            "were cancelled."
                        ),
                    )
                return
            await self._follow_move(row, event)
        self.ctx.wake.set()

    async def deleted(self, event: discord.ScheduledEvent) -> None:
        row = await self.ctx.store.by_discord(event.id)
        if row is None:
            return
        async with self.ctx.lock(row.id):
            row = await self.ctx.store.get(row.id) or row
            if row.state in LIVE_STATES:
                await self._cancelled(
                    row, lazy("it was deleted in Discord, so its in-game tasks were cancelled.")
                )
        self.ctx.wake.set()

    async def gone(self, row: EventRow) -> EventRow:
        """Discord answered 404 Unknown Guild Scheduled Event for a bound event: it was deleted
        there while the bot did not hear it (down, or a local Discord that forgot it), which is
        the delete the README promises to follow: its tasks are cancelled, one notice says so.
        The caller holds the row's lock."""
        if row.state in LIVE_STATES:
            await self._cancelled(
                row, lazy("it was deleted in Discord, so its in-game tasks were cancelled.")
            )
        self.ctx.wake.set()
        return await self.ctx.store.get(row.id) or row

    async def _cancelled(self, row: EventRow, text: Lazy) -> None:
        pending = (row.start_task, row.end_task) if row.state == "scheduled" else (row.end_task,)
        failed = await self.halves.cancel_tasks(pending)
        await self.ctx.store.update(row.id, state="cancelled")
        said: list[Text] = [text]
        if failed:
            said.append(lazy("These could not be: {tasks}", tasks=joined(failed)))
        await self.notices.notice(row, said, problem=bool(failed))

    async def _follow_move(self, row: EventRow, event: discord.ScheduledEvent) -> None:
        begin = whole_second(event.start_time)
        finish = whole_second(event.end_time or begin + (row.end - row.start))
        moved_start = abs((begin - row.start).total_seconds()) >= MOVE_TOLERANCE
        moved_end = abs((finish - row.end).total_seconds()) >= MOVE_TOLERANCE
        renamed = event.name != row.name
        if not (moved_start or moved_end):
            if renamed:
                await self.ctx.store.update(row.id, name=event.name)
            return
        now = self.ctx.clock.now()
        if row.state == "active" or begin <= now:  # started: only the end can still move
            begin, moved_start = row.start, False
        until = (begin - now).total_seconds()
        announce = tuple(o for o in row.announce if o <= until)
        try:
            if moved_start:
                start_task, end_task = await self.halves.schedule_pair(
                    row, begin, finish, announce, row.revision + 1
                )
                old: tuple[int | None, ...] = (row.start_task, row.end_task)
            else:
                end_task = await self.ctx.tasks.schedule(
                    server=row.server,
                    task_id=task_id(row.name, row.id, "end", row.revision + 1),
                    command=row.end_run,
                    due=finish,
                    announce=(),
                    by_id=row.created_by_id,
                    by_name=row.created_by_name,
                )
                start_task, old = row.start_task or 0, (row.end_task,)
        except Exception as exc:
            log.exception("event %s: moving the tasks failed", row.id)
            await self.notices.alert(
                row,
                lazy(
                    "it was moved in Discord to {start}, but its tasks could not be moved "
                    "({error}): they still run at the old times.",
                    start=stamp(begin),
                    error=exc,
                ),
            )
            return
        failed = await self.halves.cancel_tasks(old)
        sent = tuple(o for o in row.reminders_sent if not moved_start)
        await self.ctx.store.update(
            row.id,
            start=begin,
            end=finish,
            start_task=start_task or None,
            end_task=end_task,
            name=event.name,
            reminders_sent=sent,
            revision=row.revision + 1,
        )
        said: list[Text] = [
            lazy(
                "it was moved in Discord: the tasks now run at {start} (start) and {end} (end).",
                start=stamp(begin),
                end=stamp(finish),
            )
        ]
        if len(announce) < len(row.announce):
            said.append(lazy("Countdowns longer than the time left were dropped."))
        if failed:
            said.append(
                lazy("The old tasks could not all be cancelled: {tasks}", tasks=joined(failed))
            )
        await self.notices.notice(row, said, problem=bool(failed))
