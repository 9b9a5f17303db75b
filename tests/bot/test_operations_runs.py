"""Run now through the application layer against mcsim with the pack over TCP RCON: a queued
game-time task runs once and stays queued at its due; a planned wall-clock row runs once as an
extra run triggered by the caller and keeps its next due; both audited; refused below the rank."""

from __future__ import annotations

import pytest

from bot import errors
from bot.operations import Operations, runs, schedule
from bot.operations.queue import TaskRef
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_operations import MOD, NOBODY

ADD = "scoreboard players add #n t 1"


def queue_of(server: Server) -> list[tuple[str, int]]:
    data = server.storage("doom.schedule:data")
    return [(str(t["id"]), int(t["due"])) for t in data.get("queue", [])]  # type: ignore[attr-defined]


async def test_a_queued_task_runs_once_now_and_stays_queued_at_its_due(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, server = ops
    server.run("scoreboard objectives add t dummy")
    await schedule.schedule(
        operations,
        MOD,
        schedule.ScheduleRequest(run=ADD, time=90000, unit="tick", id="later", retry=1),
    )
    before = queue_of(server)
    done = await runs.run_now(operations, MOD, TaskRef(id="later"))
    assert done.done and done.where == "ran"
    assert done.text == "Ran `later` on main now; its schedule is unchanged."
    assert server.score("#n", "t") == 1
    assert queue_of(server) == before  # still queued, at the same due
    assert recorder.entries[-1][:4] == ("web", "main", "run_now", {"id": "later"})
    assert server.storage("doom.bot:wallclock").get("done", {}) == {}  # its mark is gone


async def test_run_now_of_an_unknown_id_changes_nothing(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, _server = ops
    missing = await runs.run_now(operations, MOD, TaskRef(id="nope"))
    assert not missing.done and missing.text == "No task `nope` on main."
    assert recorder.entries == []


async def test_run_now_still_applies_the_command_check(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, server = ops
    # queued by the console, outside the bot's check; the deny-list refuses /stop
    server.run(
        'data modify storage doom.schedule:in task set value {id:"halt",run:"stop",time:9000}'
    )
    server.run("function doom.schedule:submit")
    assert [i for i, _ in queue_of(server)] == ["halt"]
    with pytest.raises(errors.CommandRefused):
        await runs.run_now(operations, MOD, TaskRef(id="halt"))
    assert server.running and recorder.entries == []


async def test_a_planned_row_runs_now_as_an_extra_run_triggered_by_the_caller(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, server = ops
    server.run("scoreboard objectives add t dummy")
    made = await schedule.schedule(
        operations, MOD, schedule.ScheduleRequest(run=ADD, id="nightly", when="in 90m")
    )
    assert made.planned is not None
    done = await runs.run_now(operations, MOD, TaskRef(id="nightly"))
    assert done.done and done.where == "ran" and done.run is not None
    assert server.score("#n", "t") == 1
    assert done.run.triggered_by == "mod#0001" and done.run.attempts == 1
    scheduler = operations.scheduler()
    row = await scheduler.get(made.planned.id)
    assert row is not None and row.state == "active"
    assert row.next_due == made.planned.next_due  # its schedule is unchanged
    assert [r.outcome for r in await scheduler.runs(row.id)] == ["ran"]
    assert recorder.entries[-1][2] == "run_now"


async def test_run_now_below_moderator_is_refused(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, _server = ops
    with pytest.raises(errors.NotAllowed):
        await runs.run_now(operations, NOBODY, TaskRef(id="x"))
    assert recorder.entries == []


async def test_the_copy_runs_as_the_task_s_player_and_at_the_task_s_place(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, _recorder, server = ops
    server.join("Alex")
    await schedule.schedule(
        operations,
        MOD,
        schedule.ScheduleRequest(
            run="say hello", time=90000, unit="tick", id="greet", as_player="Alex"
        ),
    )
    assert (await runs.run_now(operations, MOD, TaskRef(id="greet"))).where == "ran"
    assert "[Alex] hello" in server.chat("Alex")
    # queued from the nether at 8 70 8 by nobody: the copy runs there, not at RCON's place
    server.run("scoreboard objectives add t dummy")
    server.run(
        'data modify storage doom.schedule:in task set value {id:"here",time:9000,'
        'run:"execute if dimension minecraft:the_nether if entity @p[distance=..3] run '
        'scoreboard players add #n t 1"}'
    )
    server.join("Steve", pos=(8, 70, 8), dimension="minecraft:the_nether")
    server.run(
        "execute in minecraft:the_nether positioned 8 70 8 run function doom.schedule:submit"
    )
    assert (await runs.run_now(operations, MOD, TaskRef(id="here"))).where == "ran"
    assert server.score("#n", "t") == 1
