"""Finding the events a moderator names, and how their tasks went: reads of the rows and the
schedules, nothing asked of Discord."""

from __future__ import annotations

__all__ = ["EventLookup"]

from typing import TYPE_CHECKING

from bot.errors import ValidationError
from bot.i18n import _
from bot.store.guild_events import LIVE_STATES, EventRow

if TYPE_CHECKING:
    from bot.discord.guildevents.context import EventContext
    from bot.discord.guildevents.event_tasks import TaskStatus


class EventLookup:
    """An event by its id or name, and the outcomes of its tasks."""

    def __init__(self, ctx: EventContext) -> None:
        self.ctx = ctx

    async def find(self, text: str) -> EventRow:
        """The event a moderator names: `3`, `#3`, or its exact name (the newest live one)."""
        wanted = text.strip().removeprefix("#")
        if wanted.isdigit():
            row = await self.ctx.store.get(int(wanted))
            if row is not None and row.state != "creating":
                return row
        for row in reversed(await self.ctx.store.in_states(LIVE_STATES)):
            if row.name.lower() == text.strip().lower():
                return row
        raise ValidationError(
            _("There is no event {name}: see /event list for the ids.", name=repr(text.strip()))
        )

    async def outcomes(self, row: EventRow) -> dict[str, TaskStatus | None]:
        found: dict[str, TaskStatus | None] = {}
        for role, task in (("start", row.start_task), ("end", row.end_task)):
            if task is not None:
                found[role] = await self.ctx.tasks.status(task)
        return found
