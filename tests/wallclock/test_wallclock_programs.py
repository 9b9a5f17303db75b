"""Programs (bot.programs) run by the real wall-clock scheduler on a manual clock against mcsim
with the real pack over TCP RCON: each step runs once at its offset, a step `after` another
follows its policy when that one failed or did not succeed in time, cancel stops the rest, and a
restart of the bot between steps loses and doubles nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.programs.model import parse_steps, steps_json
from bot.programs.runner import ProgramRunner
from bot.services import ServerServices
from bot.store.programs import ProgramRun, ProgramStore
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from tests.wallclock.test_wallclock_scheduler import retries_pass
from tests.wallclock.wallclock_sim import (
    MOD,
    START,
    PackSim,
    TcpProxy,
    count_runs,
    make_scheduler,
    server_services,
)

EVENING = """
- run: scoreboard players add announce wc 1
  at: -10m
- run: scoreboard players add start wc 1
  at: 0
- run: scoreboard players add round2 wc 1
  at: +5m
  after: 2
- run: scoreboard players add reward wc 1
  at: +20m
- run: scoreboard players add cleanup wc 1
  at: +30m
"""
HOLDERS = ("announce", "start", "round2", "reward", "cleanup")


@dataclass
class Bot:
    """A scheduler and a program runner on one database and clock: what a bot process runs
    of programs; `restart` stops both and starts new ones on the same database."""

    db: Path
    server: ServerServices
    clock: ManualClock
    options: dict[str, object] = field(default_factory=dict)
    scheduler: Scheduler | None = None
    runner: ProgramRunner | None = None

    async def start(self) -> ProgramRunner:
        self.scheduler = make_scheduler(self.db, self.server, self.clock, **self.options)
        await self.scheduler.start()
        self.runner = ProgramRunner(ProgramStore(self.scheduler.store.db), self.scheduler)
        await self.runner.look()
        await self.scheduler.settled()
        return self.runner

    async def stop(self) -> None:
        if self.scheduler is not None:
            await self.scheduler.stop()
            await self.scheduler.store.db.close()
        self.scheduler = self.runner = None

    async def restart(self) -> ProgramRunner:
        await self.stop()
        return await self.start()

    async def until(self, when: datetime) -> None:
        """The clock moved to `when`, everything due by then done (the runner looks between)."""
        assert self.scheduler is not None and self.runner is not None
        self.clock.set(when)
        for _ in range(3):
            await self.scheduler.settled()
            await self.runner.look()
        await self.scheduler.settled()


@pytest.fixture
async def bot(server: ServerServices, tmp_path: Path) -> AsyncIterator[Bot]:
    bot = Bot(tmp_path / "bot.sqlite3", server, ManualClock(START))
    await bot.start()
    try:
        yield bot
    finally:
        await bot.stop()


async def started(bot: Bot, text: str, start: datetime) -> ProgramRun:
    assert bot.runner is not None
    program = await bot.runner.store.save("evening", steps_json(parse_steps(text)), MOD, START)
    return await bot.runner.start_program(program, "sim", start, MOD)


def counts(sim: PackSim) -> list[int]:
    return [count_runs(sim, holder) for holder in HOLDERS]


async def states(bot: Bot, run: ProgramRun) -> list[str]:
    assert bot.runner is not None
    return [v.state for v in await bot.runner.view(run)]


async def test_five_steps_each_run_once_at_its_offset(sim: PackSim, bot: Bot) -> None:
    start = START + timedelta(minutes=20)
    run = await started(bot, EVENING, start)
    assert await states(bot, run) == ["planned", "planned", "waiting", "planned", "planned"]
    expected = [0, 0, 0, 0, 0]
    for index, minutes in enumerate((-10, 0, 5, 20, 30)):
        due = start + timedelta(minutes=minutes)
        await bot.until(due - timedelta(seconds=1))
        assert counts(sim) == expected, minutes  # not a second early
        await bot.until(due)
        expected[index] = 1
        assert counts(sim) == expected, minutes
        if minutes == 0:  # step 3 is made once step 2 is recorded as run
            assert await states(bot, run) == ["ran", "ran", "planned", "planned", "planned"]
    assert bot.runner is not None and bot.scheduler is not None
    views = await bot.runner.view(run)
    assert [v.due for v in views] == [start + timedelta(minutes=m) for m in (-10, 0, 5, 20, 30)]
    for view in views:
        assert view.schedule_id is not None
        runs = await bot.scheduler.runs(view.schedule_id, 5)
        assert [(r.outcome, r.lateness) for r in runs] == [("ran", 0.0)]
    finished = await bot.runner.store.run(run.id)
    assert finished is not None and finished.state == "done"
    await bot.until(start + timedelta(days=1))
    assert counts(sim) == [1, 1, 1, 1, 1]


POLICY = """
- run: scoreboard players add announce wc 1
  at: 0
