"""The scheduler on a manual clock against mcsim with the real pack over TCP RCON.

mcsim is stepped (it never ticks on its own), which is what a server paused because it is empty
looks like: every run here must happen inside the hand-over's RCON calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.events.event import Event
from bot.services import ServerServices
from bot.times.clock import ManualClock
from bot.wallclock.due_heap import STAGE_LEAD
from bot.wallclock.scheduler import Scheduler
from tests.wallclock.wallclock_sim import (
    MOD,
    START,
    PackSim,
    TcpProxy,
    count_runs,
    make_scheduler,
    server_services,
)

ADD = "scoreboard players add #runs wc 1"
BERLIN = ZoneInfo("Europe/Berlin")


def staged_requests(sim: PackSim) -> dict[str, object]:
    return dict(sim.server.storage("doom.schedule:in").get("staged", {}))  # type: ignore[call-overload]


def drain(scheduler: Scheduler, server: str = "sim") -> list[Event]:
    # what the server's event stream would receive: the alerts made while nobody read them
    queue: asyncio.Queue[Event] = asyncio.Queue()
    feed = scheduler.alerts_of(server)
    feed.subscribe(queue)
    feed.unsubscribe(queue)
    found: list[Event] = []
    while not queue.empty():
        found.append(queue.get_nowait())
    return found


async def retries_pass(
    scheduler: Scheduler, clock: ManualClock, steps: int, seconds: float
) -> None:
    """Let the scheduler act, then move the clock on `seconds`, `steps` times; settled at the end
    (the hand-over's back-off sleeps are on the clock)."""
    for _ in range(steps):
        await scheduler.settled()
        clock.advance(seconds)
    await scheduler.settled()


@dataclass
class Wall:
    """A manual clock at START and the schedulers a test starts on it, all on one database;
    stopped (and their RCON clients other than the fixture's closed) after the test."""

    db: Path
    server: ServerServices
    clock: ManualClock = field(default_factory=lambda: ManualClock(START))
    started: list[Scheduler] = field(default_factory=list)

    async def start(self, server: ServerServices, **kw: object) -> Scheduler:
        scheduler = make_scheduler(self.db, server, self.clock, **kw)
        self.started.append(scheduler)
        await scheduler.start()
        await scheduler.settled()
        return scheduler

    async def close(self) -> None:
        for scheduler in self.started:
            await scheduler.stop()
        for scheduler in self.started:
            for services in scheduler.servers.values():
                if services is not self.server:
                    await services.rcon.close()


@pytest.fixture
async def wall(server: ServerServices, tmp_path: Path) -> AsyncIterator[Wall]:
    wall = Wall(tmp_path / "bot.sqlite3", server)
    try:
        yield wall
    finally:
        await wall.close()


async def test_one_shot_runs_once_at_its_time(
    sim: PackSim, server: ServerServices, wall: Wall
) -> None:
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="one", created_by=MOD, when="in 90m"
    )
    clock.advance(89 * 60 + 59)
    await scheduler.settled()
    assert count_runs(sim) == 0
    clock.advance(1)
    await scheduler.settled()
    assert count_runs(sim) == 1
    runs = await scheduler.runs(row.id, 5)
    assert [r.outcome for r in runs] == ["ran"]
    assert runs[0].lateness == 0.0 and runs[0].due == START + timedelta(minutes=90)
    assert runs[0].handed_over == runs[0].ran_in_game == START + timedelta(minutes=90)
    done = await scheduler.get(row.id)
    assert done is not None and done.state == "done" and done.next_due is None
    clock.advance(86400)
    await scheduler.settled()
    assert count_runs(sim) == 1
    assert sim.server.game_time == 0  # it never ticked: the run happened inside RCON
    assert drain(scheduler) == []  # on time: no alert


async def test_every_rearms_on_the_anchored_boundary(
    sim: PackSim, server: ServerServices, wall: Wall
) -> None:
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="tick", created_by=MOD, repeat="30m"
    )
    assert row.next_due == START + timedelta(minutes=30)
    for n in range(1, 4):
        clock.advance(30 * 60)
        await scheduler.settled()
        assert count_runs(sim) == n
    now = await scheduler.get(row.id)
    assert now is not None and now.next_due == START + timedelta(hours=2)
    assert now.state == "active" and now.run_count == 3
    # paused: nothing runs; resumed: the next boundary strictly after now, on the grid
    await scheduler.pause(row.id)
    clock.advance(50 * 60)
    await scheduler.settled()
    assert count_runs(sim) == 3
    resumed = await scheduler.resume(row.id)
    assert resumed.next_due == START + timedelta(hours=2, minutes=30)
    await scheduler.cancel(row.id)
    clock.advance(3600)
    await scheduler.settled()
    assert count_runs(sim) == 3


