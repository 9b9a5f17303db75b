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

from bot.aio import cancel_and_wait
from bot.discord.slash.embeds import embed_of
from bot.discord.slash.fit import clip, pack_embeds, pages
from bot.events.kinds import ALERTS, KINDS
from bot.i18n import _, localized
from bot.minecraft.selftest import is_selftest_id
from bot.operations.sections import alert_section

if TYPE_CHECKING:
    from bot.discord.app import DoomBot
    from bot.events.event import Event
    from bot.services import ServerServices

log = logging.getLogger(__name__)

MAX_EMBEDS = 10  # per message, Discord's limit: more events than this become summary lines
FIELD_VALUE = 1024  # Discord's limit on a field's value (bot.discord.slash.limits)
SUMMARY_BUDGET = 5500  # field characters per summary message, below Discord's 6,000 in all


def alert_embed(event: Event) -> discord.Embed:
    return embed_of(alert_section(event))


def _line(event: Event) -> str:
    kind = KINDS.get(event.type, event.type)
    if not event.task_id:  # a health alert
        return _("{kind} on {server}", kind=kind, server=event.server)
    if event.game_time < 0:  # wall-clock events have no game time
        return _(
            "`{id}` {kind} on {server}", id=clip(event.task_id, 64), kind=kind, server=event.server
        )
    return _(
        "`{id}` {kind} on {server} at {tick}",
        id=clip(event.task_id, 64),
        kind=kind,
        server=event.server,
        tick=event.game_time,
    )


def _summaries(events: list[Event]) -> list[discord.Embed]:
    """Every event of a large batch as one line, in order, over as many messages as it takes
    (each within Discord's 6,000 characters): a flood is told completely, never "and N more"."""
    counts = Counter(e.type for e in events)
    worst = "retry_exhausted" if "retry_exhausted" in counts else events[0].type
    chunks = pages((_line(e) for e in events), FIELD_VALUE)
    name = _("events")
    parts: list[list[str]] = [[]]
    room = SUMMARY_BUDGET
    for chunk in chunks:
        if parts[-1] and len(chunk) + len(name) > room:
            parts.append([])
            room = SUMMARY_BUDGET
        parts[-1].append(chunk)
        room -= len(chunk) + len(name)
    embeds = []
    for number, part in enumerate(parts, 1):
        title = _("{n} task events", n=len(events))
        if len(parts) > 1:
            title += " " + _("({number} of {total})", number=number, total=len(parts))
        embed = discord.Embed(
            title=title,
            colour=ALERTS[worst][1],
            description=", ".join(
                f"{n} {KINDS.get(kind, kind)}" for kind, n in counts.most_common()
            ),
        )
        for chunk in part:
            embed.add_field(name=name, value=chunk, inline=False)
        embeds.append(embed)
    return embeds


class AlertsCog(commands.Cog, name="Alerts"):
    """One consumer per server's event source; alerts are batched per channel for a few seconds
    so that a burst (a server coming back with 50 failed tasks) is one message, not 50."""

    batch_window: float = 2.0  # seconds; tests shorten it
    post_attempts: int = 3  # a post discord.py gave up on (its 5 tries at a 429) is tried again
    retry_wait: float = 5.0  # seconds before another attempt; tests shorten it
    unload_wait: float = 10.0  # seconds the posts under way get to end when the cog unloads

    def __init__(self, bot: DoomBot) -> None:
        self.bot = bot
        self._consumers: list[asyncio.Task[None]] = []
        self._pending: dict[int, list[Event]] = {}
        self._flushers: dict[int, asyncio.Task[None]] = {}
        self._unloading = asyncio.Event()  # the batch windows end now: post what waits
        self.posted = 0  # messages sent, for tests and /status

    async def cog_load(self) -> None:
        for server in self.bot.services.servers.values():
            if server.events is not None:
                task = asyncio.create_task(self._consume(server), name=f"alerts-{server.name}")
                self._consumers.append(task)

    async def cog_unload(self) -> None:
        await cancel_and_wait(*self._consumers)
        # what arrived is still said before going away: each batch posts now, and no post is
        # left running after the cog (a task no one waits for outlives the bot's close)
        self._unloading.set()
        flushers = [t for t in self._flushers.values() if not t.done()]
        if flushers:
            await asyncio.wait(flushers, timeout=self.unload_wait)
        await cancel_and_wait(*flushers)
        for channel_id in list(self._pending):
            await self.flush(channel_id)

    async def _consume(self, server: ServerServices) -> None:
        # through the bus: the dashboard reads the same stream (bot/events/bus.py restarts a
        # broken source). Several processes on one database: the events of the servers another
        # process reads come relayed (bot.background.event_relay) and are posted too, so the
        # one Discord process alerts about every server
        assert server.events is not None
        async with self.bot.services.bus.subscribe(server.name, server.events) as stream:
            async for event in stream:
                try:
                    await self.handle(server, event)
                except Exception:  # one bad event must not stop the alerts
                    log.exception("alert for %s %s failed", server.name, event.type)

    async def handle(self, server: ServerServices, event: Event) -> None:
        """Queue one event for its server's alert channel (non-alert types are ignored)."""
        if is_selftest_id(event.task_id):
            return  # the selftest's own marker task: it checks its events itself
        self.bot.dispatch("doom_event", event)
        if event.type not in ALERTS:
            return
        if not self.bot.acting:
            return  # another process holds Discord's gateway: it posts every server's alerts
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
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.batch_window):
                    await self._unloading.wait()
            await self.flush(channel_id)

    @localized(lambda self, channel_id: self.bot.channel_locale(channel_id))
    async def flush(self, channel_id: int) -> None:
        """Post what is pending for a channel now: one message, embeds or a summary."""
        events = self._pending.pop(channel_id, [])
        if not events:
            return
        if len(events) <= MAX_EMBEDS:
            messages = pack_embeds([alert_embed(e) for e in events])
        else:
            messages = [[embed] for embed in _summaries(events)]
        content = None
        mentions = discord.AllowedMentions.none()
        role_ids = self.bot.settings.alert_mention_role_ids
        if role_ids and any(e.type == "retry_exhausted" for e in events):
            content = " ".join(f"<@&{r}>" for r in role_ids)
            mentions = discord.AllowedMentions(roles=[discord.Object(r) for r in role_ids])
        for embeds in messages:  # in order, one after the other: discord.py paces them
            for attempt in range(1, self.post_attempts + 1):
                sent = await self.bot.post(
                    channel_id, content=content, embeds=embeds, allowed_mentions=mentions
                )
                if sent is not None:
                    self.posted += 1
                    break
                if attempt < self.post_attempts:
                    await asyncio.sleep(self.retry_wait)
            else:
                log.error("gave up posting %d alert embed(s) to %s", len(embeds), channel_id)
            content, mentions = None, discord.AllowedMentions.none()  # the first one pings


async def setup(bot: DoomBot) -> None:
    await bot.add_cog(AlertsCog(bot))
