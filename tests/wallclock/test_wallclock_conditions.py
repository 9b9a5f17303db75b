"""A wall-clock row's conditions (require, if_not, ...): stored with the row, handed to the pack
with each run (staged or not), checked by the pack when it runs; a bad one stores nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import errors
from bot.services import ServerServices
from bot.store.db import Database
from bot.store.schedules import ScheduleStore
from bot.times.clock import ManualClock
from bot.wallclock.due_heap import STAGE_LEAD
from tests.wallclock.wallclock_sim import (
    MOD,
    START,
    PackSim,
    count_runs,
    make_scheduler,
)

ADD = "scoreboard players add #runs wc 1"


def event_types(sim: PackSim) -> list[str]:
    entries = sim.server.storage("doom.schedule:events").get("entries", [])
    return [str(e["type"]) for e in entries]  # type: ignore[attr-defined, index]


async def test_a_row_runs_only_when_its_conditions_hold(
    sim: PackSim, server: ServerServices, tmp_path: Path
) -> None:
    clock = ManualClock(START)
    scheduler = make_scheduler(tmp_path / "bot.sqlite3", server, clock)
    await scheduler.start()
    try:
        sim.server.join("Ann")
        row = await scheduler.create(
            server="sim",
            command=ADD,
            task_id="two",
            created_by=MOD,
            when="in 10m",
            repeat="10m",
            conditions={"require": "players>=2"},
        )
        assert row.conditions == {"require": "players>=2"}
        again = await scheduler.get(row.id)
        assert again is not None and again.conditions == {"require": "players>=2"}
        clock.advance(600)
        await scheduler.settled()
        assert count_runs(sim) == 0 and event_types(sim)[-1] == "skipped"
        sim.server.join("Bob")
        clock.advance(600)
        await scheduler.settled()
        assert count_runs(sim) == 1 and event_types(sim)[-1] == "ran"
    finally:
        await scheduler.stop()


async def test_a_bad_condition_stores_nothing(
    sim: PackSim, server: ServerServices, tmp_path: Path
) -> None:
    clock = ManualClock(START)
    scheduler = make_scheduler(tmp_path / "bot.sqlite3", server, clock)
    await scheduler.start()
    try:
        with pytest.raises(errors.ValidationError, match="is not a condition") as refused:
            await scheduler.create(
                server="sim",
                command=ADD,
                task_id="bad",
                created_by=MOD,
                when="in 10m",
                conditions={"require": "player>=2"},
            )
        assert refused.value.field == "require"
        store = ScheduleStore(Database(tmp_path / "bot.sqlite3"))
        assert await store.find("sim", "bad") is None
    finally:
        await scheduler.stop()


async def test_a_staged_run_carries_its_conditions(
    sim: PackSim, server: ServerServices, tmp_path: Path
) -> None:
    clock = ManualClock(START)
    scheduler = make_scheduler(tmp_path / "bot.sqlite3", server, clock)
    await scheduler.start()
    try:
        sim.server.join("Ann")
        row = await scheduler.create(
            server="sim",
            command=ADD,
            task_id="quiet",
            created_by=MOD,
            when="in 10m",
            conditions={"require": "empty"},
        )
        clock.advance(600 - STAGE_LEAD)
        await scheduler.settled()
        staged = sim.server.storage("doom.schedule:in").get("staged", {})
        assert staged[f"w{row.id}"]["cond"] == {"max": 0, "wait": 0, "then": "skip"}  # type: ignore[index, call-overload]
        clock.advance(STAGE_LEAD)
        await scheduler.settled()
        assert count_runs(sim) == 0 and event_types(sim)[-1] == "skipped"
    finally:
        await scheduler.stop()
