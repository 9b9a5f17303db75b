"""End to end: the bot's real services over TCP RCON to an mcsim running the real pack.

mcsim runs without its realtime loop, so game time moves only when a test steps it: every
timing here is counted in ticks, never in wall-clock time.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.services import build_services
from bot.store.schedules import ScheduleStore
from bot.testkit.harness import Harness, make_settings
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from tests.fixtures import following, start_bot

__all__ = ["PASSWORD", "following"]

PASSWORD = "e2e-rcon-password"
WALL_START = datetime.fromtimestamp(1_797_000_000, UTC)  # `wall`: Fri 2026-12-11 14:40 UTC


@pytest.fixture
def mc(mcsim: Callable[..., Server]) -> Iterator[Server]:
    """An mcsim with the pack installed, RCON on a free port, ticking only when stepped."""
    # start-up writes level.dat, as vanilla does: /setup's installer needs it
    yield mcsim(password=PASSWORD)


@pytest.fixture
async def live(mc: Server, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot with all cogs on real services pointed at ``mc``; alerts batch for 0.1 s."""
    harness = await start_bot(mc, tmp_path, PASSWORD)
    alerts = harness.bot.get_cog("Alerts")
    assert alerts is not None
    alerts.batch_window = 0.1  # type: ignore[attr-defined]
    schedule = harness.bot.get_cog("Schedule")
    assert schedule is not None
    schedule.confirm_timeout = 0.3  # type: ignore[attr-defined]
    try:
        yield harness
    finally:
        await harness.close()


@pytest.fixture
async def wall(mc: Server, tmp_path: Path) -> AsyncIterator[tuple[Harness, ManualClock]]:
    """The `live` bot with a wall-clock scheduler on a manual clock at WALL_START, its default
    zone Europe/Berlin, following ``mc``'s log, and a `wc` objective on ``mc``."""
    assert mc.rcon_port is not None
    config = ServerConfig(
        name="main",
        rcon_port=mc.rcon_port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=mc.world,
        log_path=mc.log_path,
        event_source="log",
    )
    settings = make_settings(tmp_path, [config], log_poll_interval=0.02, timezone="Europe/Berlin")
    services = await build_services(settings)
    clock = ManualClock(WALL_START)
    services.scheduler = Scheduler(
        ScheduleStore(services.db),
        services.servers,
        clock=clock,
        max_late=settings.max_late,
        default_timezone=settings.timezone,
    )
    harness = await Harness(settings, services).start()
    alerts = harness.bot.get_cog("Alerts")
    assert alerts is not None
    alerts.batch_window = 0.05  # type: ignore[attr-defined]
    schedule = harness.bot.get_cog("Schedule")
    assert schedule is not None
    schedule.confirm_timeout = 0.3  # type: ignore[attr-defined]
    await following(harness, mc)
    await asyncio.to_thread(mc.run, "scoreboard objectives add wc dummy")
    try:
        yield harness, clock
    finally:
        await harness.close()
