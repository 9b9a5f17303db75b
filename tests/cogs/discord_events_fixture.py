"""The bot with the /event cog on an injected clock, an in-memory task table and a local Discord."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.config import ServerConfig
from bot.services import Services, build_server
from bot.store.audit import AuditStore
from bot.testkit.harness import Harness, make_settings
from bot.times.clock import ManualClock
from tests.cogs.discord_event_doubles import MemoryTasks

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)


class EventHarness(Harness):
    clock: ManualClock
    tasks: MemoryTasks

    @property
    def cog(self) -> Any:
        cog = self.bot.get_cog("DiscordEvents")
        assert cog is not None
        return cog

    async def run_due(self) -> datetime | None:
        """Let the event timers act on the clock's now, and the echoes they cause settle."""
        nxt: datetime | None = await self.cog.timers.run_due()
        await self.discord.scheduled.settle()
        return nxt

    async def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)
        await self.run_due()


async def event_harness(
    tmp_path: Path, *, server_locale: str = "en", guild_locale: str = "en-US", **settings: Any
) -> AsyncIterator[EventHarness]:
    config = ServerConfig(
        name="main",
        rcon_port=1,
        rcon_password="x",  # type: ignore[arg-type]
        public_address="mc.example.org",
        locale=server_locale,
    )
    values = make_settings(tmp_path, [config], **settings)
    audit = AuditStore(tmp_path / "bot.sqlite3")
    server = build_server(values, config, audit)
    server.events = None  # no Minecraft server here: nothing to poll events from
    services = Services(values, {"main": server}, audit)
    harness = EventHarness(values, services)
    harness.discord.guild_locale = guild_locale  # the guild's preferred locale, in its payload
    await harness.start()
    harness.clock = ManualClock(NOW)
    harness.tasks = MemoryTasks(harness.clock)
    await harness.cog.timers.stop()  # the tests move the clock and run the timers themselves
    harness.cog.events.clock = harness.clock
    harness.cog.events.tasks = harness.tasks
    try:
        yield harness
    finally:
        # the refusals a test asked for with fail_next are expected; any other one fails it
        asked = set(harness.discord.scheduled.failed)
        refused = harness.discord.refused
        refused[:] = [r for r in refused if (r.method, r.path) not in asked]
        await harness.close()
