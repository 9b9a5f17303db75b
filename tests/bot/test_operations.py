"""The application layer on its own, against mcsim with the pack over TCP RCON: the rank checks,
the request models, the audit entry each change leaves, whichever face asks."""

from __future__ import annotations

import pydantic
import pytest

from bot import errors
from bot.operations import Caller, Operations, Rank, queue, reads, schedule
from mcsim.server import Server
from tests.bot.conftest import Recorder

PASSWORD = "operations-Pw"
MOD = Caller(7002, "mod#0001", Rank.MODERATOR, "web", 0xABC)
ADMIN = Caller(7001, "admin#0001", Rank.ADMIN, "console", 0xDEF)
NOBODY = Caller(7003, "player#0001", Rank.NONE, "api", 0x123)


def queued(server: Server) -> list[str]:
    return [str(t["id"]) for t in server.storage("doom.schedule:data").get("queue", [])]  # type: ignore[attr-defined]


async def test_a_moderator_schedules_and_the_change_is_audited_with_its_face(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, server = ops
    made = await schedule.schedule(
        operations,
        MOD,
        schedule.ScheduleRequest(run="say hi", time=100, unit="tick", id="greet", retry=2),
    )
    assert made.text.startswith("Scheduled `greet` on main.") and made.task is not None
    assert "nobody is online on main" in made.text  # it pauses when empty: said
    assert made.task.retry_left == 2 and queued(server) == ["greet"]
    generated = await schedule.schedule(
        operations, MOD, schedule.ScheduleRequest(run="say x", time=5, unit="tick", retry=1)
    )
    assert generated.task_id == "web-abc"  # from the caller's face and request number
    assert [(e[0], e[2]) for e in recorder.entries] == [("web", "schedule"), ("web", "schedule")]
    paused = await queue.pause(operations, MOD, queue.TaskRef(id="greet"))
    assert paused.done and paused.text == "Paused `greet`."
    missing = await queue.cancel(operations, MOD, queue.TaskRef(id="nope"))
    assert not missing.done and missing.text == "No task `nope` on main."
    assert [e[2] for e in recorder.entries][-2:] == ["pause", "cancel"]


@pytest.mark.parametrize(
    ("caller", "operation"),
    [
        (
            NOBODY,
            lambda o, c: schedule.schedule(
                o, c, schedule.ScheduleRequest(run="say a", time=1, unit="tick")
            ),
        ),
        (NOBODY, lambda o, c: queue.cancel(o, c, queue.TaskRef(id="a"))),
        (MOD, lambda o, c: queue.clear(o, c, queue.ServerRef())),
    ],
    ids=["nobody-schedules", "nobody-cancels", "moderator-clears"],
)
async def test_a_rank_below_the_operation_is_refused_and_nothing_changes(
    ops: tuple[Operations, Recorder, Server], caller: Caller, operation: object
) -> None:
    operations, recorder, server = ops
    await schedule.schedule(
        operations, ADMIN, schedule.ScheduleRequest(run="say k", time=900, unit="tick", id="k")
    )
    before = list(recorder.entries)
    with pytest.raises(errors.NotAllowed) as refused:
        await operation(operations, caller)  # type: ignore[operator]
    role = "admin" if caller is MOD else "moderator"
    assert str(refused.value).startswith(f"You need the {role} role to use /")
    assert queued(server) == ["k"] and recorder.entries == before


async def test_an_admin_clears(ops: tuple[Operations, Recorder, Server]) -> None:
    operations, recorder, server = ops
    await schedule.schedule(
        operations, MOD, schedule.ScheduleRequest(run="say k", time=900, unit="tick", id="k")
    )
    cleared = await queue.clear(operations, ADMIN, queue.ServerRef())
    assert cleared.text == "Removed 1 task(s) from main." and queued(server) == []
    assert recorder.entries[-1][:3] == ("console", "main", "clear")


def test_a_request_with_an_unknown_field_is_refused_naming_it() -> None:
    with pytest.raises(pydantic.ValidationError) as bad:
        schedule.ScheduleRequest.model_validate({"run": "say x", "when": "in 5m", "time0": 0})
    assert [e["loc"] for e in bad.value.errors()] == [("time0",)]
    with pytest.raises(pydantic.ValidationError):
        schedule.ScheduleRequest(run="say x", time=-1)
    with pytest.raises(pydantic.ValidationError):
        queue.TaskRef(id="x" * 65)


async def test_wall_clock_and_game_time_options_do_not_mix(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, server = ops
    request = schedule.ScheduleRequest(run="say x", time=5, unit="tick", when="in 5m")
    with pytest.raises(errors.ValidationError) as mixed:
        await schedule.schedule(operations, MOD, request)
    assert "`when` set a wall-clock time and `time` a game time" in str(mixed.value)
    assert queued(server) == [] and recorder.entries == []


async def test_a_page_past_the_end_is_the_last_page(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations = ops[0]
    for i in range(12):
        await schedule.schedule(
            operations,
            MOD,
            schedule.ScheduleRequest(run="say p", time=900 + i, unit="tick", id=f"p{i:02d}"),
        )
    late = await reads.page(operations, MOD, reads.ListRequest(page=99))
    assert (late.page, late.pages, late.total) == (1, 2, 12)
    assert [t.id for t in late.tasks] == ["p10", "p11"]
    with pytest.raises(errors.NotAllowed):
        await reads.page(operations, NOBODY, reads.ListRequest())
    shown = await reads.show(operations, MOD, queue.TaskRef(id="p03"))
    assert shown.task is not None and shown.task.due > 900 and shown.planned is None
