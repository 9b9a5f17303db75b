"""A program's steps across crashes, with the bot and the server as real processes: the bot
(`python -m bot console` on a pipe) SIGKILLed between two steps and started again on its data
folder, then the server (`python -m mcsim`) SIGKILLed between two others, after its last save,
and started again on its world and port. Each of the five steps runs once, counted in the
server's own logs; the run ends with every step `ran`. Every wait is bounded; the processes are
killed if the test fails."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.e2e.bot_process import BotProcess, mcsim_process
from tests.e2e.test_acceptance_crash import McsimProcess, runs, until

pytestmark = pytest.mark.slow

GAP = 4  # seconds between the steps: room for a restart between two of them
STEPS = 5
# one line, as Discord and the console take it (YAML's flow form); step 3 waits for step 2
PROGRAM = (
    "[{run: say prog-1, at: 0}, "
    f"{{run: say prog-2, at: +{GAP}s}}, "
    f"{{run: say prog-3, at: +{2 * GAP}s, after: 2}}, "
    f"{{run: say prog-4, at: +{3 * GAP}s}}, "
    f"{{run: say prog-5, at: +{4 * GAP}s}}]"
)


async def console(tmp_path: Path, mc: McsimProcess) -> BotProcess:
    bot = BotProcess(tmp_path, mc.port)
    await bot.start("-m", "bot", "console")
    await bot.expect("type /help, or quit")
    return bot


async def test_a_program_loses_and_doubles_no_step_across_bot_and_server_crashes(
    tmp_path: Path,
) -> None:
    async with mcsim_process(tmp_path / "main") as mc:
        bot = await console(tmp_path, mc)
        try:
            mark = await bot.type(f"/program save name:evening steps:{PROGRAM}")
            await bot.expect("saved as version 1 with 5 steps", after=mark)
            mark = await bot.type("/program start name:evening server:main")
            await bot.expect("as run #1", after=mark)
            # the bot dies after step 2 ran, before step 3 (made only once step 2 ran)
            await until(lambda: runs(mc.world, "prog-2") == 1, "step 2")
            assert bot.proc is not None
            await bot.kill()
            await asyncio.sleep(1.0)
            bot = await console(tmp_path, mc)
            # the server dies after step 3 ran: its last save came before, so its own record
            # of that hand-over is lost with it
            await until(lambda: runs(mc.world, "prog-3") == 1, "step 3")
            await mc.kill()
            await asyncio.sleep(1.0)
            await mc.start()
            await until(lambda: runs(mc.world, "prog-5") == 1, "step 5")
            await asyncio.sleep(GAP)  # a second copy of any step would have come by now
            assert [runs(mc.world, f"prog-{i}") for i in range(1, STEPS + 1)] == [1] * STEPS
            mark = await bot.type("/program show run:1")
            await bot.expect("Run #1 of evening", after=mark)
            shown = await bot.expect(f"say prog-{STEPS} at", after=mark)
            for i in range(1, STEPS + 1):
                assert f"say prog-{i} at" in shown
            assert "failed" not in shown and "cancelled" not in shown, shown
            assert shown.count(": ran") == STEPS, shown
        finally:
            await bot.kill()
