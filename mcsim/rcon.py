"""mcsim's RCON server: vanilla's `server/rcon` classes (RconListener, RconClient), byte for byte.

Read from the 1.21.11 decompile (RconBase, RconListener, RconClient, BufferHelper) and kept
faithful where clients can tell the difference:

- Each read is one `BufferedInputStream.read(buf, 0, 1460)` on a fresh stream: one socket read of
  up to 8192 bytes, then more only while bytes are already available, at most 1460 kept; the rest
  of what was read is lost with the stream. Fewer than 10 bytes, or a length field that is not
  `bytes read - 4`, ends the connection without a reply. So a body over 1446 bytes, or two packets
  that arrive together, close the connection silently.
- The type is read with the whole 1460-byte buffer as limit, and the body runs to the first NUL or
  the last byte read (excluded); the buffer is reused between packets, as vanilla's is.
- Login (3): a non-empty matching password answers type 2 with the request id; anything else
  answers type 2 with id -1 and logs the connection out. Command (2) before login answers the same
  -1 packet. Other types answer `Unknown request <hex>` (Integer.toHexString) as type 0.
- Command replies are type-0 packets with the request id, split every 4096 UTF-16 units; each
  fragment is encoded alone, so a surrogate pair cut in two becomes `?` + `?` as Java's encoder
  writes lone surrogates. An empty reply is still one empty packet.
- Log lines and the thread names log4j prints with them: `Thread RCON Listener started` and
  `RCON running on <host>:<port>` (Server thread), `Thread RCON Client /<ip> started`
  (RCON Listener #1), `Thread RCON Client /<ip> shutting down` (RCON Client /<ip> #N), and on stop
  `Thread RCON Listener stopped` / `Thread RCON Client /<ip> stopped` (Server thread).

Departures: the port may be 0 (the bound port is logged); thread numbers count per server, as in a
fresh JVM without the query listener; all clients share one asyncio loop on one thread instead of a
thread each (each still has its own connection and state).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ipaddress
import logging
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from mcsim.log import ServerLog

__all__ = ["RconServer", "split_reply"]

log = logging.getLogger(__name__)

PACKET_BUFFER = 1460  # RconClient.packetBuffer: one read, at most this many bytes
STREAM_BUFFER = 8192  # BufferedInputStream's default buffer: what one socket read may take
FRAGMENT_UNITS = 4096  # RconClient.respond: Java chars (UTF-16 units) per reply packet
TYPE_RESPONSE = 0
TYPE_COMMAND = 2
TYPE_LOGIN = 3
TYPE_AUTH_RESPONSE = 2
STOP_TIMEOUT = 5.0


def split_reply(text: str) -> list[bytes]:
    """The UTF-8 bodies vanilla sends for `text`: 4096 UTF-16 units each, lone surrogates as `?`."""
    units = text.encode("utf-16-le", "surrogatepass")
    step = FRAGMENT_UNITS * 2
    bodies = []
    for start in range(0, max(len(units), 1), step):
        fragment = units[start : start + step].decode("utf-16-le", "surrogatepass")
        # Java's String.getBytes(UTF_8) writes an unpaired surrogate as '?', like errors="replace".
        bodies.append(fragment.encode("utf-8", "replace"))
    return bodies


def _packet(request_id: int, ptype: int, body: bytes) -> bytes:
    return struct.pack("<iii", len(body) + 10, request_id, ptype) + body + b"\x00\x00"


def _int_le(buf: bytearray, start: int, limit: int) -> int:
    """BufferHelper.getIntLE: 0 when fewer than 4 bytes fit before `limit`."""
    if limit - start - 4 < 0:
        return 0
    value: int = struct.unpack_from("<i", buf, start)[0]
    return value


def _get_string(buf: bytearray, start: int, limit: int) -> str:
    """BufferHelper.getString: up to the first NUL or to limit-1; negative length throws."""
    last = limit - 1
    end = min(start, last)
    while buf[end] != 0 and end < last:
        end += 1
    if end < start:
        # Java's new String(buf, off, len) with len < 0 (inferred message format, Java 21).
        raise IndexError(
            f"java.lang.StringIndexOutOfBoundsException: Range [{start}, {start} + "
            f"{end - start}) out of bounds for length {len(buf)}"
        )
    return bytes(buf[start:end]).decode("utf-8", "replace")


def _java_address(host: str) -> str:
    """InetAddress.toString() of an unresolved peer: "/127.0.0.1", "/0:0:0:0:0:0:0:1"."""
    try:
        addr = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return f"/{host}"
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return f"/{addr.ipv4_mapped}"  # Java turns mapped addresses into Inet4Address
        return "/" + ":".join(format(int(g, 16), "x") for g in addr.exploded.split(":"))
    return f"/{addr}"


@dataclass(eq=False)
class _Client:
    sock: socket.socket
    description: str  # "RCON Client /127.0.0.1"
    thread_name: str  # "RCON Client /127.0.0.1 #2"
    buf: bytearray = field(default_factory=lambda: bytearray(PACKET_BUFFER))
    authenticated: bool = False
    running: bool = True
    task: asyncio.Task[None] | None = None


class RconServer:
    """Listens for RCON connections and hands each command to `submit` (the game loop's queue)."""

    def __init__(
        self,
        host: str,
        port: int,
        password: str,
        submit: Callable[[str], concurrent.futures.Future[str]],
        log: ServerLog,
    ) -> None:
        self.host = host or "0.0.0.0"  # RconListener.create: an empty server-ip means all
        self.port = port
        self._password = password
        self._submit = submit
        self._log = log
        self._thread_counter = 0
        self._listener: socket.socket | None = None
        self._listener_name = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._accept_task: asyncio.Task[None] | None = None
        self._clients: list[_Client] = []
        self._running = False
        self._stop_lock = threading.Lock()

    # -- lifecycle (called from the server's thread) -----------------------------------------

    def start(self) -> None:
        """Bind (raises OSError if it cannot) and serve on a thread of our own."""
        if self._running:
            return
        if not self._password:
            raise ValueError("No rcon password set in server.properties, rcon disabled!")
        listener = socket.create_server((self.host, self.port), backlog=50)
        listener.setblocking(False)
        self._listener = listener
        self.port = listener.getsockname()[1]
        self._listener_name = self._next_thread_name("RCON Listener")
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._running = True
        self._thread = threading.Thread(
            target=self._serve, args=(ready,), name=f"mcsim {self._listener_name}", daemon=True
        )
        self._thread.start()
        ready.wait(STOP_TIMEOUT)
        self._log.info("Thread RCON Listener started")
        self._log.info(f"RCON running on {self.host}:{self.port}")

    def stop(self) -> None:
        """Close the listener and every client, then join; bounded by a few seconds.

        Safe to call twice and from any thread but the RCON one (the game loop may call it while
        the server's own shutdown calls it too).
        """
        with self._stop_lock:
            thread, loop = self._thread, self._loop
            if thread is None or loop is None:
                return
            self._running = False
            if not loop.is_closed() and loop.is_running():
                shutdown = asyncio.run_coroutine_threadsafe(self._shutdown(), loop)
                try:
                    shutdown.result(STOP_TIMEOUT)
                except (concurrent.futures.TimeoutError, RuntimeError):
                    log.warning("RCON shutdown did not finish in %ss", STOP_TIMEOUT)
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(loop.stop)
            thread.join(STOP_TIMEOUT)
            if thread.is_alive():
                log.warning("RCON thread still alive after %ss", STOP_TIMEOUT)
            self._thread = None

    def __enter__(self) -> RconServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def client_count(self) -> int:
        """Connections still open (vanilla's listener keeps the same list)."""
        return sum(1 for c in self._clients if c.running)

    # -- the RCON thread ---------------------------------------------------------------------

    def _next_thread_name(self, description: str) -> str:
        # RconBase.THREAD_COUNTER: listener #1, then one number per client, never reused.
        self._thread_counter += 1
        return f"{description} #{self._thread_counter}"

    def _serve(self, ready: threading.Event) -> None:
        loop = self._loop
        assert loop is not None
        asyncio.set_event_loop(loop)
        self._accept_task = loop.create_task(self._accept_loop())
        loop.call_soon(ready.set)
        try:
            loop.run_forever()
        finally:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            if self._listener is not None:
                self._listener.close()
            for client in self._clients:
                client.sock.close()
            loop.close()

    async def _accept_loop(self) -> None:
        loop = asyncio.get_running_loop()
        assert self._listener is not None
        while self._running:
            try:
                sock, addr = await loop.sock_accept(self._listener)
            except OSError as exc:
                if self._running:
                    self._log.info(f"IO exception: {exc}", thread=self._listener_name)
                    await asyncio.sleep(0.1)  # e.g. out of file descriptors: do not spin
                continue
            sock.setblocking(False)
            description = f"RCON Client {_java_address(addr[0])}"
            client = _Client(sock, description, self._next_thread_name(description))
            client.task = loop.create_task(self._client_loop(client))
            self._log.info(f"Thread {description} started", thread=self._listener_name)
            self._clients = [c for c in self._clients if c.running]
            self._clients.append(client)

    async def _shutdown(self) -> None:
        # RconListener.stop: the listener first, then each client still running.
        if self._accept_task is not None:
            self._accept_task.cancel()
            await asyncio.gather(self._accept_task, return_exceptions=True)
        if self._listener is not None:
            self._listener.close()
        self._log.info("Thread RCON Listener stopped")
        for client in self._clients:
            if not client.running or client.task is None:
                continue
            client.running = False
            client.task.cancel()
            await asyncio.gather(client.task, return_exceptions=True)
            self._log.info(f"Thread {client.description} stopped")
        self._clients.clear()

    async def _client_loop(self, client: _Client) -> None:
        try:
            while client.running:
                size = await self._read(client)
                if size < 10:
                    return
                buf = client.buf
                if _int_le(buf, 0, size) != size - 4:
                    return
                request_id = _int_le(buf, 4, size)
                ptype = _int_le(buf, 8, PACKET_BUFFER)
                if ptype == TYPE_COMMAND:
                    if client.authenticated:
                        command = _get_string(buf, 12, size)
                        await self._reply(client, request_id, await self._execute(command))
                    else:
                        await self._send(client, _packet(-1, TYPE_AUTH_RESPONSE, b""))
                elif ptype == TYPE_LOGIN:
                    password = _get_string(buf, 12, size)
                    if password and password == self._password:
                        client.authenticated = True
                        await self._send(client, _packet(request_id, TYPE_AUTH_RESPONSE, b""))
                    else:
                        client.authenticated = False
                        await self._send(client, _packet(-1, TYPE_AUTH_RESPONSE, b""))
                else:
                    await self._reply(client, request_id, f"Unknown request {ptype & 0xFFFFFFFF:x}")
        except asyncio.CancelledError:
            pass  # stop(): the socket is closed below, as RconClient.stop() does
        except OSError:
            pass  # a reset or closed peer ends the connection quietly, as in vanilla
        except Exception as exc:
            self._log.error(
                f"Exception whilst parsing RCON input\n{exc}", thread=client.thread_name
            )
        finally:
            client.running = False
            client.sock.close()
            self._log.info(f"Thread {client.description} shutting down", thread=client.thread_name)

    async def _read(self, client: _Client) -> int:
        """One `BufferedInputStream.read(buf, 0, 1460)` on a fresh stream; -1 at end of stream."""
        loop = asyncio.get_running_loop()
        data = await loop.sock_recv(client.sock, STREAM_BUFFER)
        if not data:
            return -1
        taken = data[:PACKET_BUFFER]
        while len(taken) < PACKET_BUFFER:
            try:
                more = client.sock.recv(STREAM_BUFFER)  # only what is already available
            except BlockingIOError:
                break
            if not more:
                break
            taken += more[: PACKET_BUFFER - len(taken)]
        client.buf[: len(taken)] = taken
        return len(taken)

    async def _execute(self, command: str) -> str:
        try:
            future = self._submit(command)
            return await _await_future(future)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # RconClient: "Error executing: " + command + " (" + e.getMessage() + ")"
            return f"Error executing: {command} ({exc})"

    async def _reply(self, client: _Client, request_id: int, text: str) -> None:
        for body in split_reply(text):
            await self._send(client, _packet(request_id, TYPE_RESPONSE, body))

    async def _send(self, client: _Client, data: bytes) -> None:
        await asyncio.get_running_loop().sock_sendall(client.sock, data)


async def _await_future(future: concurrent.futures.Future[str]) -> str:
    """Await the game loop's answer without cancelling its future if this client goes away.

    asyncio.wrap_future would cancel `future` when the waiting task is cancelled, and the game loop
    would then fail on set_result; a closed loop would also make its callback raise.
    """
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[str] = loop.create_future()

    def transfer(done: concurrent.futures.Future[str]) -> None:
        if waiter.done():
            return
        if done.cancelled():
            waiter.set_exception(RuntimeError("the command was cancelled"))
        elif (exc := done.exception()) is not None:
            waiter.set_exception(exc)
        else:
            waiter.set_result(done.result())

    def on_done(done: concurrent.futures.Future[str]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting
            loop.call_soon_threadsafe(transfer, done)

    future.add_done_callback(on_done)
    return await waiter
