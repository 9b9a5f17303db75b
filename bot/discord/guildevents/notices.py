"""Telling people about an event: a notice (it changed) or an alert (a problem), posted in the
server's alert channel (else the bot's) in that channel's language."""

from __future__ import annotations

__all__ = ["EventNotices"]

import logging
from typing import TYPE_CHECKING

import discord

from bot.i18n import Text, _, use_locale

if TYPE_CHECKING:
    from bot.discord.guildevents.context import EventContext
    from bot.store.guild_events import EventRow

log = logging.getLogger(__name__)


class EventNotices:
    """Posts about events; every alert's text is kept in `alerts` too."""

    def __init__(self, ctx: EventContext) -> None:
        self.ctx = ctx
        self.alerts: list[str] = []  # every alert text posted, newest last (for /status, tests)

    def channel(self, row: EventRow) -> int | None:
        """The channel an event's notices go to: its server's alert channel, else the bot's."""
        bot = self.ctx.bot
        server = bot.services.servers.get(row.server)
        own = server.config.alert_channel_id if server is not None else None
        return own or bot.settings.alert_channel_id

    def channel_locale(self, row: EventRow, channel: int | None) -> str:
        """The language of what is posted about an event: DOOM_LOCALE, else the guild's."""
        if channel is not None:
            return self.ctx.bot.channel_locale(channel)
        return self.ctx.guild_locale(self.ctx.bot.get_guild(row.guild_id))

    async def alert(self, row: EventRow, text: Text | list[Text]) -> None:
        """A problem with an event, in the alert channel, naming the event."""
        await self.notice(row, text, problem=True)

    async def notice(
        self, row: EventRow, text: Text | list[Text], *, problem: bool = False
    ) -> None:
        """Post about an event; lazy texts are said in the alert channel's language."""
        channel = self.channel(row)
        parts = text if isinstance(text, list) else [text]
        with use_locale(self.channel_locale(row, channel)):
            body = _(
                "Event **{name}** (#{id} on {server}): {text}",
                name=row.name,
                id=row.id,
                server=row.server,
                text=" ".join(str(p) for p in parts),
            )
            title = _("Event problem") if problem else _("Event changed")
        if problem:
            self.alerts.append(body)
        log.log(logging.WARNING if problem else logging.INFO, "%s", body)
        if channel is None:
            return
        embed = discord.Embed(
            title=title, description=body[:4096], colour=0xED4245 if problem else 0x5865F2
        )
        await self.ctx.bot.post(channel, embed=embed)
