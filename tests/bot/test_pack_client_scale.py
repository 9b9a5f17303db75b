"""The pack client at scale and in real time: 10,000 queued tasks listed page by page, and TPS
measured against mcsim's 20 TPS game loop."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.minecraft.rcon import MAX_COMMAND_BYTES
from mcsim.server import Server
from tests.bot.pack_sim import PASSWORD, PackSim, bulk_queue, running_sim, start_sim

COUNT = 10_000
PAGE = 20


@pytest.fixture(scope="module")
def big_sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PackSim]:
    world = tmp_path_factory.mktemp("big") / "world"
    start_sim(world).server.stop()  # a world the pack has initialised, saved
    bulk_queue(world, COUNT)
    server = Server(world, rcon_port=0, rcon_password=PASSWORD)
    server.start()
    try:
        yield PackSim(world, server)
    finally:
        server.stop()


@pytest.mark.slow
async def test_listing_10000_tasks_page_by_page(big_sim: PackSim) -> None:
    pack = big_sim.client()
    try:
        seen: list[str] = []
        before = pack.rcon.round_trips
        longest = 0
        for offset in range(0, COUNT, PAGE):
            page, total = await pack.list_tasks("queue", offset=offset, limit=PAGE)
            assert total == COUNT and len(page) == PAGE
            seen.extend(t.id for t in page)
            longest = max(longest, *(len(t.run) for t in page))
        per_page = (pack.rcon.round_trips - before) / (COUNT // PAGE)
        print(f"\nlist_tasks: {per_page:.2f} round trips per page of {PAGE} ({COUNT} tasks)")
        assert seen == [f"bulk-{i:05d}" for i in range(COUNT)]
        assert per_page == 2  # the page op's input, then run it and print the outcome
        last, _ = await pack.list_tasks("queue", offset=COUNT - 1, limit=PAGE)
        assert [t.id for t in last] == [f"bulk-{COUNT - 1:05d}"]
        assert last[0].run == f'say "task" {COUNT - 1} \\ é' and last[0].retry_delay == 5
        assert longest < MAX_COMMAND_BYTES
        ids = await pack.task_ids("bulk-0000", limit=25)
        assert ids == [f"bulk-{i:05d}" for i in range(10)]
        task = await pack.show("bulk-09999")
        assert task is not None and task.n == COUNT
    finally:
        await pack.rcon.close()


@pytest.fixture
def live_sim(tmp_path: Path) -> Iterator[PackSim]:
    yield from running_sim(tmp_path / "world", realtime=True)


async def test_tps_and_eta_from_the_running_game(live_sim: PackSim) -> None:
    pack = live_sim.client()
    try:
        tps = await pack.tps()
        assert 15.0 <= tps <= 21.0  # mcsim's loop runs at 20 TPS; sleeps only make it slower
        now = await pack.get_time()
        task = await pack.schedule("say later", 30, "s", "eta")
        assert task is not None
        seconds = (pack.eta(task.due) - datetime.now(UTC)).total_seconds()
        assert abs(seconds - (task.due - now) / tps) < 3.0
        # a second measurement reuses the samples already taken: no new 1 s wait
        await asyncio.sleep(0)
        again = await pack.tps()
        assert 15.0 <= again <= 21.0
    finally:
        await pack.rcon.close()


async def test_tps_is_zero_while_frozen(live_sim: PackSim) -> None:
    pack = live_sim.client()
    try:
        live_sim.server.run("tick freeze")
        await asyncio.sleep(0.1)
        assert await pack.tps() == 0.0
    finally:
        live_sim.server.run("tick unfreeze")
        await pack.rcon.close()
