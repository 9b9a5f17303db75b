"""No fault of a server ends or wedges the bot, with both as real processes: mcsim frozen with
SIGSTOP (it holds its port, the kernel takes connections, nothing answers) or gone (its port
refuses), the bot as `python -m bot console` on a pipe, or `run` logging in to a Discord that
never answers. A frozen server gets "not answering" replies and the bot goes on; SIGTERM and
SIGINT end it with 0 within 5 s. Every wait is bounded; the processes are killed if a test fails."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.bot_process import BotProcess, freeze, mcsim_process, stalled_discord
from tests.e2e.test_acceptance_crash import McsimProcess, runs, until

# every test here takes seconds (processes, signals, generated requests)
pytestmark = pytest.mark.slow

BUDGET = 5.0  # seconds from the signal to the end of the process
STOPS = [signal.SIGTERM, signal.SIGINT]


@pytest.fixture
async def mcsim(tmp_path: Path) -> AsyncIterator[McsimProcess]:
    async with mcsim_process(tmp_path / "main") as process:
        yield process


async def console(tmp_path: Path, *mcs: McsimProcess, rcon_timeout: float) -> BotProcess:
    bot = BotProcess(tmp_path, mcs[0].port, rcon_timeout=rcon_timeout)
    for i, mc in enumerate(mcs[1:], start=1):
        bot.env.update(
            {
                f"DOOM_SERVERS__{i}__NAME": f"other{i}",
                f"DOOM_SERVERS__{i}__RCON_HOST": "127.0.0.1",
                f"DOOM_SERVERS__{i}__RCON_PORT": str(mc.port),
                f"DOOM_SERVERS__{i}__RCON_PASSWORD": bot.env["DOOM_SERVERS__0__RCON_PASSWORD"],
                f"DOOM_SERVERS__{i}__EVENT_SOURCE": "rcon",
            }
        )
    await bot.start("-m", "bot", "console")
    await bot.expect("type /help, or quit")
    mark = await bot.type("/time server:main")
    await bot.expect("Time on main\n", after=mark)
    return bot


async def test_a_frozen_server_is_not_answering_and_the_bot_goes_on(
    mcsim: McsimProcess, tmp_path: Path
) -> None:
    """A frozen server's wait, longer than the local Discord's 10 s (RCON timeout 12 s), ends in
    "not answering" for that command alone: the console, the other server and the scheduler go
    on."""
    async with mcsim_process(tmp_path / "other") as other:
        bot = await console(tmp_path, mcsim, other, rcon_timeout=12)
        try:
            # a wall-clock run on the other server falls due while main is frozen
            mark = await bot.type("/schedule run:say wc-ran when:in 8s id:wc server:other1")
            await bot.expect("Planned wc on other1", after=mark)
            await freeze(mcsim)
            frozen = await bot.type("/time server:main")
            await bot.expect("still waiting for the server", after=frozen, limit=10)
            # another server answers meanwhile
            mark = await bot.type("/time server:other1")
            await bot.expect("Time on other1\n", after=mark, limit=10)
            assert "not answering" not in bot.out[frozen:]
            shown = await bot.expect("Server 'main' is not answering", after=frozen, limit=30)
            assert "within 12 s" in shown
            assert bot.alive
            # the scheduler goes on meanwhile: the run lands while main is still frozen (a
            # loaded machine has taken its hand-over past the 12 s above)
            try:
                await until(lambda: runs(other.world, "wc-ran") >= 1, "the run on other1")
            except AssertionError:  # what the bot and the other server said, for the reader
                log = (other.world / "logs" / "latest.log").read_text()
                print(f"bot stdout:\n{bot.out[-3000:]}\nbot stderr:\n{bot.err[-6000:]}")
                print(f"other1's latest.log:\n{log[-4000:]}")
                raise
            assert runs(other.world, "wc-ran") == 1
            mcsim.proc.send_signal(signal.SIGCONT)
            mark = await bot.type("/time server:main")
            await bot.expect("Time on main\n", after=mark, limit=30)
            assert bot.alive
            mark = await bot.type("quit")
            assert await asyncio.wait_for(bot.proc.wait(), 30) == 0  # type: ignore[union-attr]
            assert "Traceback" not in bot.out + bot.err
        finally:
            await bot.kill()


@pytest.mark.parametrize("sig", [*STOPS, None], ids=lambda s: s.name if s else "end-of-input")
@pytest.mark.parametrize("fault", ["frozen", "unreachable"])
async def test_a_signal_stops_the_console_cleanly_within_5_s(
    mcsim: McsimProcess, tmp_path: Path, sig: signal.Signals | None, fault: str
) -> None:
    """With a command in flight to a server that is frozen (SIGSTOP) or gone (killed); the end
    of the input too (it waits a moment for the command, then says it is left behind)."""
    bot = await console(tmp_path, mcsim, rcon_timeout=30)
    try:
        assert mcsim.proc is not None
        if fault == "frozen":
            await freeze(mcsim)
        else:
            await mcsim.kill()
        mark = await bot.type("/time server:main")
        # frozen: waiting for a reply; gone: connecting again and again until the 30 s timeout;
        # either way past the console's patience (3 s), the command left running behind it
        await bot.expect("still waiting for the server", after=mark, limit=10)
        assert "Time on main\n" not in bot.out[mark:] and bot.alive
        rc, took = await bot.stop_with(sig, BUDGET + 5)
        assert rc == 0, (bot.out, bot.err)
        assert took < BUDGET, took
        assert "Traceback" not in bot.out + bot.err
        if sig is None:
            assert "1 command(s) still waiting for the server may or may not run" in bot.out
    finally:
        await bot.kill()


RUN = (
    "import sys, yarl, discord.gateway, discord.http\n"
    "discord.http.Route.BASE = sys.argv[1] + '/api/v10'\n"
    "gateway = yarl.URL(sys.argv[1].replace('http', 'ws'))\n"
    "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway\n"
    "from bot.__main__ import main\n"
    "sys.exit(main(['run']))\n"
)


@pytest.mark.parametrize("sig", STOPS, ids=lambda s: s.name)
@pytest.mark.parametrize("fault", ["frozen", "unreachable"])
async def test_a_signal_stops_the_discord_bot_cleanly_within_5_s(
    mcsim: McsimProcess, tmp_path: Path, sig: signal.Signals, fault: str
) -> None:
    """`run` logged in to a Discord whose gateway never answers (the only Discord a test has),
    its services up, its event poller asking a server that is frozen or gone every 0.2 s."""
    bot = BotProcess(tmp_path, mcsim.port)
    bot.env.update(DOOM_DISCORD_TOKEN="x" * 59, DOOM_RCON_POLL_INTERVAL="0.2")
    async with stalled_discord() as port:
        try:
            await bot.start("-c", RUN, f"http://127.0.0.1:{port}")
            await bot.expect("synced 0 global commands", stream="err")  # cogs and services up
            assert mcsim.proc is not None
            if fault == "frozen":
                await freeze(mcsim)
            else:
                await mcsim.kill()
            await asyncio.sleep(1.0)  # the event poller's commands to it are under way
            assert bot.alive
            rc, took = await bot.stop_with(sig, BUDGET + 5)
            assert rc == 0, (bot.out, bot.err)
            assert took < BUDGET, took
            assert "Traceback" not in bot.err
        finally:
            await bot.kill()


async def test_a_console_line_is_one_line(mcsim: McsimProcess, tmp_path: Path) -> None:
    """A CR (or another line separator) inside a piped line is refused, not split into two
    commands (sys.stdin reads universal newlines); a CRLF ending is just the end of the line."""
    bot = await console(tmp_path, mcsim, rcon_timeout=10)
    try:
        for inside in ("\r", "\x0c", "\u2028", "\x85"):
            mark = await bot.type(f"/schedule run:say one time:1 unit:hour id:one{inside}/clear")
            shown = await bot.expect("type one command per line; nothing was run", after=mark)
            assert repr(inside) in shown
        mark = await bot.type("/list server:main", end="\r\n")
        await bot.expect("queue on main: 0 task(s)", after=mark)
        mark = await bot.type("/time server:main", end="\r\n")
        await bot.expect("Time on main\n", after=mark)
        await bot.type("quit", end="\r\n")
        assert await asyncio.wait_for(bot.proc.wait(), 30) == 0  # type: ignore[union-attr]
        assert "Scheduled" not in bot.out and "Remove every scheduled task" not in bot.out
        assert bot.out.count("type one command per line") == 4
    finally:
        await bot.kill()
