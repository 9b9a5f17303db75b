"""One run handed over by two processes: the one that lost the server had its submit on the
way when the new holder resumed the run. The server queues it once: a submit runs only while the
run's mark is not set (bot.minecraft.handover)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.errors import PackError
from bot.minecraft import handover
from bot.services import ServerServices
from bot.store.tables import schedule_runs
from bot.times.clock import ManualClock
from bot.wallclock.due_heap import STAGE_LEAD
from tests.wallclock.wallclock_sim import (
    MOD,
    START,
    PackSim,
    TcpProxy,
    count_runs,
    make_scheduler,
    server_services,
)

ADD = "scoreboard players add #runs wc 1"


@pytest.mark.parametrize("staged", [False, True])
async def test_a_second_submit_of_a_marked_run_queues_nothing(
    sim: PackSim, server: ServerServices, other: ServerServices, staged: bool
) -> None:
    key = "s1r1"
    first = await handover.hand_over(server.pack, command=ADD, task_id="race", key=key)
    assert first.where == "ran" and count_runs(sim) == 1
    again = None
    if staged:
        again = await other.pack.stage(ADD, "race", key="st1")
    with pytest.raises(PackError) as refused:
        await handover.hand_over(other.pack, command=ADD, task_id="race", key=key, staged=again)
    assert refused.value.code == "no_answer"  # the hand-over's retry asks for the mark
    assert await handover.has_mark(other.pack, key)
    for _ in range(5):
        await handover.run_due_now(other.pack)
    assert count_runs(sim) == 1
    # another run (its own key) is not held back by the first one's mark
    await handover.hand_over(other.pack, command=ADD, task_id="race", key="s1r2")
    assert count_runs(sim) == 2


@pytest.mark.parametrize(
    "slow",
    [
        pytest.param(b"submit_staged", id="staged-submit"),
        # the input write held, so its submit follows it late too (the submit alone late finds
        # the input slot emptied by the other's submit)
        pytest.param(b"doom.schedule:in task set value", id="input-and-submit"),
    ],
)
async def test_a_submit_arriving_after_the_new_holder_ran_the_run_queues_nothing(
    sim: PackSim, server: ServerServices, proxy: TcpProxy, tmp_path: Path, slow: bytes
) -> None:
    clock = ManualClock(START)
    db = tmp_path / "bot.sqlite3"
    holder = {"now": "a"}
    a = make_scheduler(db, server_services(sim, port=proxy.port), clock)
    b = make_scheduler(db, server, clock)
    a.owns = lambda name: holder["now"] == "a"
    b.owns = lambda name: holder["now"] == "b"
    try:
        await a.start()
        await b.start()
        await a.take("sim")
        row = await a.create(
            server="sim", command=ADD, task_id="race", created_by=MOD, when="in 1m"
        )
        if slow == b"submit_staged":  # staged ahead of its time, as a running bot does
            clock.advance(60 - STAGE_LEAD + 1)
            await a.settled()
            assert any(f"in staged.w{row.id} set".encode() in p for p in proxy.forwarded)
        # else the time comes at once: its staging is too late and dropped, the input written
        proxy.hold = slow  # a's request: slow on its way
        clock.advance(60)
        async with asyncio.timeout(10):
            while not proxy.held.is_set():
                await a.heap.one_pass()
                await asyncio.sleep(0.01)
        assert count_runs(sim) == 0
        # the lease moves: a stops arming the server, b takes it and resumes the run
        holder["now"] = "b"
        await a.drop("sim")
        await b.take("sim")
        await b.settled()
        assert count_runs(sim) == 1
        # a's submit arrives now, after b's
        proxy.release.set()
        for _ in range(8):
            await asyncio.sleep(0.05)
            clock.advance(1)
            await handover.run_due_now(server.pack)
        await a.settled()
        assert count_runs(sim) == 1
        async with b.store.db.connect() as conn:
            outcomes = (
                await conn.execute(
                    select(schedule_runs.c.outcome).where(schedule_runs.c.schedule_id == row.id)
                )
            ).scalars()
            assert list(outcomes) == ["ran"]
    finally:
        await a.stop()
        await b.stop()
        for scheduler in (a, b):
            for services in scheduler.servers.values():
                if services is not server:
                    await services.rcon.close()
        await a.store.db.close()
        await b.store.db.close()
