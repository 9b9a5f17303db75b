"""The event log shared by several processes on PostgreSQL (bot.store.event_log,
bot.background.event_relay): each added event is told on ``doom_events`` with its id when it
commits; each process reads what the others added after its cursor, never its own; ids commit
in order, so the cursor passes no row still to come; the relay hands the others' events to its
bus once, marked relayed, recording nothing. Alone on SQLite nothing is told and no relay runs."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from sqlalchemy import func, select, text

from bot.background.event_relay import EventRelay
from bot.config import Settings
from bot.events.bus import EventBus
from bot.events.event import Event
from bot.services import Services
from bot.store.audit import AuditStore
from bot.store.db import Database
from bot.store.event_log import _ORDER_LOCK, EventLog
from bot.store.notify import EVENTS, Listener
from bot.store.tables import event_log


def _event(server: str, seq: int, kind: str = "retry") -> Event:
    return Event(server, seq, kind, f"t{seq}", 100 + seq, {"why": "no pig"})


async def _until(check: Any, what: str, limit: float = 10.0) -> None:
    async with asyncio.timeout(limit):
        while not check():  # noqa: ASYNC110 - a listener's list: nothing to wait on
            await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def _two(postgres: Any) -> Any:
    """Two processes' connections to one database (each its own pool)."""
    url = postgres.new_database(template="doom_template")
    first, second = Database(url), Database(url)
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()


async def test_an_added_event_is_told_by_id_and_read_after_the_cursor_by_the_others(
    postgres: Any,
) -> None:
    async with _two(postgres) as (db_a, db_b):
        a, b = EventLog(db_a), EventLog(db_b)
        heard: list[str] = []
        listener = Listener(db_b)
        listener.on(EVENTS, heard.append)
        listener.start()
        try:
            async with asyncio.timeout(10):
                await listener.connected.wait()
            start_a, start_b = await a.newest_id(), await b.newest_id()
            assert start_a == start_b == 0
            await a.add(_event("a", 1))
            await b.add(_event("b", 1))
            await a.add(_event("a", 2))
            await _until(lambda: len(heard) == 3, "three notices")
            ids = [s.id for s in reversed(await a.recent(limit=10))]
            assert heard == [str(i) for i in ids]  # each told with its id, in order
            assert await b.newest_id() == ids[-1]
            # each reads the other's only; the cursor is the last id read, its own included
            found, cursor = await b.added_by_others(start_b, limit=10)
            assert [(s.id, s.event.server, s.event.seq) for s in found] == [
                (ids[0], "a", 1),
                (ids[2], "a", 2),
            ]
            assert found[0].event == _event("a", 1) and cursor == ids[2]
            assert b.written == set()  # passed: forgotten
            found, cursor = await a.added_by_others(start_a, limit=1)
            assert found == [] and cursor == ids[0]  # a page of its own: the cursor moves on
            found, cursor = await a.added_by_others(cursor, limit=10)
            assert [(s.event.server, s.event.seq) for s in found] == [("b", 1)]
            assert cursor == ids[2] and a.written == set()
            assert await a.added_by_others(cursor, limit=10) == ([], cursor)
        finally:
            await listener.stop()


async def test_ids_commit_in_order_so_the_cursor_passes_no_row_still_to_come(
    postgres: Any,
) -> None:
    """An add in flight (its row has an id, not committed yet) holds back a later one: a reader
    looking meanwhile cannot see the later id and pass the earlier one for ever."""
    async with _two(postgres) as (db_a, db_b):
        a, reader = EventLog(db_a), EventLog(db_b)
        held = await db_b.engine.connect()
        try:
            slow = await held.begin()
            await held.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _ORDER_LOCK})
            first = (
                await held.execute(
                    event_log.insert()
                    .values(
                        server="b",
                        seq=1,
                        type="retry",
                        task_id="slow",
                        game_time=1,
                        details=json.dumps({}),
                    )
                    .returning(event_log.c.id)
                )
            ).scalar_one()
            later = asyncio.create_task(a.add(_event("a", 1)))
            await asyncio.sleep(0.5)
            assert not later.done()  # it waits for the add before it to commit
            found, cursor = await reader.added_by_others(0, limit=10)
            assert (found, cursor) == ([], 0)
            await slow.commit()
            async with asyncio.timeout(10):
                await later
        finally:
            await held.close()
        found, cursor = await reader.added_by_others(0, limit=10)
        assert [(s.id, s.event.task_id) for s in found] == [(first, "slow"), (first + 1, "t1")]
        assert cursor == first + 1


