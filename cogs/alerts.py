"""Posts the pack's events (a task gave up, went offline, came back, was dropped) to Discord."""

from __future__ import annotations

__all__ = ["ALERTS", "AlertsCog", "alert_embed", "setup"]

import asyncio
import contextlib
import logging
from collections import Counter
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

if TYPE_CHECKING:
    from bot.app import DoomBot
    from bot.events.event import Event
    from bot.services import ServerServices
    from bot.wallclock.scheduler import Scheduler

log = logging.getLogger(__name__)

# event type -> (title, colour); other types (retry, ...) are not alerts
ALERTS: dict[str, tuple[str, int]] = {
    "retry_exhausted": ("Task failed: no retries left", 0xED4245),
    "offline": ("Task waiting: its player went offline", 0xFEE75C),
    "restored": ("Task resumed: its player is back", 0x57F287),
    "invalid": ("Task removed: its command does not parse", 0xED4245),
    "dropped": ("Task removed: the entity it runs as is gone", 0xED4245),
    # the wall-clock scheduler's (bot.wallclock.scheduler); their game time is -1 (none)
    "wallclock_missed": ("Planned task missed", 0xED4245),
    "wallclock_skipped": ("Planned runs skipped", 0xFEE75C),
    "wallclock_late": ("Planned task ran late", 0xFEE75C),
    "wallclock_failed": ("Planned task refused by the server", 0xED4245),
    "wallclock_waiting": ("Planned task waiting: its player is offline", 0xFEE75C),
}
MAX_EMBEDS = 10  # per message, Discord's limit
MAX_LINES = 30  # in a summary of a large batch


def alert_embed(event: Event) -> discord.Embed:
    title, colour = ALERTS[event.type]
    embed = discord.Embed(title=title, colour=colour)
    embed.add_field(name="task", value=f"`{event.task_id[:100]}`")
    embed.add_field(name="server", value=event.server)
    if event.game_time >= 0:
        embed.add_field(name="game time", value=str(event.game_time))
    for key, value in list(event.details.items())[:20]:
        embed.add_field(name=key[:256], value=f"`{value[:1000]}`")
    embed.set_footer(text=f"event {event.seq}")
    return embed


def _summary(events: list[Event]) -> discord.Embed:
    counts = Counter(e.type for e in events)
    worst = "retry_exhausted" if "retry_exhausted" in counts else events[0].type
    embed = discord.Embed(
        title=f"{len(events)} task events",
        colour=ALERTS[worst][1],
        description=", ".join(f"{n} {kind}" for kind, n in counts.most_common()),
    )
    lines = [
        f"`{e.task_id[:60]}` {e.type} on {e.server}"
        + (f" at {e.game_time}" if e.game_time >= 0 else "")
        for e in events
    ]
    more = len(lines) - MAX_LINES
    body = "\n".join(lines[:MAX_LINES]) + (f"\n... and {more} more" if more > 0 else "")
    embed.add_field(name="events", value=body[:1024], inline=False)
    return embed


class AlertsCog(commands.Cog, name="Alerts"):
    """One consumer per server's event source; alerts are batched per channel for a few seconds
    so that a burst (a server coming back with 50 failed tasks) is one message, not 50."""

    batch_window: float = 2.0  # seconds; tests shorten it

    def __init__(self, bot: DoomBot) -> None:
        self.bot = bot
        self._consumers: list[asyncio.Task[None]] = []
        self._pending: dict[int, list[Event]] = {}
        self._flushers: dict[int, asyncio.Task[None]] = {}
        self.posted = 0  # messages sent, for tests and /status

    async def cog_load(self) -> None:
        for server in self.bot.services.servers.values():
            if server.events is not None:
                task = asyncio.create_task(self._consume(server), name=f"alerts-{server.name}")
                self._consumers.append(task)
        scheduler = self.bot.services.scheduler
        if scheduler is not None:
            task = asyncio.create_task(self._consume_planned(scheduler), name="alerts-wallclock")
            self._consumers.append(task)

    async def cog_unload(self) -> None:
        for task in self._consumers:
            task.cancel()
        for task in self._consumers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for channel_id in list(self._pending):
            await self.flush(channel_id)  # what arrived is still said before going away

    async def _consume(self, server: ServerServices) -> None:
        assert server.events is not None
        while True:
            try:
                async with contextlib.aclosing(server.events.events()) as stream:
                    async for event in stream:
                        await self.handle(server, event)
            except asyncio.CancelledError:
                raise
            except Exception:  # a broken source is restarted, not given up on
                log.exception("event source of %s failed; restarting it", server.name)
                await asyncio.sleep(5)

    async def _consume_planned(self, scheduler: Scheduler) -> None:
        async with contextlib.aclosing(scheduler.events()) as stream:
            async for event in stream:
                server = self.bot.services.servers.get(event.server)
                if server is not None:
                    await self.handle(server, event)

    async def handle(self, server: ServerServices, event: Event) -> None:
        """Queue one event for its server's alert channel (non-alert types are ignored)."""
        self.bot.dispatch("doom_event", event)
        if event.type not in ALERTS:
            return
        channel_id = self.bot.alert_channel_id(server)
        if channel_id is None:
            log.info("no alert channel for %s: %s %s", server.name, event.type, event.task_id)
            return
        self._pending.setdefault(channel_id, []).append(event)
        flusher = self._flushers.get(channel_id)
        if flusher is None or flusher.done():
            self._flushers[channel_id] = asyncio.create_task(self._flush_later(channel_id))

    async def _flush_later(self, channel_id: int) -> None:
        # Events that arrive while a post is in flight find this task not done and add to the
        # pending list without starting another: loop until none is left, or they would wait
        # for the next event to be posted.
        while self._pending.get(channel_id):
            await asyncio.sleep(self.batch_window)
            await self.flush(channel_id)

    async def flush(self, channel_id: int) -> None:
        """Post what is pending for a channel now: one message, embeds or a summary."""
        events = self._pending.pop(channel_id, [])
        if not events:
            return
        embeds = [alert_embed(e) for e in events] if len(events) <= MAX_EMBEDS else [
            _summary(events)
        ]  # fmt: skip
        content = None
        mentions = discord.AllowedMentions.none()
        role_ids = self.bot.settings.alert_mention_role_ids
        if role_ids and any(e.type == "retry_exhausted" for e in events):
            content = " ".join(f"<@&{r}>" for r in role_ids)
            mentions = discord.AllowedMentions(roles=[discord.Object(r) for r in role_ids])
        await self.bot.post(channel_id, content=content, embeds=embeds, allowed_mentions=mentions)
        self.posted += 1


async def setup(bot: DoomBot) -> None:
    await bot.add_cog(AlertsCog(bot))
