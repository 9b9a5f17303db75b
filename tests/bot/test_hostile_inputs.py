"""Hostile inputs to the pack client: each gets a clear error naming the problem, and nothing
changes in the game. Inputs the client can judge are refused before any round trip (the RCON
client's counter does not move); the rest are refused by the pack, which then changes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.errors import (
    BotError,
    CommandParseError,
    CommandRefused,
    CommandTooLong,
    PackError,
    ValidationError,
)
from bot.minecraft.pack_client import PackClient
from tests.bot.pack_sim import PackSim, start_sim

BIG = 2**31


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    args: tuple[Any, ...]
    error: type[BotError]
    says: str  # a phrase the message must contain: it names the problem
    kwargs: dict[str, Any] = field(default_factory=dict)
    pack_side: bool = False  # refused by the pack after a round trip, not by the client


def sched(name: str, run: str, error: type[BotError], says: str, **kw: Any) -> Case:
    args = (run, kw.pop("time", 5), kw.pop("unit", "t"), kw.pop("id", "ok-id"))
    pack_side = kw.pop("pack_side", False)
    return Case(name, "schedule", args, error, says, kw, pack_side)


CASES = [
    # the command text: one line, printable, not empty, small enough for RCON
    sched("newline", "say a\nsay b", ValidationError, "line break at position 6"),
    sched("carriage return", "say a\rb", ValidationError, "line break"),
    sched("line separator", "say a\u2028b", ValidationError, "line break"),
    sched("NUL", "say a\x00b", ValidationError, "control character U+0000"),
    sched("bell", "say \x07", ValidationError, "control character U+0007"),
    sched("DEL", "say \x7f", ValidationError, "control character U+007F"),
    sched("empty", "", ValidationError, "empty"),
    sched("blank", "   ", ValidationError, "empty"),
    sched("slash only", "/", ValidationError, "empty"),
    sched("leading space", " say hi", ValidationError, "spaces"),
    sched("too long", "say " + "x" * 1500, CommandTooLong, "1446 bytes"),
    sched("too long in UTF-8", "say " + "é" * 700, CommandTooLong, "1446 bytes"),
    sched("quotes double on escaping", "say " + '"' * 700, CommandTooLong, "Shorten the command"),
    sched("backslashes double", "say " + "\\" * 800, CommandTooLong, "1446 bytes"),
    sched("lone surrogate", "say \ud800", ValidationError, "surrogate"),
    # the deny-list and the parser, nested commands included
    sched("op", "op Steve", CommandRefused, "`op` is on this server's deny-list"),
    sched("deop @a", "deop @a", CommandRefused, "`deop`"),
    sched("stop", "stop", CommandRefused, "`stop`"),
    sched("ban", "ban Steve", CommandRefused, "`ban`"),
    sched("ban-ip", "ban-ip 1.2.3.4", CommandRefused, "`ban-ip`"),
    sched("pardon", "pardon Steve", CommandRefused, "`pardon`"),
    sched("whitelist", "whitelist off", CommandRefused, "`whitelist`"),
    sched("kick @a", "kick @a", CommandRefused, "`kick`"),
    sched("save-off", "save-off", CommandRefused, "`save-off`"),
    sched("reload", "reload", CommandRefused, "`reload`"),
    sched("datapack", 'datapack disable "file/doom.schedule"', CommandRefused, "`datapack`"),
    sched("op via execute", "execute as @a run op @s", CommandRefused, "inside"),
    sched("stop via execute", "execute run stop", CommandRefused, "`stop`"),
    sched("slash op", "/op Steve", CommandRefused, "`op`"),
    sched("unknown command", "notacommand foo", CommandParseError, "column 1"),
    sched("bad SNBT", 'data modify storage a:b x set value "open', CommandParseError, "column"),
    # ids
    sched("empty id", "say x", ValidationError, "task id is empty", id=""),
    sched("id with space", "say x", ValidationError, "a space at position 2", id="a b"),
    sched("selector id", "say x", ValidationError, "'@' at position 1", id="@a"),
    sched("quote id", "say x", ValidationError, "'\"' at position 2", id='a"b'),
    sched("backslash id", "say x", ValidationError, "position 2", id="a\\b"),
    sched("long id", "say x", ValidationError, "65 characters long", id="x" * 65),
    sched("accented id", "say x", ValidationError, "'é' at position 1", id="é"),
    sched("newline id", "say x", ValidationError, "U+000A at position 2", id="a\nb"),
    sched("SNBT id", "say x", ValidationError, "'{' at position 1", id="{x:1}"),
    # units and times
    sched("unknown unit", "say x", ValidationError, "'years' is not a time unit", unit="years"),
    sched("unit case", "say x", ValidationError, "'S' is not a time unit", unit="S"),
    sched("empty unit", "say x", ValidationError, "is not a time unit", unit=""),
    sched("unit with space", "say x", ValidationError, "is not a time unit", unit="t "),
    sched("negative time", "say x", ValidationError, "cannot be negative (got -1)", time=-1),
    sched("time over Int", "say x", ValidationError, "at most 2147483647 t", time=BIG),
    sched("huge time", "say x", ValidationError, "too large", time=2**62),
    sched("hours overflow", "say x", ValidationError, "at most 29826 h", time=29827, unit="h"),
    sched("days overflow", "say x", ValidationError, "at most 1242 d", time=1243, unit="d"),
    sched("fractional time", "say x", ValidationError, "whole number", time=1.5),
    sched("boolean time", "say x", ValidationError, "whole number", time=True),
    sched("zero interval", "say x", ValidationError, "less than 1", interval=0),
    sched("negative interval", "say x", ValidationError, "less than 1", interval=-5),
    sched("interval overflow", "say x", ValidationError, "too large", interval=BIG),
    sched("negative tick", "say x", ValidationError, "cannot be negative", at_tick=-1),
    sched("tick over Int", "say x", ValidationError, "too large", at_tick=BIG),
    sched("negative retry", "say x", ValidationError, "retries cannot be negative", retry=-1),
    sched("retry overflow", "say x", ValidationError, "too large", retry=BIG),
    sched("zero retry delay", "say x", ValidationError, "retry delay", retry=2, retry_delay=0),
    sched("negative retry delay", "say x", ValidationError, "retry delay", retry_delay=-3),
    # the player to run as
    sched("player @a", "say x", ValidationError, "'@a' is not a player name", as_player="@a"),
    sched("player @p", "say x", ValidationError, "selectors", as_player="@p"),
    sched("player with space", "say x", ValidationError, "not a player name", as_player="A B"),
    sched("long player", "say x", ValidationError, "1 to 16", as_player="x" * 17),
    sched("empty player", "say x", ValidationError, "not a player name", as_player=""),
    sched("player newline", "say x", ValidationError, "not a player name", as_player="Al\n"),
    # the other calls
    Case("cancel @a", "cancel_one", ("@a",), ValidationError, "'@' at position 1"),
    Case("cancel_all space", "cancel_all", ("a b",), ValidationError, "a space"),
    Case("count quote", "count", ('"',), ValidationError, "'\"' at position 1"),
    Case("pause empty", "pause", ("",), ValidationError, "empty"),
    Case("resume long", "resume", ("x" * 65,), ValidationError, "at most 64"),
    Case("show backslash", "show", ("a\\b",), ValidationError, "position 2"),
    Case("no such list", "list_tasks", ("queue2",), ValidationError, "not a task list"),
    Case("page of 0", "list_tasks", ("queue",), ValidationError, "1 to 100", {"limit": 0}),
    Case("huge page", "list_tasks", ("queue",), ValidationError, "1 to 100", {"limit": 1000}),
    Case("negative offset", "list_tasks", ("queue",), ValidationError, "0 or more", {"offset": -1}),
    Case(
        "dynamic negative", "schedule_dynamic", ("say x", -1, "t", "p"), ValidationError, "negative"
    ),
    Case("dynamic op", "schedule_dynamic", ("op @a", 1, "t", "p"), CommandRefused, "`op`"),
    Case(
        "dynamic prefix",
        "schedule_dynamic",
        ("say x", 1, "t", "p" * 55),
        ValidationError,
        "at most 54",
    ),
    Case(
        "dynamic @ prefix",
        "schedule_dynamic",
        ("say x", 1, "t", "@a"),
        ValidationError,
        "id prefix",
    ),
    # only the pack knows the game time: a due tick past the Int is its refusal
    sched(
        "due past Int",
        "say x",
        PackError,
        "past game time 2147483647",
        time=2**31 - 5,
        pack_side=True,
    ),
]


def test_the_table_is_big_enough() -> None:
    assert len(CASES) >= 50
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PackSim]:
    sim = start_sim(tmp_path_factory.mktemp("hostile") / "world")
    sim.server.step(20)  # game time > 0, so "due past Int" overflows
    sim.server.join("Alex")
    yield sim
    sim.server.stop()


@pytest.fixture
async def pack(shared: PackSim) -> AsyncIterator[PackClient]:
    shared.reset()
    client = shared.client()
    await client.schedule("say keep me", 500, "t", "keep")  # something to stay unchanged
    try:
        yield client
    finally:
        await client.rcon.close()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_hostile_input_is_refused_and_changes_nothing(
    case: Case, shared: PackSim, pack: PackClient
) -> None:
    before = shared.data()
    inputs_before = shared.server.storage("doom.schedule:in")
    trips = pack.rcon.round_trips
    with pytest.raises(case.error) as info:
        await getattr(pack, case.method)(*case.args, **case.kwargs)
    message = str(info.value)
    assert case.says in message, message
    assert len(message) < 400 and "Traceback" not in message
    if not case.pack_side:
        assert pack.rcon.round_trips == trips, "refused only after a round trip"
    after = shared.data()
    for key in ("queue", "offline", "paused", "serial", "dyn"):
        assert after.get(key) == before.get(key), key
    assert shared.server.storage("doom.schedule:in") == inputs_before
    assert shared.ids() == ["keep"]