@pytest.mark.parametrize(
    ("start", "expected"),
    [
        # spring forward: 2026-03-29 02:00 -> 03:00; 02:30 runs once, at 03:00 CEST
        (
            datetime(2026, 3, 28, 12, 0, tzinfo=BERLIN),
            [datetime(2026, 3, 29, 1, 0, tzinfo=UTC), datetime(2026, 3, 30, 0, 30, tzinfo=UTC)],
        ),
        # fall back: 2026-10-25 03:00 -> 02:00; 02:30 happens twice and runs once
        (
            datetime(2026, 10, 24, 12, 0, tzinfo=BERLIN),
            [datetime(2026, 10, 25, 0, 30, tzinfo=UTC), datetime(2026, 10, 26, 1, 30, tzinfo=UTC)],
        ),
    ],
)
async def test_cron_across_berlin_dst(
    sim: PackSim, server: ServerServices, start: datetime, expected: list[datetime], wall: Wall
) -> None:
    wall.clock.set(start)
    clock = wall.clock
    # the clock moves a minute at a time through two whole days: a 90 s grace keeps each run
    # on time, and every minute of both 02:00-03:00 hours is passed through
    scheduler = await wall.start(server, grace=timedelta(seconds=90))
    row = await scheduler.create(
        server="sim",
        command=ADD,
        task_id="night",
        created_by=MOD,
        repeat="30 2 * * *",
        timezone="Europe/Berlin",
    )
    for _ in range(48 * 60):
        clock.advance(60)
        await scheduler.settled()
    runs = await scheduler.runs(row.id, 10)
    assert sorted(r.due for r in runs) == expected
    assert [r.outcome for r in runs] == ["ran", "ran"]
    assert count_runs(sim) == 2


async def test_bot_down_missed_boundaries_are_skipped(
    sim: PackSim, server: ServerServices, wall: Wall
) -> None:
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="hourly", created_by=MOD, repeat="1h"
    )
    clock.advance(3600)
    await scheduler.settled()
    assert count_runs(sim) == 1
    await scheduler.stop()  # the bot goes down for 5 hours and a minute
    clock.advance(5 * 3600 + 60)
    scheduler = await wall.start(server)
    assert count_runs(sim) == 1  # nothing replayed
    alerts = drain(scheduler)
    assert [(a.type, a.details["skipped"]) for a in alerts] == [("wallclock_skipped", "5")]
    moved = await scheduler.get(row.id)
    assert moved is not None and moved.next_due == START + timedelta(hours=7)
    clock.advance(3600 - 60)
    await scheduler.settled()
    assert count_runs(sim) == 2  # back on its grid


async def test_bot_down_one_shot_runs_late_once_or_is_missed(
    sim: PackSim, server: ServerServices, wall: Wall
) -> None:
    clock = wall.clock
    scheduler = await wall.start(server, max_late=15 * 60)
    early = await scheduler.create(
        server="sim", command=ADD, task_id="early", created_by=MOD, when="in 10m"
    )
    later = await scheduler.create(
        server="sim",
        command="scoreboard players add #later wc 1",
        task_id="later",
        created_by=MOD,
        when="in 20m",
    )
    await scheduler.stop()
    clock.advance(31 * 60)  # early is 21 min late (> max_late 15), later 11 min (< 15)
    scheduler = await wall.start(server, max_late=15 * 60)
    assert count_runs(sim) == 0 and count_runs(sim, "#later") == 1
    missed = await scheduler.get(early.id)
    ran = await scheduler.get(later.id)
    assert missed is not None and missed.state == "missed"
    assert ran is not None and ran.state == "done" and ran.last_lateness == 11 * 60
    assert sorted(a.type for a in drain(scheduler)) == ["wallclock_late", "wallclock_missed"]
    await scheduler.stop()
    scheduler = await wall.start(server, max_late=15 * 60)  # and never again
    assert count_runs(sim, "#later") == 1 and count_runs(sim) == 0


