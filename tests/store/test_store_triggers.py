"""bot.store.triggers on both engines: a firing once per occurrence, none inside the cool-down or
past the day's limit (alerted once a window), none while paused; two processes firing at once
make one firing; a firing's run is made once; removal keeps the runs; migration 0006."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from bot.store.db import Database
from bot.store.programs import ProgramStore
from bot.store.schedules import Creator
from bot.store.triggers import TriggerSpec, TriggerStore
from bot.triggers.model import check_trigger

MOD = Creator(7002, "mod#0001")
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _spec(name: str = "welcome", *, cooldown: str = "1m", per_day: int = 3) -> TriggerSpec:
    return check_trigger(
        name=name, kind="join", program="evening", server="sim", cooldown=cooldown, per_day=per_day
    )


async def test_once_per_occurrence_the_cooldown_and_the_days_limit(store_db: Database) -> None:
    store = TriggerStore(store_db)
    trigger = await store.add(_spec(), MOD, NOW)
    assert trigger is not None and trigger.enabled and trigger.spec.cooldown == 60
    assert await store.add(_spec(), MOD, NOW) is None  # one trigger a name

    first = await store.fire(trigger, "line:a:1", NOW, "Steve")
    assert first.result == "fired" and first.fire is not None and first.fire.player == "Steve"
    assert (await store.fire(trigger, "line:a:1", NOW + timedelta(hours=1))).result == "repeat"
    assert (await store.fire(trigger, "line:a:2", NOW + timedelta(seconds=59))).result == (
        "cooldown"
    )
    assert (await store.fire(trigger, "line:a:3", NOW + timedelta(seconds=60))).result == "fired"
    assert (await store.fire(trigger, "line:a:4", NOW + timedelta(seconds=120))).result == "fired"
    limited = await store.fire(trigger, "line:a:5", NOW + timedelta(seconds=180))
    assert (limited.result, limited.say) == ("limited", True)
    again = await store.fire(trigger, "line:a:6", NOW + timedelta(seconds=240))
    assert (again.result, again.say) == ("limited", False)  # said once a window
    now = await store.get("welcome", NOW + timedelta(seconds=240))
    assert now is not None and now.day_count == 3
    day_later = await store.fire(trigger, "line:a:7", NOW + timedelta(days=1))
    assert day_later.result == "fired"
    assert [f.occurrence for f in await store.fires(trigger.id)] == [
        "line:a:7",
        "line:a:4",
        "line:a:3",
        "line:a:1",
    ]
    limited_again = await store.fire(trigger, "x", NOW + timedelta(days=1, minutes=5))
    assert limited_again.result == "fired"  # the new window counts from its first firing


async def test_paused_fires_nothing_and_resumes(store_db: Database) -> None:
    store = TriggerStore(store_db)
    trigger = await store.add(_spec(), MOD, NOW)
    assert trigger is not None
    paused = await store.set_enabled("welcome", False)
    assert paused is not None and not paused.enabled
    assert await store.set_enabled("welcome", False) is None  # already
    assert (await store.fire(trigger, "o", NOW)).result == "off"
    assert await store.set_enabled("welcome", True) is not None
    assert (await store.fire(trigger, "o", NOW)).result == "fired"
    assert await store.set_enabled("nothing", True) is None


async def test_two_processes_firing_at_once_make_one_firing(store_db: Database) -> None:
    """Two stores (two processes' connections) fire the same trigger 20 times at once, on the
    same occurrence and on distinct ones inside the cool-down: one firing each round."""
    store = TriggerStore(store_db)
    trigger = await store.add(_spec(cooldown="10m", per_day=1440), MOD, NOW)
    assert trigger is not None
    other = Database(store_db.path if store_db.path is not None else store_db.url)
    try:
        stores = (store, TriggerStore(other))
        for round_ in range(20):
            at = NOW + timedelta(minutes=11 * round_)
            same = await asyncio.gather(*(s.fire(trigger, f"same:{round_}", at) for s in stores))
            assert sorted(o.result for o in same) == ["fired", "repeat"]
            later = at + timedelta(minutes=5, seconds=30)
            distinct = await asyncio.gather(
                *(s.fire(trigger, f"d:{round_}:{n}", later) for n, s in enumerate(stores))
            )
            assert [o.result for o in distinct] == ["cooldown", "cooldown"]
        assert len(await store.fires(trigger.id, limit=100)) == 20
    finally:
        await other.close()


async def test_a_firings_run_is_made_once_and_outlives_the_trigger(store_db: Database) -> None:
    store, programs = TriggerStore(store_db), ProgramStore(store_db)
    trigger = await store.add(_spec(), MOD, NOW)
    assert trigger is not None
    fired = await store.fire(trigger, "o", NOW, "Alex")
    assert fired.fire is not None
    assert [f.id for f, _t in await store.pending()] == [fired.fire.id]
    program = await programs.save("evening", "[]", MOD, NOW)
    run = await programs.start(
        program, "sim", NOW, 2, MOD, NOW, fire_id=fired.fire.id, player="Alex"
    )
    twice = await programs.start(
        program, "sim", NOW, 2, MOD, NOW, fire_id=fired.fire.id, player="Alex"
    )
    assert twice.id == run.id and run.player == "Alex" and run.fire_id == fired.fire.id
    assert len(await programs.runs()) == 1
    await store.settle(fired.fire.id, "started")
    assert await store.pending() == []
    assert await store.remove("welcome")
    assert not await store.remove("welcome")
    kept = await programs.run(run.id)
    assert kept is not None and kept.fire_id is None and kept.player == "Alex"
    assert await store.get("welcome") is None


async def test_the_migration_adds_triggers_to_a_database_one_revision_behind(
    store_db: Database,
) -> None:
    """Migration 0006 on each engine: a database at 0005 gets the trigger tables and the runs'
    new columns, which work."""
    async with store_db.begin() as conn:
        for table in ("program_repeat_runs", "program_repeats"):
            await conn.execute(text(f"DROP TABLE {table}"))
        await conn.execute(text("DROP INDEX program_runs_fire"))
        await conn.execute(text("ALTER TABLE program_runs DROP COLUMN fire_id"))
        await conn.execute(text("ALTER TABLE program_runs DROP COLUMN player"))
        for table in ("trigger_fires", "triggers"):
            await conn.execute(text(f"DROP TABLE {table}"))
        await conn.execute(text("UPDATE alembic_version SET version_num = '0005'"))
    url = store_db.url.render_as_string(hide_password=False)
    await store_db.close()
    again = Database(store_db.path if store_db.path is not None else url)
    try:
        async with again.connect() as conn:
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
        assert [tuple(v) for v in version] == [("0007",)]
        store = TriggerStore(again)
        trigger = await store.add(_spec(), MOD, NOW)
        assert trigger is not None
        fired = await store.fire(trigger, "o", NOW)
        assert fired.fire is not None
        programs = ProgramStore(again)
        program = await programs.save("evening", "[]", MOD, NOW)
        run = await programs.start(program, "sim", NOW, 1, MOD, NOW, fire_id=fired.fire.id)
        assert run.fire_id == fired.fire.id
    finally:
        await again.close()
