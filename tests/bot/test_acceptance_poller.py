"""The storage poller end to end, reading the real pack's
event ring over TCP RCON from mcsim (the other poller tests use a stand-in ring). Events arrive
with their fields; a poller restarted on the same cursor store neither replays nor loses any."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing, suppress
from pathlib import Path

import pytest

from bot.events.event import Event
from bot.events.storage_poll import StoragePoller
from bot.store.audit import AuditStore
from tests.bot.pack_sim import AcceptAll, PackSim, running_sim

__all__: list[str] = []

WAIT = 10.0  # every wait for an event gives up after this long


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PackSim]:
    yield from running_sim(tmp_path / "world")


async def take(it: AsyncIterator[Event], n: int) -> list[Event]:
    return [await asyncio.wait_for(anext(it), WAIT) for _ in range(n)]


async def test_poller_reads_the_packs_ring_and_resumes_after_a_restart(
    sim: PackSim, tmp_path: Path
) -> None:
    store = AuditStore(tmp_path / "audit.sqlite3")
    pack = sim.client(checker=AcceptAll())  # the invalid tasks below must reach the pack
    try:
        poller = StoragePoller(pack, "sim", store, poll_interval=0.01, broadcast_rcon_to_ops=False)
        async with aclosing(poller.events()) as it:
            first = asyncio.ensure_future(take(it, 4))
            # a fresh poller starts after what is already there: wait until it knows where
            await asyncio.wait_for(poller.ready.wait(), WAIT)
            await pack.schedule("function nope:missing", 1, "t", "boom", retry=1, retry_delay=1)
            await asyncio.to_thread(sim.server.step, 3)
            got = await first
        assert [(e.type, e.task_id, e.server) for e in got] == [
            ("ran", "boom", "sim"),
            ("retry", "boom", "sim"),
            ("ran", "boom", "sim"),
            ("retry_exhausted", "boom", "sim"),
        ]
        assert [e.seq for e in got] == [got[0].seq + i for i in range(4)]
        assert got[1].details.get("retry") == "0"

        # down for a while: two events happen; the restarted poller delivers exactly those
        await pack.schedule("nonsense here", 1, "t", "inv1")
        await pack.schedule("more nonsense", 1, "t", "inv2")
        await asyncio.to_thread(sim.server.step, 1)
        again = StoragePoller(pack, "sim", store, poll_interval=0.01, broadcast_rcon_to_ops=False)
        async with aclosing(again.events()) as it:
            later = await take(it, 4)
            extra = asyncio.ensure_future(anext(it))
            await asyncio.sleep(0.2)  # many polls: nothing else may come
            assert not extra.done()
            extra.cancel()
            with suppress(asyncio.CancelledError, StopAsyncIteration):
                await extra
        assert [(e.type, e.task_id) for e in later] == [
            ("ran", "inv1"),
            ("invalid", "inv1"),
            ("ran", "inv2"),
            ("invalid", "inv2"),
        ]
        assert [e.seq for e in later] == [got[3].seq + i for i in range(1, 5)]
    finally:
        await pack.rcon.close()
        await store.close()
