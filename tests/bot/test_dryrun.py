"""`/dryrun` against mcsim with the pack over TCP RCON: what it says a request would do is what
the same request, scheduled for real afterwards, does (its command and player, its game ticks,
a wall-clock row's runs, DST notes and announcements over a clock change on a manual clock, its
conditions against the players online); the dry run itself only reads the server (`time query
gametime`, `list`) and leaves the pack's storage, the store's rows and the audit as they were;
a bad request is refused in /schedule's words; the console reaches it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from bot import errors
from bot.operations import Operations, registry, schedule
from bot.operations.facts import planned_row
from bot.services import build_services
from bot.store.schedules import ScheduleStore
from bot.testkit.harness import MOD as MOD_USER
from bot.testkit.harness import make_settings
from bot.times.clock import ManualClock
from bot.times.when import next_runs
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_operations import MOD, PASSWORD
from tests.console.typed import typed
from tests.fixtures import said_in_logs, server_config

READS = {"time query gametime", "list"}  # all a dry run may send
STORAGES = ("doom.schedule:data", "doom.schedule:in", "doom.schedule:out", "doom.bot:wallclock")
# three days before Berlin's clocks go back (2026-10-25, 03:00 CEST -> 02:00 CET)
AUTUMN = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)


def sent(operations: Operations) -> list[str]:
    """Every command the bot sends the server from now on."""
    rcon = operations.server(None).rcon
    seen: list[str] = []
    original = rcon.command

    async def command(text: str) -> str:
        seen.append(text)
        return await original(text)

    rcon.command = command  # type: ignore[method-assign]
    return seen


def state(server: Server) -> tuple[Any, ...]:
    """What a change to the server would show: the pack's storages and its serial counter."""
    return (*(server.storage(s) for s in STORAGES), server.score("#serial", "doom.schedule"))


async def tried(operations: Operations, server: Server, request: dict[str, Any]) -> registry.Done:
    """The dry run through the registry (as every face runs it), checked to have sent the
    server nothing but reads and to have changed nothing there, in the store or the audit."""
    name = operations.server(None).name
    store = operations.scheduler().store
    before, rows = state(server), await store.planned(name)
    recorder = operations.auditor
    assert isinstance(recorder, Recorder)
    audited = list(recorder.entries)
    seen = sent(operations)
    try:
        done = await registry.run(operations, MOD, "dryrun", request)
    finally:
        del operations.server(None).rcon.command  # the client's own method again
    assert set(seen) <= READS, seen
    assert state(server) == before
    assert await store.planned(name) == rows
    assert recorder.entries == audited
    return done


@pytest.fixture
async def wall(
    mcsim: Callable[..., Server], tmp_path: Path
) -> AsyncIterator[tuple[Operations, ManualClock, Server]]:
    """The operations on mcsim, the wall-clock scheduler started on a manual clock."""
    server = mcsim(password=PASSWORD)
    server.run("scoreboard objectives add dry dummy")
    settings = make_settings(tmp_path, [server_config(server, PASSWORD)])
    services = await build_services(settings)
    clock = ManualClock(AUTUMN)
    services.scheduler = Scheduler(ScheduleStore(services.db), services.servers, clock=clock)
    await services.scheduler.start()
    try:
        yield Operations(services, Recorder()), clock, server
    finally:
        await services.close()


def queued(server: Server) -> list[dict[str, Any]]:
    return list(server.storage("doom.schedule:data").get("queue", []))  # type: ignore[call-overload]


