"""RCON against the full server, with a minimal client written here from the protocol."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcsim.server import Server

LOGIN, COMMAND, RESPONSE = 3, 2, 0


class MiniRcon:
    """Just enough of the Source RCON protocol: little-endian length, id, type, body, two NULs."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.next_id = 1

    def send(self, ptype: int, body: str) -> int:
        rid = self.next_id
        self.next_id += 1
        payload = struct.pack("<ii", rid, ptype) + body.encode("utf-8") + b"\x00\x00"
        self.sock.sendall(struct.pack("<i", len(payload)) + payload)
        return rid

    def _exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("closed")
            buf += chunk
        return buf

    def read(self) -> tuple[int, int, str]:
        (length,) = struct.unpack("<i", self._exact(4))
        data = self._exact(length)
        rid, ptype = struct.unpack("<ii", data[:8])
        return rid, ptype, data[8:-2].decode("utf-8")

    def login(self, password: str) -> int:
        self.send(LOGIN, password)
        rid, _, _ = self.read()
        return rid

    def command(self, text: str) -> str:
        """Send the command then an unknown-type packet; read fragments until its answer."""
        rid = self.send(COMMAND, text)
        sentinel = self.send(200, "")
        parts: list[str] = []
        for _ in range(1000):
            got_id, _, body = self.read()
            if got_id == sentinel:
                assert body.startswith("Unknown request ")
                return "".join(parts)
            assert got_id == rid
            parts.append(body)
        raise AssertionError("no end of reply")

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def rcon_server(world: Path) -> Iterator[Server]:
    srv = Server(world, rcon_port=0, rcon_password="secret", frozen=True)
    srv.start()
    yield srv
    srv.stop()


def test_login_and_commands(rcon_server: Server) -> None:
    port = rcon_server.rcon_port
    assert port
    bad = MiniRcon(port)
    assert bad.login("wrong") == -1
    bad.close()
    client = MiniRcon(port)
    assert client.login("secret") == 1
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
    client = MiniRcon(rcon_server.rcon_port or 0)
    client.login("secret")
    reply = client.command("data get storage t:big s")
    assert reply == f'Storage t:big has the following contents: "{text}"'
    assert len(reply) > 4096
    client.close()


def test_function_reply_and_admin_log_lines(rcon_server: Server, pack) -> None:  # type: ignore[no-untyped-def]
    pack({"t:r": "return 4", "t:say": "say from function"})
    rcon_server.run("reload")
    client = MiniRcon(rcon_server.rcon_port or 0)
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
        client = MiniRcon(srv.rcon_port or 0)
        client.login("pw")
        assert client.command("scoreboard objectives add o dummy") == "Created new objective [o]"
        client.close()
        assert "[Rcon:" not in srv.log_path.read_text()
