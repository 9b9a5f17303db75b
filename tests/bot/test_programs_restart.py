"""A program on the whole bot (real services and cogs over TCP RCON to mcsim with the pack, the
scheduler on a manual clock) with the bot and its server stopped between steps and started
again on the same data dir and world: each of the five steps runs once, the one due while both
were down late, on their return."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.operations import registry
from bot.services import build_services
from bot.store.schedules import ScheduleStore
from bot.testkit.harness import MOD, Harness, make_settings
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from tests.console.typed import typed_by
from tests.fixtures import following, server_config, settled, start_mcsim

# the acceptance's five steps, as the scheduler-level tests run them
from tests.wallclock.test_wallclock_programs import EVENING as STEPS
from tests.wallclock.test_wallclock_programs import HOLDERS

PASSWORD = "programs-restart-Pw"
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def start_bot(server: Server, tmp_path: Path, clock: ManualClock) -> Harness:
    config = make_settings(tmp_path, [server_config(server, PASSWORD)], log_poll_interval=0.02)
    services = await build_services(config)
    services.scheduler = Scheduler(ScheduleStore(services.db), services.servers, clock=clock)
    harness = await Harness(config, services).start()
    await following(harness, server)
    await settled(harness)
    return harness


def counts(server: Server) -> list[int]:
    return [server.score(holder, "wc") or 0 for holder in HOLDERS]


async def until(server: Server, done: Callable[[], object], limit: float = 10) -> None:
    """Step the server (a held run after its start needs ticks) until `done`, bounded."""
    async with asyncio.timeout(limit):
        while not done():
            await asyncio.to_thread(server.step, 1)
            await asyncio.sleep(0.02)


async def shown(bot: Harness, run: int) -> dict[str, Any]:
    said = await registry.run(bot.bot.ops, typed_by(MOD)(), "program show", {"run": run})
    return dict(said.facts)


async def test_the_bot_and_server_stopped_between_steps_lose_and_double_nothing(
    tmp_path: Path,
) -> None:
    world = tmp_path / "world"
    server = start_mcsim(world, password=PASSWORD)
    server.run("scoreboard objectives add wc dummy")
    clock = ManualClock(START)
    bot = await start_bot(server, tmp_path, clock)
    try:
        caller = typed_by(MOD)
        ops = bot.bot.ops
        await registry.run(ops, caller(), "program save", {"name": "evening", "steps": STEPS})
        started = await registry.run(ops, caller(), "program start", {"name": "evening"})
        run = int(started.facts["run"])
        start = START + timedelta(minutes=10)  # started now, its first step 10 minutes ahead
        assert started.facts["start"] == start.isoformat()
        await until(server, lambda: counts(server) == [1, 0, 0, 0, 0])
        clock.set(start)
        await until(server, lambda: counts(server) == [1, 1, 0, 0, 0])
        async with asyncio.timeout(10):  # the bot's runner makes step 3 once step 2 ran
            while True:
                if (await shown(bot, run))["steps"][2]["state"] == "planned":
                    break
                await asyncio.sleep(0.05)
    finally:
        await bot.close()
    server.stop()
    clock.set(start + timedelta(minutes=6))  # step 3 (+5m) is due while both are down
    server = start_mcsim(world, password=PASSWORD)
    try:
        bot = await start_bot(server, tmp_path, clock)
        try:
            await until(server, lambda: counts(server) == [1, 1, 1, 0, 0])
            for minutes, expected in ((20, [1, 1, 1, 1, 0]), (30, [1, 1, 1, 1, 1])):
                clock.set(start + timedelta(minutes=minutes))
                await until(server, lambda expected=expected: counts(server) == expected)
            async with asyncio.timeout(10):
                while True:
                    facts = await shown(bot, run)
                    if facts["state"] == "done":
                        break
                    await asyncio.sleep(0.05)
            steps = facts["steps"]
            assert [s["state"] for s in steps] == ["ran"] * 5, steps
            scheduler = bot.services.scheduler
            assert scheduler is not None
            for number in range(1, 6):
                [row] = await scheduler.store.rows_of("main", f"evening.{run}.{number}")
                assert [r.outcome for r in await scheduler.runs(row.id, 5)] == ["ran"]
            await asyncio.to_thread(server.step, 40)
            assert counts(server) == [1, 1, 1, 1, 1]
        finally:
            await bot.close()
    finally:
        server.stop()
