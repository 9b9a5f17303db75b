"""Events after a crash: the server comes back from its last save, so the pack's event counter
goes back too, and its next events reuse seqs the bot already delivered. They are new events:
the log tailer takes the count up again after the start-up line (exactly), the storage poller
when it sees the counter below its place (from then on)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing
from pathlib import Path

from bot.events.event import Event
from bot.events.log_tail import LogTailer
from bot.events.storage_poll import StoragePoller
from bot.minecraft.selftest.probe import MemoryCursors
from mcsim.server import Server
from tests.bot.pack_sim import PASSWORD, PackSim, start_sim

WAIT = 20.0


def invalid(server: Server, task_id: str) -> None:
    """A task whose command is not one: the pack raises an `invalid` event when it runs."""
    server.run(
        f'function doom.schedule:schedule {{run:"not a command",time:0,unit:"t",id:"{task_id}"}}'
    )
    server.step(1)


async def take(stream: AsyncGenerator[Event, None], n: int) -> list[Event]:
    got: list[Event] = []
    async with asyncio.timeout(WAIT):
        while len(got) < n:
            got.append(await anext(stream))
    return got


async def polled(poller: StoragePoller, count: int) -> None:
    """Until the poller has polled `count` times (a bounded look at its counter)."""
    for _ in range(int(WAIT / 0.01)):
        if poller.polls >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the poller polled {poller.polls} times, not {count}")


def crash_and_restart(sim: PackSim) -> Server:
    port = sim.server.rcon_port  # the same port: the bot's client reconnects to it
    sim.server.crash()
    again = Server(sim.world, rcon_port=port, rcon_password=PASSWORD)
    again.start()
    return again


async def test_the_log_tailer_delivers_the_events_a_crash_numbers_again(tmp_path: Path) -> None:
    sim = start_sim(tmp_path / "world")
    server = sim.server
    try:
        tailer = LogTailer(server.log_path, "sim", MemoryCursors(), poll_interval=0.01)
        async with aclosing(tailer.events()) as stream:
            reading = asyncio.create_task(take(stream, 4))
            await asyncio.wait_for(tailer.ready.wait(), WAIT)  # placed at the end of the log
            invalid(server, "saved1")
            invalid(server, "saved2")
            server.save(flush=True)  # the save the crash goes back to: seq 2
            invalid(server, "lost3")
            invalid(server, "lost4")
            before = await reading
            assert [(e.seq, e.task_id) for e in before] == [
                (1, "saved1"),
                (2, "saved2"),
                (3, "lost3"),
                (4, "lost4"),
            ]
            server = crash_and_restart(sim)
            invalid(server, "after3")  # seq 3 again: a new event
            invalid(server, "after4")
            invalid(server, "after5")
            after = await take(stream, 3)
        assert [(e.seq, e.task_id) for e in after] == [(3, "after3"), (4, "after4"), (5, "after5")]
    finally:
        server.stop()


async def test_the_poller_goes_on_from_the_counter_it_finds_gone_back(tmp_path: Path) -> None:
    sim = start_sim(tmp_path / "world")
    server = sim.server
    pack = sim.client()
    try:
        poller = StoragePoller(pack, "sim", MemoryCursors(), poll_interval=0.01)
        async with aclosing(poller.events()) as stream:
            invalid(server, "first")  # the poller's first look starts after what is there
            reading = asyncio.create_task(take(stream, 5))
            await polled(poller, 1)
            for task_id in ("saved2", "saved3"):
                invalid(server, task_id)
            server.save(flush=True)  # seq 3 is saved
            for task_id in ("lost4", "lost5", "lost6"):
                invalid(server, task_id)
            before = await reading
            assert [e.seq for e in before] == [2, 3, 4, 5, 6]
            server = crash_and_restart(sim)
            reading = asyncio.create_task(take(stream, 2))
            await polled(poller, poller.polls + 2)  # it sees the restored counter (3) first
            invalid(server, "after4")
            invalid(server, "after5")
            after = await reading
        assert [(e.seq, e.task_id) for e in after] == [(4, "after4"), (5, "after5")]
    finally:
        await pack.rcon.close()
        server.stop()
