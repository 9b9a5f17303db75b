"""bot.minecraft.pack_client against the real pack in mcsim over TCP RCON: every call, outcome,
error."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.errors import PackError
from bot.minecraft.installer import pack_version_of
from bot.minecraft.pack_client import PackClient
from bot.minecraft.pack_input import snbt_string
from tests.bot.pack_sim import REPO, PackSim, running_sim


@pytest.fixture(scope="module")
def shared_sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PackSim]:
    yield from running_sim(tmp_path_factory.mktemp("pack") / "world")


@pytest.fixture
def sim(shared_sim: PackSim) -> PackSim:
    shared_sim.reset()
    return shared_sim


@pytest.fixture
async def pack(sim: PackSim) -> AsyncIterator[PackClient]:
    client = sim.client()
    try:
        yield client
    finally:
        await client.rcon.close()


async def test_version_is_the_bundled_packs(pack: PackClient) -> None:
    assert await pack.version() == pack_version_of(REPO / "datapack")


async def test_get_time_follows_the_game(sim: PackSim, pack: PackClient) -> None:
    before = await pack.get_time()
    sim.server.step(7)
    assert await pack.get_time() == before + 7 == sim.server.game_time


async def test_schedule_returns_the_queued_task_and_it_runs_when_due(
    sim: PackSim, pack: PackClient
) -> None:
    start = sim.server.game_time
    run = 'data modify storage doom.test:rt v set value "ran \\"quoted\\" é"'
    task = await pack.schedule(run, 2, "s", "greet")
    assert task is not None
    assert (task.id, task.run, task.due, task.list) == ("greet", run, start + 40, "queue")
    assert task.executor is None and not task.player and task.interval is None
    assert task.dimension == "minecraft:overworld"
    sim.server.step(39)
    assert "v" not in sim.server.storage("doom.test:rt")
    sim.server.step(1)
    assert sim.server.storage("doom.test:rt")["v"] == 'ran "quoted" é'
    assert sim.data()["queue"] == []


async def test_schedule_options_reach_the_task(sim: PackSim, pack: PackClient) -> None:
    start = sim.server.game_time
    retrying = await pack.schedule("say a", 3, "t", "r1", retry=4, retry_delay=9)
    assert retrying is not None
    assert (retrying.retry, retrying.retry_left, retrying.retry_delay) == (4, 4, 9)
    every = await pack.schedule("say b", 2, "m", "e1", interval=1)
    assert every is not None and every.interval == 1200 and every.due == start + 2400
    at = await pack.schedule("say c", 0, "t", "a1", at_tick=start + 500)
    assert at is not None and at.due == start + 500
    assert set(sim.ids()) == {"r1", "a1", "e1"}


async def test_schedule_as_a_named_player(sim: PackSim, pack: PackClient) -> None:
    uuid = sim.server.join("Alex")
    try:
        task = await pack.schedule("say hello", 1, "t", "as1", as_player="Alex")
        assert task is not None and task.executor == uuid and task.player
        sim.server.step(1)
        assert "[Alex] hello" in sim.server.chat("Alex")
    finally:
        sim.server.leave("Alex")


async def test_schedule_as_an_offline_player_is_refused_and_queues_nothing(
    sim: PackSim, pack: PackClient
) -> None:
    with pytest.raises(PackError) as info:
        await pack.schedule("say hello", 1, "t", "as2", as_player="Nobody")
    assert info.value.code == "player_offline" and "Nobody is not online" in str(info.value)
    assert sim.data()["queue"] == []
    assert "task" not in sim.server.storage("doom.schedule:in")
    # the next request is answered normally (no stale input left behind)
    assert await pack.schedule("say next", 1, "t", "after") is not None
    assert sim.ids() == ["after"]


async def test_schedule_dynamic_returns_the_generated_id(sim: PackSim, pack: PackClient) -> None:
    first = await pack.schedule_dynamic("say x", 5, "t", "dyn-")
    second = await pack.schedule_dynamic("say y", 5, "t", "dyn-")
    assert first.startswith("dyn-") and second.startswith("dyn-") and first != second
    task = await pack.show(second)
    assert task is not None and task.run == "say y"


async def test_the_packs_refusal_is_reported_with_its_code(sim: PackSim, pack: PackClient) -> None:
    sim.server.step(10)  # now any delay of the maximum Int overflows the due tick
    with pytest.raises(PackError) as info:
        await pack.schedule("say late", 2_147_483_647, "t", "late")
    assert info.value.code == "too_late"
    assert info.value.message
    assert sim.data()["queue"] == []


async def test_cancel_count_clear(sim: PackSim, pack: PackClient) -> None:
    for i in range(3):
        await pack.schedule(f"say {i}", 100 + i, "t", "dup")
    await pack.schedule("say other", 50, "t", "other")
    assert await pack.count("dup") == 3
    assert await pack.count("missing") == 0
    assert await pack.cancel_one("dup") is True
    assert await pack.count("dup") == 2
    assert await pack.cancel_one("missing") is False
    assert await pack.cancel_all("dup") == 2
    assert await pack.cancel_all("dup") == 0
    assert await pack.clear() == 1
    assert await pack.clear() == 0
    assert sim.data()["queue"] == []


async def test_pause_and_resume_keep_the_remaining_delay(sim: PackSim, pack: PackClient) -> None:
    await pack.schedule("say p", 100, "t", "p1")
    sim.server.step(30)
    assert await pack.pause("p1") is True
    assert await pack.pause("p1") is False  # nothing left to pause
    paused, total = await pack.list_tasks("paused")
    assert total == 1 and paused[0].list == "paused" and paused[0].remaining == 70
    sim.server.step(500)
    assert await pack.resume("p1") is True
    assert await pack.resume("p1") is False
    task = await pack.show("p1")
    assert task is not None and task.list == "queue" and task.due == sim.server.game_time + 70


async def test_list_tasks_pages_in_queue_order(sim: PackSim, pack: PackClient) -> None:
    for i in range(7):
        await pack.schedule(f"say {i}", 100 - i, "t", f"t{i}")  # scheduled latest-first
    page1, total = await pack.list_tasks("queue", offset=0, limit=3)
    page2, _ = await pack.list_tasks("queue", offset=3, limit=3)
    page3, _ = await pack.list_tasks("queue", offset=6, limit=3)
    assert total == 7
    ids = [t.id for t in page1 + page2 + page3]
    assert ids == [f"t{i}" for i in reversed(range(7))]
    assert [t.due for t in page1] == sorted(t.due for t in page1)
    assert await pack.list_tasks("queue", offset=7) == ([], 7)
    assert await pack.list_tasks("offline") == ([], 0)


async def test_a_page_of_20_costs_2_round_trips(sim: PackSim, pack: PackClient) -> None:
    for i in range(25):
        await pack.schedule(f"say {i}", 100 + i, "t", f"r{i}")
    before = pack.rcon.round_trips
    page, total = await pack.list_tasks("queue", offset=0, limit=20)
    trips = pack.rcon.round_trips - before
    print(f"\nlist_tasks: {trips} round trips for a page of 20")
    assert trips == 2
    assert (total, [t.id for t in page]) == (25, [f"r{i}" for i in range(20)])
    tail, _ = await pack.list_tasks("queue", offset=20, limit=20)
    assert [t.id for t in tail] == [f"r{i}" for i in range(20, 25)]


async def test_long_run_texts_split_a_page_into_bounded_replies(
    sim: PackSim, pack: PackClient
) -> None:
    long = "say " + "x" * 1200  # fits a request; the pack's cap is 8000 characters per page
    for i in range(14):
        await pack.schedule(f"{long}{i}", 100 + i, "t", f"L{i}")
    replies: list[int] = []
    command = pack.rcon.command

    async def measured(text: str) -> str:
        reply = await command(text)
        replies.append(len(reply))
        return reply

    pack.rcon.command = measured  # type: ignore[method-assign]
    page, total = await pack.list_tasks("queue", limit=14)
    assert total == 14 and [t.id for t in page] == [f"L{i}" for i in range(14)]
    assert page[13].run == f"{long}13"
    assert len(replies) == 4  # two pages: 7 tasks reach 8000 characters of run text
    assert max(replies) < 8000 + 7 * 1500


async def test_an_op_without_a_clock_reading_does_not_spoil_the_eta(
    sim: PackSim, pack: PackClient
) -> None:
    sim.server.step(400)
    now = await pack.get_time()
    await pack.cancel_all("nothing-here")  # its outcome record says time -1
    delta = (pack.eta(now + 200) - datetime.now(UTC)).total_seconds()
    assert 9.0 < delta <= 10.0


async def test_show_finds_the_first_of_several_and_none_when_missing(
    sim: PackSim, pack: PackClient
) -> None:
    await pack.schedule("say later", 90, "t", "same")
    await pack.schedule("say sooner", 10, "t", "same")
    task = await pack.show("same")
    assert task is not None and task.run == "say sooner"
    assert await pack.show("absent") is None


async def test_task_ids_prefix_first_then_containing(sim: PackSim, pack: PackClient) -> None:
    for task_id in ("build.wall", "raid", "build.roof", "rebuild", "raid"):
        await pack.schedule("say x", 100, "t", task_id)
    assert await pack.task_ids("build") == ["build.wall", "build.roof", "rebuild"]
    assert sorted(await pack.task_ids()) == ["build.roof", "build.wall", "raid", "rebuild"]
    assert await pack.task_ids("zzz") == []
    assert len(await pack.task_ids("", limit=2)) == 2


async def test_events_after_a_seq(sim: PackSim, pack: PackClient) -> None:
    start_seq = await pack_seq(sim)
    await pack.schedule("function nope:missing", 0, "t", "fails", retry=1)
    sim.server.step(3)
    events = await pack.events_after(start_seq)
    # a task the bot made says each attempt (ran) before its outcome
    assert [(e.type, e.task_id) for e in events] == [
        ("ran", "fails"),
        ("retry", "fails"),
        ("ran", "fails"),
        ("retry_exhausted", "fails"),
    ]
    assert [e.seq for e in events] == [start_seq + i for i in range(1, 5)]
    assert events[1].details["retry"] == "0" and events[1].server == "sim"
    assert events[0].details["k"] == events[2].details["k"]  # the same task's key each time
    assert await pack.events_after(start_seq + 1) == events[1:]
    assert await pack.events_after(start_seq + 4) == []


async def test_events_after_reads_many_in_one_reply(sim: PackSim, pack: PackClient) -> None:
    start_seq = await pack_seq(sim)
    for i in range(12):
        await pack.schedule("function nope:missing", 0, "t", f"f{i}")
    sim.server.step(2)
    before = pack.rcon.round_trips
    events = await pack.events_after(start_seq)
    assert [(e.type, e.task_id) for e in events] == [
        (kind, f"f{i}") for i in range(12) for kind in ("ran", "retry_exhausted")
    ]
    assert pack.rcon.round_trips - before == 2  # the seq, then the whole ring


async def test_concurrent_requests_each_get_their_own_outcome(
    sim: PackSim, pack: PackClient
) -> None:
    tasks = await asyncio.gather(
        *(pack.schedule(f"say {i}", 50 + i, "t", f"c{i}") for i in range(6))
    )
    assert [t.id for t in tasks if t is not None] == [f"c{i}" for i in range(6)]
    assert len(sim.ids()) == 6


async def test_arbitrary_run_text_round_trips_exactly(sim: PackSim, pack: PackClient) -> None:
    text = "\\\"'@a §c ☃ 𝄞 {x:'y'} $(run) \\n ' \" \\\\"
    run = f"data modify storage doom.test:rt v set value {snbt_string(text)}"
    await pack.schedule(run, 0, "t", "rt")
    sim.server.step(1)
    assert sim.server.storage("doom.test:rt")["v"] == text


async def test_eta_uses_the_last_game_time(sim: PackSim, pack: PackClient) -> None:
    now = await pack.get_time()
    eta = pack.eta(now + 200)  # 10 s at the nominal 20 TPS (not yet measured)
    delta = (eta - datetime.now(UTC)).total_seconds()
    assert 9.0 < delta <= 10.0
    assert pack.eta(now - 50) <= datetime.now(UTC)


def test_a_server_without_the_pack_is_reported(tmp_path: Path) -> None:
    from mcsim.server import Server
    from tests.bot.pack_sim import PASSWORD

    server = Server(tmp_path / "bare", rcon_port=0, rcon_password=PASSWORD)
    server.start()
    try:
        sim = PackSim(tmp_path / "bare", server)

        async def go() -> None:
            pack = sim.client()
            try:
                with pytest.raises(PackError) as info:
                    await pack.schedule("say x", 1, "t", "x")
                assert info.value.code == "not_installed" and "install-datapack" in str(info.value)
                with pytest.raises(PackError) as info:
                    await pack.version()
                assert info.value.code == "not_installed"
            finally:
                await pack.rcon.close()

        asyncio.run(go())
    finally:
        server.stop()


async def pack_seq(sim: PackSim) -> int:
    seq = sim.server.storage("doom.schedule:events").get("seq", 0)
    assert isinstance(seq, int)
    return seq


async def test_at_tick_and_delay_tasks_interleave_by_due(sim: PackSim, pack: PackClient) -> None:
    now = await pack.get_time()
    await pack.schedule("say late", 50, "t", "late")
    await pack.schedule("say at", 0, "t", "at", at_tick=now + 20)
    await pack.schedule("say soon", 5, "t", "soon")
    await pack.schedule("say tie", 0, "t", "tie", at_tick=now + 50)
    page, _ = await pack.list_tasks("queue")
    assert [(t.id, t.due - now) for t in page] == [
        ("soon", 5),
        ("at", 20),
        ("late", 50),
        ("tie", 50),
    ]
