"""events_after while the game ticks between its reads: no event may be skipped.

Found by the selftest on a loaded machine: the ring buffer was read by position from the end
(`entries[-k]`), so an event appended between reading `seq` and reading the entries shifted the
reads onto newer events and the one in between was never delivered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.minecraft.rcon import RconClient
from tests.bot.pack_sim import PASSWORD, PackSim, running_sim


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PackSim]:
    yield from running_sim(tmp_path / "world")


class TickAfterSeqRead(RconClient):
    """A real RCON client that lets the game tick once right after the ring's `seq` is read,
    as a running server may between any two commands."""

    sim: PackSim

    async def command(self, text: str) -> str:
        reply = await super().command(text)
        if text == "data get storage doom.schedule:events seq":
            await asyncio.to_thread(self.sim.server.step, 1)
        return reply


async def test_an_event_raised_between_two_reads_is_not_skipped(sim: PackSim) -> None:
    pack = sim.client()
    try:
        await pack.schedule("function nope:missing", 0, "t", "racy", retry=3, retry_delay=1)
        sim.server.step(1)  # first run: its ran event, then its retry
        [_, first] = await pack.events_after(0)
        assert first.type == "retry"
        assert first.seq >= 1
        rcon = TickAfterSeqRead("127.0.0.1", sim.server.rcon_port or 0, PASSWORD)
        rcon.sim = sim
        await pack.rcon.close()
        pack.rcon = rcon
        sim.server.step(1)  # second run: its two events, read while two more are raised
        events = await pack.events_after(first.seq)
        assert [e.seq for e in events] == [first.seq + 1, first.seq + 2]
        later = await pack.events_after(first.seq + 2)
        assert [e.seq for e in later][:1] == [first.seq + 3]
    finally:
        await pack.rcon.close()
