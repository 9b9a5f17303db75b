"""The commands, driven with long and unusual inputs against mcsim running the
pack, never send a request Discord would refuse (LocalDiscord checks every one; the harness fails a
session on any refusal) and never miss the interaction deadline: 1,400-character commands that
parse and that do not (long carets), 64-character ids, Unicode, and a queue of 10,000 tasks.

Hypothesis drives sessions: each test starts the bot once on real services over TCP RCON (starting
it is most of an example's time otherwise), each example runs its commands on it and fails on any
request Discord refused during them, so a shrunk failure is a short conversation; the queue and
the data folder were shared by the examples before too (one server per module, one tmp_path per
test).
"""

from __future__ import annotations

import asyncio
import string
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from nbtlib.tag import Int

from bot.config import ServerConfig
from bot.services import build_services
from bot.testkit.harness import ADMIN, MOD, Harness, make_settings
from bot.testkit.localdiscord.emulator import Exchange
from mcsim.nbt import NbtList, read_nbt_file, write_nbt_file
from mcsim.server import Server
from tests.bot.pack_sim import STORAGE_FILE
from tests.fixtures import install_pack, start_mcsim, task_record

PASSWORD = "props-rcon-password"
ID_CHARS = string.ascii_letters + string.digits + "_.+-"
Steps = Callable[[Harness], Awaitable[None]]

ids = st.text(ID_CHARS, min_size=1, max_size=64)
odd_ids = st.text(min_size=1, max_size=64)  # Unicode, spaces, quotes: refused with a sentence
words = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=0, max_size=1396)
runs = st.one_of(
    words.map(lambda w: f"say {w}"),  # parses: `say` takes any text
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=1400),  # mostly not
    st.integers(1, 1385).map(lambda n: 'tellraw @a "' + "a" * n + '" x'),  # a caret far right
)
SLOW = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    mc = start_mcsim(tmp_path_factory.mktemp("props") / "world", password=PASSWORD)
    try:
        yield mc
    finally:
        mc.stop()


Drive = Callable[[Steps], None]


@pytest.fixture
def drive(server: Server, tmp_path: Path) -> Iterator[Drive]:
    yield from session(server, tmp_path)


def session(server: Server, data: Path) -> Iterator[Drive]:
    """The bot up on real services for the whole test (all its examples), on an event loop of its
    own; `drive(steps)` runs one example's steps on it and fails the example if LocalDiscord
    refused anything meanwhile. Closing checks the same once more."""
    loop = asyncio.new_event_loop()

    async def start() -> Harness:
        config = ServerConfig(
            name="main",
            rcon_port=server.rcon_port or 0,
            rcon_password=PASSWORD,  # type: ignore[arg-type]
            world_dir=server.world,
            log_path=server.log_path,
            event_source="log",
        )
        settings_ = make_settings(data, [config], rcon_timeout=30)
        return await Harness(settings_, await build_services(settings_)).start()

    harness = loop.run_until_complete(start())

    def run(steps: Steps) -> None:
        try:
            loop.run_until_complete(steps(harness))
        finally:
            refused, harness.discord.refused[:] = list(harness.discord.refused), []
        assert not refused, "Discord would refuse: " + "; ".join(
            f"{r.method} {r.path} -> {r.status} {r.error}" for r in refused
        )

    try:
        yield run
    finally:
        try:
            loop.run_until_complete(harness.close())
        finally:
            loop.close()


def ok(exchange: Exchange) -> Exchange:
    assert exchange.failure is None, exchange.failure
    assert exchange.text, "the user got no answer"
    return exchange


