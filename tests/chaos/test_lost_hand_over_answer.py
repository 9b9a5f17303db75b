"""A wall-clock hand-over whose answer a crash took: the server queued the task (and ran it),
then died before answering, and came back from a save older than the hand-over. Its mark and
the `ran` the ring had are rolled back with the world, and the bot's record never had the task
(it records an acknowledgement): nothing can say whether it ran. It is in doubt, as a game-time
run in the window is (bot.background.doubt): the row's `on_doubt` decides, and an alert names it.
Seen in the chaos trials with the `rcon` source: the retry sent it again, and it ran twice.

mcsim in-process, stepped by the test, so the order is fixed: the submit runs, one tick runs the
task, the server crashes, the connection drops before the answer is read."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.background.doubt import DOUBT_TYPE
from bot.config import DEFAULT_DENY
from bot.errors import CommandDropped
from bot.events.event import Event
from bot.minecraft.command_check import CommandChecker
from bot.services import ServerServices
from bot.store.db import Database
from bot.store.schedules import Creator, ScheduleStore
from bot.wallclock.scheduler import Scheduler
from tests.bot.test_ledger import Rig, make_rig

MOD = Creator(7002, "mod#0001")


class Feed:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def put_nowait(self, item: Event, /) -> None:
        self.events.append(item)


def crash_after_the_submit(rig: Rig, *, tick: bool = True) -> list[str]:
    """The first hand-over's submit runs, its task runs in the next tick (unless not `tick`),
    the server crashes (back to its last save) and the connection drops before the answer is
    read."""
    rcon = rig.pack.rcon
    real = rcon.command
    crashed: list[str] = []

    async def command(text: str) -> str:
        reply = await real(text)
        if "doom.schedule:submit" in text and not crashed:
            crashed.append(text)
            if tick:
                rig.server.step(1)  # the task runs: its `ran` only in the ring, the world's
            rig.restart(crash=True)
            rcon._drop("test: the server died")
            raise CommandDropped("The connection dropped; the command may or may not have run.")
        return reply

    rcon.command = command  # type: ignore[method-assign]
    return crashed


async def start(tmp_path: Path, kind: str) -> tuple[Rig, Scheduler, Feed, int]:
    """The rig's server with `kind` as its event source, a scheduler over it, the game time
    of the save the crash will come back to (the bot saw past it)."""
    rig = await make_rig(tmp_path)
    rig.guard.ring = kind == "rcon"
    rig.pack.compared = rig.guard.compared
    rig.pack.rcon.on_reconnect.append(rig.guard.notice_reconnect)
    checker = CommandChecker(deny=DEFAULT_DENY)
    server = ServerServices(rig.pack.server, rig.pack.rcon, rig.pack, checker, None)
    rig.ledger.ring = kind == "rcon"
    store = ScheduleStore(Database(tmp_path / "schedules.sqlite3"))
    scheduler = Scheduler(store, {"sim": server}, backoff=(0.01,))
    feed = Feed()
    scheduler.alerts_of("sim").subscribe(feed)
    rig.server.run("save-all")  # the crash comes back to before the hand-over
    saved = rig.server.game_time
    rig.server.step(40)
    rig.guard.start()
    await scheduler.start()
    return rig, scheduler, feed, saved


async def stop(rig: Rig, scheduler: Scheduler) -> None:
    await scheduler.stop()
    await rig.guard.stop()
    await rig.pack.rcon.close()
    await rig.db.close()
    rig.server.stop()


@pytest.mark.parametrize(("policy", "runs"), [("skip", 1), ("run", 2)])
async def test_a_hand_over_whose_answer_a_crash_took_is_in_doubt(
    tmp_path: Path, policy: str, runs: int
) -> None:
    rig, scheduler, feed, saved = await start(tmp_path, "rcon")
    try:
        await asyncio.wait_for(rig.guard.idle.wait(), 10)
        assert await rig.pack.get_time() > saved  # the bot saw the game time the crash takes back
        row = await scheduler.create(
            server="sim",
            command="say run-w1",
            task_id="w1",
            created_by=MOD,
            when="in 90m",
            on_doubt=policy,  # type: ignore[arg-type]
        )
        crashed = crash_after_the_submit(rig)
        run = await scheduler.run_now(row.id, "mod", within=10)
        assert crashed
        rig.server.step(20)
        assert rig.runs("run-w1") == runs
        assert run.outcome == ("in_doubt" if policy == "skip" else "ran"), run
        doubts = [e for e in feed.events if e.type == DOUBT_TYPE]
        assert len(doubts) == 1, feed.events
        said = " ".join(str(v) for v in doubts[0].details.values())
        assert "w1 (due" in said, said
        again = "not run again" if policy == "skip" else "run again"
        assert [k for k in doubts[0].details if k.endswith(f"before the crash, {again}")]
    finally:
        await stop(rig, scheduler)


async def test_with_the_log_a_hand_over_the_crash_took_before_it_ran_is_sent_again(
    tmp_path: Path,
) -> None:
    # the log says every run (its lines outlive a rollback), so a hand-over the record does not
    # know did not run: it is sent again, never skipped as in doubt (that would lose it)
    rig, scheduler, feed, _saved = await start(tmp_path, "log")
    try:
        await asyncio.wait_for(rig.guard.idle.wait(), 10)
        row = await scheduler.create(
            server="sim", command="say run-w1", task_id="w1", created_by=MOD, when="in 90m"
        )
        crashed = crash_after_the_submit(rig, tick=False)
        run = await scheduler.run_now(row.id, "mod", within=10)
        assert crashed
        rig.server.step(20)
        assert rig.runs("run-w1") == 1
        assert run.outcome == "ran", run
        assert [e for e in feed.events if e.type == DOUBT_TYPE] == []
    finally:
        await stop(rig, scheduler)


@pytest.mark.parametrize(("policy", "runs"), [("skip", 0), ("run", 1)])
async def test_a_hand_over_acknowledged_once_the_bot_lost_sight_is_in_doubt(
    tmp_path: Path, policy: str, runs: int
) -> None:
    # the old server acknowledged it after a read of the ring had failed, and died before its
    # tick: a row made since the bot lost sight is of the restarted timeline only when that
    # timeline has reached its acknowledgement's game time; this one is of the old one
    rig = await make_rig(tmp_path)
    rig.guard.ring = True
    try:
        rig.server.run("save-all")  # the crash comes back to before the hand-over
        rig.server.step(40)
        rig.ledger.regained()
        rig.ledger.poll_started()
        await rig.ledger.polled(await rig.pack.get_time())  # a whole read of the ring
        rig.ledger.lost_sight()  # a read failed: the server may be gone
        request = {"on_doubt": policy} if policy == "run" else {}
        await rig.pack.schedule("say run-w1", 0, "tick", "w1", key="w1d1", **request)
        rig.restart(crash=True)  # before the tick that would run it
        rig.guard.notice_reconnect()
        report = await rig.guard.check()
        assert report is not None
        doubt = rig.guard.last_doubt
        assert doubt is not None, report.texts()
        said = " ".join(str(v) for items in doubt.done.values() for v in items)
        assert "w1 (due" in said, said
        rig.server.step(40)
        assert rig.runs("run-w1") == runs
    finally:
        await rig.guard.stop()
        await rig.pack.rcon.close()
        await rig.db.close()
        rig.server.stop()
