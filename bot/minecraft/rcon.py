"""RCON client for one Minecraft server: one connection, one command at a time, whole replies.

Built on aiomcrcon 3.5, whose `Client.connect()` we use for the TCP connection and the login.
Its `send_cmd()` is not usable for us, so commands go through our own packet reads on its
reader/writer:

- it reads exactly one response packet, but vanilla splits a reply every 4096 UTF-16 units into
  several packets with no terminator, so long replies come back cut and the rest would be read as
  the answer to the next command;
- it never checks the response's request id, so a late reply answers whichever command comes next;
- its timeout (`wait_for`) cancels a read half way and leaves the connection mid-packet;
- at end of stream it fails with `struct.error`/`ValueError` instead of a connection error.

To know where a long reply ends we use the sentinel from the notes: after a fragment of exactly
4096 units (only then can more follow) we send a packet of an unknown type; vanilla answers it
`Unknown request <hex>` after the last fragment. It is sent only once the first fragment has
arrived, because vanilla reads each request with one `read()` into a 1460-byte buffer and a second
packet arriving in the same read would make it drop the connection.

A timeout, a cancellation or any protocol surprise drops the connection: the next command opens
a fresh one, so a reply that arrives late can never be taken for another command's answer.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import socket
import struct
import time
from collections.abc import Callable
from typing import Final

import aiomcrcon

from bot.errors import (
    BadPassword,
    CommandDropped,
    CommandTooLong,
    RconTimeout,
    ServerUnavailable,
)
from bot.i18n import lazy

__all__ = ["FRAGMENT_UNITS", "MAX_COMMAND_BYTES", "RconClient"]

log = logging.getLogger(__name__)

MAX_COMMAND_BYTES: Final = 1446  # vanilla reads a request into 1460 bytes: 14 of header and NULs
FRAGMENT_UNITS: Final = 4096  # vanilla splits replies every 4096 Java chars (UTF-16 units)
_TYPE_RESPONSE: Final = 0
_TYPE_COMMAND: Final = 2
_TYPE_SENTINEL: Final = 100  # any type but 2 and 3: vanilla answers "Unknown request 64"
# A 4096-unit fragment is at most 3 bytes a unit in UTF-8; anything larger is not vanilla.
_MAX_PACKET: Final = FRAGMENT_UNITS * 3 + 10


class _ProtocolError(Exception):
    """The server sent something vanilla never sends; the connection cannot be trusted."""


class _LostAuth(Exception):
    """The server answered a command with id -1: it no longer accepts our login."""


def _java_length(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Connection(aiomcrcon.Client):
    """aiomcrcon's connection and login, plus whole-packet reads and writes of our own."""

    _reader: asyncio.StreamReader | None
    _writer: asyncio.StreamWriter | None

    def write_packet(self, req_id: int, ptype: int, body: str) -> None:
        data = struct.pack("<ii", req_id, ptype) + body.encode("utf-8") + b"\x00\x00"
        assert self._writer is not None
        self._writer.write(struct.pack("<i", len(data)) + data)  # one write: never split a packet

    async def drain(self) -> None:
        assert self._writer is not None
        await self._writer.drain()

    async def read_packet(self) -> tuple[int, int, str]:
        assert self._reader is not None
        (length,) = struct.unpack("<i", await self._reader.readexactly(4))
        if not 10 <= length <= _MAX_PACKET:
            raise _ProtocolError(f"packet length {length} out of range")
        data = await self._reader.readexactly(length)
        if not data.endswith(b"\x00\x00"):
            raise _ProtocolError("packet without its two NUL bytes")
        req_id, ptype = struct.unpack("<ii", data[:8])
        return req_id, ptype, data[8:-2].decode("utf-8", "replace")

    def quick_ack(self) -> None:
        """Ask Linux to ACK at once instead of up to 40 ms later (delayed ACK).

        Vanilla's socket keeps Nagle's algorithm on, so after the reply's last fragment it holds
        the small sentinel answer until that fragment is acknowledged; with delayed ACKs every
        multi-fragment reply would cost 40 ms. Quick-ACK mode lapses by itself, so it is set
        again for each packet read while a long reply is streaming. No-op elsewhere.
        """
        quickack = getattr(socket, "TCP_QUICKACK", None)
        if quickack is None or self._writer is None:
            return
        sock = self._writer.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, quickack, 1)
            except OSError:
                pass

    def stale(self) -> bool:
        """The server already closed this connection (say it restarted while we were idle)."""
        return self._reader is None or self._reader.at_eof() or self._reader.exception() is not None

    def abort(self) -> None:
        """Close at once without waiting (used when the state of the stream is unknown)."""
        writer = self._writer
        self._reader = self._writer = None
        self._ready = False
        if writer is not None:
            writer.close()


