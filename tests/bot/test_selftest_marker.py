"""The selftest's marker check reads the marker back after queueing it; on a slow link, or a
server running ticks back to back to catch up, its first try may already have run by then. Its
first due tick is still the one it was queued with (a CI run once failed the check there)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from bot.minecraft.selftest.base import MARKER_DELAY, RETRIES, RETRY_DELAY
from bot.minecraft.selftest.checks_timed import first_due
from bot.services import build_services
from bot.testkit.harness import make_settings
from mcsim.server import Server
from tests.fixtures import server_config

PASSWORD = "pw"


async def test_the_first_due_is_found_after_tries_already_ran(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    server = mcsim(password=PASSWORD)
    services = await build_services(make_settings(tmp_path, [server_config(server, PASSWORD)]))
    try:
        pack = services.servers["main"].pack
        failing = "execute if score #never doom.never matches 1"  # fails at every try
        queued = await pack.schedule(
            failing, MARKER_DELAY, "t", "marker", retry=RETRIES, retry_delay=RETRY_DELAY
        )
        assert queued is not None and first_due(queued) == queued.due
        for tries in (1, 2):  # read back after one try, then after two
            await asyncio.to_thread(server.step, MARKER_DELAY if tries == 1 else RETRY_DELAY)
            again = await pack.show("marker")
            assert again is not None and again.retry_left == RETRIES - tries, again
            assert again.due == queued.due + tries * RETRY_DELAY  # the pack's re-queue
            assert first_due(again) == queued.due
    finally:
        await services.close()
