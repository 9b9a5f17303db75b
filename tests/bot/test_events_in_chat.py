"""`events_in_chat`: the pack's events said in chat (and so in the log) or kept in its ring
buffer only. Real services over TCP RCON to mcsim with the pack: the bot sets the pack's
`cfg.log` as the setting says, a quiet server's runs still reach the bot (from the ring), and
the log source turns a silenced pack back on, since it reads what the pack says."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config import ServerConfig
from bot.services import build_services
from bot.testkit.harness import MOD, Harness, make_settings
from mcsim.server import Server
from tests.fixtures import server_config, settled, start_mcsim

PASSWORD = "events-in-chat-Pw"


def said_lines(server: Server) -> list[str]:
    return [
        line
        for line in server.log_path.read_text(encoding="utf-8").splitlines()
        if "[doom.schedule] event=" in line
    ]


def log_flag(server: Server) -> object:
    cfg = server.storage("doom.schedule:data").get("cfg")
    assert isinstance(cfg, dict)
    return cfg.get("log")


async def start_bot(server: Server, tmp_path: Path, config: ServerConfig) -> Harness:
    settings = make_settings(tmp_path, [config], log_poll_interval=0.02, rcon_poll_interval=0.05)
    harness = await Harness(settings, await build_services(settings)).start()
    await settled(harness)
    return harness


async def ran_in_history(harness: Harness, task_id: str) -> str:
    async with asyncio.timeout(10):
        while True:
            found, _ = await harness.services.history.page("main", task_id)
            if found:
                return found[0].outcome
            await asyncio.sleep(0.02)


def test_the_log_source_with_events_out_of_chat_is_refused_in_words() -> None:
    with pytest.raises(ValidationError) as raised:
        ServerConfig(
            name="main",
            rcon_password="x",  # type: ignore[arg-type]
            log_path=Path("logs/latest.log"),
            event_source="log",
            events_in_chat=False,
        )
    said = str(raised.value)
    assert "events_in_chat false keeps the pack's events out of the log" in said
    assert "set event_source to rcon or auto" in said


async def test_a_quiet_server_says_nothing_in_chat_and_its_runs_reach_the_bot(
    tmp_path: Path,
) -> None:
    server = start_mcsim(tmp_path / "world", password=PASSWORD)
    try:
        config = server_config(server, PASSWORD, event_source="auto").model_copy(
            update={"events_in_chat": False}
        )
        bot = await start_bot(server, tmp_path, config)
        try:
            # the log is readable, yet with nothing said in it the ring is read
            assert bot.services.servers["main"].event_kind == "rcon"
            assert log_flag(server) == 0
            await bot.run("schedule", MOD, run="say hello", id="quiet", time=20, unit="tick")
            await asyncio.to_thread(server.step, 40)
            assert await ran_in_history(bot, "quiet") == "ran"
            assert said_lines(server) == []
        finally:
            await bot.close()
    finally:
        server.stop()


async def test_the_log_source_turns_a_silenced_pack_back_on(tmp_path: Path) -> None:
    server = start_mcsim(tmp_path / "world", password=PASSWORD)
    try:
        server.run("data modify storage doom.schedule:data cfg.log set value 0b")
        bot = await start_bot(server, tmp_path, server_config(server, PASSWORD))
        try:
            assert bot.services.servers["main"].event_kind == "log"
            assert log_flag(server) == 1
            await bot.run("schedule", MOD, run="say hi", id="loud", time=20, unit="tick")
            await asyncio.to_thread(server.step, 40)
            assert await ran_in_history(bot, "loud") == "ran"
            assert any("event=ran id=loud" in line for line in said_lines(server))
        finally:
            await bot.close()
    finally:
        server.stop()
