"""The event bus: one reader per server's source, every event to every subscriber, the source
closed when the last one leaves, a failing source restarted."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from bot.events.bus import EventBus
from bot.events.event import Event


def ev(seq: int, kind: str = "retry") -> Event:
    return Event("main", seq, kind, f"t{seq}", seq * 10, {})


class Source:
    """A source fed by the test; counts how often it is opened and closed."""

    def __init__(self, fail_first: bool = False) -> None:
        self.ready = asyncio.Event()
        self.queue: asyncio.Queue[Event] = asyncio.Queue()
        self.opened = 0
        self.closed = 0
        self.fail_first = fail_first

    async def events(self) -> AsyncGenerator[Event, None]:
        self.opened += 1
        try:
            if self.fail_first and self.opened == 1:
                raise OSError("log vanished")
            self.ready.set()
            while True:
                yield await self.queue.get()
        finally:
            self.closed += 1


async def next_of(sub: object) -> Event:
    return await asyncio.wait_for(sub.queue.get(), 5)  # type: ignore[attr-defined]


async def test_every_subscriber_gets_every_event_from_one_reader() -> None:
    bus, source = EventBus(), Source()
    async with bus.subscribe("main", source) as a, bus.subscribe("main", source) as b:
        await asyncio.wait_for(source.ready.wait(), 5)
        for seq in (1, 2):
            source.queue.put_nowait(ev(seq, "retry_exhausted" if seq == 2 else "retry"))
        assert [(await next_of(a)).seq, (await next_of(a)).seq] == [1, 2]
        assert [(await next_of(b)).seq, (await next_of(b)).seq] == [1, 2]
        assert source.opened == 1
        assert bus.reading("main")
    assert source.closed == 1 and not bus.reading("main")
    assert bus.counts == {("main", "retry"): 1, ("main", "retry_exhausted"): 1}
    assert [e.seq for e in bus.history] == [1, 2]


async def test_a_bounded_subscriber_drops_its_oldest_and_holds_nobody_up() -> None:
    bus, source = EventBus(), Source()
    async with (
        bus.subscribe("main", source) as full,
        bus.subscribe("main", source, maxsize=2) as tab,
    ):
        await asyncio.wait_for(source.ready.wait(), 5)
        for seq in range(1, 6):
            source.queue.put_nowait(ev(seq))
        got = [(await next_of(full)).seq for _ in range(5)]
        assert got == [1, 2, 3, 4, 5]
        assert [(await next_of(tab)).seq for _ in range(2)] == [4, 5]
        assert tab.dropped == 3


async def test_a_failing_source_is_restarted() -> None:
    bus, source = EventBus(), Source(fail_first=True)
    bus.restart_delay = 0.01
    async with bus.subscribe("main", source) as sub:
        await asyncio.wait_for(source.ready.wait(), 5)
        source.queue.put_nowait(ev(7))
        assert (await next_of(sub)).seq == 7
    assert source.opened == 2
