"""bot.discord.launch.run_bot, the one place that builds the bot, with the face as a parameter: the
front's settings and face are the bot's, the dashboard answers while the front runs and is gone
after, and the bot is closed however the front's run ends."""

from __future__ import annotations

import asyncio
import http.client
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from bot.config import Settings
from bot.discord.app import DoomBot
from bot.discord.launch import Gateway, run_bot
from bot.operations import Face
from bot.store.audit import AuditStore
from bot.store.db import open_in
from bot.testkit.harness import ADMIN_BY_ID, make_settings
from bot.testkit.localdiscord.emulator import LocalDiscord
from tests.fixtures import server_config

PASSWORD = "launch-pw"


class Probe:
    """A front on the local Discord whose run schedules a task (as an admin by user id: this
    guild has no roles) and looks at the running bot."""

    face: Face = "console"
    sync_commands = False

    def __init__(self, *, fail: bool = False) -> None:
        self.fail = fail
        self.bot: DoomBot | None = None
        self.local: LocalDiscord | None = None
        self.reply = ""
        self.dashboard: tuple[str, int] | None = None
        self.status = 0

    def settings(self, settings: Settings) -> Settings:
        return settings.model_copy(update={"web_port": 0, "audit_channel_id": None})

    def connect(self, bot: DoomBot) -> AbstractAsyncContextManager[object]:
        self.local = LocalDiscord(bot)
        return self.local

    async def run(self, bot: DoomBot) -> None:
        assert self.local is not None
        self.bot = bot
        reply = await self.local.invoke(
            "schedule", ADMIN_BY_ID.id, run="say hi", time=1, unit="hour", id="probe"
        )
        self.reply = reply.text
        assert bot.web is not None
        address = urlsplit(bot.web.base_url)
        assert address.hostname is not None and address.port is not None
        self.dashboard = (address.hostname, address.port)
        self.status = await asyncio.to_thread(_status, *self.dashboard, "/static/app.css")
        if self.fail:
            raise RuntimeError("the front broke")


def _status(host: str, port: int, path: str) -> int:
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request("GET", path)
        return conn.getresponse().status
    finally:
        conn.close()


def _settings(tmp_path: Path, mcsim: Any) -> Settings:
    server = mcsim(password=PASSWORD)
    return make_settings(tmp_path, [server_config(server, PASSWORD)])


async def test_the_bot_is_built_for_the_front_and_closed_after_it(
    tmp_path: Path, mcsim: Any
) -> None:
    probe = Probe()
    assert await run_bot(_settings(tmp_path, mcsim), probe) == 0
    assert probe.bot is not None and probe.dashboard is not None
    assert probe.reply.startswith("Scheduled `probe` on main.")
    assert probe.bot.face == "console" and probe.bot.settings.web_port == 0  # the front's
    assert probe.status == 200  # the dashboard beside the bot while the front ran
    assert probe.bot.is_closed()
    with pytest.raises(OSError):
        _status(*probe.dashboard, "/static/app.css")
    # the change was audited as made through the front's face
    store = AuditStore(open_in(tmp_path / "data"))
    try:
        [entry] = await store.mutations(action="schedule")
    finally:
        await store.close()
    assert (entry.face, entry.user_id) == ("console", ADMIN_BY_ID.id)


async def test_a_front_that_fails_still_closes_the_bot_and_the_dashboard(
    tmp_path: Path, mcsim: Any
) -> None:
    probe = Probe(fail=True)
    with pytest.raises(RuntimeError, match="the front broke"):
        await run_bot(_settings(tmp_path, mcsim), probe)
    assert probe.bot is not None and probe.dashboard is not None
    assert probe.bot.is_closed()
    with pytest.raises(OSError):
        _status(*probe.dashboard, "/static/app.css")


def test_discords_gateway_is_the_default_front() -> None:
    gateway = Gateway("token")
    assert (gateway.face, gateway.sync_commands) == ("discord", True)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert gateway.settings(settings) is settings
