"""Runs that happened while the bot was down reach the run history with their real time: a
wall-clock run handed over on start and held by the pack until the crash guard released it,
a game-time task that ran while the bot was away (read from the log on start), and a run the
guard finds by its mark after a restart. Real services and cogs over TCP RCON to mcsim with
the pack, the scheduler on a manual clock, the bot stopped and started on one data dir."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.i18n import Text
from bot.services import build_services
from bot.store.schedules import Schedule, ScheduleStore
from bot.testkit.harness import MOD, Harness, make_settings
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from tests.fixtures import following, server_config, settled, start_mcsim

PASSWORD = "history-restart-Pw"
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
ADD = "scoreboard players add #n h 1"


async def start_bot(
    server: Server, tmp_path: Path, clock: ManualClock, alerts: list[str] | None = None
) -> Harness:
    """The bot with every cog on `server`, its data dir under tmp_path (kept across starts),
    its scheduler on `clock`; the kinds of the scheduler's alerts go to `alerts`."""
    config = make_settings(tmp_path, [server_config(server, PASSWORD)], log_poll_interval=0.02)
    services = await build_services(config)
    scheduler = Scheduler(ScheduleStore(services.db), services.servers, clock=clock)
    services.scheduler = scheduler
    if alerts is not None:
        alert = scheduler.alert

        def said(row: Schedule, kind: str, due: datetime, **details: Text) -> None:
            alerts.append(kind)
            alert(row, kind, due, **details)

        scheduler.alert = said  # type: ignore[method-assign]
    harness = await Harness(config, services).start()
    await following(harness, server)
    await settled(harness)
    return harness


async def step_until(server: Server, done: object, limit: float = 10) -> None:
    async with asyncio.timeout(limit):
        while not done():  # type: ignore[operator]
            await asyncio.to_thread(server.step, 1)
            await asyncio.sleep(0.02)


def history_lines(reply: object) -> list[str]:
    embed = reply.embeds[0]  # type: ignore[attr-defined]
    return str(embed.get("description", "")).split("\n")


async def test_a_planned_run_while_the_bot_was_down_is_its_history_with_its_lateness(
    tmp_path: Path,
) -> None:
    """`when: in 30s`; the bot and its server stop (the console's embedded server stops with
    it); 45 s pass; both start: the run happens once, 15 s late, and /history says it ran."""
    world = tmp_path / "world"
    server = start_mcsim(world, password=PASSWORD)
    server.run("scoreboard objectives add h dummy")
    clock = ManualClock(START)
    bot = await start_bot(server, tmp_path, clock)
    try:
        await bot.run("schedule", MOD, run=ADD, id="soon", when="in 30s")
    finally:
        await bot.close()
    server.stop()
    clock.advance(45)
    server = start_mcsim(world, password=PASSWORD)
    try:
        bot = await start_bot(server, tmp_path, clock)
        try:
            scheduler = bot.services.scheduler
            assert scheduler is not None
            await scheduler.settled()
            await step_until(server, lambda: server.score("#n", "h") == 1)
            history = bot.services.history
            async with asyncio.timeout(10):
                while True:
                    found, total = await history.page("main", "soon")
                    if found and found[0].outcome != "queued":
                        break
                    await asyncio.sleep(0.02)
            assert total == 1 and server.score("#n", "h") == 1
            entry = found[0]
            assert (entry.kind, entry.outcome) == ("planned", "ran")
            assert entry.due == START + timedelta(seconds=30)
            assert entry.ran == START + timedelta(seconds=45)
            assert entry.lateness == 15.0
            shown = await bot.run("history", MOD, id="soon")
            assert "queued" not in shown.embeds[0]["description"]
        finally:
            await bot.close()
    finally:
        server.stop()


async def test_a_game_time_run_while_the_bot_was_down_has_its_own_time(tmp_path: Path) -> None:
    """A game-time task runs on a server that keeps running while the bot is away; the bot
    reads the run from the log on start and times it by its game time, not by the start."""
    server = start_mcsim(tmp_path / "world", password=PASSWORD)
    server.run("scoreboard objectives add h dummy")
    clock = ManualClock(START)
    try:
        bot = await start_bot(server, tmp_path, clock)
        try:
            await bot.run("schedule", MOD, run=ADD, id="g", time=100, unit="tick")
        finally:
            await bot.close()
        # the bot is away 15 s; the server ticks them (300 ticks) and runs the task at 5 s
        await asyncio.to_thread(server.step, 300)
        clock.advance(15)
        assert server.score("#n", "h") == 1
        bot = await start_bot(server, tmp_path, clock)
        try:
            history = bot.services.history
            async with asyncio.timeout(10):
                while True:
                    found, total = await history.page("main", "g")
                    if found:
                        break
                    await asyncio.sleep(0.02)
            assert total == 1
            entry = found[0]
            assert (entry.kind, entry.outcome, entry.lateness) == ("game", "ran", 0.0)
            assert entry.ran == START + timedelta(seconds=5)
            assert entry.due == START + timedelta(seconds=5)
        finally:
            await bot.close()
    finally:
        server.stop()


async def test_a_run_found_handed_over_after_a_restart_is_not_said_late(tmp_path: Path) -> None:
    """The bot stops right after the server took a planned run, before it recorded it; it
    starts a minute later and finds the run by its mark: the run ran on time, so its history
    says so (timed by the log's `ran`) and no "ran late" alert is posted."""
    server = start_mcsim(tmp_path / "world", password=PASSWORD)
    server.run("scoreboard objectives add h dummy")
    clock = ManualClock(START)
    try:
        bot = await start_bot(server, tmp_path, clock)
        scheduler = bot.services.scheduler
        assert scheduler is not None
        took = asyncio.Event()

        async def stops_here(*_args: object, **_kwargs: object) -> None:
            took.set()
            await asyncio.Event().wait()  # the bot's process ends before it records the run

        try:
            await bot.run("schedule", MOD, run=ADD, id="soon", when="in 30s")
            scheduler.store.finish_run = stops_here  # type: ignore[method-assign]
            clock.advance(30)
            async with asyncio.timeout(10):
                await took.wait()
            await step_until(server, lambda: server.score("#n", "h") == 1)
        finally:
            await bot.close()
        await asyncio.to_thread(server.step, 1200)  # a minute passes, the server ticking
        clock.advance(60)
        alerts: list[str] = []
        bot = await start_bot(server, tmp_path, clock, alerts)
        try:
            scheduler = bot.services.scheduler
            assert scheduler is not None
            await scheduler.settled()
            history = bot.services.history
            async with asyncio.timeout(10):
                while True:
                    found, total = await history.page("main", "soon")
                    if found and found[0].ran is not None and found[0].outcome == "ran":
                        break
                    await asyncio.sleep(0.02)
            assert total == 1 and server.score("#n", "h") == 1
            entry = found[0]
            assert entry.lateness is not None and entry.lateness < 1.0
            assert entry.ran is not None and entry.ran < START + timedelta(seconds=31)
            assert "wallclock_late" not in alerts
        finally:
            await bot.close()
    finally:
        server.stop()
