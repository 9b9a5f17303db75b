"""The conditions of /schedule (require, if_not, max_wait, after_wait): the grammar, refusals
naming the option at fault with nothing sent or stored, and the pack checking them when the
task is due, through the application layer over TCP RCON to mcsim with fake players."""

from __future__ import annotations

from typing import Any

import pytest

from bot import errors
from bot.minecraft.conditions import describe, parse_conditions
from bot.operations import Caller, Operations, Rank, schedule
from mcsim.server import Server
from tests.bot.conftest import Recorder

PASSWORD = "conditions-Pw"
MOD = Caller(7002, "mod#0001", Rank.MODERATOR, "web", 0xABC)


@pytest.mark.parametrize(
    ("options", "pack"),
    [
        (("players>=2",), {"min": 2, "wait": 0, "then": "skip"}),
        (("players<5",), {"max": 4, "wait": 0, "then": "skip"}),
        (("empty", "wait", "10m", "run"), {"max": 0, "wait": 12000, "then": "run"}),
        (
            ("online:Steve_1, players>=3",),
            {"min": 3, "online": "Steve_1", "wait": 0, "then": "skip"},
        ),
    ],
)
def test_the_grammar(options: tuple[str, ...], pack: dict[str, Any]) -> None:
    found = parse_conditions(*options)
    assert found is not None and found.pack_fields() == pack


@pytest.mark.parametrize(
    ("options", "field", "says"),
    [
        (("players=>2",), "require", "is not a condition"),
        (("players>=3, players<2",), "require", "can never be met"),
        (("players<0",), "require", "fewer than 0"),
        (("online:two words",), "require", "not a player name"),
        (("online:Ann, online:Bob",), "require", "two players"),
        ((None, "wait"), "if_not", "give `require` too"),
        (("empty", "wait"), "max_wait", "needs `max_wait`"),
        (("empty", "skip", "5m"), "max_wait", "for `if_not:wait` only"),
        (("empty", "wait", "soon"), "max_wait", "not a duration"),
        (("empty", "wait", "8d"), "max_wait", "longer than a week"),
    ],
)
def test_bad_conditions_name_the_option(
    options: tuple[str | None, ...], field: str, says: str
) -> None:
    with pytest.raises(errors.ValidationError, match=says) as refused:
        parse_conditions(*options)
    assert refused.value.field == field


def queue(server: Server) -> list[dict[str, Any]]:
    return list(server.storage("doom.schedule:data").get("queue", []))  # type: ignore[call-overload]


def events(server: Server) -> list[dict[str, Any]]:
    return list(server.storage("doom.schedule:events").get("entries", []))  # type: ignore[call-overload]


async def test_players_at_least_two_skips_with_one_and_runs_with_two(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, server = ops
    server.join("Ann")
    req = schedule.ScheduleRequest(
        run="say restart", time=2, unit="tick", id="r1", require="players>=2"
    )
    await schedule.schedule(operations, MOD, req)
    assert queue(server)[0]["cond"]["min"] == 2
    assert recorder.entries[-1][3]["require"] == "players>=2"  # the audit says it
    server.step(3)
    assert queue(server) == [] and events(server)[-1]["type"] == "skipped"
    server.join("Bob")
    again = schedule.ScheduleRequest(
        run="say restart", time=2, unit="tick", id="r2", require="players>=2"
    )
    await schedule.schedule(operations, MOD, again)
    server.step(3)
    assert [(e["type"], e["id"]) for e in events(server)][-1] == ("ran", "r2")


async def test_empty_waits_until_the_last_player_leaves(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, _recorder, server = ops
    server.join("Ann")
    req = schedule.ScheduleRequest(
        run="say restart",
        time=1,
        unit="tick",
        id="restart",
        require="empty",
        if_not="wait",
        max_wait="10m",
        after_wait="run",
    )
    await schedule.schedule(operations, MOD, req)
    server.step(200)
    [waiting] = queue(server)
    assert waiting["cond"]["wait"] == 12000 and "until" in waiting["cond"]
    server.leave("Ann")
    server.step(21)
    assert queue(server) == [] and events(server)[-1]["type"] == "ran"


async def test_empty_runs_at_the_limit_when_nobody_leaves(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, _recorder, server = ops
    server.join("Ann")
    req = schedule.ScheduleRequest(
        run="say restart",
        time=1,
        unit="tick",
        id="restart",
        require="empty",
        if_not="wait",
        max_wait="10s",
        after_wait="run",
    )
    await schedule.schedule(operations, MOD, req)
    server.step(195)  # 10 s is 200 ticks from its first check
    assert events(server) == [] and len(queue(server)) == 1
    server.step(25)
    assert [e["type"] for e in events(server)][-2:] == ["waited", "ran"]
    assert queue(server) == []


async def test_a_bad_require_is_refused_and_nothing_is_stored(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, server = ops
    for wall in (False, True):
        when = {"when": "in 5m"} if wall else {"time": 5, "unit": "tick"}
        req = schedule.ScheduleRequest(run="say x", id="x", require="players>>2", **when)  # type: ignore[arg-type]
        with pytest.raises(errors.ValidationError, match="is not a condition") as refused:
            await schedule.schedule(operations, MOD, req)
        assert refused.value.field == "require"
    assert queue(server) == [] and recorder.entries == []


@pytest.mark.parametrize(
    ("options", "shown"),
    [
        (("players>=2, online:Ann",), "`players>=2, online:Ann`; if not: skip this run"),
        (("players<=3", "wait", "1h 30m"), "`players<4`; if not: wait up to 1h 30m, then skip"),
        (("empty", "wait", "90s", "run"), "`empty`; if not: wait up to 1m 30s, then run"),
    ],
)
def test_the_conditions_are_described_as_they_are_written(
    options: tuple[str, ...], shown: str
) -> None:
    found = parse_conditions(*options)
    assert found is not None
    assert describe(found.pack_fields()) == shown