- run: scoreboard players add start wc 1
  at: +1m
- run: scoreboard players add round2 wc 1
  at: +5m
  after: 2
  on_failure: {policy}
- run: scoreboard players add reward wc 1
  at: +10m
"""


@pytest.mark.parametrize(
    ("policy", "after", "end", "run_state"),
    [
        ("skip", [1, 0, 0, 1, 0], ["ran", "failed", "skipped", "ran"], "done"),
        ("stop", [1, 0, 0, 0, 0], ["ran", "failed", "cancelled", "cancelled"], "stopped"),
        ("continue", [1, 0, 1, 1, 0], ["ran", "failed", "ran", "ran"], "done"),
    ],
)
async def test_a_step_after_a_failed_step_follows_its_policy(
    sim: PackSim,
    proxy: TcpProxy,
    tmp_path: Path,
    policy: str,
    after: list[int],
    end: list[str],
    run_state: str,
) -> None:
    server = server_services(sim, port=proxy.port, timeout=0.5)
    bot = Bot(tmp_path / "policy.sqlite3", server, ManualClock(START), {"max_late": 10.0})
    await bot.start()
    try:
        run = await started(bot, POLICY.format(policy=policy), START + timedelta(minutes=1))
        await bot.until(START + timedelta(minutes=1))
        assert counts(sim) == [1, 0, 0, 0, 0]
        proxy.down()  # step 2's server is unreachable past max_late: step 2 is missed
        assert bot.scheduler is not None and bot.runner is not None
        bot.clock.advance(60)
        await retries_pass(bot.scheduler, bot.clock, 6, 4)
        proxy.up()
        await bot.until(START + timedelta(minutes=3))
        view = await bot.runner.view(run)
        assert (view[1].state, view[1].outcome) == ("failed", "missed")
        for minute in range(4, 21):  # minute by minute: max_late is 10 s here
            await bot.until(START + timedelta(minutes=minute))
        assert counts(sim) == after
        assert await states(bot, run) == end
        ended = await bot.runner.store.run(run.id)
        assert ended is not None and ended.state == run_state
    finally:
        await bot.stop()
        await server.rcon.close()


LIMITED = """
- run: scoreboard players add start wc 1
  at: 0
  as_player: Nobody
- run: scoreboard players add round2 wc 1
  at: +5m
  after: 1
  limit: 10m
  on_failure: {policy}
