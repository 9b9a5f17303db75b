"""Acceptance: the bot's own health checks post to the alert channel through the alerts cog,
one alert when the server goes away and one all clear when it is back (real clock, mcsim
stopped and started again on its port)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.testkit.harness import ALERT_CHANNEL, Harness
from mcsim.server import Server
from tests.e2e.conftest import PASSWORD
from tests.fixtures import start_bot, start_mcsim


def titles(harness: Harness) -> list[str]:
    return [e["title"] for p in harness.posts(ALERT_CHANNEL) for e in p.payload["embeds"]]


@pytest.mark.slow
async def test_the_server_away_is_one_alert_and_back_is_one_all_clear(tmp_path: Path) -> None:
    mc = start_mcsim(tmp_path / "world", password=PASSWORD)
    port = mc.rcon_port
    harness = await start_bot(
        mc,
        tmp_path,
        PASSWORD,
        health_interval=1,
        alert_unreachable_minutes=0,
        alert_quiet_minutes=0,
        rcon_timeout=0.5,
    )
    alerts = harness.bot.get_cog("Alerts")
    alerts.batch_window = 0.1  # type: ignore[union-attr]
    try:
        mc.stop()
        await harness.discord.wait_for(
            lambda: "Server unreachable over RCON" in titles(harness), limit=30
        )
        [post] = [p for p in harness.posts(ALERT_CHANNEL) if "unreachable" in str(p.payload)]
        fields = {f["name"]: f["value"] for f in post.payload["embeds"][0]["fields"]}
        assert fields["server"] == "main" and "task" not in fields and "error" in fields
        mc = Server(mc.world, rcon_port=port, rcon_password=PASSWORD)
        mc.start()
        await harness.discord.wait_for(
            lambda: "All clear: the server answers again" in titles(harness), limit=30
        )
        assert titles(harness).count("Server unreachable over RCON") == 1
        assert titles(harness).count("All clear: the server answers again") == 1
    finally:
        await harness.close()
        mc.stop()
