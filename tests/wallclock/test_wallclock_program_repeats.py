"""Programs on a repeat (bot.programs.repeats) run by the real wall-clock scheduler on a manual
clock against mcsim with the real pack over TCP RCON: each occurrence starts one run and each of
its steps runs once, over several simulated days, across restarts of the bot, under the DST
policy chosen in Berlin's repeated and skipped hours; an occurrence the bot was away for past
the grace is skipped and alerted once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.events.event import Event
from bot.programs.model import parse_steps, steps_json
from bot.programs.repeats import RepeatWatcher
from bot.programs.runner import ProgramRunner
from bot.services import ServerServices
from bot.store.program_repeats import ProgramRepeat, RepeatStore
from bot.store.programs import ProgramStore
from bot.times.clock import ManualClock
from bot.times.when import build_spec
from bot.wallclock.scheduler import Scheduler
from tests.wallclock.wallclock_sim import MOD, START, PackSim, count_runs, make_scheduler

DAILY = """
- run: scoreboard players add start wc 1
  at: 0
- run: scoreboard players add reward wc 1
  at: +5m
"""


@dataclass
class Bot:
    """A scheduler, a program runner and a repeat watcher on one database and clock: what a bot
    process runs of repeats; `restart` stops them and starts new ones on the same database."""

    db: Path
    server: ServerServices
    clock: ManualClock
    scheduler: Scheduler | None = None
    runner: ProgramRunner | None = None
    watcher: RepeatWatcher | None = None
    alerts: list[Event] = field(default_factory=list)

    async def start(self) -> RepeatWatcher:
        self.scheduler = make_scheduler(self.db, self.server, self.clock)
        await self.scheduler.start()
        db = self.scheduler.store.db
        self.runner = ProgramRunner(ProgramStore(db), self.scheduler)
        self.watcher = RepeatWatcher(RepeatStore(db), self.runner)
        self.watcher.alerts_of("sim").subscribe(_Collect(self.alerts))
        await self.look()
        return self.watcher

    async def look(self) -> None:
        assert self.scheduler is not None and self.runner is not None
        assert self.watcher is not None
        for _ in range(3):
            await self.watcher.look()
            await self.runner.look()
            await self.scheduler.settled()

    async def stop(self) -> None:
        if self.scheduler is not None:
            await self.scheduler.stop()
            await self.scheduler.store.db.close()
        self.scheduler = self.runner = self.watcher = None

    async def restart(self) -> RepeatWatcher:
        await self.stop()
        return await self.start()

    async def until(self, when: datetime) -> None:
        self.clock.set(when)
        await self.look()

    async def repeat(self, repeat: str, timezone: str = "UTC", **dst: str) -> ProgramRepeat:
        assert self.watcher is not None
        program = await self.watcher.runner.store.save(
            "daily", steps_json(parse_steps(DAILY)), MOD, self.clock.now()
        )
        spec = build_spec(
            None,
            repeat,
            timezone,
            None,
            now=self.clock.now(),
            **dst,  # type: ignore[arg-type]
        )
        return await self.watcher.store.add(
            program.name, "sim", ["sim"], repeat, spec, MOD, self.clock.now()
        )


class _Collect:
    def __init__(self, into: list[Event]) -> None:
        self.into = into

    def put_nowait(self, item: Event, /) -> None:
        self.into.append(item)


@pytest.fixture
async def bot(server: ServerServices, tmp_path: Path) -> AsyncIterator[Bot]:
    bot = Bot(tmp_path / "bot.sqlite3", server, ManualClock(START))
    await bot.start()
    try:
        yield bot
    finally:
        await bot.stop()


def counts(sim: PackSim) -> tuple[int, int]:
    return count_runs(sim, "start"), count_runs(sim, "reward")


async def occurrences(bot: Bot, repeat: ProgramRepeat) -> list[tuple[datetime, str]]:
    assert bot.watcher is not None
    found = await bot.watcher.store.occurrences(repeat.id)
    return sorted((o.occurrence, o.state) for o in found)


async def test_a_daily_repeat_starts_once_a_day_each_step_once(sim: PackSim, bot: Bot) -> None:
    repeat = await bot.repeat("1d")
    first = START + timedelta(days=1)
    assert repeat.spec.first_due == first
    for day in range(4):
        due = first + timedelta(days=day)
        await bot.until(due - timedelta(seconds=1))
        assert counts(sim) == (day, day), day  # not a second early
        await bot.until(due)
        assert counts(sim) == (day + 1, day), day
        await bot.until(due + timedelta(minutes=5))
        assert counts(sim) == (day + 1, day + 1), day
        await bot.until(due + timedelta(hours=12))
        assert counts(sim) == (day + 1, day + 1), day
    assert bot.runner is not None
    runs = await bot.runner.store.runs()
    assert sorted(r.start for r in runs) == [first + timedelta(days=d) for d in range(4)]
    assert {r.state for r in runs} == {"done"}
    assert [s for _, s in await occurrences(bot, repeat)] == ["started"] * 4
    assert bot.alerts == []


async def test_a_cron_repeat_in_berlin_starts_at_its_wall_time(sim: PackSim, bot: Bot) -> None:
    repeat = await bot.repeat("0 20 * * *", "Europe/Berlin")
    for day in range(1, 4):  # 20:00 CET is 19:00 UTC
        due = datetime(2026, 12, day, 19, 0, tzinfo=UTC)
        await bot.until(due - timedelta(seconds=1))
        assert count_runs(sim, "start") == day - 1
        await bot.until(due)
        await bot.until(due + timedelta(minutes=5))
        assert counts(sim) == (day, day)
    assert [o for o, _ in await occurrences(bot, repeat)] == [
        datetime(2026, 12, d, 19, 0, tzinfo=UTC) for d in range(1, 4)
    ]


async def test_a_restart_between_occurrences_loses_and_doubles_nothing(
    sim: PackSim, bot: Bot
) -> None:
    repeat = await bot.repeat("1d")
    first = START + timedelta(days=1)
    await bot.until(first)
    await bot.restart()  # between the start and the reward of the first
    await bot.until(first + timedelta(minutes=5))
    assert counts(sim) == (1, 1)
    await bot.restart()
    await bot.restart()
    await bot.until(first + timedelta(days=1))
    await bot.until(first + timedelta(days=1, minutes=5))
    # down just after the third occurrence is due, back within the grace: it starts, once
    await bot.stop()
    bot.clock.set(first + timedelta(days=2, seconds=3))
    await bot.start()
    await bot.restart()
    await bot.until(first + timedelta(days=2, minutes=10))
    assert counts(sim) == (3, 3)
    assert [s for _, s in await occurrences(bot, repeat)] == ["started"] * 3
    assert bot.runner is not None
    assert len(await bot.runner.store.runs()) == 3


async def test_occurrences_the_bot_was_away_for_are_skipped_and_alerted_once(
    sim: PackSim, bot: Bot
) -> None:
    repeat = await bot.repeat("1d")
    first = START + timedelta(days=1)
    await bot.until(first)
    await bot.until(first + timedelta(minutes=5))
    await bot.stop()  # away across the second and third; back a minute after the third
    bot.clock.set(first + timedelta(days=2, minutes=1))
    await bot.start()
    await bot.restart()
    assert counts(sim) == (1, 1)
    decided = await occurrences(bot, repeat)
    assert decided == [(first, "started"), (first + timedelta(days=2), "missed")]
    assert bot.watcher is not None
    missed = await bot.watcher.store.occurrences(repeat.id)
    assert missed[0].skipped == 2
    assert [(e.type, e.details["skipped"]) for e in bot.alerts] == [("wallclock_skipped", "2")]
    await bot.until(first + timedelta(days=3))  # the next one runs as usual
    await bot.until(first + timedelta(days=3, minutes=5))
    assert counts(sim) == (2, 2)
    # away across one, back within the grace of the next: one skipped, the next started
    await bot.stop()
    bot.clock.set(first + timedelta(days=5, seconds=2))
    await bot.start()
    assert count_runs(sim, "start") == 3
    assert [e.details["skipped"] for e in bot.alerts] == ["2", "1"]


def utc(year: int, month: int, day: int, hour: int, minute: int) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


AUTUMN = utc(2026, 10, 24, 22, 0)  # 00:00 CEST; the clock goes back at 01:00 UTC
SPRING = utc(2027, 3, 27, 23, 0)  # 00:00 CET; the clock goes forward at 01:00 UTC


@pytest.mark.parametrize(
    ("start", "dst", "expected"),
    [
        # 02:30 in Berlin on 2026-10-25 is 00:30 UTC (CEST) and again 01:30 UTC (CET)
        (AUTUMN, {}, [utc(2026, 10, 25, 0, 30)]),
        (AUTUMN, {"dst_repeated": "first"}, [utc(2026, 10, 25, 0, 30)]),
        (AUTUMN, {"dst_repeated": "second"}, [utc(2026, 10, 25, 1, 30)]),
        (AUTUMN, {"dst_repeated": "both"}, [utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 1, 30)]),
        # 02:30 on 2027-03-28 never happens: shifted to 03:00 CEST (01:00 UTC), or skipped
        (SPRING, {}, [utc(2027, 3, 28, 1, 0)]),
        (SPRING, {"dst_skipped": "skip"}, []),
    ],
)
async def test_an_occurrence_in_a_changed_hour_follows_the_dst_policy(
    sim: PackSim,
    server: ServerServices,
    tmp_path: Path,
    start: datetime,
    dst: dict[str, str],
    expected: list[datetime],
) -> None:
    bot = Bot(tmp_path / "dst.sqlite3", server, ManualClock(start))
    await bot.start()
    try:
        repeat = await bot.repeat("30 2 * * *", "Europe/Berlin", **dst)
        moment = start
        # five minutes at a time through the change: every half hour it could name is looked
        # at on the dot (a look a minute costs five times the CPU and finds nothing more)
        while moment < start + timedelta(hours=5):
            moment += timedelta(minutes=5)
            await bot.until(moment)
        assert [o for o, _ in await occurrences(bot, repeat)] == expected
        assert counts(sim) == (len(expected), len(expected))
        assert bot.alerts == []
    finally:
        await bot.stop()


async def test_two_watchers_on_one_database_start_an_occurrence_once(
    sim: PackSim, server: ServerServices, other: ServerServices, tmp_path: Path
) -> None:
    """Two processes that both look at the same server (as around a lease's hand-over), one
    after the other at each occurrence: the second finds it started (the race of two at the
    same instant is the store's: tests/store/test_store_program_repeats.py)."""
    clock = ManualClock(START)
    one, two = (Bot(tmp_path / "shared.sqlite3", s, clock) for s in (server, other))
    await one.start()
    await two.start()
    try:
        repeat = await one.repeat("1h")
        for hour in range(1, 4):
            clock.set(START + timedelta(hours=hour))
            assert one.watcher is not None and two.watcher is not None
            await two.watcher.look()
            await one.watcher.look()
            await one.look()
            await two.look()
            clock.set(START + timedelta(hours=hour, minutes=5))
            await one.look()
            await two.look()
        assert counts(sim) == (3, 3)
        assert [s for _, s in await occurrences(one, repeat)] == ["started"] * 3
    finally:
        await one.stop()
        await two.stop()


async def test_a_process_starts_only_the_occurrences_of_the_servers_it_holds(
    sim: PackSim, server: ServerServices, other: ServerServices, tmp_path: Path
) -> None:
    """Sharing one database (bot.background.fleet), a process that does not hold the server
    starts nothing of it; the one that holds it starts each occurrence."""
    clock = ManualClock(START)
    holder, bystander = (Bot(tmp_path / "fleet.sqlite3", s, clock) for s in (server, other))
    await holder.start()
    await bystander.start()
    try:
        assert bystander.scheduler is not None
        bystander.scheduler.owns = lambda name: False
        repeat = await holder.repeat("1h")
        clock.set(START + timedelta(hours=1))
        await bystander.look()
        assert await occurrences(holder, repeat) == [] and counts(sim) == (0, 0)
        await holder.look()
        assert await occurrences(holder, repeat) == [(START + timedelta(hours=1), "started")]
        assert count_runs(sim, "start") == 1
    finally:
        await holder.stop()
        await bystander.stop()
