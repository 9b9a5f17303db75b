"""bot.store.ledger on both engines, without a server: the acknowledgements and events it is
fed, one row per task key (a second acknowledgement of a key, from this process or another on
the same PostgreSQL, updates that row), events read before their acknowledgement, the marks
and a pending restore, pruning."""

from __future__ import annotations

import asyncio
from types import MappingProxyType
from typing import Any

from bot.events.event import Event
from bot.minecraft.pack_tasks import Task
from bot.store.db import Database
from bot.store.ledger import Ledger


def ack(
    key: str, n: int, due: int, time: int, **request: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A schedule's request and the pack's answer to it."""
    return {"run": f"say {key}", "key": key, **request}, {
        "n": n,
        "id": key,
        "due": due,
        "time": time,
    }


def task(key: str, n: int, due: int, *, remaining: int | None = None) -> Task:
    return Task(
        id=key,
        run=f"say {key}",
        due=due,
        list="queue",
        executor=None,
        player=False,
        dimension="minecraft:overworld",
        retry_left=0,
        retry_delay=1,
        interval=None,
        remaining=remaining,
        n=n,
        k=key,
    )


def event(kind: str, key: str, game_time: int, seq: int = 1) -> Event:
    return Event("sim", seq, kind, key, game_time, MappingProxyType({"k": key}))


async def test_acknowledgements_and_changes_are_recorded(store_db: Database) -> None:
    ledger = Ledger(store_db, "sim")
    await ledger.scheduled(*ack("a", 1, 110, 10, retry=2))
    await ledger.scheduled(*ack("b", 2, 50, 10, interval=2, unit="s"))
    await ledger.operated("pause", "a", [task("a", 1, 110)], 1, 15, 2)
    a, b = await ledger.entries()
    assert (a.bkey, a.state, a.last_op, a.remaining, a.request["retry"]) == (
        "a",
        "paused",
        "pause",
        95,
        2,
    )
    assert (b.interval, b.due, b.own) == (40, 50, True)
    await ledger.operated("resume", "a", [task("a", 1, 110, remaining=95)], 1, 20, 2)
    assert [(e.state, e.due) for e in await ledger.entries(key="a")] == [("queue", 115)]
    await ledger.operated("clear", None, [], 2, 25, 2)
    assert {e.state for e in await ledger.entries()} == {"cancelled"}
    assert await ledger.entries(("queue", "paused")) == []
    assert await ledger.unsettled_clears() == [(25, 2)]
    assert await ledger.marks() == (25, 2, None)


async def test_a_second_acknowledgement_of_a_key_updates_its_row(store_db: Database) -> None:
    ledger = Ledger(store_db, "sim")
    other = Ledger(store_db, "other")  # the same key on another server is another task
    await ledger.scheduled(*ack("k1", 1, 100, 10))
    await other.scheduled(*ack("k1", 1, 100, 10))
    await ledger.begin_restore("test")  # the crash guard puts it in again, under its key
    await ledger.scheduled(*ack("k1", 7, 300, 40))
    [row] = await ledger.entries()
    assert (row.n, row.due, row.state, row.changed_at, row.acked_at) == (7, 300, "queue", 40, 10)
    assert await ledger.count() == 1 and await other.count() == 1


async def test_an_event_read_before_its_acknowledgement_is_applied_with_it(
    store_db: Database,
) -> None:
    ledger = Ledger(store_db, "sim")
    assert not await ledger.knows("now")
    assert await ledger.apply_event(event("ran", "now", 12)) is None  # no row yet: kept
    assert await ledger.knows("now")
    await ledger.scheduled(*ack("now", 1, 12, 11))
    [row] = await ledger.entries()
    assert (row.state, row.ran_at) == ("done", 12)
    assert await ledger.knows("now")  # by its row now; the early event is used up
    await ledger.scheduled(*ack("later", 2, 100, 13))
    before = await ledger.apply_event(event("offline", "later", 20, 2))
    assert before is not None and before.state == "queue"
    assert [e.state for e in await ledger.entries(key="later")] == ["offline"]


async def test_a_game_time_gone_back_makes_a_restore_pending_until_it_ends(
    store_db: Database,
) -> None:
    ledger = Ledger(store_db, "sim")
    await ledger.scheduled(*ack("a", 5, 600, 500))
    assert not await ledger.saw(520, 5, await ledger.marks())
    assert await ledger.saw(100, 1, await ledger.marks())  # back to an older save
    last_time, last_serial, pending = await ledger.marks()
    assert pending is not None and (pending.last_time, pending.last_serial) == (520, 5)
    assert (last_time, last_serial) == (520, 5)
    await ledger.apply_event(event("ran", "a", 130))  # the marks stay the pre-crash ones
    assert (await ledger.marks())[0] == 520
    await ledger.end_restore(140, 2)
    assert await ledger.marks() == (140, 2, None)


async def test_finished_rows_are_pruned_after_the_retention(store_db: Database) -> None:
    ledger = Ledger(store_db, "sim", retain=100)
    for i in range(5):
        await ledger.scheduled(*ack(f"t{i}", i + 1, 5, 0))
    await ledger.scheduled(*ack("long", 6, 10_000, 0))
    await ledger.operated("cancel_one", "t0", [task("t0", 1, 5)], 1, 1, 6)
    await ledger.scheduled(*ack("next", 7, 10_000, 200))  # a write prunes
    assert {e.task_id for e in await ledger.entries()} == {"long", "next"}
    assert await ledger.unsettled_clears() == []


async def test_writes_at_once_in_one_process_each_run_whole(store_db: Database) -> None:
    """The pack client and the event source write the record at the same time."""
    ledger = Ledger(store_db, "sim")
    async with asyncio.timeout(30):
        await asyncio.gather(
            *(ledger.scheduled(*ack(f"t{i}", i + 1, 100, i)) for i in range(10)),
            *(ledger.apply_event(event("ran", f"e{i}", i, i)) for i in range(10)),
        )
    assert await ledger.count() == 10
    assert all([await ledger.knows(f"e{i}") for i in range(10)])


async def test_two_processes_recording_one_key_leave_one_row(postgres: Any) -> None:
    """Two bot processes on one PostgreSQL (each its Database, its connections) record the
    same acknowledgement at once: one row per key, the second an update of it. With a restore
    pending neither writes the marks first, so the two inserts meet at the unique index."""
    url = postgres.new_database(template="doom_template")
    one, two = Database(url), Database(url)
    try:
        first, second = Ledger(one, "sim"), Ledger(two, "sim")
        await first.scheduled(*ack("seed", 1, 10, 5))
        await first.begin_restore("test")
        async with asyncio.timeout(30):
            for i in range(20):
                await asyncio.gather(
                    first.scheduled(*ack(f"k{i}", 10 + i, 500, 50)),
                    second.scheduled(*ack(f"k{i}", 10 + i, 500, 50)),
                )
        rows = await second.entries()
        assert sorted(e.bkey or "" for e in rows) == sorted(["seed", *(f"k{i}" for i in range(20))])
    finally:
        await one.close()
        await two.close()
