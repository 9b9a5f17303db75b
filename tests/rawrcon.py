"""A minimal blocking RCON client written from the protocol (struct + socket), for the tests that
check mcsim's RCON byte by byte.

Vanilla reads one packet per `read` of at most 1460 bytes, so two packets that arrive together
close the connection: `command` sends the end-of-reply sentinel only after the first fragment of
the reply is in, never right behind the command.
"""

from __future__ import annotations

import socket
import struct

__all__ = ["SENTINEL_TYPE", "WAIT", "RawRcon"]

SENTINEL_TYPE = 200  # any type vanilla does not know; answered "Unknown request c8"
WAIT = 5.0  # every socket read gives up after this long


class RawRcon:
    """The protocol as a client sees it: little-endian len, id, type, body, two NULs."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self._next_id = 40

    def close(self) -> None:
        self.sock.close()

    def send(self, request_id: int, ptype: int, body: bytes) -> None:
        self.sock.sendall(struct.pack("<iii", len(body) + 10, request_id, ptype) + body + b"\0\0")

    def _exactly(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed by the server")
            data += chunk
        return data

    def receive(self) -> tuple[int, int, bytes]:
        (length,) = struct.unpack("<i", self._exactly(4))
        request_id, ptype = struct.unpack("<ii", self._exactly(8))
        rest = self._exactly(length - 8)
        assert rest.endswith(b"\0\0"), rest[-4:]
        return request_id, ptype, rest[:-2]

    def login(self, password: str, request_id: int = 7) -> tuple[int, int, bytes]:
        self.send(request_id, 3, password.encode())
        return self.receive()

    def command_fragments(self, text: str | bytes, request_id: int | None = None) -> list[bytes]:
        """Send a command; after its first fragment, send the sentinel and read to its answer."""
        if request_id is None:
            request_id, self._next_id = self._next_id, self._next_id + 2
        self.send(request_id, 2, text.encode() if isinstance(text, str) else text)
        fragments = []
        first = self.receive()
        assert first[:2] == (request_id, 0), first
        fragments.append(first[2])
        self.send(request_id + 1, SENTINEL_TYPE, b"")
        while True:
            rid, ptype, body = self.receive()
            assert ptype == 0
            if rid == request_id + 1:
                assert body == b"Unknown request c8"
                return fragments
            assert rid == request_id
            fragments.append(body)

    def command(self, text: str | bytes, request_id: int | None = None) -> str:
        return b"".join(self.command_fragments(text, request_id)).decode("utf-8")

    def closed_by_server(self) -> bool:
        """True when the server closed the connection (EOF or reset) without sending anything."""
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True
