"""A wall-clock row's policy after a crash (`on_doubt`, bot.background.doubt): stored with the
row, kept out of the request staged in the pack (the pack never sees it), and in the bot's record
of the task its hand-over queued, which is what the crash guard reads."""

from __future__ import annotations

from pathlib import Path

from bot.services import ServerServices
from bot.store.db import Database
from bot.store.ledger import Ledger
from bot.store.schedules import ScheduleStore
from bot.times.clock import ManualClock
from bot.wallclock.due_heap import STAGE_LEAD
from tests.wallclock.wallclock_sim import MOD, START, PackSim, count_runs, make_scheduler

ADD = "scoreboard players add #runs wc 1"


async def test_a_staged_hand_over_carries_the_row_s_policy_into_the_record(
    sim: PackSim, server: ServerServices, tmp_path: Path
) -> None:
    ledger = Ledger(Database(tmp_path / "ledger.sqlite3"), "sim")
    server.pack.recorder = ledger
    clock = ManualClock(START)
    scheduler = make_scheduler(tmp_path / "bot.sqlite3", server, clock)
    await scheduler.start()
    try:
        again = await scheduler.create(
            server="sim", command=ADD, task_id="again", created_by=MOD, when="in 10m",
            on_doubt="run",
        )  # fmt: skip
        once = await scheduler.create(
            server="sim", command=ADD, task_id="once", created_by=MOD, when="in 10m"
        )
        store = ScheduleStore(Database(tmp_path / "bot.sqlite3"))
        stored = await store.get(again.id)
        assert stored is not None and stored.on_doubt == "run"
        assert once.on_doubt == "skip"
        clock.advance(600 - STAGE_LEAD)
        await scheduler.settled()
        staged = sim.server.storage("doom.schedule:in").get("staged", {})
        assert f"w{again.id}" in staged and "on_doubt" not in staged[f"w{again.id}"]  # type: ignore[operator, index]
        clock.advance(STAGE_LEAD)
        await scheduler.settled()
        assert count_runs(sim) == 2
        policies = {
            e.task_id: (e.on_doubt, e.request.get("on_doubt")) for e in await ledger.entries()
        }
        assert policies == {"again": ("run", "run"), "once": ("skip", None)}
        assert scheduler.handed_over == 2
    finally:
        await scheduler.stop()
