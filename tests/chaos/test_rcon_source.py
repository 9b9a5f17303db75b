"""Exactly once without the log: the bot reads the pack's ring buffer over RCON (the `rcon`
source), mcsim is its own process and gets SIGKILL. Every run is counted in the server's own
logs. A run whose `ran` event the bot read never runs again; a run in the last poll interval
before the crash (its event lost with the ring) is in doubt: one alert names it, and its
policy (`on_doubt`) decides whether it runs again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.background.crash_guard import ALERT_TYPE
from bot.background.doubt import DOUBT_TYPE
from bot.events.event import Event
from bot.events.guarded import GuardedEvents
from bot.events.storage_poll import StoragePoller
from tests.chaos.rig import WAIT, Rig, Trial, count_runs, run_trial, seed_world

pytestmark = pytest.mark.slow  # each kills and restarts a server and its bot, 5-15 s


def listed(alert: Event) -> str:
    return " ".join(str(v) for v in alert.details.values())


async def test_every_run_the_bot_read_runs_once_after_a_sigkill(tmp_path: Path) -> None:
    # 8 tasks queued in the save; all 8 run and the bot reads their `ran`; SIGKILL ~1 s later
    outcome = await run_trial(
        tmp_path, Trial(game=8, save="save-all", save_at=190, kill_at=500, source="rcon")
    )
    assert outcome.saved == set(outcome.runs)
    assert outcome.ran_before_kill == {f"g{i}": 1 for i in range(8)}
    assert outcome.runs == {f"g{i}": 1 for i in range(8)}, outcome.runs
    restored = [a for a in outcome.alerts if a.type == ALERT_TYPE]
    assert len(restored) == 1, outcome.alerts
    assert all(f"g{i} (due" in listed(restored[0]) for i in range(8)), listed(restored[0])
    assert [a for a in outcome.alerts if a.type == DOUBT_TYPE] == []  # all were read: no doubt


async def test_tasks_made_after_the_save_are_put_back_with_the_rcon_source(tmp_path: Path) -> None:
    # nothing saved after they were made; SIGKILL long before any is due: all 8 put back, run
    # once. The window of doubt grows by 300 ticks a second between the bot's last read and the
    # failure it sees (the rig's 200 ticks a second, and half again), so the first due is 1,000
    # ticks after the kill: over 3 s of a loaded machine's lateness (200 ticks was not, once)
    outcome = await run_trial(
        tmp_path, Trial(game=8, save="none", due_from=1100, kill_at=100, source="rcon")
    )
    assert sum(outcome.ran_before_kill.values()) == 0
    assert outcome.runs == {f"g{i}": 1 for i in range(8)}, outcome.runs
    assert [a.type for a in outcome.alerts] == [ALERT_TYPE]


@pytest.mark.parametrize("saved", [True, False], ids=["in-the-save", "after-the-save"])
@pytest.mark.parametrize(("policy", "runs"), [("skip", 1), ("run", 2)])
async def test_a_run_in_the_last_poll_interval_is_in_doubt_and_follows_its_policy(
    tmp_path: Path, saved: bool, policy: str, runs: int
) -> None:
    world = tmp_path / "world"
    seed_world(world)
    rig = Rig(world, tmp_path, source="rcon", poll=3.0)  # a long interval: the run falls in it
    async with rig.running() as services:
        await rig.guard_idle(0)
        assert rig.admin is not None
        server = services.servers["main"]
        assert isinstance(server.events, GuardedEvents)
        poller = server.events.inner
        assert isinstance(poller, StoragePoller)
        await rig.admin.command("tick freeze")
        now = await rig.game_time()
        if not saved:
            await rig.admin.command("save-all")  # the crash comes back to before d0 was made
        await server.pack.schedule("say run-d0", 0, "t", "d0", at_tick=now + 10, on_doubt=policy)
        # far after the window: neither in doubt nor run before the crash
        await server.pack.schedule("say run-c0", 0, "t", "c0", at_tick=now + 400)
        if saved:
            await rig.admin.command("save-all")  # the crash comes back to d0 queued
        polls = poller.polls
        async with asyncio.timeout(WAIT):
            while poller.polls < polls + 1:  # noqa: ASYNC110 (a poll reads the frozen time)
                await asyncio.sleep(0.01)
        await rig.admin.command("tick step 20")  # d0 runs; its `ran` is only in the ring
        await rig.until_time(now + 20)
        await rig.proc.kill()  # before the next poll, seconds away
        assert count_runs(world, ["d0", "c0"]) == {"d0": 1, "c0": 0}
        assert server.guard is not None
        checks = server.guard.checks
        await rig.proc.start()
        await rig.guard_idle(checks)
        await rig.admin.command("tick rate 200")
        await rig.until_time(now + 460)
        await asyncio.sleep(0.3)  # the tail of the log, a late alert
        assert count_runs(world, ["d0", "c0"]) == {"d0": runs, "c0": 1}
        doubts = [a for a in rig.alerts if a.type == DOUBT_TYPE]
        assert len(doubts) == 1, rig.alerts
        said = listed(doubts[0])
        assert "d0 (due" in said and "c0" not in said, said
        done = (
            "before the crash, not run again" if policy == "skip" else "before the crash, run again"
        )
        assert [k for k in doubts[0].details if k.endswith(done)], doubts[0].details
        for alert in rig.alerts:  # d0 is named once, in the doubt alert
            if alert.type == ALERT_TYPE:
                assert "d0" not in listed(alert), listed(alert)
