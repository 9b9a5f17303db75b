"""A wall-clock row's policy after a crash, end to end with the `rcon` source: a run of the row
handed over in the last poll interval before a SIGKILL (its `ran` event lost with the ring) is
in doubt, and the row's `on_doubt` decides whether it runs again, as a game-time task's does
(tests/chaos/test_rcon_source.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.background.doubt import DOUBT_TYPE
from bot.events.guarded import GuardedEvents
from bot.events.storage_poll import StoragePoller
from bot.store.schedules import Creator
from tests.chaos.rig import WAIT, Rig, count_runs, seed_world

pytestmark = pytest.mark.slow  # kills and restarts a server and its bot


@pytest.mark.parametrize(("policy", "runs"), [("skip", 1), ("run", 2)])
async def test_a_wall_clock_run_in_doubt_follows_the_row_s_policy(
    tmp_path: Path, policy: str, runs: int
) -> None:
    world = tmp_path / "world"
    seed_world(world)
    rig = Rig(world, tmp_path, source="rcon", poll=3.0)  # a long interval: the run falls in it
    async with rig.running() as services:
        await rig.guard_idle(0)
        assert rig.admin is not None and services.scheduler is not None
        server = services.servers["main"]
        assert isinstance(server.events, GuardedEvents)
        poller = server.events.inner
        assert isinstance(poller, StoragePoller)
        await rig.admin.command("tick freeze")
        now = await rig.game_time()
        row = await services.scheduler.create(
            server="main",
            command="say run-w0",
            task_id="w0",
            created_by=Creator(1, "mod"),
            when="in 90m",
            on_doubt=policy,  # type: ignore[arg-type]
        )
        polls = poller.polls
        async with asyncio.timeout(WAIT):
            while poller.polls < polls + 1:  # noqa: ASYNC110 (a poll reads the frozen time)
                await asyncio.sleep(0.01)
        # a run handed over now (as at its due time): it runs at once; its `ran` is in the ring
        await services.scheduler.run_now(row.id, "mod")
        await rig.admin.command("tick step 20")
        await rig.until_time(now + 20)
        await rig.proc.kill()  # before the next poll, seconds away
        assert count_runs(world, ["w0"]) == {"w0": 1}
        assert server.guard is not None
        checks = server.guard.checks
        await rig.proc.start()
        await rig.guard_idle(checks)
        await rig.admin.command("tick rate 200")
        await rig.until_time(now + 200)
        await asyncio.sleep(0.3)  # the tail of the log, a late alert
        assert count_runs(world, ["w0"]) == {"w0": runs}
        doubts = [a for a in rig.alerts if a.type == DOUBT_TYPE]
        assert len(doubts) == 1, rig.alerts
