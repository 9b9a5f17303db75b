"""Two real Discord bot processes (`python -m bot run`) on one PostgreSQL with an mcsim server,
both pointed at a local Discord whose gateway speaks enough of the protocol (HELLO, IDENTIFY,
READY, heartbeats) to count connections: only the holder of the gateway's lease connects; when
it is killed (SIGKILL) the other connects within the lease's TTL, when it is stopped (SIGTERM)
within 2 s, when its database stops answering (a relay that black-holes its connections) it
closes its connection before its lease ends and the other connects; never are two connections
open at once (the fake counts them as they open and close, and the test samples them too)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType, web

from tests.e2e.bot_process import APP, USER, WAIT, BotProcess
from tests.e2e.test_faults_process import RUN
from tests.fleet.processes import Bot, Fleet, fleet

pytestmark = pytest.mark.slow
TTL = 4.0  # as the other fleet tests: room for a loaded machine's late look
TICK = 1.0  # the fleet's look at the leases (bot.background.fleet.TICK)
CONNECTING = "connecting to Discord's gateway"  # bot.discord.gateway, its log line
HEARTBEAT = 41250  # ms, Discord's usual interval


@dataclass
class Gateway:
    """What the local Discord's gateway saw: its open connections, when each connection opened
    and when each IDENTIFY came (monotonic), and the most connections open at one moment."""

    open: set[web.WebSocketResponse] = field(default_factory=set)
    opened: list[float] = field(default_factory=list)
    closed: list[float] = field(default_factory=list)
    identified: list[float] = field(default_factory=list)
    most_open: int = 0
    sampled_most: int = 0  # the most the test's sampling saw


def _ready(port: int, n: int) -> dict[str, Any]:
    return {
        "op": 0,
        "t": "READY",
        "s": 1,
        "d": {
            "v": 10,
            "user": USER,
            "guilds": [],
            "session_id": f"session{n}",
            "resume_gateway_url": f"ws://127.0.0.1:{port}",
            "application": {"id": APP["id"], "flags": 0},
        },
    }


@contextlib.asynccontextmanager
async def gateway_discord() -> AsyncIterator[tuple[int, Gateway]]:
    """A "Discord" on 127.0.0.1 (its port): the bot's login, its command sync and a gateway at
    "/"; any other request is Discord's 404."""
    seen = Gateway()
    port = 0

    async def socket(request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        seen.open.add(ws)
        seen.opened.append(time.monotonic())
        seen.most_open = max(seen.most_open, len(seen.open))
        try:
            await ws.send_json({"op": 10, "d": {"heartbeat_interval": HEARTBEAT}})
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                op = json.loads(msg.data).get("op")
                if op == 2:  # IDENTIFY
                    seen.identified.append(time.monotonic())
                    await ws.send_json(_ready(port, len(seen.identified)))
                elif op == 1:  # a heartbeat
                    await ws.send_json({"op": 11})
        finally:
            seen.open.discard(ws)
            seen.closed.append(time.monotonic())
        return ws

    def answer(body: object) -> Any:
        async def handler(request: web.Request) -> web.StreamResponse:
            return web.Response(body=json.dumps(body).encode(), content_type="application/json")

        return handler

    async def unknown(request: web.Request) -> web.StreamResponse:
        body = json.dumps({"message": "404: Not Found", "code": 0}).encode()
        return web.Response(status=404, body=body, content_type="application/json")

    app = web.Application()
    app.router.add_get("/", socket)
    app.router.add_get("/api/v10/users/@me", answer(USER))
    app.router.add_get("/api/v10/oauth2/applications/@me", answer(APP))
    app.router.add_put("/api/v10/applications/{app}/commands", answer([]))
    app.router.add_route("*", "/{tail:.*}", unknown)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = int(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]

    async def sample() -> None:  # bounded: cancelled when the test ends
        while True:
            seen.sampled_most = max(seen.sampled_most, len(seen.open))
            await asyncio.sleep(0.02)

    sampler = asyncio.create_task(sample())
    try:
        yield port, seen
    finally:
        sampler.cancel()
        await runner.cleanup()


@dataclass(eq=False)
class Relay:
    """A TCP relay on 127.0.0.1 to PostgreSQL that can go silent: frozen, it passes nothing
    either way and leaves new connections unanswered, every socket kept open (a network that
    drops packets, not one that refuses them); thawed, it drops the connections it held, as a
    network that comes back resets them, and relays again."""

    target: int
    port: int = 0
    frozen: bool = False
    _thawed: asyncio.Event = field(default_factory=asyncio.Event)

    def freeze(self) -> None:
        self.frozen = True
        self._thawed = asyncio.Event()

    def thaw(self) -> None:
        self.frozen = False
        self._thawed.set()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                if self.frozen:
                    await self._thawed.wait()  # held, never passed on
                    break
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.frozen:
            await self._thawed.wait()
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))