@pytest.mark.slow
async def test_server_unreachable_then_back(sim: PackSim, wall: Wall, proxy: TcpProxy) -> None:
    server = server_services(sim, port=proxy.port, timeout=0.5)
    clock = wall.clock
    scheduler = await wall.start(server, max_late=10.0)
    back = await scheduler.create(
        server="sim", command=ADD, task_id="back", created_by=MOD, when="in 1m"
    )
    proxy.down()
    clock.advance(60)
    await scheduler.settled()
    assert count_runs(sim) == 0
    proxy.up()  # the server is back before max_late
    clock.advance(1)
    await scheduler.settled()
    assert count_runs(sim) == 1
    runs = await scheduler.runs(back.id, 5)
    assert [r.outcome for r in runs] == ["ran"] and runs[0].lateness == 1.0
    gone = await scheduler.create(
        server="sim", command=ADD, task_id="gone", created_by=MOD, when="in 1m"
    )
    proxy.down()
    clock.advance(60)
    # attempts 1, 2, 4 s apart, then past max_late (10 s)
    await retries_pass(scheduler, clock, 6, 4)
    proxy.up()
    clock.advance(60)
    await scheduler.settled()
    assert count_runs(sim) == 1
    row = await scheduler.get(gone.id)
    assert row is not None and row.state == "missed"
    alerts = drain(scheduler)
    assert [a.type for a in alerts] == ["wallclock_missed"]
    assert "unreachable" in str(alerts[0].details["reason"])


SUBMIT = b"doom.bot:wallclock done"  # the submit carries the mark
CHECK = b"execute if data storage doom.bot:wallclock"  # a retry's question for the mark
RUN_NOW = b"doom.schedule:core/tick"


@pytest.mark.parametrize(
    "plan",
    [
        [(SUBMIT, True)],  # the server queued it; its answer was lost
        [(SUBMIT, False)],  # the submit never reached the server
        [(RUN_NOW, True)],  # the task ran in game; the answer was lost
        [(SUBMIT, True), (CHECK, True)],  # and the retry's own check drops too
        [(SUBMIT, True), (RUN_NOW, True), (RUN_NOW, False)],  # three drops in a row
    ],
    ids=["submit-after", "submit-before", "run-after", "submit-then-check", "three"],
)
@pytest.mark.parametrize("staged", [True, False], ids=["staged", "written-at-due"])
async def test_never_twice_under_rcon_drops(
    sim: PackSim, plan: list[tuple[bytes, bool]], staged: bool, wall: Wall, proxy: TcpProxy
) -> None:
    server = server_services(sim, port=proxy.port, timeout=2.0)
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="once", created_by=MOD, when="in 1m"
    )
    serial_before = sim.server.score("#serial", "doom.schedule") or 0
    if staged:  # the request is on the server before the due time: one call then
        clock.advance(60 - STAGE_LEAD)
        await scheduler.settled()
        assert list(staged_requests(sim)) == [f"w{row.id}"]
        clock.advance(STAGE_LEAD)
    proxy.plan = list(plan)
    if not staged:
        clock.advance(60)
    await retries_pass(scheduler, clock, 6, 4)
    assert proxy.dropped == len(plan) and proxy.plan == []
    assert count_runs(sim) == 1
    submitted = (sim.server.score("#serial", "doom.schedule") or 0) - serial_before
    assert submitted == 1  # the pack queued exactly one task
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["ran"]
    assert staged_requests(sim) == {}  # nothing left behind for a later run to trip on
    # the mark outlives the record for a while (a late submit from elsewhere finds it), then goes
    assert sim.server.storage("doom.bot:wallclock").get("done", {}) != {}
    clock.advance(scheduler.mark_keep)
    await scheduler.settled()
    assert sim.server.storage("doom.bot:wallclock").get("done", {}) == {}


async def test_a_bot_that_dies_mid_hand_over_does_not_send_it_again(
    sim: PackSim, wall: Wall, proxy: TcpProxy
) -> None:
    server = server_services(sim, port=proxy.port, timeout=2.0)
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="crash", created_by=MOD, when="in 1m"
    )
    proxy.plan = [(SUBMIT, True)]
    clock.advance(60)
    await scheduler.settled()  # the submit ran on the server; the bot saw the drop
    assert proxy.dropped == 1 and count_runs(sim) == 0  # queued, not run (no tick)
    await scheduler.stop()  # and the bot dies before its retry
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["sending"]
    serial = sim.server.score("#serial", "doom.schedule")
    assert serial is not None and serial > 0
    scheduler = await wall.start(server)
    assert count_runs(sim) == 1
    assert (
        sim.server.score("#serial", "doom.schedule") == serial
    )  # recovered from the mark: not submitted again
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["ran"]


