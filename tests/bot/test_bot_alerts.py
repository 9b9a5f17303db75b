"""The bot's own alerts (bot.events.bot_alerts) joining a server's event stream
(bot.events.guarded): what is made while nobody reads waits for the first reader, every reader
gets each alert, and alerts joined to a running stream are read at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing

from bot.aio import cancel_and_wait
from bot.events.bot_alerts import BotAlerts
from bot.events.event import Event
from bot.events.guarded import Gate, GuardedEvents


def ev(seq: int, kind: str = "wallclock_missed") -> Event:
    return Event("main", seq, kind, f"t{seq}", -1, {})


def drained(queue: asyncio.Queue[Event]) -> list[int]:
    found = []
    while not queue.empty():
        found.append(queue.get_nowait().seq)
    return found


def test_alerts_made_while_nobody_reads_go_to_the_first_reader_in_order() -> None:
    alerts = BotAlerts(backlog=3)
    for seq in range(1, 6):
        alerts.emit(ev(seq))
    assert alerts.unsent == 3  # the oldest two were dropped
    first: asyncio.Queue[Event] = asyncio.Queue()
    second: asyncio.Queue[Event] = asyncio.Queue()
    alerts.subscribe(first)
    alerts.subscribe(second)
    assert drained(first) == [3, 4, 5] and drained(second) == []
    alerts.emit(ev(6))
    assert drained(first) == [6] and drained(second) == [6]
    alerts.unsubscribe(first)
    alerts.unsubscribe(second)
    alerts.unsubscribe(second)  # twice is harmless
    alerts.emit(ev(7))
    assert alerts.unsent == 1 and drained(first) == []


class Source:
    def __init__(self) -> None:
        self.ready = asyncio.Event()
        self.queue: asyncio.Queue[Event] = asyncio.Queue()

    async def events(self) -> AsyncGenerator[Event, None]:
        self.ready.set()
        while True:
            yield await self.queue.get()


class Guard:
    """The crash guard's two faces GuardedEvents uses: its alerts, and the record it keeps."""

    def __init__(self) -> None:
        self.alerts = BotAlerts()
        self.seen: list[int] = []

    async def saw_event(self, event: Event) -> None:
        self.seen.append(event.seq)


async def test_pack_events_the_guards_and_the_schedulers_alerts_share_one_stream() -> None:
    source, guard, planned = Source(), Guard(), BotAlerts()
    stream = GuardedEvents(source, guard)  # type: ignore[arg-type]
    planned.emit(ev(100))  # before any reader: it waits
    got: list[tuple[int, str]] = []
    async with aclosing(stream.events()) as events:

        async def take(n: int) -> None:
            for _ in range(n):
                event = await asyncio.wait_for(anext(events), 5)
                got.append((event.seq, event.type))

        source.queue.put_nowait(ev(1, "retry"))
        guard.alerts.emit(ev(2, "restored_after_crash"))
        await take(2)
        stream.add_alerts(planned)  # joined while the stream runs: its waiting alert comes too
        stream.add_alerts(planned)  # once only
        await take(1)
        planned.emit(ev(101))
        await take(1)
        assert planned.unsent == 0
    assert sorted(got) == [
        (1, "retry"),
        (2, "restored_after_crash"),
        (100, "wallclock_missed"),
        (101, "wallclock_missed"),
    ]
    assert guard.seen == [1]  # the record follows the pack's events, not the bot's own alerts
    planned.emit(ev(102))  # the stream closed: the alert waits for the next one
    assert planned.unsent == 1
    async with aclosing(stream.events()) as events:
        event = await asyncio.wait_for(anext(events), 5)
        assert event.seq == 102


async def test_a_stream_closed_while_its_gate_is_open_leaves_no_read_running() -> None:
    """A process that holds the server (its gate open) stops reading: the read of the source
    stops with the stream, and no task of it outlives the close (left running, it went on
    reading after the bot closed what it reads with)."""
    source, guard = Source(), Guard()
    stream = GuardedEvents(source, guard)  # type: ignore[arg-type]
    stream.gate = Gate()
    stream.gate.open()
    before = asyncio.all_tasks()
    async with aclosing(stream.events()) as events:
        source.queue.put_nowait(ev(1, "retry"))
        first = await asyncio.wait_for(anext(events), 5)
        assert first.seq == 1 and guard.seen == [1]
    await asyncio.sleep(0)
    left = [t for t in asyncio.all_tasks() - before if not t.done()]
    assert left == [], [t.get_coro() for t in left]
    source.queue.put_nowait(ev(2, "retry"))
    await asyncio.sleep(0.05)
    assert guard.seen == [1]  # nothing reads the source any more


class SavingSource(Source):
    """A source that saves its place when it stops (as the log tailer does), slowly."""

    def __init__(self) -> None:
        super().__init__()
        self.saved = False

    async def events(self) -> AsyncGenerator[Event, None]:
        try:
            async for event in super().events():
                yield event
        finally:
            await asyncio.sleep(0.3)  # a write to the database on a loaded machine
            self.saved = True


async def test_a_stream_stopped_again_and_again_ends_after_its_source_saved_its_place() -> None:
    """The reader is stopped as the bot stops its tasks (cancelled, and again every 50 ms here):
    it ends only once the source's clean-up (saving its place) has run whole, so nothing is
    left writing while the bot goes on to close its database."""
    source, guard = SavingSource(), Guard()
    stream = GuardedEvents(source, guard)  # type: ignore[arg-type]
    stream.gate = Gate()
    stream.gate.open()
    got = asyncio.Event()

    async def reader() -> None:
        async with aclosing(stream.events()) as events:
            async for _event in events:
                got.set()

    task = asyncio.create_task(reader())
    source.queue.put_nowait(ev(1, "retry"))
    await asyncio.wait_for(got.wait(), 5)
    await cancel_and_wait(task, grace=0.05)
    assert task.done() and source.saved