@contextlib.asynccontextmanager
async def relay_to(port: int) -> AsyncIterator[Relay]:
    relay = Relay(port)
    server = await asyncio.start_server(relay._client, "127.0.0.1", 0)
    relay.port = int(server.sockets[0].getsockname()[1])
    try:
        yield relay
    finally:
        relay.thaw()
        server.close()


async def start_run(group: Fleet, discord: int, db_port: int | None = None) -> Bot:
    """`python -m bot run` on the group's database (through `db_port` when given) and servers,
    its Discord the local one; once its core is up (it logged in and synced its commands)."""
    home = group.tmp_path / f"bot{len(group.bots)}"
    home.mkdir()
    process = BotProcess(home, 0)
    process.env = group.env(home)
    if db_port is not None:
        url = group.url.replace(f":{group.pg.port}/", f":{db_port}/")
        process.env["DOOM_DATABASE_URL"] = url
    process.env["DOOM_DISCORD_TOKEN"] = "x" * 59
    await process.start("-c", RUN, f"http://127.0.0.1:{discord}")
    assert process.proc is not None
    bot = Bot(process, pid=process.proc.pid)
    group.bots.append(bot)  # killed by the group's end, whatever happens
    said = await process.expect("dashboard at http://", stream="err", limit=WAIT)
    found = re.search(r"http://127\.0\.0\.1:\d+", said)
    assert found is not None
    bot.base = found[0]
    await process.expect("synced 0 global commands", stream="err", limit=WAIT)
    return bot


async def until(check: Any, limit: float, what: str) -> float:
    """Seconds until `check()` is true (bounded)."""
    began = time.monotonic()
    while not check():
        if time.monotonic() - began > limit:
            raise AssertionError(f"{what}: not within {limit} s")
        await asyncio.sleep(0.02)
    return time.monotonic() - began


def gateway_line(metrics: str) -> str:
    found = re.search(r'^doom_lease_held\{lease="discord:gateway"\} (\S+)$', metrics, re.M)
    assert found is not None, metrics
    return found[1]


async def two_bots(
    group: Fleet,
    discord: int,
    seen: Gateway,
    db_ports: tuple[int | None, int | None] = (None, None),
) -> tuple[Bot, Bot]:
    """Both processes up, one of them connected: (the holder, the other)."""
    first = await start_run(group, discord, db_ports[0])
    second = await start_run(group, discord, db_ports[1])
    await until(lambda: len(seen.identified) >= 1, WAIT, "a connection")
    await asyncio.sleep(3 * TICK)  # each has looked at the leases again since
    # one process connected, once
    assert len(seen.opened) == len(seen.identified) == 1, first.process.err + second.process.err
    holder_pid = group.holders().get("discord:gateway")
    holder, other = (first, second) if holder_pid == first.pid else (second, first)
    assert holder.pid == holder_pid
    assert CONNECTING in holder.process.err and CONNECTING not in other.process.err
    # each says whether it holds the gateway (/metrics), as it does for its servers
    assert gateway_line(await group.get_text(holder, "/metrics")) == "1.0"
    assert gateway_line(await group.get_text(other, "/metrics")) == "0.0"
    return holder, other


