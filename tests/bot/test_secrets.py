"""No secret in any log line, printed output or error text, through every failure we can cause.

Everything the bot core logs (root logger at DEBUG, so aiomcrcon and asyncio too) and prints is
captured while config errors, a wrong password, timeouts, dropped connections and installer
refusals happen; the RCON password and the Discord token must appear nowhere in it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bot.config import ServerConfig, load_settings
from bot.errors import BotError
from bot.minecraft.installer import PackInstaller
from bot.minecraft.rcon import RconClient

if TYPE_CHECKING:
    from tests.bot.conftest import RconHarness

TOKEN = "MTIz.discord-token.Xy9-very-secret"


def _record(outputs: list[str], error: BaseException) -> None:
    outputs.append(str(error))
    outputs.append(repr(error))
    outputs.append("".join(traceback.format_exception(error)))
    logging.getLogger("test.secrets").exception("failure seen: %s", error, exc_info=error)


async def test_no_secret_anywhere(
    rcon_harness: RconHarness,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    password = rcon_harness.password
    caplog.set_level(logging.DEBUG)
    outputs: list[str] = []

    # 1. Settings: a bad value next to the secrets; printing and dumping the settings.
    for key in list(os.environ):
        if key.startswith("DOOM_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("DOOM_DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("DOOM_SERVERS__0__NAME", "main")
    monkeypatch.setenv("DOOM_SERVERS__0__RCON_PASSWORD", password)
    monkeypatch.setenv("DOOM_SERVERS__0__RCON_PORT", "not-a-port")
    with pytest.raises(BotError) as bad:
        load_settings(None)
    _record(outputs, bad.value)
    monkeypatch.setenv("DOOM_SERVERS", f'[{{"name": "x", "rcon_password": "{password}"')
    with pytest.raises(BotError) as bad_json:
        load_settings(None)
    _record(outputs, bad_json.value)
    monkeypatch.delenv("DOOM_SERVERS")
    monkeypatch.setenv("DOOM_SERVERS__0__RCON_PORT", str(rcon_harness.port))
    settings = load_settings(None)
    print(settings, repr(settings), settings.model_dump(), settings.model_dump_json())
    logging.getLogger("test.secrets").info("settings: %s / %r", settings, settings.servers[0])

    # 2. RCON: wrong password, then timeouts, a dropped connection and a server that is gone.
    wrong = RconClient("127.0.0.1", rcon_harness.port, password + "-wrong", timeout=1.0)
    with pytest.raises(BotError) as denied:
        await wrong.command("list")
    _record(outputs, denied.value)
    print(repr(wrong))
    await wrong.close()

    hung: concurrent.futures.Future[str] = concurrent.futures.Future()
    rcon_harness.script.handler = lambda c: hung if c.startswith("hang") else "ok"
    client = RconClient(
        "127.0.0.1", rcon_harness.port, password, timeout=0.3, name="main", backoff_max=0.05
    )
    print(repr(client))
    with pytest.raises(BotError) as timed_out:
        await client.command("hang 1")
    _record(outputs, timed_out.value)
    client.timeout = 5.0
    rcon_harness.script.arrived.clear()
    pending = asyncio.create_task(client.command("hang 2"))
    assert await asyncio.to_thread(rcon_harness.script.arrived.wait, 5.0)
    await asyncio.to_thread(rcon_harness.stop)
    with pytest.raises(BotError) as dropped:
        await pending
    _record(outputs, dropped.value)
    client.timeout = 0.3
    with pytest.raises(BotError) as gone:
        await client.command("list")
    _record(outputs, gone.value)
    hung.set_result("late")
    await client.close()

    # 3. Installer refusals.
    for world in (None, tmp_path):
        config = ServerConfig(name="main", rcon_password=password, world_dir=world)  # type: ignore[arg-type]
        installer = PackInstaller(client, config, source=tmp_path)
        with pytest.raises(BotError) as refused:
            await installer.install()
        _record(outputs, refused.value)

    captured = capfd.readouterr()
    everything = "\n".join(
        [*outputs, caplog.text, captured.out, captured.err]
        + [r.getMessage() for r in caplog.records]
    )
    # The failures above really were logged and printed, so the check below has teeth.
    assert "refused the RCON password" in everything
    assert "is not answering" in everything
    assert "DOOM_SERVERS__0__RCON_PORT" in everything
    assert "**********" in captured.out
    assert password not in everything
    assert TOKEN not in everything