@SLOW
@given(run=runs, task_id=ids)
@example(run="say " + "中" * 1396, task_id="a" * 64)
@example(run='tellraw @a "' + "a" * 1385 + '" x', task_id="b" * 64)  # caret at column 1400
@example(run="x" * 1400, task_id="c-" * 32)
def test_schedule_show_list_with_long_inputs(drive: Drive, run: str, task_id: str) -> None:
    async def steps(h: Harness) -> None:
        reply = ok(
            await h.run("schedule", MOD, run=run, time=100000, unit="tick", id=task_id, retry=3)
        )
        if "Scheduled" not in reply.text:
            return  # refused with a sentence (a parse error shows its caret): nothing queued
        ok(await h.run("show", MOD, id=task_id))
        ok(await h.run("list", MOD))
        offered = await h.autocomplete("cancel", "id", MOD, id=task_id[:10])
        assert task_id[:10] in {c["value"][:10] for c in offered}
        ok(await h.run("cancel", MOD, id=task_id))

    drive(steps)


@pytest.mark.slow
@SLOW
@given(task_id=st.one_of(ids, odd_ids), prefix=st.one_of(ids, odd_ids).map(lambda p: p[:32]))
def test_every_id_command_with_unusual_ids(drive: Drive, task_id: str, prefix: str) -> None:
    async def steps(h: Harness) -> None:
        for name in ("show", "pause", "resume", "cancel", "cancel_all"):
            ok(await h.run(name, MOD, id=task_id))
        ok(
            await h.run(
                "schedule_dynamic", MOD, run="say hi", time=100000, unit="tick", prefix=prefix
            )
        )
        await h.autocomplete("cancel", "id", MOD, id=task_id)
        await h.autocomplete("cancel", "server", MOD, id="x", server=task_id)
        ok(await h.run("time", MOD, server=task_id))  # an unknown server, named back

    drive(steps)


# -- 10,000 tasks -----------------------------------------------------------------------------

COUNT = 10_000


def long_id(i: int) -> str:
    return f"{i:05d}-" + "x" * 58  # 64 characters, the pack's longest


def queue_10000(world: Path) -> None:
    """10,000 tasks with 64-character ids straight into the saved storage (the server is
    stopped), every 50th with a 1,400-character command."""
    path = world / STORAGE_FILE
    root = read_nbt_file(path)
    data = root["data"]["contents"]["data"]
    queue = NbtList()
    for i in range(COUNT):
        run = "say " + ("长" * 1396 if i % 50 == 0 else f"task {i} `x` é")
        queue.append(
            task_record(
                long_id(i), run, serial=i + 1, due=1_000_000 + i, retry=i % 3, retry_delay=1 + i % 5
            )
        )
    data["queue"] = queue
    data["serial"] = Int(COUNT)
    write_nbt_file(path, root)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    world = install_pack(tmp_path_factory.mktemp("big") / "world")
    first = Server(world, rcon_port=0, rcon_password=PASSWORD)
    first.start()  # the pack initialises its storage; stopping saves it
    first.stop()
    queue_10000(world)
    mc = Server(world, rcon_port=0, rcon_password=PASSWORD)
    mc.start()
    try:
        yield mc
    finally:
        mc.stop()


@pytest.fixture
def drive_big(big: Server, tmp_path: Path) -> Iterator[Drive]:
    yield from session(big, tmp_path)


@pytest.mark.slow
@settings(SLOW, max_examples=8)
@given(index=st.integers(0, COUNT - 1), pages=st.integers(1, 3))
@example(index=0, pages=2)  # a 1,400-character command
def test_ten_thousand_tasks(drive_big: Drive, index: int, pages: int) -> None:
    async def steps(h: Harness) -> None:
        listing = ok(await h.run("list", MOD))
        assert "10000 task(s)" in listing.text
        message_id = listing.messages[-1].message_id
        assert message_id is not None
        for _ in range(pages):
            ok(await h.press(message_id, "Next", MOD))
        shown = ok(await h.run("show", MOD, id=long_id(index)))
        assert long_id(index) in shown.text
        offered = await h.autocomplete("show", "id", MOD, id=long_id(index)[:4])
        assert len(offered) <= 25  # (past the 2 s budget the cache answers, maybe empty)
        assert list(h.discord.exchanges.values())[-1].failure is None
        ok(await h.run("status", ADMIN))
        ok(await h.run("cancel_all", MOD, id=long_id(index)))  # the prompt; nobody confirms

    drive_big(steps)
