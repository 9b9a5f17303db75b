"""Health alerts against mcsim with the pack over TCP RCON, on a manual clock: each fires once
on its fault and says all clear once the fault has been gone the quiet period. mcsim is stepped,
so its tick rate is what the test steps between two checks."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.background.health import HealthMonitor, Limits
from bot.events.event import Event
from bot.services import ServerServices
from bot.store.db import Database
from bot.store.schedules import ScheduleStore
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from tests.wallclock.wallclock_sim import MOD, PASSWORD, START, PackSim, server_services, start_sim

INTERVAL = 10.0  # seconds between checks
LIMITS = Limits(
    interval=INTERVAL,
    tps_below=15,
    tps_minutes=1,
    unreachable_minutes=1,
    pack_check_minutes=5,
    stuck_minutes=2,
    silent_minutes=1,
    quiet_minutes=1,
)


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PackSim]:
    sim = start_sim(tmp_path / "world")
    try:
        yield sim
    finally:
        sim.server.stop()


@pytest.fixture
async def server(sim: PackSim) -> AsyncIterator[ServerServices]:
    services = server_services(sim, timeout=0.5)  # a check of a stopped server waits this
    try:
        yield services
    finally:
        await services.rcon.close()


@dataclass
class Watch:
    monitor: HealthMonitor
    clock: ManualClock
    sim: PackSim
    seen: asyncio.Queue[Event]

    async def every(self, ticks: int = 0) -> list[str]:
        """Time passes one interval (the server runs `ticks` meanwhile), then a check; the
        alert types it made."""
        self.clock.advance(INTERVAL)
        if ticks:
            await asyncio.to_thread(self.sim.server.step, ticks)
        await self.monitor.check()
        found = []
        while not self.seen.empty():
            found.append(self.seen.get_nowait().type)
        return found

    async def run(self, checks: int, ticks: int = 0) -> list[str]:
        found = []
        for _ in range(checks):
            found += await self.every(ticks)
        return found


@pytest.fixture
async def watch(sim: PackSim, server: ServerServices) -> Watch:
    clock = ManualClock(START)
    monitor = HealthMonitor(server, LIMITS, clock=clock)
    seen: asyncio.Queue[Event] = asyncio.Queue()
    monitor.alerts.subscribe(seen)
    await monitor.check()  # the first look: the pack is whole, a first game-time sample
    assert seen.empty()
    return Watch(monitor, clock, sim, seen)


async def test_low_tps_fires_once_and_clears_after_the_quiet_period(watch: Watch) -> None:
    slow, fast = int(INTERVAL * 5), int(INTERVAL * 20)  # 5 TPS, then 20 TPS
    assert await watch.run(5, slow) == []  # under a minute of it: not yet
    assert await watch.every(slow) == ["health_tps"]
    assert await watch.run(6, slow) == []  # the same problem: no second alert
    assert await watch.run(3, fast) == []
    assert await watch.every(slow) == []  # it flapped inside the quiet period: still one problem
    assert await watch.run(5, fast) == []
    assert await watch.every(fast) == ["health_tps_clear"]
    assert await watch.run(3, fast) == []
    # a server that stands still (paused while empty) is not a slow one, and the slowness
    # seen before it stood still does not add up with the slowness after
    assert await watch.run(10) == []
    assert await watch.run(3, slow) == []
    assert await watch.run(30) == []
    assert await watch.run(3, slow) == []
    assert await watch.run(3, slow) == ["health_tps"]


@pytest.mark.slow
async def test_unreachable_fires_once_and_clears_when_the_server_is_back(
    watch: Watch, sim: PackSim
) -> None:
    port = sim.server.rcon_port
    sim.server.stop()
    assert await watch.run(6) == []  # counted from the first check that found it away
    assert await watch.every() == ["health_unreachable"]
    assert await watch.run(6) == []
    sim.server = Server(sim.world, rcon_port=port, rcon_password=PASSWORD)
    sim.server.start()
    found: list[str] = []
    async with asyncio.timeout(30):  # the client reconnects after its back-off (real time)
        while "health_unreachable_clear" not in found:
            found += await watch.every()
            await asyncio.sleep(0.05)
    assert found == ["health_unreachable_clear"]


async def test_the_pack_missing_after_a_restart_fires_at_once_and_clears(
    watch: Watch, sim: PackSim
) -> None:
    port = sim.server.rcon_port
    sim.server.stop()
    pack = sim.world / "datapacks" / "doom.schedule"
    kept = sim.world.parent / "pack-kept"
    shutil.move(pack, kept)
    sim.server = Server(sim.world, rcon_port=port, rcon_password=PASSWORD)
    sim.server.start()
    found: list[str] = []
    async with asyncio.timeout(30):
        while "health_pack" not in found:
            found += await watch.every()
            await asyncio.sleep(0.05)
    assert found == ["health_pack"]  # looked at on the reconnect, not 5 minutes later
    assert await watch.run(40) == []  # still missing: the same problem, no new alert
    shutil.move(kept, pack)
    sim.server.run("reload")
    assert await watch.run(6) == []  # whole again, for less than the quiet period
    assert await watch.every() == ["health_pack_clear"]
    assert await watch.run(40) == []


async def test_a_damaged_pack_fires_and_clears_once_repaired(watch: Watch, sim: PackSim) -> None:
    sim.server.run("scoreboard objectives remove doom.schedule")
    watch.monitor.look_at_pack()  # what a reconnect or the server's start-up line does
    assert await watch.every() == ["health_pack"]
    sim.server.run("reload")  # the pack's #load recreates its objective
    assert await watch.run(6) == []
    assert await watch.every() == ["health_pack_clear"]


async def test_a_planned_run_handed_over_and_not_run_is_stuck_until_it_leaves(
    sim: PackSim, server: ServerServices, tmp_path: Path
) -> None:
    clock = ManualClock(START)
    store = ScheduleStore(Database(tmp_path / "bot.sqlite3"))
    scheduler = Scheduler(store, {server.name: server}, clock=clock, backoff=(1.0,))
    await scheduler.start()
    monitor = HealthMonitor(server, LIMITS, clock=clock, runs=store)
    seen: asyncio.Queue[Event] = asyncio.Queue()
    monitor.alerts.subscribe(seen)
    watch = Watch(monitor, clock, sim, seen)
    try:
        # fails each time it runs; 5 retries a tick apart: on a server that does not tick it
        # stays in the queue after its hand-over
        fails = "execute if entity @e[type=pig]"
        row = await scheduler.create(
            server="sim", command=fails, task_id="nopig", created_by=MOD, when="in 1m", retry=5
        )
        ok = await scheduler.create(
            server="sim", command="say hi", task_id="fine", created_by=MOD, when="in 1m"
        )
        clock.advance(60)
        await scheduler.settled()
        assert [r.outcome for r in await scheduler.runs(row.id)] == ["queued"]
        assert [r.outcome for r in await scheduler.runs(ok.id)] == ["ran"]
        assert await watch.run(11) == []  # under 2 minutes since its hand-over
        events = await watch.run(2)
        assert events == ["health_stuck"]
        assert await watch.run(3) == []
        await asyncio.to_thread(sim.server.step, 10)  # it retries out and leaves the queue
        assert await watch.run(6) == []
        stuck = await watch.every()
        assert stuck == ["health_stuck_clear"]
    finally:
        await scheduler.stop()


async def test_events_made_but_not_received_are_a_silent_source(
    watch: Watch, sim: PackSim, server: ServerServices
) -> None:
    class Counted:  # the event source's count of what it delivered (GuardedEvents.last_seq)
        last_seq = -1

    server.events = Counted()  # type: ignore[assignment]
    await watch.monitor.check()  # its first look at the pack's event counter
    # a task that fails makes an event (seq 1) that nothing here receives
    sim.server.run(
        'data modify storage doom.schedule:in task set value {id:"x",time:1,'
        'run:"execute if entity @e[type=pig]"}'
    )
    sim.server.run("function doom.schedule:submit")
    assert await watch.run(6, ticks=200) == []
    assert await watch.every(200) == ["health_silent"]
    assert await watch.run(6, 200) == []
    Counted.last_seq = 1  # the source caught up
    assert await watch.run(6, 200) == []
    assert await watch.every(200) == ["health_silent_clear"]


async def test_a_planned_run_waiting_for_its_conditions_is_not_stuck(
    sim: PackSim, server: ServerServices, tmp_path: Path
) -> None:
    clock = ManualClock(START)
    store = ScheduleStore(Database(tmp_path / "bot.sqlite3"))
    scheduler = Scheduler(store, {server.name: server}, clock=clock, backoff=(1.0,))
    await scheduler.start()
    monitor = HealthMonitor(server, LIMITS, clock=clock, runs=store)
    seen: asyncio.Queue[Event] = asyncio.Queue()
    monitor.alerts.subscribe(seen)
    watch = Watch(monitor, clock, sim, seen)
    try:
        sim.server.join("Ann")
        row = await scheduler.create(
            server="sim",
            command="say restart",
            task_id="restart",
            created_by=MOD,
            when="in 1m",
            conditions={"require": "empty", "if_not": "wait", "max_wait": "1h"},
        )
        clock.advance(60)
        await scheduler.settled()
        assert [r.outcome for r in await scheduler.runs(row.id)] == ["queued"]
        assert await watch.run(15) == []  # past the 2 minutes after which a run is stuck
    finally:
        await scheduler.stop()
