"""bot.store.programs on both engines: each save of a name is its next version and a run keeps
the version it started with; a step is linked to one planned row only, and decided (skipped,
cancelled) once; a run moves only from the states it may."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from bot.store.db import Database
from bot.store.programs import ProgramStore
from bot.store.schedules import Creator, ScheduleStore
from bot.times.when import Spec

MOD = Creator(7002, "mod#0001")
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def _row(db: Database, task_id: str) -> int:
    spec = Spec("at", NOW + timedelta(hours=1), "UTC", at=NOW + timedelta(hours=1))
    row = await ScheduleStore(db).insert(
        spec, server="sim", command="say hi", task_id=task_id, created_by=MOD, now=NOW
    )
    return row.id


async def test_versions_and_a_run_keeps_its_own(store_db: Database) -> None:
    store = ProgramStore(store_db)
    first = await store.save("evening", '[{"run": "say 1"}]', MOD, NOW)
    second = await store.save("evening", '[{"run": "say 2"}]', MOD, NOW)
    other = await store.save("morning", '[{"run": "say m"}]', MOD, NOW)
    assert (first.version, second.version, other.version) == (1, 2, 1)
    latest = await store.latest("evening")
    assert latest is not None and latest.version == 2 and latest.steps == '[{"run": "say 2"}]'
    kept = await store.version("evening", 1)
    assert kept is not None and kept.steps == '[{"run": "say 1"}]'
    assert await store.latest("nothing") is None
    assert [(p.name, p.version) for p in await store.programs()] == [
        ("evening", 2),
        ("morning", 1),
    ]
    run = await store.start(first, "sim", NOW, 3, MOD, NOW)
    await store.save("evening", '[{"run": "say 3"}]', MOD, NOW)
    again = await store.run(run.id)
    assert again is not None and (again.program, again.version, again.state) == (
        "evening",
        1,
        "running",
    )
    assert again.start == NOW and again.created_by == MOD
    assert [(s.step, s.schedule_id, s.status) for s in await store.steps(run.id)] == [
        (1, None, None),
        (2, None, None),
        (3, None, None),
    ]


async def test_saves_at_once_take_distinct_versions(store_db: Database) -> None:
    store = ProgramStore(store_db)
    saved = await asyncio.gather(*(store.save("race", "[]", MOD, NOW) for _ in range(4)))
    assert sorted(p.version for p in saved) == [1, 2, 3, 4]


async def test_a_step_is_linked_once_and_decided_once(store_db: Database) -> None:
    store = ProgramStore(store_db)
    program = await store.save("evening", "[]", MOD, NOW)
    run = await store.start(program, "sim", NOW, 3, MOD, NOW)
    a, b = await _row(store_db, "evening.1.1"), await _row(store_db, "evening.1.2")
    assert await store.link(run.id, 1, a)
    assert not await store.link(run.id, 1, b)  # a second row for the step is refused
    assert await store.mark(run.id, 2, "skipped")
    assert not await store.link(run.id, 2, b)  # decided: no row any more
    assert not await store.mark(run.id, 2, "cancelled")
    assert [(s.step, s.schedule_id, s.status) for s in await store.steps(run.id)] == [
        (1, a, None),
        (2, None, "skipped"),
        (3, None, None),
    ]


async def test_a_run_moves_only_from_the_states_it_may(store_db: Database) -> None:
    store = ProgramStore(store_db)
    program = await store.save("evening", "[]", MOD, NOW)
    run = await store.start(program, "sim", NOW, 1, MOD, NOW)
    other = await store.start(program, "lobby", NOW, 1, MOD, NOW)
    assert await store.set_state(run.id, "running", ("paused",)) is None
    paused = await store.set_state(run.id, "paused", ("running",))
    assert paused is not None and paused.state == "paused"
    assert [r.id for r in await store.runs(("running",))] == [other.id]
    assert [r.id for r in await store.runs(servers=["sim"])] == [run.id]
    cancelled = await store.set_state(run.id, "cancelled", ("running", "paused"))
    assert cancelled is not None and cancelled.state == "cancelled"
    assert await store.set_state(run.id, "running", ("paused",)) is None


async def test_the_migration_makes_the_tables_on_a_database_one_revision_behind(
    store_db: Database,
) -> None:
    """Migrations 0005 and on, on each engine: a database at 0004 gets the three tables (and
    what the later revisions add), which work."""
    async with store_db.begin() as conn:
        for table in (
            "program_repeat_runs",
            "program_repeats",
            "program_steps",
            "program_runs",
            "trigger_fires",
            "triggers",
            "programs",
        ):
            await conn.execute(text(f"DROP TABLE {table}"))
        await conn.execute(text("UPDATE alembic_version SET version_num = '0004'"))
    url = store_db.url.render_as_string(hide_password=False)
    await store_db.close()
    again = Database(store_db.path if store_db.path is not None else url)
    try:
        async with again.connect() as conn:
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
        assert [tuple(v) for v in version] == [("0007",)]
        store = ProgramStore(again)
        first = await store.save("evening", "[]", MOD, NOW)
        second = await store.save("evening", "[]", MOD, NOW)
        assert (first.version, second.version) == (1, 2)
        run = await store.start(second, "sim", NOW, 2, MOD, NOW)
        assert [s.step for s in await store.steps(run.id)] == [1, 2]
    finally:
        await again.close()


async def test_the_steps_rows_and_newest_outcomes_in_one_read(store_db: Database) -> None:
    store, rows = ProgramStore(store_db), ScheduleStore(store_db)
    program = await store.save("evening", "[]", MOD, NOW)
    run = await store.start(program, "sim", NOW, 3, MOD, NOW)
    other = await store.start(program, "sim", NOW, 1, MOD, NOW)
    a, b = await _row(store_db, "evening.1.1"), await _row(store_db, "evening.1.2")
    await store.link(run.id, 1, a)
    await store.link(run.id, 2, b)
    due = NOW + timedelta(hours=1)
    first = await rows.begin_run(a, due, None, "done")
    assert first is not None
    await rows.finish_run(first, "queued")
    await rows.saw_in_game(a, int(due.timestamp() * 1000), "retry_exhausted", None)
    found = await store.step_rows([run.id, other.id, 999])
    assert [(r.step, r.schedule_id, r.row_state, r.due, r.outcome) for r in found[run.id]] == [
        (1, a, "done", due, "retry_exhausted"),  # the newest word on its run: the pack's
        (2, b, "active", due, None),
        (3, None, None, None, None),
    ]
    assert [r.step for r in found[other.id]] == [1] and found[999] == []
