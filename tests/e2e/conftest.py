"""End to end: the bot's real services over TCP RCON to an mcsim running the real pack.

mcsim runs without its realtime loop, so game time moves only when a test steps it: every
timing here is counted in ticks, never in wall-clock time.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.services import build_services
from mcsim.server import Server
from tests.cogs.harness import Harness, make_settings

ROOT = Path(__file__).resolve().parent.parent.parent
PASSWORD = "e2e-rcon-password"


@pytest.fixture
def mc(tmp_path: Path) -> Iterator[Server]:
    """An mcsim with the pack installed, RCON on a free port, ticking only when stepped."""
    world = tmp_path / "world"
    (world / "datapacks").mkdir(parents=True)
    shutil.copytree(ROOT / "datapack", world / "datapacks" / "doom.schedule")
    server = Server(world, rcon_port=0, rcon_password=PASSWORD)
    server.start()  # writes level.dat at start-up, as vanilla: /setup's installer needs it
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def live(mc: Server, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot with all cogs on real services pointed at ``mc``; alerts batch for 0.1 s."""
    assert mc.rcon_port is not None
    config = ServerConfig(
        name="main",
        rcon_port=mc.rcon_port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=mc.world,
        log_path=mc.log_path,
        event_source="log",
    )
    settings = make_settings(tmp_path, [config], log_poll_interval=0.02)
    services = await build_services(settings)
    harness = await Harness(settings, services).start()
    alerts = harness.bot.get_cog("Alerts")
    assert alerts is not None
    alerts.batch_window = 0.1  # type: ignore[attr-defined]
    schedule = harness.bot.get_cog("Schedule")
    assert schedule is not None
    schedule.confirm_timeout = 0.3  # type: ignore[attr-defined]
    await following(harness, mc)
    try:
        yield harness
    finally:
        await harness.close()


async def following(harness: Harness, server: Server) -> None:
    """Wait until the log tailer reads the live latest.log (a fresh tailer starts at its end)."""
    tailer = harness.services.servers["main"].events
    lines_read = tailer.lines_read  # type: ignore[union-attr]
    async with asyncio.timeout(5):
        while tailer.lines_read == lines_read:  # type: ignore[union-attr]
            await asyncio.to_thread(server.run, "say probe")
            await asyncio.sleep(0.02)
