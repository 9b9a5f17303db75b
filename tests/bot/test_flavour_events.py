"""Both event sources on every mcsim flavour, with the real pack's events: on Paper the `say`
lines of one tick reach latest.log late and shuffled (mcsim/flavours.py, LateSayLog), and the
log tailer still hands them out in seq order; the storage poller reads the same events."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from pathlib import Path

import pytest

from bot.events.event import Event
from bot.events.log_tail import LogTailer
from bot.events.storage_poll import StoragePoller
from bot.minecraft.selftest.probe import MemoryCursors
from mcsim.flavours import FLAVOURS
from mcsim.server import Server
from tests.bot.pack_sim import PASSWORD, AcceptAll, PackSim, make_world

WAIT = 10.0
BURST = 6
PAIRS = [(kind, f"b{i}") for i in range(BURST) for kind in ("ran", "invalid")]


@pytest.fixture(params=sorted(FLAVOURS))
def sim(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[PackSim]:
    world = make_world(tmp_path / "world")
    server = Server(world, rcon_port=0, rcon_password=PASSWORD, flavour=request.param)
    server.start()
    try:
        yield PackSim(world, server)
    finally:
        server.stop()


async def take(it: AsyncIterator[Event], n: int) -> list[Event]:
    return [await asyncio.wait_for(anext(it), WAIT) for _ in range(n)]


async def _invalid_tasks(sim: PackSim, ids: list[str]) -> None:
    """Tasks the pack refuses when due, all in the same tick: each made by the bot (with its
    key), so each says `ran` just before its command, then `invalid`."""
    pack = sim.client(checker=AcceptAll())
    try:
        for task_id in ids:
            await pack.schedule("nonsense here", 1, "t", task_id)
    finally:
        await pack.rcon.close()
    await asyncio.to_thread(sim.server.step, 2)


def _file_order(log: Path) -> list[int]:
    found = re.finditer(r"event=(?:ran|invalid) id=b\d+ seq=(\d+)", log.read_text())
    return [int(m.group(1)) for m in found]


async def test_log_tailer_delivers_in_seq_order_on_every_flavour(sim: PackSim) -> None:
    tailer = LogTailer(
        sim.server.log_path, "sim", MemoryCursors(), poll_interval=0.02, reorder_window=1.0
    )
    async with aclosing(tailer.events()) as it:
        first = asyncio.ensure_future(take(it, 2))
        await tailer.ready.wait()
        await _invalid_tasks(sim, ["a0"])  # the tailer's place: the seq after this one
        [_, primer] = await first
        burst = asyncio.ensure_future(take(it, 2 * BURST))
        await _invalid_tasks(sim, [f"b{i}" for i in range(BURST)])
        got = await burst
    seqs = [e.seq for e in got]
    assert seqs == list(range(primer.seq + 1, primer.seq + 1 + 2 * BURST))
    assert [(e.type, e.task_id) for e in got] == PAIRS
    written = _file_order(sim.server.log_path)
    assert sorted(written) == seqs
    if sim.server.flavour.late_say:
        assert written != seqs  # Paper shuffled them: the tailer put them back in order


async def test_storage_poller_reads_the_same_events_on_every_flavour(sim: PackSim) -> None:
    pack = sim.client(checker=AcceptAll())
    try:
        poller = StoragePoller(pack, "sim", MemoryCursors(), poll_interval=0.01)
        async with aclosing(poller.events()) as it:
            got_f = asyncio.ensure_future(take(it, 2 * BURST))
            # a fresh poller starts after what is already there: wait until it knows where
            await asyncio.wait_for(poller.ready.wait(), WAIT)
            await _invalid_tasks(sim, [f"b{i}" for i in range(BURST)])
            got = await got_f
    finally:
        await pack.rcon.close()
    assert [(e.type, e.task_id) for e in got] == PAIRS
    assert [e.seq for e in got] == sorted(e.seq for e in got)
