"""Acceptance (audit): the pack client's `at_tick` together with `interval`, over TCP to mcsim
running the real pack: the first run at the absolute tick, then every interval anchored there
(not a one-off run at the tick), and the task the client returns says so."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.minecraft.pack_client import PackClient
from tests.bot.pack_sim import PackSim, running_sim

__all__: list[str] = []


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PackSim]:
    yield from running_sim(tmp_path / "world")


@pytest.fixture
async def pack(sim: PackSim) -> AsyncIterator[PackClient]:
    client = sim.client()
    try:
        yield client
    finally:
        await client.rcon.close()


def ticks_of_runs(sim: PackSim, ticks: int) -> list[int]:
    """Steps one tick at a time; the game times after the ticks on which the task ran (its
    command adds 1 to a score)."""
    seen: list[int] = []
    for _ in range(ticks):
        before = sim.server.score("#runs", "audit") or 0
        sim.server.step(1)
        if (sim.server.score("#runs", "audit") or 0) > before:
            seen.append(sim.server.game_time)
    return seen


async def test_at_tick_with_interval_repeats_on_a_grid_anchored_at_the_tick(
    sim: PackSim, pack: PackClient
) -> None:
    assert sim.server.run("scoreboard objectives add audit dummy").success
    start = sim.server.game_time
    task = await pack.schedule(
        "scoreboard players add #runs audit 1", 0, "t", "grid", at_tick=start + 10, interval=7
    )
    assert task is not None
    assert (task.due, task.interval, task.list) == (start + 10, 7, "queue")
    assert ticks_of_runs(sim, 30) == [start + 10, start + 17, start + 24]
    [again] = (await pack.list_tasks("queue"))[0]
    assert (again.id, again.interval, again.due) == ("grid", 7, start + 31)
    assert await pack.cancel_one("grid")
    assert ticks_of_runs(sim, 10) == []


async def test_a_past_tick_with_interval_runs_once_then_keeps_its_grid(
    sim: PackSim, pack: PackClient
) -> None:
    assert sim.server.run("scoreboard objectives add audit dummy").success
    sim.server.step(40)
    now = sim.server.game_time
    task = await pack.schedule(
        "scoreboard players add #runs audit 1", 0, "t", "late", at_tick=now - 25, interval=10
    )
    assert task is not None and task.interval == 10
    # the grid is now-25, now-15, now-5, now+5, ...: one catch-up run, then back on the grid
    seen = ticks_of_runs(sim, 16)
    assert seen[0] == now + 1 and seen[1:] == [now + 5, now + 15]
