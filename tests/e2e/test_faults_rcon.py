"""RCON faults a moderator meets, through the real CommandTree over real TCP.

A connection that drops during `/schedule`: the bot asks the pack what became of the request
instead of telling the moderator it "may or may not have run". A real TCP proxy cuts the
connection right after the submit reached mcsim (the server ran it, its answer is lost), or right
before (the server never saw it). A server that takes the connection and never answers (what a
frozen process looks like from outside): the reply says it is not answering, in both languages."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.services import build_services
from bot.testkit.harness import MOD, Harness, make_settings
from mcsim.server import Server
from tests.wallclock.wallclock_sim import TcpProxy

PASSWORD = "e2e-rcon-password"  # the mc fixture's (tests/e2e/conftest.py)
SUBMIT = b"function doom.schedule:submit"
ZH = "zh-CN"  # a Discord client set to Chinese


@pytest.fixture
async def dropping(mc: Server, tmp_path: Path) -> AsyncIterator[tuple[Harness, TcpProxy]]:
    assert mc.rcon_port is not None
    proxy = TcpProxy(mc.rcon_port)
    await proxy.start()
    config = ServerConfig(
        name="main",
        rcon_port=proxy.port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        event_source="rcon",
    )
    settings = make_settings(tmp_path, [config], rcon_timeout=5, audit_channel_id=None)
    services = await build_services(settings)
    harness = await Harness(settings, services).start()
    try:
        yield harness, proxy
    finally:
        await harness.close()
        await proxy.close()


def queued(mc: Server) -> list[str]:
    return [t["id"] for t in mc.storage("doom.schedule:data").get("queue", [])]


async def test_a_drop_after_the_submit_ran_says_the_task_is_queued(
    dropping: tuple[Harness, TcpProxy], mc: Server
) -> None:
    live, proxy = dropping
    proxy.plan = [(SUBMIT, True)]  # the server runs the submit; its answer never comes back
    reply = await live.run("schedule", MOD, run="say hello", time=1000, unit="tick", id="greet")
    assert proxy.dropped == 1
    assert queued(mc) == ["greet"]
    assert "Scheduled `greet` on main." in reply.text, reply.text
    assert "may or may not" not in reply.text
    listed = await live.run("list", MOD)  # the bot goes on over a new connection
    assert "`greet`" in listed.text


async def test_a_drop_before_the_submit_ran_says_nothing_changed(
    dropping: tuple[Harness, TcpProxy], mc: Server
) -> None:
    live, proxy = dropping
    proxy.plan = [(SUBMIT, False)]  # cut before the server reads the submit
    reply = await live.run("schedule", MOD, run="say hello", time=1000, unit="tick", id="greet")
    assert proxy.dropped == 1
    assert queued(mc) == []
    assert "dropped before the pack ran the request: nothing changed" in reply.text, reply.text
    assert "may or may not" not in reply.text
    again = await live.run("schedule", MOD, run="say hello", time=1000, unit="tick", id="greet")
    assert "Scheduled `greet` on main." in again.text
    assert queued(mc) == ["greet"]  # once: the first try left nothing behind


@pytest.mark.slow
async def test_a_server_that_never_answers_is_not_answering_in_both_languages(
    tmp_path: Path,
) -> None:
    async def frozen(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # takes the bytes, answers nothing, until the bot hangs up
        writer.close()

    listener = await asyncio.start_server(frozen, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    config = ServerConfig(
        name="main",
        rcon_port=port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        event_source="rcon",
    )
    settings = make_settings(tmp_path, [config], rcon_timeout=1, audit_channel_id=None)
    harness = await Harness(settings, await build_services(settings)).start()
    try:
        english = await harness.run("time", MOD)
        assert "Server 'main' is not answering" in english.text, english.text
        chinese = await harness.run_in(ZH, "time", MOD)
        assert "没有响应" in chinese.text, chinese.text
        assert english.failure is None and chinese.failure is None  # both answered in time
    finally:
        await harness.close()
        listener.close()


async def test_a_drop_while_the_request_is_written_says_nothing_changed(
    dropping: tuple[Harness, TcpProxy], mc: Server
) -> None:
    # the input is written, the call that queues it never sent: nothing can have changed
    live, proxy = dropping
    proxy.plan = [(b"data modify storage doom.schedule:in task set value", False)]
    reply = await live.run("schedule", MOD, run="say hello", time=1000, unit="tick", id="greet")
    assert proxy.dropped == 1
    assert queued(mc) == []
    assert "dropped before the pack ran the request: nothing changed" in reply.text, reply.text
    assert "may or may not" not in reply.text


async def test_a_drop_of_the_read_after_a_lost_answer_is_read_again(
    dropping: tuple[Harness, TcpProxy], mc: Server
) -> None:
    # the submit's answer is lost, then the new connection drops too while the bot reads the
    # pack's outcome record: it reads again and finds the task queued
    live, proxy = dropping
    proxy.plan = [(SUBMIT, True), (b"data get storage doom.schedule:out", False)]
    reply = await live.run("schedule", MOD, run="say hello", time=1000, unit="tick", id="greet")
    assert proxy.dropped == 2
    assert queued(mc) == ["greet"]
    assert "Scheduled `greet` on main." in reply.text, reply.text
    assert "may or may not" not in reply.text


@pytest.mark.parametrize("cuts", [1, 3])
async def test_a_queued_task_is_scheduled_however_often_its_read_back_drops(
    dropping: tuple[Harness, TcpProxy], mc: Server, cuts: int
) -> None:
    # one cut: read again, the task's details shown; every read cut: still "Scheduled"
    live, proxy = dropping
    proxy.plan = [(b"data get storage doom.schedule:data queue[{n:", False)] * cuts
    reply = await live.run("schedule", MOD, run="say hello", time=1000, unit="tick", id="greet")
    assert proxy.dropped == cuts
    assert queued(mc) == ["greet"]
    assert "Scheduled `greet` on main." in reply.text, reply.text
    assert "may or may not" not in reply.text
    assert ("say hello" in reply.text) == (cuts == 1), reply.text  # the task's embed


async def test_a_drop_while_the_outcome_is_read_is_read_again(
    dropping: tuple[Harness, TcpProxy], mc: Server
) -> None:
    # the submit's answer came; the connection drops as the bot reads the pack's outcome
    live, proxy = dropping
    proxy.plan = [(b"data get storage doom.schedule:out", False)]
    reply = await live.run("schedule", MOD, run="say hello", time=1000, unit="tick", id="greet")
    assert proxy.dropped == 1
    assert queued(mc) == ["greet"]
    assert "Scheduled `greet` on main." in reply.text, reply.text
    assert "may or may not" not in reply.text
