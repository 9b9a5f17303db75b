"""A task's policy after a crash (`on_doubt`, bot.background.doubt) set through /schedule's
operation, against mcsim with the pack over TCP RCON: a game-time task's reaches the bot's record
of it (the ledger request the crash guard reads); a wall-clock row keeps it and each hand-over of
a run carries it into that record; /show says it; the default is skip."""

from __future__ import annotations

import pytest

from bot.operations import Operations, reads, runs, schedule
from bot.operations.queue import TaskRef
from bot.services import ServerServices
from bot.store.ledger import Entry
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_operations import MOD

ADD = "scoreboard players add #n t 1"


async def recorded(target: ServerServices, task_id: str) -> list[Entry]:
    assert target.guard is not None
    return [e for e in await target.guard.ledger.entries() if e.task_id == task_id]


@pytest.mark.parametrize("given", ["save", None], ids=["with-an-id", "generated-id"])
async def test_a_game_time_task_s_policy_reaches_the_ledger_request(
    ops: tuple[Operations, Recorder, Server], given: str | None
) -> None:
    operations, recorder, _server = ops
    made = await schedule.schedule(
        operations,
        MOD,
        schedule.ScheduleRequest(
            run="time set day", time=9000, unit="tick", on_doubt="run", id=given
        ),
    )
    target = operations.server(None)
    [entry] = await recorded(target, made.task_id)
    assert entry.request["on_doubt"] == "run" and entry.on_doubt == "run"
    assert recorder.entries[-1][3]["on_doubt"] == "run"  # the audit entry says it
    shown = await reads.show(operations, MOD, TaskRef(id=made.task_id))
    assert shown.task is not None and shown.on_doubt == "run"


async def test_without_a_policy_a_game_time_task_is_skipped_in_doubt(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, _server = ops
    await schedule.schedule(
        operations, MOD, schedule.ScheduleRequest(run="say hi", time=9000, unit="tick", id="hi")
    )
    [entry] = await recorded(operations.server(None), "hi")
    assert "on_doubt" not in entry.request and entry.on_doubt == "skip"
    assert "on_doubt" not in recorder.entries[-1][3]
    assert (await reads.show(operations, MOD, TaskRef(id="hi"))).on_doubt == "skip"


async def test_a_wall_clock_row_keeps_its_policy_and_its_hand_over_carries_it(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, server = ops
    server.run("scoreboard objectives add t dummy")
    made = await schedule.schedule(
        operations,
        MOD,
        schedule.ScheduleRequest(run=ADD, id="nightly", when="in 90m", on_doubt="run"),
    )
    assert made.planned is not None and made.planned.on_doubt == "run"
    row = await operations.scheduler().get(made.planned.id)
    assert row is not None and row.on_doubt == "run"  # stored, read back
    assert recorder.entries[-1][3]["on_doubt"] == "run"
    assert (await reads.show(operations, MOD, TaskRef(id="nightly"))).on_doubt == "run"
    # a run handed over (here the one run now): the bot's record of its task has the policy
    done = await runs.run_now(operations, MOD, TaskRef(id="nightly"))
    assert done.where == "ran" and server.score("#n", "t") == 1
    [entry] = await recorded(operations.server(None), "nightly")
    assert entry.request["on_doubt"] == "run" and entry.on_doubt == "run"


async def test_a_wall_clock_row_without_a_policy_hands_over_the_default(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, _recorder, server = ops
    server.run("scoreboard objectives add t dummy")
    made = await schedule.schedule(
        operations, MOD, schedule.ScheduleRequest(run=ADD, id="plain", when="in 90m")
    )
    assert made.planned is not None and made.planned.on_doubt == "skip"
    await runs.run_now(operations, MOD, TaskRef(id="plain"))
    [entry] = await recorded(operations.server(None), "plain")
    assert "on_doubt" not in entry.request and entry.on_doubt == "skip"