async def test_the_relay_hands_the_others_events_to_its_bus_once_marked_relayed(
    postgres: Any,
) -> None:
    """Two processes, each recording its bus's events in the log and relaying the other's:
    each subscriber has every event once; the log has each once; own events never come back."""
    async with _two(postgres) as (db_a, db_b):
        sides = []
        for db in (db_a, db_b):
            log, bus, listener = EventLog(db), EventBus(), Listener(db)
            bus.recorder = log.add
            relay = EventRelay(log, bus, ["a", "b"], look=30.0)  # the notices wake it
            listener.on(EVENTS, relay.wake)
            await relay.start()
            listener.start()
            sides.append((log, bus, listener, relay))
        try:
            for _log, _bus, listener, _relay in sides:
                async with asyncio.timeout(10):
                    await listener.connected.wait()
            own: dict[str, Event] = {}
            queues: dict[str, list[asyncio.Queue[Event]]] = {}
            async with contextlib.AsyncExitStack() as stack:
                sources = {}
                for name, (_log, bus, _l, _r) in zip("ab", sides, strict=True):
                    sources[name] = _Source()
                    queues[name] = []
                    for server in "ab":  # each process's feed subscribes to both servers
                        sub = await stack.enter_async_context(
                            bus.subscribe(server, sources[name] if server == name else _Idle())
                        )
                        queues[name].append(sub.queue)
                for name in "ab":
                    await asyncio.wait_for(sources[name].ready.wait(), 5)
                    own[name] = _event(name, 7, "retry_exhausted")
                    sources[name].queue.put_nowait(own[name])
                seen = {name: [await _next(q) for q in queues[name]] for name in "ab"}
                await asyncio.sleep(0.5)  # a second copy would have come by now
                for name in "ab":
                    other = "b" if name == "a" else "a"
                    by_server = {e.server: e for e in seen[name]}
                    assert by_server[name] == own[name] and not by_server[name].relayed
                    assert by_server[other] == own[other] and by_server[other].relayed
                    assert all(q.empty() for q in queues[name])
            for name, (_log, bus, _l, relay) in zip("ab", sides, strict=True):
                assert relay.relayed == 1
                assert bus.counts == {(name, "retry_exhausted"): 1}  # what it read itself
            async with db_a.connect() as conn:
                kept = (await conn.execute(select(func.count()).select_from(event_log))).scalar()
            assert kept == 2
        finally:
            for _log, _bus, listener, relay in sides:
                await relay.stop()
                await listener.stop()


async def test_around_a_hand_over_each_process_shows_each_event_of_the_server_once(
    postgres: Any,
) -> None:
    """The server's lease moves from one process to the other: the old holder's last event and
    the new holder's first come at once; each process shows both, once each, its own as read."""
    async with _two(postgres) as (db_a, db_b):
        sides = []
        for db in (db_a, db_b):
            log, bus = EventLog(db), EventBus()
            bus.recorder = log.add
            relay = EventRelay(log, bus, ["a"], look=0.05)
            await relay.start()
            sides.append((bus, relay))
        try:
            async with contextlib.AsyncExitStack() as stack:
                sources, queues = [], []
                for bus, _relay in sides:
                    sources.append(_Source())
                    sub = await stack.enter_async_context(bus.subscribe("a", sources[-1]))
                    queues.append(sub.queue)
                for source in sources:
                    await asyncio.wait_for(source.ready.wait(), 5)
                last, first = _event("a", 1, "ran"), _event("a", 2, "retry")
                sources[0].queue.put_nowait(last)  # the old holder's last
                sources[1].queue.put_nowait(first)  # the new holder's first
                for mine, queue in zip((last, first), queues, strict=True):
                    got = [await _next(queue), await _next(queue)]
                    await asyncio.sleep(0.3)  # a second copy would have come by now
                    assert queue.empty()
                    assert sorted(got, key=lambda e: e.seq) == [last, first]
                    assert [e.relayed for e in got if e == mine] == [False]
                    assert [e.relayed for e in got if e != mine] == [True]
        finally:
            for _bus, relay in sides:
                await relay.stop()


async def test_the_relay_catches_up_by_its_look_when_no_notice_comes(postgres: Any) -> None:
    async with _two(postgres) as (db_a, db_b):
        a, b, bus = EventLog(db_a), EventLog(db_b), EventBus()
        relay = EventRelay(b, bus, ["a"], look=0.1)  # no listener: the look alone
        await relay.start()
        try:
            async with bus.subscribe("a", _Idle()) as sub:
                for seq in range(3):
                    await a.add(_event("a", seq))
                await a.add(_event("elsewhere", 9))  # a server this process does not have
                got = [await _next(sub.queue) for _ in range(3)]
                assert [(e.seq, e.relayed) for e in got] == [(0, True), (1, True), (2, True)]
                newest = await a.newest_id()
                await _until(lambda: relay.cursor == newest, "the cursor past the last")
                assert relay.relayed == 3 and sub.queue.empty()
        finally:
            await relay.stop()


async def test_only_a_shared_database_relays(store_db: Database, tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    services = Services(settings, {}, AuditStore(store_db))
    await services.start()
    try:
        assert (services.relay is not None) == (not store_db.is_sqlite)
        await services.event_log.add(_event("a", 1))
        # alone, nothing is kept aside to tell its own rows from the others'
        newest = await services.event_log.newest_id()
        assert services.event_log.written == (set() if store_db.is_sqlite else {newest})
    finally:
        await services.close()


class _Source:
    """A source fed by the test."""

    def __init__(self) -> None:
        self.ready = asyncio.Event()
        self.queue: asyncio.Queue[Event] = asyncio.Queue()

    async def events(self) -> Any:
        self.ready.set()
        while True:
            yield await self.queue.get()


class _Idle:
    """The source of a server another process reads: nothing comes from it here."""

    ready = asyncio.Event()

    async def events(self) -> Any:
        await asyncio.Event().wait()
        yield  # pragma: no cover


async def _next(queue: asyncio.Queue[Event]) -> Event:
    return await asyncio.wait_for(queue.get(), 10)
