"""The bot's path: a task submitted over real RCON through the storage input has no executor, runs
as the server at the saved place, and the outcome record answers the request."""

from __future__ import annotations

import socket
import struct
from pathlib import Path

from tests.datapack.dpharness import Pack, snbt

from mcsim.server import Server


class Rcon:
    """A minimal blocking RCON client (one request at a time, bounded by a timeout)."""

    def __init__(self, port: int, password: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.next_id = 1
        assert self._request(3, password)[0] != -1

    def _packet(self, kind: int, body: str) -> int:
        rid, self.next_id = self.next_id, self.next_id + 1
        payload = struct.pack("<ii", rid, kind) + body.encode() + b"\0\0"
        self.sock.sendall(struct.pack("<i", len(payload)) + payload)
        return rid

    def _read(self) -> tuple[int, str]:
        size = struct.unpack("<i", self._exact(4))[0]
        data = self._exact(size)
        rid = struct.unpack("<i", data[:4])[0]
        return rid, data[8:-2].decode()

    def _exact(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            assert chunk, "connection closed"
            data += chunk
        return data

    def _request(self, kind: int, body: str) -> tuple[int, str]:
        self._packet(kind, body)
        return self._read()

    def command(self, text: str) -> str:
        rid = self._packet(2, text)
        sentinel = self._packet(200, "")  # answered after the last fragment
        parts: list[str] = []
        for _ in range(1000):
            got, body = self._read()
            if got == sentinel:
                return "".join(parts)
            assert got == rid
            parts.append(body)
        raise AssertionError("no end of reply")

    def close(self) -> None:
        self.sock.close()


def test_a_task_submitted_over_rcon_runs_as_the_server(world: Path) -> None:
    server = Server(world, frozen=True, rcon_port=0, rcon_password="pw")
    server.start()
    try:
        pack = Pack(server)
        assert server.rcon_port
        rcon = Rcon(server.rcon_port, "pw")
        try:
            task = {"req": 77, "run": 'function dstest:where {id:"r"}', "time": 3, "id": "r"}
            rcon.command(f"data modify storage doom.schedule:in task set value {snbt(task)}")
            reply = rcon.command("function doom.schedule:submit")
            assert reply.endswith("Function doom.schedule:submit returned 1"), reply
            out = rcon.command("data get storage doom.schedule:out")
            assert "req: 77" in out and 'code: "ok"' in out and "due: 3" in out, out
        finally:
            rcon.close()
        queued = pack.queue()[0]
        assert "executor" not in queued and queued["player"] == 0
        pack.step(3)
        assert [(r.id, r.tick, r.player) for r in pack.runs()] == [("r", 3, False)]
    finally:
        server.stop()
