"""RCON round trips against mcsim: our RconClient and bare aiomcrcon, in the same run.

    python bench/bot_rcon.py [--commands 2000] [--command "time query gametime"]

    python bench/bot_rcon.py --echo    # client + protocol cost only

Prints commands per second and p50/p99 round-trip times for each client, sequential (one caller)
and, for ours, with 8 concurrent callers sharing the one locked connection, plus a reply long
enough to need the sentinel (bare aiomcrcon cannot read that one whole, so it is not timed), and
the latency from a log line to its Event (bench/log_latency.py).
Uses the full `mcsim.server.Server` when it is available, otherwise mcsim's RconServer with an
echoing game loop (then the figures are the client and protocol cost alone).

Functions are small so sibling benches (log line to Event, command check) can reuse `Stats`,
`timed` and `serve`.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import secrets
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomcrcon
import log_latency  # a sibling in bench/ (run as `python bench/bot_rcon.py`)

from bot.minecraft.rcon import RconClient

__all__ = ["Stats", "Target", "bench_bare", "bench_ours", "main", "serve", "timed"]


@dataclass(frozen=True, slots=True)
class Stats:
    label: str
    count: int
    seconds: float
    samples_ms: list[float]

    @property
    def per_second(self) -> float:
        return self.count / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        if not self.samples_ms:
            return 0.0
        ordered = sorted(self.samples_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def line(self) -> str:
        return (
            f"{self.label:<34} {self.per_second:>9.0f} cmd/s   "
            f"p50 {self.percentile(0.50):7.3f} ms   p99 {self.percentile(0.99):7.3f} ms   "
            f"(n={self.count})"
        )


async def timed(label: str, n: int, call: Callable[[], Awaitable[object]]) -> Stats:
    """Run `call` n times one after another, timing each."""
    samples: list[float] = []
    start = time.perf_counter()
    for _ in range(n):
        t0 = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - t0) * 1000)
    return Stats(label, n, time.perf_counter() - start, samples)


async def bench_ours(target: Target, password: str, command: str, n: int) -> list[Stats]:
    client = RconClient("127.0.0.1", target.port, password, timeout=10.0)
    await client.connect()
    try:
        for line in target.prepare:
            await client.command(line)
        long_reply = await client.command(target.long_command)
        await timed("warm-up", min(n, 100), lambda: client.command(command))
        results = [await timed("RconClient, 1 caller", n, lambda: client.command(command))]
        callers = 8
        samples: list[float] = []

        async def caller() -> None:
            for _ in range(n // callers):
                t0 = time.perf_counter()
                await client.command(command)
                samples.append((time.perf_counter() - t0) * 1000)

        start = time.perf_counter()
        await asyncio.gather(*(caller() for _ in range(callers)))
        elapsed = time.perf_counter() - start
        label = f"RconClient, {callers} callers (wait incl.)"
        results.append(Stats(label, len(samples), elapsed, samples))
        long_n = max(n // 10, 10)
        label = f"RconClient, {len(long_reply)}-char reply"
        results.append(await timed(label, long_n, lambda: client.command(target.long_command)))
        print(f"  (our client: {client.round_trips} commands, {client.sentinels} sentinels)")
        return results
    finally:
        await client.close()


async def bench_bare(port: int, password: str, command: str, n: int) -> Stats:
    client = aiomcrcon.Client("127.0.0.1", port, password)
    await client.connect()
    try:
        await timed("warm-up", min(n, 100), lambda: client.send_cmd(command))
        return await timed("bare aiomcrcon, 1 caller", n, lambda: client.send_cmd(command))
    finally:
        await client.close()


@dataclass(frozen=True, slots=True)
class Target:
    port: int
    what: str
    long_command: str  # a command whose reply is over 4096 characters
    prepare: tuple[str, ...] = ()  # commands that make long_command's reply long


_CHUNK = "x" * 1300
_PREPARE_LONG = tuple(f'data modify storage bench:rcon l append value "{_CHUNK}"' for _ in range(8))


def _full_server_class() -> Any:
    try:
        from mcsim.server import Server
    except ImportError:  # mcsim without its game loop: fall back to the RCON server alone
        return None
    return Server


@contextlib.contextmanager
def serve(password: str, *, echo: bool = False) -> Iterator[Target]:
    """A running mcsim on 127.0.0.1 (`echo`: RconServer alone, to time the client and protocol)."""
    with tempfile.TemporaryDirectory() as tmp:
        server_cls = None if echo else _full_server_class()
        if server_cls is not None:
            server = server_cls(Path(tmp) / "world", rcon_port=0, rcon_password=password)
            server.start(realtime=True)
            try:
                yield Target(
                    server.rcon_port,
                    "mcsim.server.Server (realtime)",
                    "data get storage bench:rcon l",
                    _PREPARE_LONG,
                )
            finally:
                server.stop()
            return
        from mcsim.log import ServerLog
        from mcsim.rcon import RconServer

        def submit(command: str) -> concurrent.futures.Future[str]:
            done: concurrent.futures.Future[str] = concurrent.futures.Future()
            done.set_result("x" * 10000 if command == "long" else f"echo {command}")
            return done

        rcon = RconServer("127.0.0.1", 0, password, submit, ServerLog(Path(tmp) / "logs"))
        rcon.start()
        try:
            yield Target(rcon.port, "mcsim.rcon.RconServer with an echoing game loop", "long")
        finally:
            rcon.stop()


async def run(n: int, command: str, *, echo: bool = False) -> None:
    password = secrets.token_hex(8)
    with serve(password, echo=echo) as target:
        print(f"RCON round trips against {target.what}, command {command!r}")
        bare = await bench_bare(target.port, password, command, n)
        ours = await bench_ours(target, password, command, n)
        for stats in [bare, *ours]:
            print(stats.line())
    # the other half of a command's life: its event, from the log line to the bot's Event
    print(await log_latency.measure(100, 0.05, 50))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commands", type=int, default=2000)
    parser.add_argument("--command", default="time query gametime")
    parser.add_argument(
        "--echo", action="store_true", help="mcsim's RCON server with an echo loop, no game"
    )
    args = parser.parse_args()
    asyncio.run(run(args.commands, args.command, echo=args.echo))


if __name__ == "__main__":
    main()
