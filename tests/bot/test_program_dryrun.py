"""`program dryrun` against mcsim with the pack over TCP RCON: what it says a start would do is
what the same start does afterwards (each step's command as the pack is given it, its player, its
due time), over Berlin's repeated hour too; the dry run itself only reads the server (`list`) and
leaves the pack's storage, the scheduler's rows, the program runs and the audit as they were; a
start the real one refuses is refused in the same words; the console reaches it."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot import errors
from bot.operations import Operations, registry
from bot.operations.program_dryrun import dst_notes
from bot.services import build_services
from bot.store.schedules import ScheduleStore
from bot.testkit.harness import MOD as MOD_USER
from bot.testkit.harness import make_settings
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_dryrun import AUTUMN, READS, sent, state
from tests.bot.test_operations import MOD, PASSWORD
from tests.console.typed import typed
from tests.fixtures import server_config
from tests.wallclock.test_wallclock_programs import EVENING, HOLDERS

BERLIN = ZoneInfo("Europe/Berlin")
# a task's input as the bot writes it to the pack's storage: its command and its id
INPUT = re.compile(r'^data modify storage doom\.schedule:in .*run:"([^"]*)",id:"([^"]*)"')
# Berlin's clocks go back on 2026-10-25 at 03:00 CEST (01:00 UTC): 02:00-03:00 happens twice
NIGHT = """
- run: say the night starts
  at: 0
- run: say first pass
  at: +1h
- run: say second pass
  at: +2h
- run: scoreboard players add @s wc 1
  at: +3h
  as_player: Steve
  require: online:Steve
