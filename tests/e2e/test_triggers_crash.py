"""A `started` trigger across crashes, with the bot and the server as real processes (`python
-m bot console` on a pipe, `python -m mcsim`): the server SIGKILLed and started again fires it
once; the server and the bot SIGKILLed together, the server started while the bot is down, fires
it once when the bot is back (it reads the start in the log from its saved place); a bot
SIGKILLed and started again on a running server fires nothing. Counted in the server's own logs;
every wait is bounded and the processes are killed if the test fails."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.e2e.bot_process import BotProcess, mcsim_process
from tests.e2e.test_acceptance_crash import PASSWORD, McsimProcess, runs, until
from tests.rawrcon import RawRcon

pytestmark = pytest.mark.slow

COOLDOWN = 10  # seconds: the trigger's shortest cool-down
HOLD = 120  # seconds of game time the pack holds its tasks after loading (DOOM_CRASH_HOLD)
HOLD_TICKS = str(HOLD * 20).encode()


async def console(tmp_path: Path, mc: McsimProcess) -> BotProcess:
    """The console on a pipe. Its events come over RCON, so a start is known by the pack still
    holding its tasks when the bot looks; after the server was down a while the bot's reconnect
    may wait up to 30 s (its backoff), so the hold here is longer than that, as README 4d
    advises for such a server."""
    bot = BotProcess(tmp_path, mc.port)
    bot.env["DOOM_CRASH_HOLD"] = str(HOLD)
    await bot.start("-m", "bot", "console")
    await bot.expect("type /help, or quit")
    return bot


def save_all(mc: McsimProcess) -> None:
    """`save-all flush` over RCON: the pack's hold setting the bot wrote is in the save the
    next crash goes back to (a server's autosave does this within minutes). The bot's events
    come over RCON here, so a start is known by the pack holding its tasks after its #load."""
    rcon = RawRcon(mc.port)
    try:
        rcon.login(PASSWORD)
        for _ in range(200):  # the bot's first compare writes it: wait for that (bounded)
            said = b"".join(rcon.command_fragments("data get storage doom.schedule:data cfg.hold"))
            if said.rstrip().endswith(HOLD_TICKS):  # the bot's, not a default the pack keeps
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the bot never wrote the pack's hold setting")
        rcon.command_fragments("save-all flush")
    finally:
        rcon.close()


def _told(tmp_path: Path) -> str:
    """The bot's log and the server's, for the reader of a failure."""
    told = []
    for path in (tmp_path / "botdata" / "bot.log", *(tmp_path / "main").glob("**/latest.log")):
        if path.exists():
            lines = path.read_text(errors="replace").splitlines()
            told.append(f"{path}:\n" + "\n".join(lines[-40:]))
    return "\n".join(told)


async def test_a_server_start_fires_once_across_server_and_bot_crashes(tmp_path: Path) -> None:
    try:
        await _starts(tmp_path)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{_told(tmp_path)}") from None


async def _starts(tmp_path: Path) -> None:
    async with mcsim_process(tmp_path / "main") as mc:
        bot = await console(tmp_path, mc)
        try:
            mark = await bot.type("/program save name:boot steps:[{run: say boot-ran, at: 0}]")
            await bot.expect("saved as version 1", after=mark)
            mark = await bot.type(
                f"/trigger add name:boot kind:started program:boot cooldown:{COOLDOWN}s"
            )
            await bot.expect("Trigger boot starts program boot", after=mark)
            save_all(mc)
            await mc.kill()
            await mc.start()
            await until(lambda: runs(mc.world, "boot-ran") == 1, "the first start's run")
            await asyncio.sleep(COOLDOWN)  # the next start is out of the cool-down
            # both die; the server comes back while the bot is down
            save_all(mc)
            await bot.kill()
            await mc.kill()
            await mc.start()
            await asyncio.sleep(1.0)
            bot = await console(tmp_path, mc)
            await until(lambda: runs(mc.world, "boot-ran") == 2, "the second start's run")
            await asyncio.sleep(COOLDOWN)
            # the bot alone dies and comes back: the server did not start
            await bot.kill()
            bot = await console(tmp_path, mc)
            mark = await bot.type("/trigger list")
            shown = await bot.expect("today", after=mark)
            await asyncio.sleep(3.0)  # a firing would have run its step by now
            assert runs(mc.world, "boot-ran") == 2
            assert "2 of 24 today" in shown, shown
        finally:
            await bot.kill()
