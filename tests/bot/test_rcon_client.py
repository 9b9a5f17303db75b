"""bot.minecraft.rcon.RconClient against mcsim's RCON server over real TCP: replies, limits and
faults."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bot.errors import BadPassword, CommandTooLong, RconTimeout, ServerUnavailable
from bot.minecraft.rcon import FRAGMENT_UNITS, MAX_COMMAND_BYTES, RconClient
from mcsim.rcon import split_reply

if TYPE_CHECKING:
    from tests.bot.conftest import RconHarness


def client_for(h: RconHarness, *, timeout: float = 2.0, password: str | None = None) -> RconClient:
    return RconClient(
        "127.0.0.1",
        h.port,
        h.password if password is None else password,
        timeout=timeout,
        name="test",
        backoff_initial=0.02,
        backoff_max=0.1,
    )


async def test_command_gets_its_reply_and_counts_round_trips(rcon_harness: RconHarness) -> None:
    client = client_for(rcon_harness)
    try:
        assert await client.command("time query gametime") == "echo:time query gametime"
        assert await client.command("say ü ✓ 🎉") == "echo:say ü ✓ 🎉"
        assert client.round_trips == 2
        assert client.sentinels == 0
        assert rcon_harness.script.received == ["time query gametime", "say ü ✓ 🎉"]
    finally:
        await client.close()


async def test_empty_reply_is_empty_string(rcon_harness: RconHarness) -> None:
    rcon_harness.script.handler = lambda command: ""
    client = client_for(rcon_harness)
    try:
        assert await client.command("x") == ""
    finally:
        await client.close()


@pytest.mark.parametrize(
    "reply",
    [
        "a" * (FRAGMENT_UNITS - 1),
        "b" * FRAGMENT_UNITS,  # exactly one full fragment: only the sentinel can tell it ended
        "c" * (FRAGMENT_UNITS + 1),
        "d" * (FRAGMENT_UNITS * 2),
        ("é✓🎉x" * 3000)[:10001],  # multi-byte UTF-8 and surrogate pairs across fragment edges
        "line\n" * 5000,
    ],
    ids=["4095", "4096", "4097", "8192", "mixed-10001", "lines-25000"],
)
async def test_long_replies_arrive_whole(rcon_harness: RconHarness, reply: str) -> None:
    rcon_harness.script.handler = lambda command: reply
    client = client_for(rcon_harness)
    try:
        got = await client.command("data get storage doom.schedule:data")
        units = len(reply.encode("utf-16-le")) // 2
        # What vanilla sends: each fragment encoded alone (a pair cut at an edge becomes "??").
        assert got == "".join(body.decode() for body in split_reply(reply))
        assert len(got.encode("utf-16-le")) // 2 == units
        assert client.sentinels == (1 if units >= FRAGMENT_UNITS else 0)
        # The connection is still in step: the next command gets its own answer.
        rcon_harness.script.handler = lambda command: "next"
        assert await client.command("y") == "next"
    finally:
        await client.close()


async def test_fragment_edge_surrogates_become_question_marks(rcon_harness: RconHarness) -> None:
    reply = "a" * (FRAGMENT_UNITS - 1) + "🎉" + "z"  # the pair straddles the 4096 edge
    rcon_harness.script.handler = lambda command: reply
    client = client_for(rcon_harness)
    try:
        assert await client.command("x") == "a" * (FRAGMENT_UNITS - 1) + "??z"
    finally:
        await client.close()


async def test_command_size_cap_checked_before_sending(rcon_harness: RconHarness) -> None:
    client = client_for(rcon_harness)
    try:
        at_cap = "say " + "é" * ((MAX_COMMAND_BYTES - 4) // 2)
        assert len(at_cap.encode()) == MAX_COMMAND_BYTES
        assert await client.command(at_cap) == "echo:" + at_cap
        over = at_cap + "x"
        with pytest.raises(CommandTooLong) as info:
            await client.command(over)
        assert "1447 bytes" in str(info.value) and "1446" in str(info.value)
        assert client.round_trips == 1
        assert rcon_harness.script.received == [at_cap]
        assert await client.command("after") == "echo:after"
    finally:
        await client.close()


async def test_bad_password_is_typed_and_does_not_show_it(rcon_harness: RconHarness) -> None:
    wrong = "not-the-password-42"
    client = client_for(rcon_harness, password=wrong)
    with pytest.raises(BadPassword) as info:
        await client.command("list")
    assert wrong not in str(info.value)
    assert rcon_harness.password not in str(info.value)
    assert "password" in str(info.value)
    assert rcon_harness.script.received == []
    # Within the back-off the same error comes back without hammering the server.
    with pytest.raises(BadPassword):
        await client.command("list")
    await client.close()


async def test_server_down_is_server_unavailable(rcon_harness: RconHarness) -> None:
    rcon_harness.stop()
    client = client_for(rcon_harness, timeout=0.5)
    with pytest.raises(ServerUnavailable) as info:
        await client.command("list")
    assert f"127.0.0.1:{rcon_harness.port}" in str(info.value)
    assert ".." not in str(info.value)  # the library's reason has a period of its own
    assert client.round_trips == 0
    # The server comes back: a later command reconnects by itself.
    rcon_harness.start()
    await asyncio.sleep(0.15)  # let the (0.1 s max) back-off pass
    assert await client.command("list") == "echo:list"
    await client.close()


async def test_timeout_then_next_command_gets_its_own_reply(rcon_harness: RconHarness) -> None:
    late: concurrent.futures.Future[str] = concurrent.futures.Future()

    def handler(command: str) -> concurrent.futures.Future[str] | str:
        if command == "slow":
            return late
        return f"own:{command}"

    rcon_harness.script.handler = handler
    client = client_for(rcon_harness, timeout=0.3)
    try:
        with pytest.raises(RconTimeout) as info:
            await client.command("slow")
        assert "slow" in str(info.value)
        # The late answer turns up while the next command is on its way.
        timer = threading.Timer(0.05, late.set_result, args=("LATE REPLY to slow",))
        timer.start()
        assert await client.command("fast") == "own:fast"
        timer.join()
        await asyncio.sleep(0.1)
        assert await client.command("fast2") == "own:fast2"
        assert client.reconnects == 1
    finally:
        if not late.done():
            late.set_result("unused")
        await client.close()


async def test_server_restart_mid_command(rcon_harness: RconHarness) -> None:
    hung: concurrent.futures.Future[str] = concurrent.futures.Future()

    def handler(command: str) -> concurrent.futures.Future[str] | str:
        return hung if command == "hang" else f"ok:{command}"

    rcon_harness.script.handler = handler
    client = client_for(rcon_harness, timeout=5.0)
    try:
        assert await client.command("before") == "ok:before"
        rcon_harness.script.arrived.clear()
        pending = asyncio.create_task(client.command("hang"))
        assert await asyncio.to_thread(rcon_harness.script.arrived.wait, 5.0)
        await asyncio.to_thread(rcon_harness.stop)
        with pytest.raises(ServerUnavailable) as info:
            await asyncio.wait_for(pending, 5.0)
        assert "may or may not have run" in str(info.value)
        await asyncio.to_thread(rcon_harness.start)
        assert await client.command("after") == "ok:after"
        assert client.reconnects == 1
    finally:
        hung.set_result("too late")
        await client.close()


async def test_concurrent_callers_each_get_their_own_reply(rcon_harness: RconHarness) -> None:
    client = client_for(rcon_harness)
    try:
        commands = [f"cmd {i}" for i in range(40)]
        replies = await asyncio.gather(*(client.command(c) for c in commands))
        assert replies == [f"echo:{c}" for c in commands]
        assert len(rcon_harness.script.received) == 40
    finally:
        await client.close()


async def test_cancelled_command_does_not_poison_the_next(rcon_harness: RconHarness) -> None:
    slow: concurrent.futures.Future[str] = concurrent.futures.Future()
    rcon_harness.script.handler = lambda c: slow if c == "slow" else f"r:{c}"
    client = client_for(rcon_harness)
    try:
        rcon_harness.script.arrived.clear()
        task = asyncio.create_task(client.command("slow"))
        assert await asyncio.to_thread(rcon_harness.script.arrived.wait, 5.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        slow.set_result("r:slow (late)")
        assert await client.command("next") == "r:next"
    finally:
        await client.close()


async def test_closed_client_refuses_until_connect(rcon_harness: RconHarness) -> None:
    client = client_for(rcon_harness)
    await client.connect()
    await client.close()
    with pytest.raises(ServerUnavailable, match="closed"):
        await client.command("list")
    await client.connect()
    assert await client.command("list") == "echo:list"
    await client.close()


async def test_one_connection_for_many_commands(rcon_harness: RconHarness) -> None:
    client = client_for(rcon_harness)
    try:
        for i in range(20):
            await client.command(f"c{i}")
        log_text = (rcon_harness.logs / "latest.log").read_text()
        assert log_text.count("Thread RCON Client /127.0.0.1 started") == 1
    finally:
        await client.close()


async def test_restart_while_idle_is_invisible_to_the_next_command(
    rcon_harness: RconHarness,
) -> None:
    client = client_for(rcon_harness)
    try:
        assert await client.command("one") == "echo:one"
        await asyncio.to_thread(rcon_harness.stop)
        await asyncio.to_thread(rcon_harness.start)
        # The old connection's end of stream reaches the client before it sends again.
        for _ in range(100):
            if client._conn is None or client._conn.stale():
                break
            await asyncio.sleep(0.01)
        assert await client.command("two") == "echo:two"
        assert client.reconnects == 1
    finally:
        await client.close()


# -- against the full mcsim server ----------------------------------------------------------------


async def test_full_server_commands_long_reply_and_restart(tmp_path: Path) -> None:
    from mcsim.server import Server

    world = tmp_path / "world"
    server = Server(world, rcon_port=0, rcon_password="full-pw")
    await asyncio.to_thread(server.start, realtime=True)
    port = server.rcon_port
    assert port is not None
    client = RconClient("127.0.0.1", port, "full-pw", timeout=5.0, name="sim")
    try:
        assert (await client.command("time query gametime")).startswith("The time is ")
        chunk = "é" * 600  # 1200 bytes of UTF-8 per command, under the cap
        for _ in range(16):
            reply = await client.command(f'data modify storage bench:t l append value "{chunk}"')
            assert reply.startswith("Modified storage"), reply
        whole = await client.command("data get storage bench:t l")
        assert whole.startswith("Storage bench:t has the following contents: [")
        assert whole.count(chunk) == 16 and len(whole) > 2 * 4096  # three fragments
        assert client.sentinels >= 1
        assert (await client.command("data get storage bench:t l")) == whole

        await asyncio.to_thread(server.stop)
        server = Server(world, rcon_port=port, rcon_password="full-pw")
        await asyncio.to_thread(server.start, realtime=True)
        await asyncio.sleep(0.05)
        # The world was saved on stop: the storage is back, over a fresh connection.
        assert (await client.command("data get storage bench:t l")) == whole
        assert client.reconnects == 1
    finally:
        await client.close()
        await asyncio.to_thread(server.stop)


async def test_build_rcon_uses_the_server_config_and_settings(rcon_harness: RconHarness) -> None:
    from bot.config import ServerConfig, Settings
    from bot.services import build_rcon

    def config(password: str) -> ServerConfig:
        return ServerConfig(
            name="survival",
            rcon_port=rcon_harness.port,
            rcon_password=password,  # type: ignore[arg-type]
        )

    settings = Settings(_env_file=None, rcon_timeout=1.5)  # type: ignore[call-arg]
    client = build_rcon(settings, config(rcon_harness.password))
    try:
        assert client.timeout == 1.5
        assert await client.command("time query gametime") == "echo:time query gametime"
    finally:
        await client.close()
    wrong = build_rcon(settings, config("not-the-password"))
    with pytest.raises(BadPassword) as info:
        await wrong.command("list")
    assert "'survival'" in str(info.value)  # errors name the configured server
    await wrong.close()
