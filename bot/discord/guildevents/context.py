"""What every part of the event binding shares: the bot, the event rows, the in-game tasks, the
clock, one lock per event and the timers' wake-up (see :mod:`bot.discord.guildevents.binding`)."""

from __future__ import annotations

__all__ = ["MOVE_TOLERANCE", "EventContext", "discord_error", "joined"]

import asyncio
from typing import TYPE_CHECKING

from bot.i18n import Joined, Lazy, pick

if TYPE_CHECKING:
    import discord

    from bot.discord.app import DoomBot
    from bot.discord.guildevents.event_tasks import EventTasks
    from bot.store.guild_events import GuildEventStore
    from bot.times.clock import Clock

MOVE_TOLERANCE = 1.0  # seconds: Discord keeps times to the millisecond, the tasks to the second


def discord_error(exc: discord.HTTPException) -> str:
    return f"{exc.text or exc.status} (HTTP {exc.status})"


def joined(items: list[Lazy]) -> Joined:
    return Joined(items, "; ")


class EventContext:
    """The state the binding's parts share; `tasks` and `clock` may be replaced (tests do)."""

    def __init__(
        self,
        bot: DoomBot,
        store: GuildEventStore,
        tasks: EventTasks,
        clock: Clock,
        *,
        default_timezone: str = "UTC",
    ) -> None:
        self.bot = bot
        self.store = store
        self.tasks = tasks
        self.clock = clock
        self.default_timezone = default_timezone
        self._locks: dict[int, asyncio.Lock] = {}
        self.wake = asyncio.Event()  # rows changed: the timers look again

    def lock(self, event_id: int) -> asyncio.Lock:
        return self._locks.setdefault(event_id, asyncio.Lock())

    def guild_locale(self, guild: discord.Guild | None) -> str:
        """What members read (the Discord event's own texts): DOOM_LOCALE, else the guild's."""
        preferred = guild.preferred_locale if guild is not None else None
        return pick(self.bot.settings.locale, preferred)
