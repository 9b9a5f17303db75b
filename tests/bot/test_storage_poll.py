"""StoragePoller over a ring buffer: resume by seq, gaps reported, outages survived, the
broadcast-rcon-to-ops warning given once.

The ring buffer here is a stand-in for PackClient.events_after (the poller accepts any object
with that method); the pack's own buffer is tested with the pack."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import aclosing

import pytest

from bot.errors import ServerUnavailable
from bot.events.event import Event
from bot.events.storage_poll import StoragePoller

WAIT = 10.0


class Ring:
    """A bounded ring buffer of events, like the pack's `doom.schedule:events`."""

    def __init__(self, size: int = 50) -> None:
        self.size = size
        self.items: list[Event] = []
        self.seq = 0
        self.down = 0  # the next `down` calls fail as if the server were unreachable
        self.calls: list[int] = []

    def emit(self, n: int = 1) -> None:
        for _ in range(n):
            self.seq += 1
            self.items.append(Event("s", self.seq, "retry", f"t{self.seq}", self.seq * 20))
        del self.items[: -self.size]

    async def events_after(self, seq: int) -> list[Event]:
        self.calls.append(seq)
        if self.down:
            self.down -= 1
            raise ServerUnavailable("the server is not reachable")
        return [e for e in self.items if e.seq > seq]


class MemStore:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    async def get_cursor(self, key: str) -> str | None:
        return self.values.get(key)

    async def set_cursor(self, key: str, value: str) -> None:
        self.values[key] = value


def poller(ring: Ring, store: MemStore, **kw: object) -> StoragePoller:
    return StoragePoller(ring, "s", store, poll_interval=0.001, **kw)  # type: ignore[arg-type]


async def take(it: AsyncIterator[Event], n: int) -> list[int]:
    return [(await asyncio.wait_for(anext(it), WAIT)).seq for _ in range(n)]


async def test_first_run_starts_after_what_is_there_then_follows() -> None:
    ring, store = Ring(), MemStore()
    ring.emit(5)
    p = poller(ring, store, broadcast_rcon_to_ops=False)
    async with aclosing(p.events()) as it:
        pending = asyncio.ensure_future(take(it, 3))
        for _ in range(100):
            await asyncio.sleep(0.001)
            if store.values.get("rcon:s") == "5":
                break
        ring.emit(3)
        assert await asyncio.wait_for(pending, WAIT) == [6, 7, 8]


async def test_a_fresh_poller_is_ready_once_its_first_poll_fixed_where_it_starts() -> None:
    # `ready` is what a follower waits on before it says "following" (python -m bot events, the
    # selftest): set before the first poll, an event made in between would be skipped
    ring, store = Ring(), MemStore()
    ring.emit(5)
    ring.down = 3  # the server does not answer the first polls
    p = poller(ring, store, broadcast_rcon_to_ops=False)
    async with aclosing(p.events()) as it:
        pending = asyncio.ensure_future(take(it, 2))
        while len(ring.calls) < 3:
            await asyncio.sleep(0.001)
            assert not p.ready.is_set(), "ready before any poll succeeded"
        await asyncio.wait_for(p.ready.wait(), WAIT)
        assert store.values["rcon:s"] == "5"
        ring.emit(2)  # right after ready: none of these is skipped
        assert await asyncio.wait_for(pending, WAIT) == [6, 7]


async def test_a_poller_with_a_saved_place_is_ready_at_once() -> None:
    ring, store = Ring(), MemStore()
    store.values["rcon:s"] = "3"
    ring.down = 1000
    p = poller(ring, store, broadcast_rcon_to_ops=False)
    async with aclosing(p.events()) as it:
        pending = asyncio.ensure_future(anext(it))
        await asyncio.wait_for(p.ready.wait(), WAIT)
        pending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pending


async def test_restart_neither_replays_nor_loses() -> None:
    ring, store = Ring(), MemStore()
    store.values["rcon:s"] = "0"
    ring.emit(10)
    async with aclosing(poller(ring, store).events()) as it:
        assert await take(it, 4) == [1, 2, 3, 4]
    assert store.values["rcon:s"] == "4"
    ring.emit(2)
    async with aclosing(poller(ring, store).events()) as it:
        assert await take(it, 8) == [5, 6, 7, 8, 9, 10, 11, 12]


async def test_gap_from_a_wrapped_ring_is_reported(caplog: pytest.LogCaptureFixture) -> None:
    ring, store = Ring(size=5), MemStore()
    store.values["rcon:s"] = "2"
    ring.emit(12)  # 1..7 already overwritten
    p = poller(ring, store)
    with caplog.at_level(logging.WARNING):
        async with aclosing(p.events()) as it:
            assert await take(it, 5) == [8, 9, 10, 11, 12]
    assert p.missed == 5
    assert "events 3..7 of s were dropped" in caplog.text


async def test_outage_is_survived() -> None:
    ring, store = Ring(), MemStore()
    store.values["rcon:s"] = "0"
    ring.emit(2)
    ring.down = 3
    async with aclosing(poller(ring, store).events()) as it:
        assert await take(it, 2) == [1, 2]
    assert ring.calls[:4] == [0, 0, 0, 0]


@pytest.mark.parametrize(("setting", "warned"), [(True, True), (None, True), (False, False)])
async def test_broadcast_warning_once(
    caplog: pytest.LogCaptureFixture, setting: bool | None, warned: bool
) -> None:
    ring, store = Ring(), MemStore()
    store.values["rcon:s"] = "0"
    ring.emit(1)
    p = poller(ring, store, broadcast_rcon_to_ops=setting)
    with caplog.at_level(logging.WARNING):
        async with aclosing(p.events()) as it:
            await take(it, 1)
        assert not p.warn_broadcast()  # never twice
    assert ("broadcast-rcon-to-ops" in caplog.text) is warned