"""


@pytest.mark.parametrize(("policy", "ran"), [("skip", 0), ("continue", 1)])
async def test_a_step_waits_for_its_after_step_no_longer_than_its_limit(
    sim: PackSim, bot: Bot, policy: str, ran: int
) -> None:
    start = START + timedelta(minutes=1)
    run = await started(bot, LIMITED.format(policy=policy), start)
    await bot.until(start)  # step 1 waits for its player, who never comes
    await bot.until(start + timedelta(minutes=15) - timedelta(seconds=1))
    assert await states(bot, run) == ["planned", "waiting"]
    await bot.until(start + timedelta(minutes=15))
    assert count_runs(sim, "round2") == ran
    assert (await states(bot, run))[1] == ("skipped" if policy == "skip" else "ran")
    assert count_runs(sim, "start") == 0


async def test_cancel_stops_the_remaining_steps(sim: PackSim, bot: Bot) -> None:
    start = START + timedelta(minutes=10)
    run = await started(bot, EVENING, start)
    await bot.until(start)
    assert counts(sim) == [1, 1, 0, 0, 0]
    assert bot.runner is not None
    cancelled = await bot.runner.cancel(run)
    assert cancelled is not None and cancelled.state == "cancelled"
    assert await bot.runner.cancel(run) is None  # once
    await bot.until(start + timedelta(hours=2))
    assert counts(sim) == [1, 1, 0, 0, 0]
    assert await states(bot, run) == ["ran", "ran", "cancelled", "cancelled", "cancelled"]


async def test_pause_holds_the_steps_and_resume_goes_on(sim: PackSim, bot: Bot) -> None:
    start = START + timedelta(minutes=10)
    run = await started(bot, EVENING, start)
    await bot.until(start)
    assert bot.runner is not None and bot.scheduler is not None
    assert await bot.runner.pause(run) is not None
    assert await bot.runner.pause(run) is None  # paused already
    for view in (await bot.runner.view(run))[2:]:
        assert view.schedule_id is not None
        row = await bot.scheduler.get(view.schedule_id)
        assert row is not None and row.state == "paused"
    await bot.until(start + timedelta(minutes=12))
    assert counts(sim) == [1, 1, 0, 0, 0]  # round two (+5m) held
    assert await bot.runner.resume(run) is not None
    await bot.until(start + timedelta(minutes=12))
    assert counts(sim) == [1, 1, 1, 0, 0]  # late, within max_late: once, on resume
    await bot.until(start + timedelta(minutes=30))
    assert counts(sim) == [1, 1, 1, 1, 1]


async def test_a_restart_between_steps_loses_and_doubles_nothing(sim: PackSim, bot: Bot) -> None:
    start = START + timedelta(minutes=10)
    run = await started(bot, EVENING, start)
    await bot.until(start - timedelta(minutes=10))
    assert bot.scheduler is not None
    # step 2 runs, and the bot stops before its runner looked (step 3 not made yet)
    bot.clock.set(start)
    await bot.scheduler.settled()
    assert counts(sim) == [1, 1, 0, 0, 0]
    assert await states(bot, run) == ["ran", "ran", "waiting", "planned", "planned"]
    await bot.stop()
    bot.clock.set(start + timedelta(minutes=1))
    runner = await bot.start()  # the new bot's first look makes step 3, once
    assert await states(bot, run) == ["ran", "ran", "planned", "planned", "planned"]
    views = await runner.view(run)
    assert views[2].schedule_id is not None
    await bot.restart()  # and a restart before its time changes nothing of it
    await bot.until(start + timedelta(minutes=5))
    assert counts(sim) == [1, 1, 1, 0, 0]
    await bot.stop()  # down across step 4's time, back within max_late: it runs late, once
    bot.clock.set(start + timedelta(minutes=25))
    await bot.start()
    await bot.until(start + timedelta(minutes=40))
    assert counts(sim) == [1, 1, 1, 1, 1]
    assert bot.scheduler is not None and bot.runner is not None
    for view in await bot.runner.view(run):
        assert view.schedule_id is not None
        assert len(await bot.scheduler.runs(view.schedule_id, 5)) == 1
    made = await bot.scheduler.store.rows_of("sim", f"evening.{run.id}.3")
    assert len(made) == 1


async def test_a_row_made_but_not_linked_is_linked_not_made_again(sim: PackSim, bot: Bot) -> None:
    start = START + timedelta(minutes=10)
    run = await started(bot, EVENING, start)
    assert bot.scheduler is not None
    await bot.until(start - timedelta(minutes=10))
    bot.clock.set(start)
    await bot.scheduler.settled()
    # what a bot stopped between making step 3's row and writing its link left behind
    orphan = await bot.scheduler.create_at(
        due=start + timedelta(minutes=5),
        server="sim",
        command="scoreboard players add round2 wc 1",
        task_id=f"evening.{run.id}.3",
        created_by=MOD,
    )
    await bot.restart()
    views = await bot.runner.view(run) if bot.runner is not None else []
    assert views[2].schedule_id == orphan.id
    await bot.until(start + timedelta(minutes=6))
    assert counts(sim) == [1, 1, 1, 0, 0]
