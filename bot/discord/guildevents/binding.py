"""A Discord scheduled event and its in-game tasks, kept as one thing.

:class:`GuildEvents` is what the faces and the timers call; each job is its own class, sharing an
:class:`~bot.discord.guildevents.context.EventContext`:

- :class:`~bot.discord.guildevents.lookup.EventLookup`: an event by id or name, its tasks'
  outcomes;
- :class:`~bot.discord.guildevents.lifecycle.EventLifecycle`: create, edit and cancel both halves
  together (the guild scheduled event through discord.py, the wall-clock tasks through
  :class:`~bot.discord.guildevents.event_tasks.EventTasks`), undoing the half made when the other
  fails, and the recovery of a create cut short;
- :class:`~bot.discord.guildevents.follower.DiscordFollower`: moves, cancels and deletes made in
  Discord's own UI, applied to the tasks;
- :class:`~bot.discord.guildevents.interest.InterestCounts`: interested counts and the interested
  role;
- :class:`~bot.discord.guildevents.notices.EventNotices`: notices and alerts about an event.

Reminders, the Discord status at start and end, the next occurrence of a repeating event and the
alerts about failed tasks are :mod:`bot.discord.guildevents.timers`'s.
"""

from __future__ import annotations

__all__ = ["GuildEvents", "discord_error"]

import asyncio
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from bot.discord.guildevents.context import EventContext, discord_error
from bot.discord.guildevents.follower import DiscordFollower
from bot.discord.guildevents.halves import Halves
from bot.discord.guildevents.interest import InterestCounts
from bot.discord.guildevents.lifecycle import EventLifecycle
from bot.discord.guildevents.lookup import EventLookup
from bot.discord.guildevents.notices import EventNotices
from bot.discord.guildevents.readiness import usable_guild

if TYPE_CHECKING:
    import discord

    from bot.calendar.event_draft import Draft
    from bot.discord.app import DoomBot
    from bot.discord.guildevents.event_tasks import EventTasks, TaskStatus
    from bot.i18n import Lazy, Text
    from bot.services import ServerServices
    from bot.store.guild_events import EventRow, GuildEventStore
    from bot.times.clock import Clock


class GuildEvents:
    """Both halves of every event, one object for its callers; see the module docstring."""

    def __init__(
        self,
        bot: DoomBot,
        store: GuildEventStore,
        tasks: EventTasks,
        clock: Clock,
        *,
        default_timezone: str = "UTC",
    ) -> None:
        self.ctx = EventContext(bot, store, tasks, clock, default_timezone=default_timezone)
        self.notices = EventNotices(self.ctx)
        halves = Halves(self.ctx, self.notices)
        self.lookup = EventLookup(self.ctx)
        self.lifecycle = EventLifecycle(self.ctx, halves, self.notices)
        self.follower = DiscordFollower(self.ctx, halves, self.notices)
        self.interest = InterestCounts(self.ctx)

    # -- what the parts share -------------------------------------------------------------------

    @property
    def bot(self) -> DoomBot:
        return self.ctx.bot

    @property
    def store(self) -> GuildEventStore:
        return self.ctx.store

    @property
    def tasks(self) -> EventTasks:
        return self.ctx.tasks

    @tasks.setter
    def tasks(self, tasks: EventTasks) -> None:
        self.ctx.tasks = tasks

    @property
    def clock(self) -> Clock:
        return self.ctx.clock

    @clock.setter
    def clock(self, clock: Clock) -> None:
        self.ctx.clock = clock

    @property
    def default_timezone(self) -> str:
        return self.ctx.default_timezone

    @property
    def wake(self) -> asyncio.Event:
        """Set when rows changed: the timers look again."""
        return self.ctx.wake

    @property
    def alerts(self) -> list[str]:
        """Every alert text posted, newest last."""
        return self.notices.alerts

    def lock(self, event_id: int) -> asyncio.Lock:
        return self.ctx.lock(event_id)

    def guild(self, guild_id: int | None) -> discord.Guild:
        """The guild to make events in; ValidationError saying why the bot cannot."""
        return usable_guild(self.bot.get_guild(guild_id) if guild_id is not None else None)

    def guild_locale(self, guild: discord.Guild | None) -> str:
        return self.ctx.guild_locale(guild)

    # -- reading --------------------------------------------------------------------------------

    async def find(self, text: str) -> EventRow:
        return await self.lookup.find(text)

    async def outcomes(self, row: EventRow) -> dict[str, TaskStatus | None]:
        return await self.lookup.outcomes(row)

    async def refresh_counts(self, guild: discord.Guild | None) -> str | None:
        return await self.interest.refresh_counts(guild)

    async def refresh_guild_counts(self, guild_id: int) -> str | None:
        """The interested counts of a guild's events from Discord (the triggers' look)."""
        return await self.refresh_counts(self.bot.get_guild(guild_id))

    # -- create, edit, cancel from the bot's side -----------------------------------------------

    def location(self, server: ServerServices) -> str:
        return self.lifecycle.location(server)

    def check_commands(self, server: ServerServices, *commands: str) -> None:
        self.lifecycle.check_commands(server, *commands)

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
        return await self.lifecycle.create(
            guild,
            server,
            draft,
            start_run=start_run,
            end_run=end_run,
            by_id=by_id,
            by_name=by_name,
            anchor=anchor,
            previous=previous,
            conditions=conditions,
        )

    async def recover(self) -> int:
        return await self.lifecycle.recover()

    async def edit(
        self,
        row: EventRow,
        *,
        name: str | None,
        description: str | None,
        start: str | None,
        end: str | None,
    ) -> tuple[EventRow, list[Lazy]]:
        return await self.lifecycle.edit(
            row, name=name, description=description, start=start, end=end
        )

    async def cancel(self, row: EventRow, *, by_name: str) -> EventRow:
        return await self.lifecycle.cancel(row, by_name=by_name)

    # -- Discord's side: gateway events ---------------------------------------------------------

    async def discord_updated(self, event: discord.ScheduledEvent) -> None:
        await self.follower.updated(event)

    async def discord_deleted(self, event: discord.ScheduledEvent) -> None:
        await self.follower.deleted(event)

    async def gone_from_discord(self, row: EventRow) -> EventRow:
        return await self.follower.gone(row)

    async def interested(
        self, event: discord.ScheduledEvent, user: discord.User, added: bool
    ) -> None:
        await self.interest.interested(event, user, added)

    # -- telling people -------------------------------------------------------------------------

    def channel(self, row: EventRow) -> int | None:
        return self.notices.channel(row)

    def channel_locale(self, row: EventRow, channel: int | None) -> str:
        return self.notices.channel_locale(row, channel)

    async def alert(self, row: EventRow, text: Text | list[Text]) -> None:
        await self.notices.alert(row, text)

    async def notice(
        self, row: EventRow, text: Text | list[Text], *, problem: bool = False
    ) -> None:
        await self.notices.notice(row, text, problem=problem)