async def test_a_bot_back_after_max_late_whose_mark_check_drops_still_finds_the_run(
    sim: PackSim, wall: Wall, proxy: TcpProxy
) -> None:
    # the bot dies mid hand-over (the submit queued the task, its answer was lost) and is down
    # past max_late; its restarted delivery's first question for the mark is cut: the run was
    # handed over, so it is asked again, and recorded as run, not missed
    server = server_services(sim, port=proxy.port, timeout=2.0)
    clock = wall.clock
    scheduler = await wall.start(server, max_late=30.0)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="crash", created_by=MOD, when="in 1m"
    )
    proxy.plan = [(SUBMIT, True)]
    clock.advance(60)
    await scheduler.settled()
    await scheduler.stop()
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["sending"]
    serial = sim.server.score("#serial", "doom.schedule")
    clock.advance(11 * 60)
    proxy.plan = [(CHECK, True)]
    scheduler = await wall.start(server, max_late=30.0)
    await retries_pass(scheduler, clock, 4, 4)
    assert proxy.dropped == 2 and proxy.plan == []
    assert count_runs(sim) == 1
    assert sim.server.score("#serial", "doom.schedule") == serial  # not submitted again
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["ran"]
    assert "wallclock_missed" not in [a.type for a in drain(scheduler)]


async def test_a_lost_answer_past_max_late_is_not_called_missed_when_the_mark_shows_the_run(
    sim: PackSim, wall: Wall, proxy: TcpProxy
) -> None:
    # the submit reached the server (its answer lost) and each check for its mark drops until
    # after max_late: the server has the task, so the run is handed over, not missed
    server = server_services(sim, port=proxy.port, timeout=2.0)
    clock = wall.clock
    scheduler = await wall.start(server, max_late=3.0)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="slow", created_by=MOD, when="in 1m"
    )
    proxy.plan = [(SUBMIT, True), (CHECK, True), (CHECK, True)]
    clock.advance(60)
    await retries_pass(scheduler, clock, 6, 2)
    assert proxy.dropped == 3 and proxy.plan == []
    assert count_runs(sim) == 1
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["ran"]
    assert "wallclock_missed" not in [a.type for a in drain(scheduler)]


async def test_announcements_and_an_offline_player(
    sim: PackSim, server: ServerServices, wall: Wall
) -> None:
    clock = wall.clock
    scheduler = await wall.start(server)
    sim.server.join("Alex")
    await scheduler.create(
        server="sim", command=ADD, task_id="event", created_by=MOD, when="in 1m", announce="30s,10s"
    )
    clock.advance(30)
    await scheduler.settled()
    assert any("event starts in 30 seconds." in line for line in sim.server.chat("Alex"))
    clock.advance(20)
    await scheduler.settled()
    assert any("event starts in 10 seconds." in line for line in sim.server.chat("Alex"))
    clock.advance(10)
    await scheduler.settled()
    assert count_runs(sim) == 1
    # as_player while the player is offline: it waits, and runs as them once they are back
    sim.server.leave("Alex")
    row = await scheduler.create(
        server="sim",
        command="scoreboard players add @s wc 1",
        task_id="mine",
        created_by=MOD,
        when="in 1m",
        as_player="Alex",
    )
    clock.advance(60)
    await scheduler.settled()
    assert sim.server.score("Alex", "wc") is None
    assert [a.type for a in drain(scheduler)] == ["wallclock_waiting"]
    sim.server.join("Alex")
    clock.advance(15)
    await scheduler.settled()
    assert sim.server.score("Alex", "wc") == 1
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["ran"]
    clock.advance(600)
    await asyncio.sleep(0)
    await scheduler.settled()
    assert sim.server.score("Alex", "wc") == 1


async def test_a_hand_over_that_never_arrived_is_missed_after_max_late(
    sim: PackSim, wall: Wall, proxy: TcpProxy
) -> None:
    server = server_services(sim, port=proxy.port, timeout=2.0)
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="lost", created_by=MOD, when="in 1m"
    )
    proxy.plan = [(SUBMIT, False)]  # the submit never reaches the server
    clock.advance(60)
    await scheduler.settled()
    assert proxy.dropped == 1
    await scheduler.stop()  # the bot dies before its retry and is down for 11 minutes
    clock.advance(11 * 60)
    scheduler = await wall.start(server)
    assert count_runs(sim) == 0  # not handed over 11 minutes late
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["missed"]
    missed = await scheduler.get(row.id)
    assert missed is not None and missed.state == "missed"
    assert [a.type for a in drain(scheduler)] == ["wallclock_missed"]


