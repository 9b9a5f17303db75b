"""Who is interested in an event: the count Discord keeps, and the optional role given to
members who mark themselves interested (DOOM_DISCORD_EVENT_ROLE_ID)."""

from __future__ import annotations

__all__ = ["InterestCounts"]

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.i18n import _
from bot.store.guild_events import LIVE_STATES

if TYPE_CHECKING:
    from bot.discord.guildevents.context import EventContext

log = logging.getLogger(__name__)


class InterestCounts:
    """The interested counts of bound events, and the interested role."""

    def __init__(self, ctx: EventContext) -> None:
        self.ctx = ctx

    async def refresh_counts(self, guild: discord.Guild | None) -> str | None:
        """Read the interested counts from Discord (one request for the guild). discord.py drops
        the gateway's user add/remove events for users it has not cached, which is every user
        without the privileged members intent, so the count Discord keeps is the one to trust.
        Returns a sentence when Discord could not be asked (the stored counts are shown then)."""
        if guild is None:
            return None
        try:
            found = await guild.fetch_scheduled_events(with_counts=True)
        except discord.HTTPException as exc:
            return _(
                "Interested counts are the last known ones: Discord did not answer ({status}).",
                status=exc.status,
            )
        for event in found:
            row = await self.ctx.store.by_discord(event.id)
            if row is not None and row.interested != event.user_count:
                await self.ctx.store.update(row.id, interested=event.user_count)
        return None

    async def interested(
        self, event: discord.ScheduledEvent, user: discord.User, added: bool
    ) -> None:
        """A member pressed (added) or took back Interested in Discord: the count follows, and
        the interested role when one is set."""
        row = await self.ctx.store.by_discord(event.id)
        if row is None:
            return
        async with self.ctx.lock(row.id):
            row = await self.ctx.store.get(row.id) or row
            count = max(0, row.interested + (1 if added else -1))
            await self.ctx.store.update(row.id, interested=count)
        role = self.ctx.bot.settings.discord_event_role_id
        if role is not None and row.state in LIVE_STATES:
            call: Callable[..., Awaitable[Any]] = (
                self.ctx.bot.http.add_role if added else self.ctx.bot.http.remove_role
            )
            try:
                await call(
                    row.guild_id, user.id, role, reason=_("interested in {name}", name=row.name)
                )
            except discord.HTTPException as exc:
                log.warning("event %s: role for %s not changed: %s", row.id, user.id, exc)