async def test_a_killed_holders_gateway_is_taken_within_the_ttl(
    tmp_path: Path, postgres: Any
) -> None:
    async with (
        gateway_discord() as (discord, seen),
        fleet(tmp_path, postgres, servers=1, ttl=TTL) as group,
    ):
        holder, other = await two_bots(group, discord, seen)
        assert holder.process.proc is not None
        killed = time.monotonic()
        holder.process.proc.send_signal(signal.SIGKILL)
        await until(lambda: len(seen.identified) == 2, TTL + 2, "the other connects")
        took = seen.identified[1] - killed
        print(f"SIGKILL -> the other identified after {took:.2f} s (TTL {TTL:g} s)")
        assert took <= TTL + 2
        assert CONNECTING in other.process.err
        assert group.holders().get("discord:gateway") == other.pid
        await asyncio.sleep(TICK)
        assert len(seen.opened) == 2 and len(seen.open) == 1
        assert seen.most_open == 1 and seen.sampled_most == 1
        assert gateway_line(await group.get_text(other, "/metrics")) == "1.0"
        assert "Traceback" not in other.process.err


async def test_a_stopped_holder_hands_the_gateway_over_within_2_s(
    tmp_path: Path, postgres: Any
) -> None:
    async with (
        gateway_discord() as (discord, seen),
        fleet(tmp_path, postgres, servers=1, ttl=TTL) as group,
    ):
        holder, other = await two_bots(group, discord, seen)
        assert holder.process.proc is not None
        stopped = time.monotonic()
        holder.process.proc.send_signal(signal.SIGTERM)
        await until(lambda: len(seen.identified) == 2, 2, "the other connects")
        took = seen.identified[1] - stopped
        print(f"SIGTERM -> the other identified after {took:.2f} s")
        assert await asyncio.wait_for(holder.process.proc.wait(), WAIT) == 0
        assert len(seen.opened) == 2 and len(seen.open) == 1
        assert seen.most_open == 1 and seen.sampled_most == 1
        assert group.holders().get("discord:gateway") == other.pid
        assert gateway_line(await group.get_text(other, "/metrics")) == "1.0"
        assert "Traceback" not in holder.process.err + other.process.err


async def test_a_holder_whose_database_stops_answering_closes_before_its_lease_ends(
    tmp_path: Path, postgres: Any
) -> None:
    """Its look at the leases waits on the silent database (no error comes for 30 s): the
    connection is closed on the process's own clock, the other connects once the lease has
    expired, and the cut one lives on, waits once the database is back, and connects again
    when the other stops."""
    async with (
        gateway_discord() as (discord, seen),
        fleet(tmp_path, postgres, servers=1, ttl=TTL) as group,
        relay_to(postgres.port) as one,
        relay_to(postgres.port) as two,
    ):
        holder, other = await two_bots(group, discord, seen, (one.port, two.port))
        relay = one if holder is group.bots[0] else two
        cut = time.monotonic()
        relay.freeze()
        await until(lambda: len(seen.closed) == 1, TTL, "the cut holder closes")
        await until(lambda: len(seen.identified) == 2, TTL + 2, "the other connects")
        closed, connected = seen.closed[0] - cut, seen.identified[1] - cut
        print(f"database silent -> closed after {closed:.2f} s, the other in {connected:.2f} s")
        assert seen.closed[0] < seen.opened[1]
        assert seen.most_open == 1 and seen.sampled_most == 1
        assert "its lease cannot be renewed and ends soon" in holder.process.err
        assert CONNECTING in other.process.err
        await asyncio.sleep(TICK)
        assert holder.process.alive and len(seen.open) == 1
        relay.thaw()  # the database answers again: the cut one waits, the other stays
        await group.wait_for(
            lambda: any(
                name.startswith("member:") and pid == holder.pid
                for name, pid in group.holders().items()
            ),
            WAIT,
            "the cut one back among the live processes",
        )
        await asyncio.sleep(2 * TICK)
        assert len(seen.opened) == 2 and len(seen.open) == 1
        assert other.process.proc is not None
        stopped = time.monotonic()
        other.process.proc.send_signal(signal.SIGTERM)
        await until(lambda: len(seen.identified) == 3, 2, "the first connects again")
        print(
            f"then SIGTERM -> the first connected again after {seen.identified[2] - stopped:.2f} s"
        )
        assert holder.process.err.count(CONNECTING) == 2
        assert seen.most_open == 1 and seen.sampled_most == 1
        assert "Traceback" not in other.process.err
