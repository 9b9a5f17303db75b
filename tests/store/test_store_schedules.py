"""bot.store.schedules and bot.store.schedule_runs on both engines: a row's life (stored, found,
listed, paused), a run's life (planned before its hand-over, finished, seen in game, missed),
and what the history, /metrics and the health checks read of the runs."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update

from bot.store.db import Database
from bot.store.schedules import Creator, Schedule, ScheduleStore
from bot.store.tables import schedule_runs, schedules
from bot.times.when import build_spec

NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
MOD = Creator(412345678901234567, "mod")  # a Discord id: 64 bits


async def plan(
    store: ScheduleStore,
    task_id: str,
    *,
    server: str = "main",
    when: str | None = "in 1h",
    repeat: str | None = None,
    command: str = "say hi",
) -> Schedule:
    spec = build_spec(when, repeat, None, "1m, 10s", now=NOW)
    return await store.insert(
        spec,
        server=server,
        command=command,
        task_id=task_id,
        created_by=MOD,
        now=NOW,
        conditions={"require": "players>=1"},
        on_doubt="run",
    )


async def test_a_row_reads_back_as_stored_and_is_found_by_its_task_id(store_db: Database) -> None:
    store = ScheduleStore(store_db)
    row = await plan(store, "w1", repeat="30m", when=None)
    assert row.kind == "every" and row.every == 1800 and row.announce == (60, 10)
    assert row.created_by == MOD and row.created_at == NOW
    assert row.conditions == {"require": "players>=1"} and row.on_doubt == "run"
    assert row.state == "active" and row.run_count == 0
    assert await store.get(row.id) == row
    assert await store.find("main", "w1") == row
    assert await store.find("other", "w1") is None
    assert await store.active() == [row]
    assert row.next_due is not None
    assert await store.armed() == [(row.id, row.next_due.timestamp(), (60, 10))]
    paused = await store.set_state(row.id, "paused", row.next_due)
    assert paused is not None and paused.state == "paused"
    assert await store.armed() == [] and await store.active() == []
    assert await store.find("main", "w1") == paused  # paused is still live
    assert await store.set_state(10**9, "paused", None) is None


async def test_the_planned_list_pages_searches_and_puts_paused_rows_last(
    store_db: Database,
) -> None:
    store = ScheduleStore(store_db)
    later = await plan(store, "Later", when="in 3h", command="say Bye")
    soon = await plan(store, "soon", when="in 1h")
    paused = await plan(store, "held", when="in 2h")
    await store.set_state(paused.id, "paused", paused.next_due)
    await plan(store, "elsewhere", server="lobby")
    rows, total = await store.planned("main")
    assert [r.task_id for r in rows] == ["soon", "Later", "held"] and total == 3
    rows, total = await store.planned("main", offset=1, limit=1)
    assert [r.task_id for r in rows] == ["Later"] and total == 3
    # the search ignores case on both engines, and its wildcards are taken out
    rows, total = await store.planned("main", search="LATER")
    assert [r.id for r in rows] == [later.id] and total == 1
    rows, _ = await store.planned("main", search="bye")
    assert [r.id for r in rows] == [later.id]
    assert (await store.planned("main", search="%"))[1] == 3
    assert await store.task_ids("main", "l", 10) == ["Later", "held"]  # starts with, then has
    cancelled = await store.set_state(soon.id, "cancelled", None)
    assert cancelled is not None
    assert [r.id for r in await store.in_states("main", ["cancelled"])] == [soon.id]
    again = await plan(store, "soon", when="in 4h")
    assert [r.id for r in await store.rows_of("main", "soon")] == [again.id, soon.id]


async def test_a_run_is_planned_before_its_hand_over_and_finished_after(
    store_db: Database,
) -> None:
    store = ScheduleStore(store_db)
    row = await plan(store, "w1", repeat="30m", when=None)
    assert row.next_due is not None
    due, nxt = row.next_due, row.next_due + timedelta(minutes=30)
    assert await store.last_run_id() == 0
    run_id = await store.begin_run(row.id, due, nxt, "active")
    assert run_id is not None
    assert [r.id for r in await store.sending()] == [run_id]
    moved = await store.get(row.id)
    assert moved is not None
    assert (moved.next_due, moved.last_due, moved.last_outcome, moved.run_count) == (
        nxt,
        due,
        "sending",
        1,
    )
    handed = due + timedelta(seconds=2)
    await store.finish_run(run_id, "queued", handed_over=handed, lateness=2.0, attempts=3)
    # a later word keeps what it leaves out, and the attempts never go down
    await store.finish_run(run_id, "queued", attempts=1, serial=7)
    run = await store.get_run(run_id)
    assert run is not None
    assert (run.outcome, run.handed_over, run.lateness, run.attempts) == ("queued", handed, 2.0, 3)
    assert await store.sending() == []
    stuck = await store.handed_not_ran("main", handed + timedelta(1), handed)
    assert [(r.id, task_id, serial) for r, task_id, serial in stuck] == [(run_id, "w1", 7)]
    assert await store.handed_not_ran("lobby", handed + timedelta(1), handed) == []
    # the pack says it ran: its time is filled, the row's last outcome follows
    ran = due + timedelta(seconds=5)
    assert await store.saw_in_game(row.id, int(due.timestamp() * 1000), "ran", ran)
    run = await store.get_run(run_id)
    assert run is not None and (run.outcome, run.ran_in_game) == ("ran", ran)
    assert (await store.get(row.id)).last_outcome == "ran"  # type: ignore[union-attr]
    assert not await store.saw_in_game(row.id, 1, "ran", ran)  # no run due then
    await store.finish_run(run_id, "ran", state="done")
    assert (await store.get(row.id)).state == "done"  # type: ignore[union-attr]
    assert await store.last_run_id() == run_id


async def test_the_pack_s_ran_read_before_the_hand_over_s_record_leaves_it_ran(
    postgres: Any,
) -> None:
    """The pack's `ran` (read while the run was `sending`) and the hand-over's record commit
    in between, as two processes' sessions or two of one pool do: the run ends `ran`, not
    `sending` again (open for ever), and the row's last outcome with it."""
    db = Database(postgres.new_database(template="doom_template"))
    try:
        store = ScheduleStore(db)
        row = await plan(store, "w1", repeat="30m", when=None)
        assert row.next_due is not None
        due = row.next_due
        run_id = await store.begin_run(row.id, due, due + timedelta(minutes=30), "active")
        assert run_id is not None
        handing = await db.engine.connect()
        try:
            record = await handing.begin()
            # the hand-over's record (finish_run's writes), not committed yet
            await handing.execute(
                update(schedule_runs).where(schedule_runs.c.id == run_id).values(outcome="ran")
            )
            await handing.execute(
                update(schedules).where(schedules.c.id == row.id).values(last_outcome="ran")
            )
            seen = asyncio.create_task(
                store.saw_in_game(row.id, int(due.timestamp() * 1000), "ran", due)
            )
            await asyncio.sleep(0.5)
            assert not seen.done()  # it read `sending` and waits on the row
            await record.commit()
            assert await seen
        finally:
            await handing.close()
        run = await store.get_run(run_id)
        assert run is not None and (run.outcome, run.ran_in_game) == ("ran", due)
        assert (await store.get(row.id)).last_outcome == "ran"  # type: ignore[union-attr]
    finally:
        await db.close()


async def test_misses_extra_runs_the_history_and_its_pruning(store_db: Database) -> None:
    store = ScheduleStore(store_db)
    row = await plan(store, "w1", repeat="30m", when=None)
    assert row.next_due is not None
    first = row.next_due
    assert await store.record_missed(row.id, first, "skipped 2", None, "active")
    extra = await store.begin_extra_run(row.id, first + timedelta(hours=1), "mod#1")
    moved = await store.get(row.id)
    assert moved is not None and moved.last_outcome == "skipped 2"  # an extra run moves nothing
    assert moved.run_count == 0
    runs, total = await store.history([row.id])
    assert total == 2 and [r.id for r in runs] == [extra, extra - 1]  # newest due first
    assert runs[0].triggered_by == "mod#1" and runs[1].outcome == "skipped 2"
    assert await store.history([]) == ([], 0)
    found, sending = await store.finished_after(0)
    assert found == [(extra - 1, "main", None)] and sending == extra
    assert await store.runs(row.id, limit=1) == runs[:1]
    # the retention forgets finished runs only: one still being handed over stays
    assert await store.prune_runs(first + timedelta(days=1)) == 1
    assert [r.id for r in (await store.history([row.id]))[0]] == [extra]