"""


@pytest.fixture
async def wall(
    mcsim: Callable[..., Server], tmp_path: Path
) -> AsyncIterator[tuple[Operations, ManualClock, Server]]:
    """The operations on mcsim, the wall-clock scheduler started on a manual clock."""
    server = mcsim(password=PASSWORD)
    server.run("scoreboard objectives add wc dummy")
    settings = make_settings(tmp_path, [server_config(server, PASSWORD)])
    services = await build_services(settings)
    clock = ManualClock(AUTUMN)
    services.scheduler = Scheduler(ScheduleStore(services.db), services.servers, clock=clock)
    await services.scheduler.start()
    try:
        yield Operations(services, Recorder()), clock, server
    finally:
        await services.close()


async def tried(operations: Operations, server: Server, request: dict[str, Any]) -> registry.Done:
    """The dry run through the registry (as every face runs it), checked to have sent the
    server nothing but reads and to have changed nothing there, in the rows, the program runs
    or the audit."""
    name = operations.server(None).name
    store = operations.scheduler().store
    programs = operations.program_runner().store
    before, rows = state(server), await store.planned(name)
    runs = await programs.runs()
    recorder = operations.auditor
    assert isinstance(recorder, Recorder)
    audited = list(recorder.entries)
    seen = sent(operations)
    try:
        done = await registry.run(operations, MOD, "program dryrun", request)
    finally:
        del operations.server(None).rcon.command  # the client's own method again
    assert set(seen) <= READS, seen
    assert state(server) == before
    assert await store.planned(name) == rows
    assert await programs.runs() == runs
    assert recorder.entries == audited
    return done


async def saved(operations: Operations, name: str, steps: str) -> None:
    await registry.run(operations, MOD, "program save", {"name": name, "steps": steps})


def dues(facts: Mapping[str, Any]) -> list[datetime]:
    return [datetime.fromisoformat(s["due"]) for s in facts["steps"]]


async def until(operations: Operations, clock: ManualClock, when: datetime) -> None:
    """The clock moved to `when`, everything due by then done (the runner looks between)."""
    scheduler, runner = operations.scheduler(), operations.program_runner()
    clock.set(when)
    for _ in range(3):
        await scheduler.settled()
        await runner.look()
    await scheduler.settled()


async def test_a_five_step_program_starts_as_its_dry_run_said(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, clock, server = wall
    await saved(operations, "evening", EVENING)
    request = {"name": "evening", "when": "in 20m"}
    done = await tried(operations, server, request)
    facts = done.facts
    start = AUTUMN + timedelta(minutes=20)
    assert datetime.fromisoformat(facts["start"]) == start and facts["moved_ahead"] == 0
    assert (facts["program"], facts["version"], facts["server"]) == ("evening", 1, "main")
    commands = [f"scoreboard players add {holder} wc 1" for holder in HOLDERS]
    assert [(s["command"], s["executor"]) for s in facts["steps"]] == [(c, None) for c in commands]
    assert dues(facts) == [start + timedelta(minutes=m) for m in (-10, 0, 5, 20, 30)]
    assert [s["after"] for s in facts["steps"]] == [None, None, 2, None, None]
    assert (facts["steps"][2]["limit"], facts["steps"][2]["on_failure"]) == (3600, "continue")
    assert all(s["dst"] == [] and s["conditions"] is None for s in facts["steps"])
    text = done.full_text
    assert "A dry run of program `evening` (version 1) on main" in text, text
    assert "3. `scoreboard players add round2 wc 1`, as the server, at +5m once step 2 " in text
    assert "it waits for step 2 at most 1h, then it runs anyway" in text, text

    # the same start for real: its rows' commands and due times, then each step's hand-over
    seen = sent(operations)
    started = await registry.run(operations, MOD, "program start", request)
    run = started.facts["run"]
    assert datetime.fromisoformat(started.facts["start"]) == start
    scheduler = operations.scheduler()
    for number, command in enumerate(commands, 1):
        row = await scheduler.find("main", f"evening.{run}.{number}")
        assert (row is None) == (number == 3)  # step 3 is made once step 2 ran
        assert row is None or (row.command, row.as_player) == (command, None)
    for due in dues(facts):
        await until(operations, clock, due)
    shown = await registry.run(operations, MOD, "program show", {"run": run})
    assert [s["state"] for s in shown.facts["steps"]] == ["ran"] * 5
    assert [datetime.fromisoformat(s["due"]) for s in shown.facts["steps"]] == dues(facts)
    assert [server.score(holder, "wc") for holder in HOLDERS] == [1, 1, 1, 1, 1]
    # the pack was given the command the dry run said for each step (the task inputs it stored,
    # staged ahead and at the hand-over), and no other
    given = {(m[2], m[1]) for m in map(INPUT.search, seen) if m is not None}
    assert given == {(f"evening.{run}.{n}", c) for n, c in enumerate(commands, 1)}, seen


async def test_a_step_in_the_repeated_hour_is_said_with_its_pass(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, _clock, server = wall
    server.join("Steve")
    await saved(operations, "night", NIGHT)
    request = {"name": "night", "when": "2026-10-25 01:30", "timezone": "Europe/Berlin"}
    done = await tried(operations, server, request)
    facts = done.facts
    assert facts["timezone"] == "Europe/Berlin"
    assert [s["due"] for s in facts["steps"]] == [
        "2026-10-25T01:30:00+02:00",
        "2026-10-25T02:30:00+02:00",  # the first pass of 02:00-03:00
        "2026-10-25T02:30:00+01:00",  # the second
        "2026-10-25T03:30:00+01:00",
    ]
    back = "2026-10-25: the clock goes back from 03:00 to 02:00"
    assert [s["dst"] for s in facts["steps"]] == [
        [],
        [f"{back}: 02:30 runs once, at 02:30 CEST."],
        [f"{back}: 02:30 runs once, at 02:30 CET."],
        [
            f"{back} between the start and this step; its offset is real time, so the clock "
            "shows it at 03:30, not 04:30."
        ],
    ]
    last = facts["steps"][3]
    assert (last["command"], last["executor"]) == ("scoreboard players add @s wc 1", "Steve")
    assert last["conditions"]["terms"] == [{"term": "online:Steve", "holds": True}]
    assert last["conditions"]["then"] == "run" and last["conditions"]["player_online"] is True
    text = done.full_text
    assert "3. `say second pass`, as the server, at +2h: <t:1792891800:F> (02:30 CET)\n" in text
    assert "Step 4: `online:Steve`; if not: skip this run\n`online:Steve`: holds\n" in text, text

    started = await registry.run(operations, MOD, "program start", request)
    shown = await registry.run(operations, MOD, "program show", {"run": started.facts["run"]})
    assert [datetime.fromisoformat(s["due"]) for s in shown.facts["steps"]] == dues(facts)


def test_a_step_whose_offset_lands_in_the_skipped_hour_says_when_the_clock_shows_it() -> None:
    # Berlin's clocks go forward on 2027-03-28 at 02:00 CET (01:00 UTC): 02:00-03:00 is skipped
    start = datetime(2027, 3, 28, 0, 50, tzinfo=UTC)  # 01:50 CET
    assert dst_notes(start, start + timedelta(minutes=20), BERLIN) == [
        "2027-03-28: the clock goes forward from 02:00 to 03:00: 02:10 runs once, at 03:10 CEST."
    ]
    assert dst_notes(start, start + timedelta(minutes=5), BERLIN) == []  # 01:55, before it


@pytest.mark.parametrize(
    ("steps", "request_", "said"),
    [
        (
            "- run: say hi\n  at: 0\n- run: give @a diamond_swordd 1\n  at: +5m\n",
            {"name": "p"},
            "Step 2: ",
        ),
        ("- run: say soon\n  at: -10m\n", {"name": "p", "when": "in 5m"}, "which has passed"),
        ("- run: say hi\n", {"name": "other"}, "There is no program `other`"),
        ("- run: say hi\n", {"name": "p", "when": "25:00"}, "not a time of day"),
    ],
    ids=["bad-command", "first-step-passed", "no-program", "bad-when"],
)
async def test_a_start_the_real_one_refuses_is_refused_in_the_same_words(
    wall: tuple[Operations, ManualClock, Server],
    steps: str,
    request_: dict[str, Any],
    said: str,
) -> None:
    operations, _clock, server = wall
    await saved(operations, "p", steps)
    before, audited = state(server), list(operations.auditor.entries)  # type: ignore[attr-defined]
    with pytest.raises(errors.BotError) as real:
        await registry.run(operations, MOD, "program start", request_)
    with pytest.raises(errors.BotError) as dry:
        await registry.run(operations, MOD, "program dryrun", request_)
    assert (type(dry.value), str(dry.value)) == (type(real.value), str(real.value))
    assert getattr(dry.value, "field", None) == getattr(real.value, "field", None)
    assert said in str(dry.value), str(dry.value)
    assert await operations.program_runner().store.runs() == []
    assert state(server) == before and operations.auditor.entries == audited  # type: ignore[attr-defined]


async def test_the_console_runs_a_program_dry_run(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    operations, _clock, _server = wall
    await saved(operations, "evening", EVENING)
    said = await typed(operations, "/program dryrun name:evening\n", MOD_USER)
    assert "A dry run of program evening (version 1) on main" in said, said
    assert "Its first step is 10m before the start, so the start is in 10m." in said, said
    # the steps as the console renders the shared markup's numbered list
    assert re.search(r"\b1\.? scoreboard players add announce wc 1, as the server, at -10m:", said)
    assert await operations.program_runner().store.runs() == []


async def test_a_repeats_dry_run_lists_the_starts_the_repeat_then_makes(
    wall: tuple[Operations, ManualClock, Server],
) -> None:
    """`program dryrun` with `repeat`: the next 10 starts with Berlin's autumn change said (by
    its policy, the repeated hour's second pass), nothing stored; `program repeat` with the same
    options then names the same next starts."""
    operations, _clock, server = wall
    await saved(operations, "evening", EVENING)
    options = {
        "name": "evening",
        "repeat": "0 2 * * *",
        "timezone": "Europe/Berlin",
        "dst_repeated": "second",
    }
    done = await tried(operations, server, options)
    repeat = done.facts["repeat"]
    assert repeat["timezone"] == "Europe/Berlin" and len(repeat["starts"]) == 10
    starts = [datetime.fromisoformat(t) for t in repeat["starts"]]
    assert [t.astimezone(BERLIN).strftime("%m-%d %H:%M") for t in starts[:5]] == [
        "10-23 02:00",
        "10-24 02:00",
        "10-25 02:00",
        "10-26 02:00",
        "10-27 02:00",
    ]
    assert starts[2] == datetime(2026, 10, 25, 1, 0, tzinfo=UTC)  # 02:00 CET, the second pass
    assert any("2026-10-25" in d["text"] for d in repeat["dst"]), repeat["dst"]
    assert "Repeated" in done.sections[0].title
    assert (await registry.run(operations, MOD, "program repeats", {})).facts["repeats"] == []
    made = await registry.run(operations, MOD, "program repeat", options)
    assert [datetime.fromisoformat(t) for t in made.facts["next"]] == starts[:3]
    with pytest.raises(errors.ValidationError) as refused:
        await registry.run(operations, MOD, "program dryrun", {**options, "repeat": "often"})
    assert refused.value.field == "repeat"
