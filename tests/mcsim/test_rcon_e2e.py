"""RCON against the full server, with the minimal client of tests/rawrcon.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mcsim.server import Server
from tests.rawrcon import RawRcon


@pytest.fixture
def rcon_server(world: Path) -> Iterator[Server]:
    srv = Server(world, rcon_port=0, rcon_password="secret", frozen=True)
    srv.start()
    yield srv
    srv.stop()


def test_login_and_commands(rcon_server: Server) -> None:
    port = rcon_server.rcon_port
    assert port
    bad = RawRcon(port)
    assert bad.login("wrong")[0] == -1
    bad.close()
    client = RawRcon(port)
    assert client.login("secret", request_id=1)[0] == 1
    assert client.command("scoreboard objectives add o dummy") == "Created new objective [o]"
    assert client.command("scoreboard players set #a o 3") == "Set [o] for #a to 3"
    assert rcon_server.score("#a", "o") == 3
    assert client.command("scoreboard players get #nope o") == (
        "Can't get value of o for #nope; none is set"
    )
    client.close()


def test_long_reply_arrives_intact(rcon_server: Server) -> None:
    text = "".join(chr(0x41 + i % 26) for i in range(9000)) + "é" * 10
    rcon_server.run(f'data modify storage t:big s set value "{text}"')
    client = RawRcon(rcon_server.rcon_port or 0)
    client.login("secret")
    reply = client.command("data get storage t:big s")
    assert reply == f'Storage t:big has the following contents: "{text}"'
    assert len(reply) > 4096
    client.close()


def test_function_reply_and_admin_log_lines(rcon_server: Server, pack) -> None:  # type: ignore[no-untyped-def]
    pack({"t:r": "return 4", "t:say": "say from function"})
    rcon_server.run("reload")
    client = RawRcon(rcon_server.rcon_port or 0)
    client.login("secret")
    assert client.command("function t:r") == "Running function t:rFunction t:r returned 4"
    assert client.command("reload") == "Reloading!"
    client.command("say over rcon")
    client.command("function t:say")
    client.command("data get storage t:nothing")  # a query: not broadcast
    client.command("gamerule log_admin_commands false")
    client.command("function t:r")
    client.close()
    log = rcon_server.log_path.read_text()
    assert "[Server thread/INFO]: [Rcon: Running function t:r]" in log
    assert "[Server thread/INFO]: [Rcon: Function t:r returned 4]" in log
    assert "[Not Secure] [Rcon] over rcon" in log
    assert "[Not Secure] [Rcon] from function" in log  # the caller's source name
    assert "[Rcon: Storage t:nothing" not in log
    assert log.count("[Rcon: Running function t:r]") == 1  # log_admin_commands false after


def test_broadcast_rcon_to_ops_false(world: Path) -> None:
    world.mkdir(parents=True)
    (world / "server.properties").write_text("broadcast-rcon-to-ops=false\n")
    with Server(world, rcon_port=0, rcon_password="pw", frozen=True) as srv:
        client = RawRcon(srv.rcon_port or 0)
        client.login("pw")
        assert client.command("scoreboard objectives add o dummy") == "Created new objective [o]"
        client.close()
        assert "[Rcon:" not in srv.log_path.read_text()
