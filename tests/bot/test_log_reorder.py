"""LogTailer's reorder window: an event whose seq is not the next waits for the missing ones (or
the window), and while it waits the saved cursor stays before its line, so a bot restarted in
between reads it again instead of losing it."""

from __future__ import annotations

import asyncio
from contextlib import aclosing, suppress
from pathlib import Path

from bot.events.log_tail import LogTailer
from bot.minecraft.selftest.probe import MemoryCursors
from mcsim.log import ServerLog

WAIT = 10.0


def say(slog: ServerLog, seq: int) -> None:
    slog.info(f"[Not Secure] [Server] [doom.schedule] event=retry id=t{seq} seq={seq} t={seq}")


async def test_out_of_order_lines_come_out_in_order_and_a_held_one_survives_a_restart(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "logs"
    store = MemoryCursors()
    with ServerLog(logs) as slog:
        tailer = LogTailer(logs / "latest.log", "s", store, poll_interval=0.01, reorder_window=30)
        async with aclosing(tailer.events()) as it:
            first = asyncio.ensure_future(anext(it))
            await tailer.ready.wait()
            say(slog, 1)
            assert (await asyncio.wait_for(first, WAIT)).seq == 1
            say(slog, 3)  # 2 is late: 3 must wait
            say(slog, 2)
            got = [(await asyncio.wait_for(anext(it), WAIT)).seq for _ in range(2)]
            assert got == [2, 3]
            say(slog, 5)  # 4 never comes while this bot runs
            held = asyncio.ensure_future(anext(it))
            await asyncio.sleep(0.3)
            assert not held.done()  # the window is 30 s: still held
            held.cancel()
            with suppress(asyncio.CancelledError, StopAsyncIteration):
                await held
        # restarted: 5 is read again (the cursor stayed before its line), 4 arrives, in order
        say(slog, 4)
        again = LogTailer(logs / "latest.log", "s", store, poll_interval=0.01, reorder_window=30)
        async with aclosing(again.events()) as it:
            got = [(await asyncio.wait_for(anext(it), WAIT)).seq for _ in range(2)]
        assert got == [4, 5]


async def test_a_seq_that_never_comes_delays_only_by_the_window(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    with ServerLog(logs) as slog:
        tailer = LogTailer(
            logs / "latest.log", "s", MemoryCursors(), poll_interval=0.01, reorder_window=0.2
        )
        async with aclosing(tailer.events()) as it:
            first = asyncio.ensure_future(anext(it))
            await tailer.ready.wait()
            say(slog, 1)
            await asyncio.wait_for(first, WAIT)
            say(slog, 3)
            loop = asyncio.get_running_loop()
            began = loop.time()
            ev = await asyncio.wait_for(anext(it), WAIT)
            assert ev.seq == 3 and loop.time() - began >= 0.2
