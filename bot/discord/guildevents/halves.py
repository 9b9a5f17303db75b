"""One half at a time: the start and end tasks made as a pair, tasks cancelled, a Discord event
removed. The lifecycle (:mod:`bot.discord.guildevents.lifecycle`) undoes a half-made create or
edit with these, and the follower (:mod:`bot.discord.guildevents.follower`) moves and cancels
tasks with them."""

from __future__ import annotations

__all__ = ["Halves"]

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord

from bot.calendar.event_draft import task_id
from bot.discord.guildevents.context import discord_error
from bot.i18n import Lazy, lazy

if TYPE_CHECKING:
    from bot.discord.guildevents.context import EventContext
    from bot.discord.guildevents.notices import EventNotices
    from bot.store.guild_events import EventRow

log = logging.getLogger(__name__)


class Halves:
    """Makes the task pair and unmakes either half; a failure to unmake is said, not raised."""

    def __init__(self, ctx: EventContext, notices: EventNotices) -> None:
        self.ctx = ctx
        self.notices = notices

    async def schedule_pair(
        self,
        row: EventRow,
        start: datetime,
        end: datetime,
        announce: tuple[int, ...] | None = None,
        revision: int = 0,
    ) -> tuple[int, int]:
        """The start task (with its countdown) and the end task; both or neither."""
        offsets = row.announce if announce is None else announce
        common: dict[str, Any] = {
            "server": row.server,
            "by_id": row.created_by_id,
            "by_name": row.created_by_name,
        }
        start_task = await self.ctx.tasks.schedule(
            task_id=task_id(row.name, row.id, "start", revision),
            command=row.start_run,
            due=start,
            announce=offsets,
            conditions=row.conditions,
            **common,
        )
        try:
            end_task = await self.ctx.tasks.schedule(
                task_id=task_id(row.name, row.id, "end", revision),
                command=row.end_run,
                due=end,
                announce=(),
                **common,
            )
        except BaseException:
            await self.cancel_tasks((start_task,))
            raise
        return start_task, end_task

    async def cancel_tasks(self, tasks: tuple[int | None, ...]) -> list[Lazy]:
        """Cancel each; the ones that could not be cancelled, as sentences (said later, maybe in
        an alert channel's language)."""
        failed: list[Lazy] = []
        for task in tasks:
            if task is None:
                continue
            try:
                await self.ctx.tasks.cancel(task)
            except Exception as exc:
                log.exception("cancelling task %s failed", task)
                failed.append(lazy("task #{task}: {error}", task=task, error=exc))
        return failed

    async def undo_discord(self, row: EventRow, why: Lazy) -> None:
        """Delete the row's Discord event; an alert says so when Discord refuses."""
        if row.discord_id is None:
            return
        try:
            await self.ctx.bot.http.delete_scheduled_event(
                row.guild_id, row.discord_id, reason=str(why)
            )
        except discord.NotFound:
            return
        except discord.HTTPException as exc:
            await self.notices.alert(
                row,
                lazy(
                    "{why}, and removing its Discord event failed too ({error}): delete the "
                    "event in Discord by hand.",
                    why=why,
                    error=discord_error(exc),
                ),
            )
