"""bot.store.program_repeats on both engines: a repeat keeps its Spec; each occurrence on each
server is decided once, whichever of two processes (two stores on one database) starts or
misses it at the same moment; stop stops once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from bot.store.db import Database
from bot.store.program_repeats import RepeatStore
from bot.store.programs import OccurrenceDecided, ProgramRun, ProgramStore
from bot.store.schedules import Creator
from bot.times.when import build_spec

MOD = Creator(7002, "mod#0001")
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
TWICE = 5  # starts of one occurrence at once, from each of two processes


@pytest.fixture
async def second(store_db: Database) -> AsyncIterator[Database]:
    """Another process's connection to the same database."""
    url = store_db.url.render_as_string(hide_password=False)
    db = Database(store_db.path if store_db.path is not None else url)
    try:
        yield db
    finally:
        await db.close()


async def test_a_repeat_keeps_its_spec_and_stops_once(store_db: Database) -> None:
    store = RepeatStore(store_db)
    spec = build_spec(
        None, "30 2 * * *", "Europe/Berlin", None, now=NOW, dst_repeated="both", dst_skipped="skip"
    )
    made = await store.add("evening", "build", ["main", "creative"], "30 2 * * *", spec, MOD, NOW)
    found = await store.get(made.id)
    assert found == made
    assert found.spec == spec and found.servers == ("main", "creative")
    every = build_spec(None, "1d", None, None, now=NOW)
    daily = await store.add("daily", "main", ["main"], "1d", every, MOD, NOW)
    assert daily.spec == every
    assert await store.stop(made.id) is not None
    assert await store.stop(made.id) is None
    assert [r.id for r in await store.repeats(("active",))] == [daily.id]


async def test_two_processes_starting_one_occurrence_at_once_make_one_run(
    store_db: Database, second: Database
) -> None:
    repeats = RepeatStore(store_db)
    stores = (ProgramStore(store_db), ProgramStore(second))
    program = await stores[0].save("daily", "[]", MOD, NOW)
    spec = build_spec(None, "1d", None, None, now=NOW)
    repeat = await repeats.add("daily", "sim", ["sim"], "1d", spec, MOD, NOW)
    at = spec.first_due

    async def start(store: ProgramStore, server: str) -> ProgramRun:
        return await store.start(program, server, at, 2, MOD, at, occurrence=(repeat.id, at))

    runs = await asyncio.gather(*(start(s, "sim") for s in stores for _ in range(TWICE)))
    assert len({r.id for r in runs}) == 1
    assert len(await stores[0].runs()) == 1
    # another server's occurrence at the same instant is its own
    other = await start(stores[1], "lobby")
    assert other.id != runs[0].id
    decided = await repeats.occurrences(repeat.id)
    assert sorted((o.server, o.state, o.run_id) for o in decided) == [
        ("lobby", "started", other.id),
        ("sim", "started", runs[0].id),
    ]
    assert await repeats.newest([repeat.id]) == {(repeat.id, "sim"): at, (repeat.id, "lobby"): at}
    # a look repeated after a crash: recorded missed now is refused, as is a start again
    assert not await repeats.decide(repeat.id, "sim", at, "missed", at)
    assert (await start(stores[0], "sim")).id == runs[0].id


async def test_an_occurrence_missed_by_one_and_started_by_another_is_one_of_them(
    store_db: Database, second: Database
) -> None:
    programs = (ProgramStore(store_db), ProgramStore(second))
    repeats = (RepeatStore(store_db), RepeatStore(second))
    program = await programs[0].save("daily", "[]", MOD, NOW)
    spec = build_spec(None, "1h", None, None, now=NOW)
    repeat = await repeats[0].add("daily", "sim", ["sim"], "1h", spec, MOD, NOW)
    for hour in range(4):
        at = spec.first_due + timedelta(hours=hour)

        async def started(at: datetime = at) -> bool:
            try:
                await programs[1].start(program, "sim", at, 1, MOD, at, occurrence=(repeat.id, at))
            except OccurrenceDecided:
                return False
            return True

        missed, ran = await asyncio.gather(
            repeats[0].decide(repeat.id, "sim", at, "missed", at, skipped=1), started()
        )
        assert missed != ran, hour
        (only,) = [o for o in await repeats[0].occurrences(repeat.id) if o.occurrence == at]
        assert only.state == ("started" if ran else "missed")
        assert (only.run_id is not None) == ran
    assert len(await programs[0].runs()) == sum(
        1 for o in await repeats[0].occurrences(repeat.id) if o.state == "started"
    )


async def test_the_migration_adds_the_repeats_to_a_database_one_revision_behind(
    store_db: Database,
) -> None:
    """Migration 0007 on each engine: a database at 0006 gets the two tables, which work."""
    async with store_db.begin() as conn:
        for table in ("program_repeat_runs", "program_repeats"):
            await conn.execute(text(f"DROP TABLE {table}"))
        await conn.execute(text("UPDATE alembic_version SET version_num = '0006'"))
    url = store_db.url.render_as_string(hide_password=False)
    await store_db.close()
    again = Database(store_db.path if store_db.path is not None else url)
    try:
        async with again.connect() as conn:
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
        assert [tuple(v) for v in version] == [("0007",)]
        spec = build_spec(None, "1d", None, None, now=NOW)
        repeat = await RepeatStore(again).add("daily", "sim", ["sim"], "1d", spec, MOD, NOW)
        program = await ProgramStore(again).save("daily", "[]", MOD, NOW)
        at = spec.first_due
        run = await ProgramStore(again).start(
            program, "sim", at, 1, MOD, at, occurrence=(repeat.id, at)
        )
        assert await RepeatStore(again).newest([repeat.id]) == {(repeat.id, "sim"): at}
        assert (await RepeatStore(again).occurrences(repeat.id))[0].run_id == run.id
    finally:
        await again.close()
