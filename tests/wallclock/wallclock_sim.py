"""What the wall-clock tests share: an mcsim with the real pack (stepped: it ticks only when a
test says so, like a server paused because it is empty), the bot's real services to it over TCP
RCON, optionally through a TCP proxy that refuses or drops connections, and a scheduler on a
manual clock over a real SQLite database."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from bot.config import DEFAULT_DENY, ServerConfig
from bot.minecraft.command_check import CommandChecker
from bot.minecraft.pack_client import PackClient
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices
from bot.store.db import Database
from bot.store.schedules import Creator, ScheduleStore
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from tests.bot.pack_sim import PASSWORD, PackSim, start_sim

__all__ = [
    "MOD",
    "PASSWORD",
    "PackSim",
    "TcpProxy",
    "make_scheduler",
    "server_services",
    "start_sim",
]

MOD = Creator(7002, "mod#0001")
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class TcpProxy:
    """A real TCP proxy on 127.0.0.1 in front of the RCON port.

    `refuse`: every connection is closed at once (the server is unreachable). `plan`: drops in
    order; each `(pattern, after)` ends the connection at the next client packet containing
    `pattern`, either before the server sees it (`after=False`) or after the server ran it but
    before its reply reaches the bot (`after=True`): an RCON drop mid-hand-over. `watch`: a
    client packet matching its test is forwarded, and once the server has answered it (so ran
    it) its callback is called, the answer held back (e.g. SIGKILL the bot right then). `hold`:
    the next client packet containing it waits (`held` is set) until `release` is set, then
    goes on: a request slow on its way, arriving after what others sent meanwhile."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.refuse = False
        self.plan: list[tuple[bytes, bool]] = []
        self.dropped = 0
        self.forwarded: list[bytes] = []
        self.watch: tuple[Callable[[bytes], bool], Callable[[], None]] | None = None
        self.hold: bytes | None = None
        self.held = asyncio.Event()
        self.release = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    def down(self) -> None:
        """The server becomes unreachable: open connections are cut, new ones refused."""
        self.refuse = True
        for writer in list(self._writers):
            writer.transport.abort()

    def up(self) -> None:
        self.refuse = False

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        try:
            if self.refuse:
                writer.transport.abort()
                return
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
            swallow = asyncio.Event()
            watched = asyncio.Event()

            async def to_server() -> None:
                while data := await reader.read(65536):
                    if self.plan and self.plan[0][0] in data:
                        _, after = self.plan.pop(0)
                        self.dropped += 1
                        if after:
                            swallow.set()  # the server's reply never reaches the bot
                            up_writer.write(data)
                            await up_writer.drain()
                            await asyncio.sleep(0.3)  # the server runs it meanwhile
                        return
                    if self.watch is not None and self.watch[0](data):
                        watched.set()
                    if self.hold is not None and self.hold in data:
                        self.hold = None
                        self.held.set()
                        await self.release.wait()
                    self.forwarded.append(data)
                    up_writer.write(data)
                    await up_writer.drain()

            async def to_client() -> None:
                while data := await up_reader.read(65536):
                    if swallow.is_set():
                        continue
                    if watched.is_set() and self.watch is not None:
                        _, then = self.watch
                        self.watch = None
                        swallow.set()
                        then()
                        continue
                    writer.write(data)
                    await writer.drain()

            pumps = [asyncio.ensure_future(to_server()), asyncio.ensure_future(to_client())]
            try:
                await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for pump in pumps:
                    pump.cancel()
                writer.transport.abort()
                up_writer.transport.abort()
        except (OSError, asyncio.CancelledError):
            writer.transport.abort()
        finally:
            self._tasks.discard(task)
            self._writers.discard(writer)


def server_services(
    sim: PackSim, *, port: int | None = None, timeout: float = 5.0
) -> ServerServices:
    """The bot's services of the sim's server (RCON to `port`, default the sim's own)."""
    rcon = RconClient(
        "127.0.0.1",
        port or sim.server.rcon_port or 0,
        PASSWORD,
        timeout=timeout,
        name="sim",
        backoff_initial=0.01,
        backoff_max=0.05,
    )
    config: ServerConfig = sim.config
    checker = CommandChecker(deny=DEFAULT_DENY)
    return ServerServices(config, rcon, PackClient(rcon, config, checker), checker, None)


def make_scheduler(
    db_path: Path,
    server: ServerServices,
    clock: ManualClock,
    **options: object,
) -> Scheduler:
    store = ScheduleStore(Database(db_path))
    return Scheduler(store, {server.name: server}, clock=clock, backoff=(1.0, 2.0, 4.0), **options)  # type: ignore[arg-type]


def count_runs(sim: PackSim, holder: str = "#runs") -> int:
    return sim.server.score(holder, "wc") or 0


def prepare_objective(sim: PackSim) -> None:
    sim.server.run("scoreboard objectives add wc dummy")