async def test_a_run_waiting_for_its_player_can_be_cancelled(
    sim: PackSim, server: ServerServices, wall: Wall
) -> None:
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim",
        command="scoreboard players add @s wc 1",
        task_id="mine",
        created_by=MOD,
        when="in 1m",
        as_player="Steve",
    )
    clock.advance(60)
    await scheduler.settled()
    waiting = await scheduler.get(row.id)
    assert waiting is not None and waiting.state == "active" and waiting.next_due is None
    listed, total = await scheduler.planned("sim")
    assert total == 1 and listed[0].task_id == "mine"  # still listed, still cancellable
    await scheduler.cancel(row.id)
    sim.server.join("Steve")
    clock.advance(15)
    await scheduler.settled()
    assert sim.server.score("Steve", "wc") is None
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["cancelled"]


def commands_since(sim: PackSim, mark: int) -> list[str]:
    return list(sim.server.rcon_commands)[mark:]


async def test_a_run_is_staged_ahead_and_queued_by_one_call_at_its_time(
    sim: PackSim, server: ServerServices, wall: Wall
) -> None:
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim",
        command=ADD,
        task_id="staged",
        created_by=MOD,
        when="in 10m",
        retry=2,
        retry_delay=5,
    )
    clock.advance(600 - STAGE_LEAD - 0.5)
    await scheduler.settled()
    assert staged_requests(sim) == {}  # not yet
    clock.advance(0.5)
    await scheduler.settled()
    [request] = staged_requests(sim).values()
    assert isinstance(request, dict)
    assert (request["run"], request["id"], request["retry"], request["time"]) == (
        ADD,
        "staged",
        2,
        0,
    )
    assert count_runs(sim) == 0 and sim.server.storage("doom.schedule:data")["queue"] == []
    mark = len(sim.server.rcon_commands)
    clock.advance(STAGE_LEAD)
    await scheduler.settled()
    assert count_runs(sim) == 1
    sent = commands_since(sim, mark)
    # the first command at the due time queues it; no input is written then
    assert "submit_staged" in sent[0] and f"done.s{row.id}" in sent[0]
    assert not any("doom.schedule:in task set" in c for c in sent)
    assert staged_requests(sim) == {}
    runs = await scheduler.runs(row.id, 5)
    assert [r.outcome for r in runs] == ["ran"] and runs[0].lateness == 0.0


async def test_a_staged_request_the_server_lost_is_written_again_at_its_time(
    sim: PackSim, server: ServerServices, wall: Wall
) -> None:
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="lost", created_by=MOD, when="in 1m"
    )
    clock.advance(60 - STAGE_LEAD)
    await scheduler.settled()
    assert staged_requests(sim) != {}
    # what a crash back to a save older than the staging looks like to the bot
    sim.server.run("data remove storage doom.schedule:in staged")
    serial_before = sim.server.score("#serial", "doom.schedule") or 0
    clock.advance(STAGE_LEAD)
    await scheduler.settled()
    assert count_runs(sim) == 1
    assert (sim.server.score("#serial", "doom.schedule") or 0) - serial_before == 1
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["ran"]


@pytest.mark.parametrize("change", ["cancel", "pause"])
async def test_cancelling_or_pausing_a_staged_row_takes_its_request_back(
    sim: PackSim, server: ServerServices, change: str, wall: Wall
) -> None:
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="gone", created_by=MOD, when="in 1m"
    )
    clock.advance(60 - STAGE_LEAD)
    await scheduler.settled()
    assert staged_requests(sim) != {}
    await (scheduler.cancel if change == "cancel" else scheduler.pause)(row.id)
    await scheduler.settled()
    assert staged_requests(sim) == {}
    clock.advance(3600)
    await scheduler.settled()
    assert count_runs(sim) == 0


async def test_a_pack_without_submit_staged_still_gets_its_run(
    sim: PackSim, server: ServerServices, wall: Wall
) -> None:
    """A server still on pack 2.1.0 (before /setup upgraded it): the hand-over writes the input."""
    function = sim.server.world / "datapacks/doom.schedule/data/doom.schedule/function"
    (function / "submit_staged.mcfunction").unlink()
    (function.parent / "tags/function/submit_staged.json").unlink()
    sim.server.run("reload")
    old = sim.server.run('function doom.schedule:submit_staged {key:"a"}')
    assert "Unknown function" in old.feedback[0]
    clock = wall.clock
    scheduler = await wall.start(server)
    row = await scheduler.create(
        server="sim", command=ADD, task_id="old", created_by=MOD, when="in 1m"
    )
    clock.advance(60 - STAGE_LEAD)
    await scheduler.settled()
    clock.advance(STAGE_LEAD)
    await scheduler.settled()
    assert count_runs(sim) == 1
    assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["ran"]
