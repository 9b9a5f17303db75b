"""The countdown before a wall-clock run is said in the server's language
(DOOM_SERVERS__N__LOCALE), whatever language the bot's own context is in: players read it, not
the moderator who planned it. mcsim with the real pack over TCP RCON, on a manual clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import DEFAULT_DENY
from bot.i18n import use_locale
from bot.minecraft.command_check import CommandChecker
from bot.minecraft.pack_client import PackClient
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices
from bot.times.clock import ManualClock
from tests.wallclock.wallclock_sim import (
    MOD,
    PASSWORD,
    START,
    PackSim,
    make_scheduler,
)

ADD = "scoreboard players add #runs wc 1"


def services(sim: PackSim, locale: str) -> ServerServices:
    config = sim.config.model_copy(update={"locale": locale})
    rcon = RconClient("127.0.0.1", sim.server.rcon_port or 0, PASSWORD, timeout=5.0, name="sim")
    checker = CommandChecker(deny=DEFAULT_DENY)
    return ServerServices(config, rcon, PackClient(rcon, config, checker), checker, None)


@pytest.mark.parametrize(
    ("server_locale", "bot_locale", "said_30", "said_90"),
    [
        ("zh_CN", "en", "event 将在 30 秒后开始。", "event 将在 1 分钟 30 秒后开始。"),
        ("en", "zh_CN", "event starts in 30 seconds.", "event starts in 1 minute 30 seconds."),
    ],
)
async def test_the_countdown_is_in_the_servers_language(
    sim: PackSim,
    tmp_path: Path,
    server_locale: str,
    bot_locale: str,
    said_30: str,
    said_90: str,
) -> None:
    server = services(sim, server_locale)
    clock = ManualClock(START)
    sim.server.join("Alex")
    with use_locale(bot_locale):  # the scheduler's task starts in the other language
        scheduler = make_scheduler(tmp_path / "bot.sqlite3", server, clock)
        await scheduler.start()
        await scheduler.settled()
        await scheduler.create(
            server="sim",
            command=ADD,
            task_id="event",
            created_by=MOD,
            when="in 2m",
            announce="90s,30s",
        )
    try:
        clock.advance(30)
        await scheduler.settled()
        chat = sim.server.chat("Alex")
        assert any(said_90 in line for line in chat), chat
        clock.advance(60)
        await scheduler.settled()
        chat = sim.server.chat("Alex")
        assert any(said_30 in line for line in chat), chat
        other = "starts in" if server_locale == "zh_CN" else "将在"
        assert not any(other in line for line in chat), chat
        clock.advance(30)
        await scheduler.settled()
        assert sim.server.score("#runs", "wc") == 1
    finally:
        await scheduler.stop()
        await server.rcon.close()