class RconClient:
    """One RCON connection to one server, shared by every caller through a lock."""

    def __init__(
        self,
        host: str,
        port: int,
        password: str,
        *,
        timeout: float = 5.0,
        name: str | None = None,
        backoff_initial: float = 0.2,
        backoff_max: float = 30.0,
    ) -> None:
        self.host = host
        self.port = port
        self._password = password  # never logged, never put in an error text
        self.timeout = timeout
        self.label = f"server {name!r}" if name else f"the server at {host}:{port}"  # for logs
        # the same in the reader's language, for error texts (mid-sentence, and at its start)
        self._who = (
            lazy("server {name}", name=repr(name))
            if name
            else lazy("the server at {host}:{port}", host=host, port=port)
        )
        self._who_first = (
            lazy("Server {name}", name=repr(name))
            if name
            else lazy("The server at {host}:{port}", host=host, port=port)
        )
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.round_trips = 0  # commands written to the server (counted when sent)
        self.sentinels = 0  # extra sentinel packets sent to find the end of long replies
        self.reconnects = 0  # successful connections after the first
        # called after each reconnect (the crash guard checks whether the server restarted)
        self.on_reconnect: list[Callable[[], None]] = []
        # called with the seconds each answered command took (the dashboard's /metrics)
        self.round_trip_observers: list[Callable[[float], None]] = []
        self._lock = asyncio.Lock()
        self._conn: _Connection | None = None
        self._ids = itertools.count(1)
        self._connected_before = False
        self._closed = False
        self._failures = 0
        self._next_attempt = 0.0
        self._last_failure: ServerUnavailable | BadPassword | None = None

    def __repr__(self) -> str:
        return f"RconClient({self.host!r}, {self.port}, timeout={self.timeout})"

    @property
    def connected(self) -> bool:
        return self._conn is not None

    async def connect(self) -> None:
        """Connect and log in now (commands also connect on demand)."""
        async with self._lock:
            self._closed = False
            await self._ensure_connected()

    def retry_now(self) -> None:
        """Let the next command connect at once instead of waiting out the back-off: the caller
        knows the server is up again (it logged its start-up line)."""
        self._next_attempt = 0.0

    async def close(self) -> None:
        """Close the connection; later commands raise ServerUnavailable until connect().

        A command in flight is not waited for: its connection is cut, so it fails at once
        (a frozen server would otherwise hold the bot's shutdown for the whole timeout)."""
        self._closed = True
        if self._lock.locked():
            self._drop("closing")
            return
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                try:
                    async with asyncio.timeout(1.0):  # a peer that never ACKs the FIN
                        await conn.close()
                except (OSError, TimeoutError):
                    conn.abort()

    async def command(self, text: str) -> str:
        """Run one command; returns its whole reply (all fragments joined)."""
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_COMMAND_BYTES:
            raise CommandTooLong(size, MAX_COMMAND_BYTES)
        async with self._lock:
            if self._closed:
                raise self._closed_error()
            conn = await self._ensure_connected()
            if self._closed:  # closed while this command was connecting
                self._drop("closed")
                raise self._closed_error()
            self.round_trips += 1
            try:
                started = time.monotonic()
                async with asyncio.timeout(self.timeout):
                    reply = await self._exchange(conn, text)
                for observe in self.round_trip_observers:
                    observe(time.monotonic() - started)
                return reply
            except TimeoutError:
                self._drop("timeout")
                raise RconTimeout(
                    lazy(
                        "{server} is not answering: no reply to `{command}` within {seconds} s "
                        "(the connection was reset; the command may still run).",
                        server=self._who_first,
                        command=_shorten(text),
                        seconds=format(self.timeout, "g"),
                    )
                ) from None
            except _LostAuth:
                self._drop("login lost")
                raise BadPassword(
                    lazy("{server} no longer accepts the RCON password.", server=self._who_first)
                ) from None
            except (OSError, EOFError, asyncio.IncompleteReadError, _ProtocolError) as e:
                self._drop(type(e).__name__)
                raise CommandDropped(
                    lazy(
                        "The connection to {server} dropped during `{command}`; the command may "
                        "or may not have run.",
                        server=self._who,
                        command=_shorten(text),
                    )
                ) from None
            except BaseException:
                # Cancelled mid-exchange: the stream is in an unknown state.
                self._drop("cancelled")
                raise

    def _closed_error(self) -> ServerUnavailable:
        return ServerUnavailable(lazy("The RCON client for {server} is closed.", server=self._who))

    async def _exchange(self, conn: _Connection, text: str) -> str:
        cmd_id = next(self._ids)
        conn.write_packet(cmd_id, _TYPE_COMMAND, text)
        await conn.drain()
        parts: list[str] = []
        sentinel_id: int | None = None
        while True:
            req_id, _ptype, body = await conn.read_packet()
            if req_id == cmd_id:
                parts.append(body)
                # A fragment under 4096 units is the last one; at exactly 4096, more may follow.
                if sentinel_id is None and _java_length(body) >= FRAGMENT_UNITS:
                    sentinel_id = next(self._ids)
                    conn.write_packet(sentinel_id, _TYPE_SENTINEL, "")
                    await conn.drain()
                    self.sentinels += 1
                if sentinel_id is None:
                    return "".join(parts)
                conn.quick_ack()
            elif sentinel_id is not None and req_id == sentinel_id:
                return "".join(parts)
            elif req_id == -1:
                raise _LostAuth
            else:
                # Cannot happen on a connection we reset after every timeout; a server that
                # sends it is not behaving like vanilla, so stop trusting this connection.
                raise _ProtocolError(f"reply for request {req_id} while waiting for {cmd_id}")

    def _drop(self, why: str) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            log.info("Dropping the RCON connection to %s (%s)", self.label, why)
            conn.abort()

    async def _ensure_connected(self) -> _Connection:
        if self._conn is not None and self._conn.stale():
            # Reconnect now rather than fail a command that was never sent.
            self._drop("closed by the server while idle")
        if self._conn is not None:
            return self._conn
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            wait = self._next_attempt - loop.time()
            if wait > 0:
                if loop.time() + wait > deadline and self._last_failure is not None:
                    raise type(self._last_failure)(
                        lazy(
                            "{error} Next attempt in {seconds} s.",
                            error=self._last_failure,
                            seconds=format(wait, ".1f"),
                        )
                    )
                await asyncio.sleep(wait)
            conn = _Connection(self.host, self.port, self._password)
            try:
                await conn.connect(timeout=max(deadline - loop.time(), 0.05))
            except aiomcrcon.IncorrectPasswordError:
                self._failed(
                    BadPassword(
                        lazy(
                            "{server} refused the RCON password: compare rcon.password in its "
                            "server.properties with the bot's setting.",
                            server=self._who_first,
                        )
                    )
                )
                assert self._last_failure is not None
                raise self._last_failure from None
            except TimeoutError:
                # the port took the connection (the kernel does, even for a stopped process)
                # but no login answer came: the server is there and frozen or overloaded
                self._failed(
                    ServerUnavailable(
                        lazy(
                            "{server} is not answering: it took the RCON connection but did "
                            "not answer the login within {seconds} s.",
                            server=self._who_first,
                            seconds=format(self.timeout, "g"),
                        )
                    )
                )
                continue
            except (
                aiomcrcon.RCONConnectionError,
                OSError,
                EOFError,
                struct.error,
                ValueError,
            ) as e:
                # aiomcrcon reports a connection closed during login as struct.error/ValueError.
                # the library's sentence ends with its own period, ours adds one
                reason = (getattr(e, "message", None) or type(e).__name__).rstrip(".")
                self._failed(
                    ServerUnavailable(
                        lazy(
                            "Cannot reach {server} over RCON ({host}:{port}): {reason}.",
                            server=self._who,
                            host=self.host,
                            port=self.port,
                            reason=reason,
                        )
                    )
                )
                continue
            self._failures = 0
            self._next_attempt = 0.0
            self._last_failure = None
            if self._connected_before:
                self.reconnects += 1
                log.info("Reconnected to %s over RCON", self.label)
                for listener in self.on_reconnect:
                    listener()
            self._connected_before = True
            self._conn = conn
            return conn

    def _failed(self, error: ServerUnavailable | BadPassword) -> None:
        self._failures += 1
        backoff = min(self.backoff_initial * 2 ** (self._failures - 1), self.backoff_max)
        self._next_attempt = asyncio.get_running_loop().time() + backoff
        self._last_failure = error
        log.warning("%s (attempt %d; next in %.1f s)", error, self._failures, backoff)
