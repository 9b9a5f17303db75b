"""Run history through the application layer, against mcsim with the pack over TCP RCON and a
scheduler on a manual clock: wall-clock runs (scheduled and run now) with who triggered them,
game-time runs the bot knows of, paging, and the retention (DOOM_HISTORY_DAYS) on that clock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pydantic
import pytest

from bot import errors
from bot.events.event import Event
from bot.operations import Operations, runs, schedule
from bot.operations.queue import TaskRef
from bot.services import build_services
from bot.store.schedules import ScheduleStore
from bot.testkit.harness import make_settings
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_operations import MOD, NOBODY, PASSWORD
from tests.fixtures import server_config

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
ADD = "scoreboard players add #n h 1"


@pytest.fixture
async def wall(
    mcsim: Callable[..., Server], tmp_path: Path
) -> AsyncIterator[tuple[Operations, ManualClock, Server]]:
    server = mcsim(password=PASSWORD)
    server.run("scoreboard objectives add h dummy")
    settings = make_settings(tmp_path, [server_config(server, PASSWORD)], history_days=30)
    services = await build_services(settings)
    clock = ManualClock(START)
    services.scheduler = Scheduler(ScheduleStore(services.db), services.servers, clock=clock)
    await services.scheduler.start()
    try:
        yield Operations(services, Recorder()), clock, server
    finally:
        await services.close()


async def test_a_rows_runs_and_its_run_now_are_its_history_newest_first(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, clock, server = wall
    scheduler = operations.scheduler()
    await schedule.schedule(
        operations, MOD, schedule.ScheduleRequest(run=ADD, id="hourly", repeat="1h")
    )
    for _ in range(3):
        clock.advance(3600)
        await scheduler.settled()
    clock.advance(60)
    await runs.run_now(operations, MOD, TaskRef(id="hourly"))
    assert server.score("#n", "h") == 4
    found = await runs.history(operations, MOD, runs.HistoryRequest(id="hourly"))
    assert found.total == 4 and found.pages == 1
    assert found.text == "Runs of `hourly` on main: 4 in the last 30 days, newest first."
    newest = found.entries[0]
    assert newest.triggered_by == "mod#0001" and newest.outcome == "ran"
    assert newest.due == START + timedelta(seconds=3 * 3600 + 60)
    assert [e.triggered_by for e in found.entries[1:]] == [None, None, None]
    assert [e.due for e in found.entries[1:]] == [START + timedelta(hours=h) for h in (3, 2, 1)]
    assert all(
        e.kind == "planned" and e.attempts == 1 and e.lateness == 0.0 for e in found.entries[1:]
    )
    assert all(e.handed_over is not None and e.ran is not None for e in found.entries)


async def test_history_pages_and_a_page_past_the_end_is_the_last(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, clock, _server = wall
    scheduler = operations.scheduler()
    await schedule.schedule(operations, MOD, schedule.ScheduleRequest(run=ADD, id="m", repeat="1m"))
    for _ in range(13):
        clock.advance(60)
        await scheduler.settled()
    first = await runs.history(operations, MOD, runs.HistoryRequest(id="m"))
    assert first.total == 13 and first.pages == 2 and len(first.entries) == runs.PAGE
    last = await runs.history(operations, MOD, runs.HistoryRequest(id="m", page=99))
    assert last.page == 2 and len(last.entries) == 3
    assert last.entries[-1].due == START + timedelta(minutes=1)
    assert {e.due for e in first.entries}.isdisjoint({e.due for e in last.entries})


async def test_runs_older_than_the_retention_are_pruned_on_the_clock(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, clock, _server = wall
    scheduler = operations.scheduler()
    await schedule.schedule(operations, MOD, schedule.ScheduleRequest(run=ADD, id="d", repeat="1d"))
    for _ in range(3):
        clock.advance(86400)
        await scheduler.settled()
    assert (await runs.history(operations, MOD, runs.HistoryRequest(id="d"))).total == 3
    clock.advance(29 * 86400)  # the first run is now 31 days old, the second 30, the third 29
    await scheduler.settled()  # the bot "slept" through 28 runs: one skip record, today's ran
    found = await runs.history(operations, MOD, runs.HistoryRequest(id="d"))
    day = START + timedelta(days=1)
    assert [(e.due - day).days for e in found.entries] == [31, 3, 2, 1]  # day 0: 31 days old
    assert [e.outcome for e in found.entries] == ["ran", "skipped 28", "ran", "ran"]
    # the game-time runs are kept as long, no longer
    history = operations.services.history
    await history.tasks.record("main", "d", due=clock.now() - timedelta(days=31), outcome="retry")
    await history.tasks.record("main", "d", due=clock.now(), outcome="retry")
    assert await history.prune() == 1
    assert (await runs.history(operations, MOD, runs.HistoryRequest(id="d"))).total == 5


async def test_a_game_time_tasks_run_now_and_its_pack_events_are_its_history(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, clock, _server = wall
    await schedule.schedule(
        operations, MOD, schedule.ScheduleRequest(run=ADD, time=90000, unit="tick", id="g", retry=2)
    )
    await runs.run_now(operations, MOD, TaskRef(id="g"))
    history = operations.services.history
    request = {"run": ADD, "id": "g", "retry": 2}
    clock.advance(5)
    event = Event("main", 1, "retry", "g", 100, {"retry": "1", "late": "40"})  # type: ignore[arg-type]
    await history.saw_event(event, request)
    await history.saw_event(Event("main", 2, "restored", "g", 101, {}), request)  # type: ignore[arg-type]
    found = await runs.history(operations, MOD, runs.HistoryRequest(id="g"))
    assert [(e.kind, e.outcome, e.attempts, e.triggered_by) for e in found.entries] == [
        ("game", "retry", 1, None),
        ("game", "ran", 1, "mod#0001"),
    ]
    assert found.entries[0].lateness == 2.0  # 40 ticks at 20 per second
    assert found.entries[0].due == START + timedelta(seconds=3)
    assert found.entries[1].due == START and found.entries[1].ran == START


async def test_history_is_for_moderators_and_an_unknown_id_has_none(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, _clock, _server = wall
    with pytest.raises(errors.NotAllowed):
        await runs.history(operations, NOBODY, runs.HistoryRequest(id="x"))
    found = await runs.history(operations, MOD, runs.HistoryRequest(id="x"))
    assert found.total == 0 and found.entries == () and found.pages == 1
    assert found.text == "No runs of `x` on main in the last 30 days."


def test_a_history_request_with_an_unknown_field_is_refused_naming_it() -> None:
    with pytest.raises(pydantic.ValidationError) as refused:
        runs.HistoryRequest.model_validate({"id": "x", "pages": 2})
    assert refused.value.errors()[0]["loc"] == ("pages",)
    with pytest.raises(pydantic.ValidationError):
        runs.HistoryRequest(id="x", page=0)