async def test_a_repeating_game_time_task_as_a_player_runs_what_its_dry_run_said(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, _clock, server = wall
    uuid = server.join("Steve")
    request = {
        "run": "scoreboard players add @s dry 1",
        "time": 5,
        "unit": "second",
        "every": 2,
        "id": "tick-tock",
        "as_player": "Steve",
        "require": "online:Steve",
    }
    done = await tried(operations, server, request)
    facts = done.facts
    now = server.game_time
    assert facts["kind"] == "game" and facts["game_time"] == now
    assert facts["commands"] == [
        {"command": "scoreboard players add @s dry 1", "executor": "Steve"}
    ]
    assert facts["due_ticks"] == [now + 100 + 40 * k for k in range(10)]
    estimated = [datetime.fromisoformat(t) for t in facts["estimated_runs"]]
    assert [(t - estimated[0]).total_seconds() for t in estimated[:3]] == [0.0, 2.0, 4.0]
    assert facts["conditions"]["terms"] == [{"term": "online:Steve", "holds": True}]
    assert facts["conditions"]["players"] == ["Steve"] and facts["conditions"]["then"] == "run"
    text = done.full_text
    assert "`scoreboard players add @s dry 1`, as the player Steve" in text
    assert f"tick {now + 100}, about <t:" in text and "an estimate at 20 ticks a second" in text

    # the same request for real: the task the pack keeps, and when it runs
    made = await schedule.schedule(operations, MOD, schedule.ScheduleRequest(**request))
    assert made.task is not None
    assert (made.task.run, made.task.executor, made.task.player) == (
        facts["commands"][0]["command"],
        uuid,
        True,
    )
    assert made.task.due == facts["due_ticks"][0]
    for k in range(1, 4):
        server.step(facts["due_ticks"][k - 1] - server.game_time)
        assert [t["due"] for t in queued(server)] == [facts["due_ticks"][k]]
        assert server.score("Steve", "dry") == k  # ran as Steve, once a due tick


async def test_a_repeating_wall_clock_row_over_a_clock_change_runs_what_its_dry_run_said(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, clock, server = wall
    request = {
        "run": "say nightly",
        "repeat": "30 2 * * *",
        "timezone": "Europe/Berlin",
        "announce": "5m,1m",
        "id": "nightly",
        "dst_repeated": "both",
    }
    done = await tried(operations, server, request)
    facts = done.facts
    runs = [datetime.fromisoformat(t) for t in facts["next_runs"]]
    assert facts["kind"] == "wallclock" and len(runs) == 10
    assert facts["commands"] == [{"command": "say nightly", "executor": None}]
    # the repeated hour runs 02:30 twice on the 25th: eleven runs in ten nights
    assert runs[2:5] == [
        datetime(2026, 10, 25, 0, 30, tzinfo=UTC),
        datetime(2026, 10, 25, 1, 30, tzinfo=UTC),
        datetime(2026, 10, 26, 1, 30, tzinfo=UTC),
    ]
    changes = [text for name, text in facts["dst"] if name == "clock change"]
    assert changes[0].startswith("2026-10-25: the clock goes back from 03:00 to 02:00")
    assert "02:30 runs twice, at 02:30 CEST and 02:30 CET" in changes[0]
    preview = await schedule.preview(operations, MOD, schedule.ScheduleRequest(**request))
    assert [list(pair) for pair in preview.dst] == facts["dst"]
    assert [a["seconds_before"] for a in facts["announcements"]] == [300, 60]

    # the same request for real: the row's runs and DST notes, then its announcements and run
    made = await schedule.schedule(operations, MOD, schedule.ScheduleRequest(**request))
    row = made.planned
    assert row is not None and row.next_due is not None
    assert next_runs(row.spec, 10, row.next_due) == runs
    # the row's facts as every face says them: its announcements, then the same DST notes
    assert planned_row(row)["facts"][1:] == facts["dst"]
    seen = sent(operations)
    scheduler = operations.scheduler()
    for offset in (300, 60):
        clock.set(runs[0] - timedelta(seconds=offset))
        await scheduler.settled()
    said = [c for c in seen if c.startswith("tellraw @a")]
    assert said == [a["command"] for a in facts["announcements"]]
    clock.set(runs[0])
    await scheduler.settled()
    assert said_in_logs(server.world, "nightly") == 1


@pytest.mark.parametrize(
    ("options", "players", "held", "then"),
    [
        ({"require": "players>=1, online:alex"}, ["Alex"], [True, True], "run"),
        ({"require": "players>=2"}, ["Alex"], [False], "skip"),
        ({"require": "empty", "if_not": "wait", "max_wait": "10m"}, ["Alex"], [False], "wait"),
        ({"require": "empty"}, [], [True], "run"),
    ],
    ids=["held", "too-few", "not-empty-waits", "empty"],
)
async def test_the_conditions_now_are_what_the_pack_finds_when_the_task_is_due(
    wall: tuple[Operations, ManualClock, Server],
    options: dict[str, str],
    players: list[str],
    held: list[bool],
    then: str,
) -> None:
    operations, _clock, server = wall
    for name in players:
        server.join(name)
    request = {"run": "scoreboard players add #n dry 1", "time": 1, "unit": "tick", **options}
    found = (await tried(operations, server, request)).facts["conditions"]
    assert found["reached"] and found["players"] == players
    assert [t["holds"] for t in found["terms"]] == held and found["then"] == then

    # the same request for real, due at the next tick: the pack runs it, skips it or waits
    await schedule.schedule(operations, MOD, schedule.ScheduleRequest(**request, id="c"))
    server.step(1)
    ran = server.score("#n", "dry") == 1
    waits = [t for t in queued(server) if "until" in t.get("cond", {})]
    assert (ran, bool(waits), not ran and not queued(server)) == (
        then == "run",
        then == "wait",
        then == "skip",
    )


async def test_a_server_that_cannot_be_reached_is_said_in_words_and_nothing_else_happens(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, _clock, server = wall
    server.stop()
    operations.server(None).rcon.timeout = 0.5  # each read gives up sooner: the test is quick
    request = {"run": "say hi", "time": 5, "unit": "second", "require": "players>=1"}
    done = await registry.run(operations, MOD, "dryrun", request)
    assert done.facts["commands"] == [{"command": "say hi", "executor": None}]
    assert done.facts["game_time"] is None and done.facts["due_ticks"] == []
    assert done.facts["conditions"]["reached"] is False
    assert "main could not be reached, so its game time and the conditions" in done.full_text
    assert operations.auditor.entries == []  # type: ignore[attr-defined]
    # a wall-clock row's times need no server; its conditions do
    request = {"run": "say hi", "when": "in 1h", "require": "players>=1"}
    done = await registry.run(operations, MOD, "dryrun", request)
    assert len(done.facts["next_runs"]) == 1 and done.facts["conditions"]["reached"] is False
    assert "main could not be reached, so whether they hold now is not known" in done.full_text


@pytest.mark.parametrize(
    "request_",
    [
        {"run": "say hi", "time": 5},
        {"run": "say hi", "time": 5, "unit": "second", "when": "20:00"},
        {"run": "say hi", "time": 5, "unit": "second", "if_not": "wait"},
        {"run": "give @a diamond_swordd 1", "time": 5, "unit": "second"},
        {"run": "say hi", "repeat": "1d", "id": "taken"},
    ],
    ids=["no-unit", "mixed", "if-not-alone", "bad-command", "taken-id"],
)
async def test_a_bad_request_is_refused_in_the_schedule_s_words(
    wall: tuple[Operations, ManualClock, Server], request_: dict[str, Any]
) -> None:
    operations, _clock, server = wall
    await schedule.schedule(
        operations, MOD, schedule.ScheduleRequest(run="say x", repeat="1h", id="taken")
    )
    before, audited = state(server), list(operations.auditor.entries)  # type: ignore[attr-defined]
    with pytest.raises(errors.BotError) as real:
        await registry.run(operations, MOD, "schedule", request_)
    with pytest.raises(errors.BotError) as dry:
        await registry.run(operations, MOD, "dryrun", request_)
    assert (type(dry.value), str(dry.value)) == (type(real.value), str(real.value))
    assert getattr(dry.value, "field", None) == getattr(real.value, "field", None)
    assert state(server) == before and operations.auditor.entries == audited  # type: ignore[attr-defined]


async def test_the_console_runs_a_dry_run(wall: tuple[Operations, ManualClock, Server]) -> None:
    operations, _clock, server = wall
    said = await typed(operations, "/dryrun run:say hi time:5 unit:second id:hi\n", MOD_USER)
    assert "A dry run of this /schedule on main: nothing was sent" in said, said
    assert "\nsay hi, as the server\n" in said, said  # a pipe: the markup left out
    assert "Note: nobody is online on main and it pauses when empty" in said, said
    assert f"tick {server.game_time + 100}, about" in said, said
    assert queued(server) == []


async def test_a_group_is_tried_on_each_of_its_servers_as_schedule_makes_it_there(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, _clock, server = wall
    request = {"run": "say hi", "time": 5, "unit": "second", "id": "hi", "server": "all"}
    done = await tried(operations, server, request)
    assert done.facts["group"] == "all" and [s["server"] for s in done.facts["servers"]] == ["main"]
    [main] = done.facts["servers"]
    assert main["ok"] and main["dry_run"]["due_ticks"] == [server.game_time + 100]
    assert all(s.author == "main" for s in done.sections)
    await registry.run(operations, MOD, "schedule", request)
    assert [t["due"] for t in queued(server)] == main["dry_run"]["due_ticks"]


@pytest.mark.parametrize("ahead", [30, -5, -45], ids=["ahead", "just-passed", "long-passed"])
async def test_a_tick_given_with_at_is_due_where_the_pack_runs_it(
    wall: tuple[Operations, ManualClock, Server], ahead: int
) -> None:
    operations, _clock, server = wall
    server.step(100)
    request = {"run": "scoreboard players add #n dry 1", "at": server.game_time + ahead}
    request |= {"every": 20, "id": "at"}
    ticks = (await tried(operations, server, request)).facts["due_ticks"]
    assert ticks[0] == max(request["at"], server.game_time + 1)
    assert all(b - a == 20 for a, b in pairwise(ticks[1:]))
    await schedule.schedule(operations, MOD, schedule.ScheduleRequest(**request))
    for k, tick in enumerate(ticks[:3], start=1):
        server.step(tick - server.game_time)
        assert server.score("#n", "dry") == k  # ran at that tick, not before
        assert [t["due"] for t in queued(server)] == [ticks[k]]
