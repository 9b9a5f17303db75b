"""The rules the database keeps for the wall-clock schedules, whichever process writes: two
Database objects on one database (two bot processes) race the same write, on both engines.
One live row per server and task id: the second is refused in the words a taken id gets. One
run per planned due: the second planner is told it lost, and its scheduler hands nothing over."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from bot.errors import ValidationError
from bot.i18n import Text
from bot.store.db import Database
from bot.store.schedules import Creator, Schedule, ScheduleStore
from bot.store.tables import schedule_runs, schedules
from bot.times.clock import ManualClock
from bot.times.when import build_spec
from bot.wallclock.due_heap import DueHeap
from bot.wallclock.firing import Firing

NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
MOD = Creator(7, "mod")


@pytest.fixture
async def other_db(store_db: Database) -> AsyncIterator[Database]:
    """A second Database on the same database: another process's view of it."""
    db = Database(store_db.url.render_as_string(hide_password=False))
    try:
        yield db
    finally:
        await db.close()


async def plan(store: ScheduleStore, task_id: str, *, repeat: str | None = None) -> Schedule:
    spec = build_spec(None if repeat else "in 1h", repeat, None, None, now=NOW)
    return await store.insert(
        spec, server="main", command="say hi", task_id=task_id, created_by=MOD, now=NOW
    )


async def count(db: Database, query: object) -> int:
    async with db.connect() as conn:
        return int((await conn.execute(query)).scalar_one())  # type: ignore[call-overload]


async def test_two_processes_adding_one_task_id_make_one_row_and_the_other_is_told(
    store_db: Database, other_db: Database
) -> None:
    one, two = ScheduleStore(store_db), ScheduleStore(other_db)
    await one.get(0), await two.get(0)  # both ready: the race is the insert's alone
    results = await asyncio.gather(plan(one, "w1"), plan(two, "w1"), return_exceptions=True)
    rows = [r for r in results if isinstance(r, Schedule)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(rows) == 1 and len(refused) == 1, results
    error = refused[0]
    assert isinstance(error, ValidationError) and error.field == "id"
    assert str(error) == (
        "A planned schedule `w1` already exists on main: cancel it first or choose another id."
    )
    assert await count(store_db, select(func.count()).select_from(schedules)) == 1
    # a row that is no longer live frees its id, in either process
    await one.set_state(rows[0].id, "cancelled", None)
    again = await plan(two, "w1")
    assert await one.find("main", "w1") == again


async def test_two_processes_planning_one_run_hand_it_over_once(
    store_db: Database, other_db: Database
) -> None:
    one, two = ScheduleStore(store_db), ScheduleStore(other_db)
    row = await plan(one, "w1", repeat="30m")
    await two.get(row.id)
    assert row.next_due is not None
    due, nxt = row.next_due, row.next_due + timedelta(minutes=30)
    planned = await asyncio.gather(
        one.begin_run(row.id, due, nxt, "active"), two.begin_run(row.id, due, nxt, "active")
    )
    assert sorted(planned, key=lambda p: p is None)[1] is None, planned  # one lost
    won = next(p for p in planned if p is not None)
    assert [r.id for r in await one.sending()] == [won]
    moved = await two.get(row.id)
    assert moved is not None and moved.run_count == 1  # the loser changed nothing
    # the same due time, missed by a third look: lost too, nothing recorded
    assert not await two.record_missed(row.id, due, "missed", None, "missed")
    assert (await one.get(row.id)).state == "active"  # type: ignore[union-attr]
    # someone's run now at that instant is an extra run, not the planned one: it is kept
    assert await two.begin_extra_run(row.id, due, "mod#1") > won
    assert await count(store_db, select(func.count()).select_from(schedule_runs)) == 2


class Said:
    """The alerts a scheduler made (Firing's alerting)."""

    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.reasons: list[str] = []

    def alert(self, row: Schedule, kind: str, due: datetime, **details: Text) -> None:
        self.kinds.append(kind)
        self.reasons.append(str(details.get("reason", "")))


async def test_two_schedulers_firing_one_row_deliver_it_once_and_say_a_miss_once(
    store_db: Database, other_db: Database
) -> None:
    clock = ManualClock(NOW)
    said = Said()
    delivered: list[tuple[str, int, datetime]] = []

    def firing(store: ScheduleStore, name: str) -> Firing:
        async def deliver(row: Schedule, run_id: int, due: datetime) -> None:
            delivered.append((name, run_id, due))

        heap = DueHeap(clock)
        limits = {"grace": timedelta(seconds=5), "max_late": timedelta(minutes=10)}
        return Firing(store, clock, heap, said, deliver, **limits)

    one, two = ScheduleStore(store_db), ScheduleStore(other_db)
    ran = await plan(one, "ran")
    missed = await plan(one, "missed")
    repeating = await plan(one, "every", repeat="30m")
    late = await two.get(missed.id)
    assert late is not None and late.next_due is not None and ran.next_due is not None
    # the one-shot at its time, in both processes
    clock.set(ran.next_due)
    await asyncio.gather(firing(one, "one").fire(ran), firing(two, "two").fire(ran))
    assert len(delivered) == 1 and delivered[0][2] == ran.next_due
    # the repeating row, two boundaries late (one skipped): one skip said, one run
    assert repeating.next_due is not None
    clock.set(repeating.next_due + timedelta(minutes=30, seconds=1))
    row = await two.get(repeating.id)
    assert row is not None
    await asyncio.gather(firing(one, "one").fire(repeating), firing(two, "two").fire(row))
    assert len(delivered) == 2 and said.kinds == ["wallclock_skipped"]
    # the other one-shot, past its lateness: one miss said
    clock.set(late.next_due + timedelta(hours=1))
    await asyncio.gather(firing(one, "one").fire(missed), firing(two, "two").fire(late))
    assert said.kinds == ["wallclock_skipped", "wallclock_missed"]
    assert len(delivered) == 2


async def test_a_miss_names_the_database_only_where_one_is_shared(store_db: Database) -> None:
    """On a shared database the processes stop while it is away, so "the bot was not running"
    would be wrong there; alone on SQLite nothing else can have kept it from its time."""
    clock, said = ManualClock(NOW), Said()

    async def deliver(row: Schedule, run_id: int, due: datetime) -> None:
        pass

    store = ScheduleStore(store_db)
    limits = {"grace": timedelta(seconds=5), "max_late": timedelta(minutes=10)}
    firing = Firing(store, clock, DueHeap(clock), said, deliver, **limits)
    once = await plan(store, "once")
    repeating = await plan(store, "every", repeat="30m")
    assert once.next_due is not None and repeating.next_due is not None
    clock.set(once.next_due + timedelta(hours=2))
    await firing.fire(once)
    await firing.fire(repeating)
    assert said.kinds == ["wallclock_missed", "wallclock_skipped"]
    shared = not store_db.is_sqlite
    assert ["could not reach its database" in r for r in said.reasons] == [shared, shared]
    assert [r.startswith("the bot was not running") for r in said.reasons] == [True, True]
