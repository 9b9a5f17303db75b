"""End to end: the bot's real services over TCP RCON to an mcsim running the real pack.

mcsim runs without its realtime loop, so game time moves only when a test steps it: every
timing here is counted in ticks, never in wall-clock time.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from mcsim.server import Server
from tests.cogs.harness import Harness
from tests.fixtures import following, start_bot

__all__ = ["PASSWORD", "following"]

PASSWORD = "e2e-rcon-password"


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
