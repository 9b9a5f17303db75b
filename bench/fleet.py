"""Fleet figures: the bot on 1, 20 and 100 mcsim servers with 100 planned rows each, on SQLite
(one process) and on PostgreSQL (one and two `serve` processes).

    python bench/fleet.py [--servers 1,20,100] [--due 5] [--idle 10] [--ttl 10]
                          [--layouts sqlite,pg1,pg2] [--per-host 25]

Each server gets 100 wall-clock rows: `--due` made through the API due 10-25 s later (their
hand-overs are measured), the rest due days later (planned, never run here), written into the
store before the bots start. mcsim worlds run `--per-host` to a process (mcsim.server.Server
objects side by side, each with its own game loop and RCON port): a hundred mcsim processes
would hold a core between them at 20 TPS. Prints per layout and server count:

- hand-over latency p50/p99: due -> handed over, the lateness column of the rows' runs;
- bot CPU per idle server: the bot processes' CPU time (/proc/<pid>/stat) over `--idle`
  seconds with nothing due, divided by the servers;
- store writes per second, idle and while the rows came due: on PostgreSQL the rows inserted,
  updated and deleted (pg_stat_database); on SQLite the bot's write(2) calls (/proc/<pid>/io,
  its log lines included: an upper bound);
- takeover (two processes): SIGKILL of one, seconds until the other holds all its servers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere, no install

import aiohttp
from sqlalchemy import select

from bot.store.db import DB_FILE, Database
from bot.store.schedules import Creator, ScheduleStore
from bot.store.tables import schedule_runs, schedules
from bot.times.when import build_spec
from tests.e2e.bot_process import WAIT, BotProcess, seed_world
from tests.e2e.test_acceptance_crash import PASSWORD

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[1]
ROWS = 100
WHO = Creator(1, "bench")
TICKS_PER_SEC = os.sysconf("SC_CLK_TCK")


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p * len(ordered)) - 1))]


def host_worlds(worlds: list[Path]) -> None:
    """In a child process: run each world's server, say its RCON port, stop when stdin ends."""
    from mcsim.server import Server

    servers = []
    for world in worlds:
        server = Server(world, rcon_port=0, rcon_password=PASSWORD)
        server.start(realtime=True)
        servers.append(server)
        print(f"{world.name} RCON on 127.0.0.1:{server.rcon_port}", flush=True)
    gc.freeze()  # as python -m mcsim: full collections would pause the game loops
    print("ready", flush=True)
    sys.stdin.read()
    for server in servers:
        server.stop()


@contextlib.asynccontextmanager
async def worlds(tmp: Path, n: int, per_host: int) -> AsyncIterator[dict[str, int]]:
    """`n` mcsim worlds, `per_host` to a process; server name -> RCON port."""
    seed = seed_world(tmp / "seed")
    names = [f"s{i}" for i in range(n)]
    for name in names:
        shutil.copytree(seed, tmp / name)
    hosts: list[asyncio.subprocess.Process] = []
    ports: dict[str, int] = {}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        for first in range(0, n, per_host):
            group = [str(tmp / name) for name in names[first : first + per_host]]
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                __file__,
                "--host-worlds",
                *group,
                env=env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
            )
            hosts.append(proc)
            assert proc.stdout is not None
            async with asyncio.timeout(WAIT + 2 * per_host):
                while (line := (await proc.stdout.readline()).decode()) != "ready\n":
                    assert line, "an mcsim host ended before its worlds were up"
                    found = re.match(r"(\S+) RCON on 127\.0\.0\.1:(\d+)", line)
                    if found:
                        ports[found[1]] = int(found[2])
        yield ports
    finally:
        for proc in hosts:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


def bot_env(home: Path, ports: dict[str, int], url: str | None, ttl: float) -> dict[str, str]:
    env = {k: v for k, v in BotProcess(home, 0).env.items() if not k.startswith("DOOM_SERVERS")}
    env.update(DOOM_WEB_PORT="0", DOOM_RCON_TIMEOUT="5", DOOM_LEASE_TTL=format(ttl, "g"))
    if url is not None:
        env["DOOM_DATABASE_URL"] = url
    for i, (name, port) in enumerate(ports.items()):
        env[f"DOOM_SERVERS__{i}__NAME"] = name
        env[f"DOOM_SERVERS__{i}__RCON_HOST"] = "127.0.0.1"
        env[f"DOOM_SERVERS__{i}__RCON_PORT"] = str(port)
        env[f"DOOM_SERVERS__{i}__RCON_PASSWORD"] = PASSWORD
        env[f"DOOM_SERVERS__{i}__EVENT_SOURCE"] = "rcon"
    return env


async def plan_rows(db_url: str, servers: list[str], n: int) -> None:
    """`n` rows a server due days from now, straight into the store (ten servers at a time)."""
    store = ScheduleStore(Database(db_url))
    now = datetime.now(UTC)
    gate = asyncio.Semaphore(10)

    async def one(server: str) -> None:
        async with gate:
            for i in range(n):
                due = now + timedelta(days=2, minutes=i)
                spec = replace(
                    build_spec("in 1h", None, None, None, now=now), first_due=due, at=due
                )
                await store.insert(
                    spec,
                    server=server,
                    command=f"say planned {i}",
                    task_id=f"p{i}",
                    created_by=WHO,
                    now=now,
                )

    await asyncio.gather(*(one(s) for s in servers))
    await store.db.close()


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS_PER_SEC


def write_calls(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith("syscw:"):
                total += int(line.split()[1])
    return total


@dataclass
class Figures:
    layout: str
    servers: int
    late: list[float] = field(default_factory=list)
    idle_cpu_ms: float = float("nan")  # CPU ms a second per idle server
    writes_idle: float = float("nan")
    writes_busy: float = float("nan")
    takeover: float | None = None
    busy_cpu: float = float("nan")  # the bots' CPU while the rows came due, cores
    ran: int = 0
    planned: int = 0
    notes: str = ""

    def row(self) -> str:
        take = "-" if self.takeover is None else f"{self.takeover:.1f} s"
        return (
            f"| {self.layout:<6} | {self.servers:>4} | {_pct(self.late, 0.5) * 1000:7.0f} ms | "
            f"{_pct(self.late, 0.99) * 1000:7.0f} ms | {self.ran}/{self.planned} | "
            f"{self.idle_cpu_ms:6.2f} ms/s | {self.writes_idle:7.1f} | {self.writes_busy:7.1f} | "
            f"{take} | {self.busy_cpu:4.2f} |"
        )


class Run:
    """One layout on one set of worlds: the database, the bots, what they are measured by."""

    def __init__(
        self, tmp: Path, layout: str, ports: dict[str, int], pg: object | None, ttl: float
    ) -> None:
        self.tmp, self.layout, self.ports, self.ttl = tmp, layout, ports, ttl
        self.pg = pg
        self.url: str | None = None
        self.bots: list[BotProcess] = []
        self.due_count = 0  # rows made through the API to come due
        self.bases: list[str] = []
        self.tokens: list[str] = []

    @property
    def pids(self) -> list[int]:
        return [b.proc.pid for b in self.bots if b.alive and b.proc is not None]

    def db_url(self) -> str:
        if self.url is not None:
            return self.url
        return f"sqlite:///{self.tmp / 'bot0' / 'botdata' / DB_FILE}"

    def tuples_written(self) -> int:
        from bot.testkit.postgres import PostgresServer

        assert isinstance(self.pg, PostgresServer) and self.url is not None
        name = self.url.rsplit("/", 1)[1]
        out = self.pg.psql(
            "SELECT tup_inserted + tup_updated + tup_deleted FROM pg_stat_database "
            f"WHERE datname = '{name}'"
        ).stdout
        return int(out.strip())

    def writes(self) -> float:
        return float(self.tuples_written() if self.url else write_calls(self.pids))

    async def start_bot(self) -> None:
        home = self.tmp / f"bot{len(self.bots)}"
        home.mkdir(exist_ok=True)
        process = BotProcess(home, 0)
        process.env = bot_env(home, self.ports, self.url, self.ttl)
        await process.start("-m", "bot", "serve")
        said = await process.expect("Serving the dashboard and API at ", limit=WAIT * 3)
        found = re.search(r"http://127\.0\.0\.1:\d+", said)
        assert found is not None
        self.bots.append(process)
        self.bases.append(found[0])

    async def make_tokens(self, n: int) -> None:
        """`n` API tokens (the CLI's): the API takes 60 writes a minute from each."""
        bot = self.bots[0]
        gate = asyncio.Semaphore(3)

        async def one(i: int) -> str:
            async with gate:
                made = await asyncio.to_thread(
                    subprocess.run,
                    [
                        sys.executable,
                        "-m",
                        "bot",
                        "token",
                        "new",
                        f"bench{i}",
                        "--rank",
                        "moderator",
                    ],
                    env=bot.env,
                    cwd=bot.cwd,
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
            assert made.returncode == 0, made.stderr
            return made.stdout.strip()

        self.tokens = list(await asyncio.gather(*(one(i) for i in range(n))))

    def holders(self) -> dict[str, int]:
        from bot.testkit.postgres import PostgresServer

        if not isinstance(self.pg, PostgresServer) or self.url is None:
            return {}
        out = self.pg.psql(
            "SELECT name, holder FROM leases WHERE expires > extract(epoch from clock_timestamp())",
            database=self.url.rsplit("/", 1)[1],
        ).stdout
        held: dict[str, int] = {}
        for line in out.splitlines():
            name, holder = line.split("|", 1)
            held[name] = int(holder.split(":")[1])
        return held

    async def all_held(self, limit: float, without: int | None = None) -> float:
        began = time.monotonic()
        if self.url is None:
            return 0.0
        while True:
            held = self.holders()
            live = set(self.pids) - {without}
            if all(held.get(f"server:{s}") in live for s in self.ports):
                return time.monotonic() - began
            if time.monotonic() - began > limit:
                raise AssertionError(f"servers not all held within {limit} s")
            await asyncio.sleep(0.2)

    async def schedule_due(self, due: int) -> tuple[list[str], float]:
        """`due` rows a server due 10-25 s from now, through the API; their task ids and the
        monotonic time by which all are due."""
        gate = asyncio.Semaphore(8)
        made: list[str] = []
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as http:

            async def one(j: int, server: str, k: int) -> None:
                body = {"run": f"say d{k}", "when": f"in {10 + (k * 15) // max(due, 1)}s"}
                body["id"] = f"d{k}"
                base = self.bases[j % len(self.bases)]
                token = self.tokens[(j * due + k) // 50]
                auth = {"Authorization": f"Bearer {token}"}
                async with (
                    gate,
                    http.post(f"{base}/api/servers/{server}/tasks", json=body, headers=auth) as r,
                ):
                    assert r.status == 201, await r.text()
                made.append(f"{server}/d{k}")

            await asyncio.gather(
                *(one(j, server, k) for j, server in enumerate(self.ports) for k in range(due))
            )
        self.due_count = len(made)
        return made, time.monotonic() + 25  # the last made is due 10 + 14 s after

    async def lateness(self) -> tuple[list[float], int, str]:
        db = Database(self.db_url())
        try:
            async with db.engine.connect() as conn:
                rows = (
                    await conn.execute(
                        select(
                            schedule_runs.c.lateness,
                            schedule_runs.c.outcome,
                            schedules.c.server,
                            schedules.c.task_id,
                        )
                        .join(schedules, schedules.c.id == schedule_runs.c.schedule_id)
                        .where(schedules.c.task_id.like("d%"))
                    )
                ).all()
        finally:
            await db.close()
        late = [float(r[0]) for r in rows if r[0] is not None]
        others = Counter(str(r[1]) for r in rows if r[1] != "ran")
        missing = self.due_count - len(rows)  # no run recorded at all
        said = ", ".join(f"{k} {v}" for k, v in sorted(others.items()))
        if missing:
            said = f"{said}, no run {missing}".lstrip(", ")
        if others:  # which, to read in the bots' and the worlds' logs (--keep)
            said += " (" + " ".join(f"{r[2]}/{r[3]}" for r in rows if r[1] != "ran")[:200] + ")"
        return late, sum(1 for r in rows if r[1] == "ran"), said

    async def stop(self) -> None:
        for i, bot in enumerate(self.bots):
            await bot.kill()
            # what each bot said, beside its data folder (read with --keep)
            (self.tmp / f"bot{i}.out").write_text(bot.out + bot.err)


async def measure(
    tmp: Path, layout: str, ports: dict[str, int], pg: object | None, args: argparse.Namespace
) -> Figures:
    figures = Figures(layout, len(ports), planned=len(ports) * args.due)
    run = Run(tmp, layout, ports, pg, args.ttl)
    if layout != "sqlite":
        from bot.testkit.postgres import PostgresServer

        assert isinstance(pg, PostgresServer)
        run.url = pg.new_database(template="doom_template")
    else:
        (tmp / "bot0" / "botdata").mkdir(parents=True)
    await plan_rows(run.db_url(), list(ports), ROWS - args.due)
    try:
        for _ in range(2 if layout == "pg2" else 1):
            await run.start_bot()
        await run.make_tokens(-(-len(ports) * args.due // 50))
        await run.all_held(3 * args.ttl + len(ports))
        await asyncio.sleep(3.0)  # the servers' work started: the first looks settle
        cpu0, w0, t0 = cpu_seconds(run.pids), run.writes(), time.monotonic()
        await asyncio.sleep(args.idle)
        took = time.monotonic() - t0
        figures.idle_cpu_ms = (cpu_seconds(run.pids) - cpu0) / took * 1000 / len(ports)
        figures.writes_idle = (run.writes() - w0) / took
        cpu0, w0, t0 = cpu_seconds(run.pids), run.writes(), time.monotonic()
        _, all_due = await run.schedule_due(args.due)
        await asyncio.sleep(max(0.0, all_due - time.monotonic()) + 3.0)
        took = time.monotonic() - t0
        figures.writes_busy = (run.writes() - w0) / took
        figures.busy_cpu = (cpu_seconds(run.pids) - cpu0) / took
        figures.late, figures.ran, not_ran = await run.lateness()
        settle = time.monotonic() + 10  # a hand-over still in flight ('sending') records soon
        while "sending" in not_ran and time.monotonic() < settle:
            await asyncio.sleep(0.5)
            figures.late, figures.ran, not_ran = await run.lateness()
        if not_ran:
            figures.notes = f"not ran: {not_ran}"
        if layout == "pg2":
            victim = run.bots[0]
            assert victim.proc is not None
            pid = victim.proc.pid
            mine = [s for s, h in run.holders().items() if h == pid and s.startswith("server:")]
            victim.proc.send_signal(signal.SIGKILL)
            killed = time.monotonic()
            await victim.proc.wait()
            await run.all_held(args.ttl + 30 + len(ports), without=pid)
            figures.takeover = time.monotonic() - killed
            figures.notes = f"the killed one held {len(mine)}"
    finally:
        await run.stop()
    return figures


async def bench(args: argparse.Namespace) -> None:
    layouts = args.layouts.split(",")
    pg = None
    if any(layout.startswith("pg") for layout in layouts):
        from tests.fixtures import postgres_server  # a migrated template; removed at exit

        pg = postgres_server()
    results: list[Figures] = []
    began = time.monotonic()
    for n in (int(s) for s in args.servers.split(",")):
        kept = None if args.keep is None else tempfile.mkdtemp(dir=args.keep)
        with contextlib.nullcontext(kept) if kept else tempfile.TemporaryDirectory() as tmp:
            async with worlds(Path(tmp), n, args.per_host) as ports:
                for layout in layouts:
                    here = Path(tmp) / layout
                    here.mkdir()
                    t0 = time.monotonic()
                    try:
                        figures = await measure(here, layout, ports, pg, args)
                    except Exception as e:  # one layout failing must not hide the others
                        figures = Figures(layout, n, notes=f"failed: {e!r}"[:200])
                    figures.notes += f"; {time.monotonic() - t0:.0f} s"
                    print(figures.row(), figures.notes, flush=True)
                    results.append(figures)
    print(
        f"\n{ROWS} planned rows a server ({args.due} due in the window), idle {args.idle:g} s, "
        f"lease TTL {args.ttl:g} s, {args.per_host} worlds an mcsim process; "
        f"{time.monotonic() - began:.0f} s in all\n"
    )
    print(
        "| layout | servers | hand-over p50 | p99 | ran | bot CPU / idle server | "
        "writes/s idle | writes/s busy | takeover | bot CPU busy (cores) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for figures in results:
        print(figures.row())
    print(
        "\nwrites/s: PostgreSQL rows inserted+updated+deleted (pg_stat_database); SQLite the "
        "bot's write(2) calls (log lines included)"
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--host-worlds":
        host_worlds([Path(p) for p in sys.argv[2:]])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--servers", default="1,20,100")
    ap.add_argument("--layouts", default="sqlite,pg1,pg2")
    ap.add_argument("--due", type=int, default=5)
    ap.add_argument("--idle", type=float, default=10.0)
    ap.add_argument("--ttl", type=float, default=10.0)
    ap.add_argument("--per-host", type=int, default=25)
    # keep the bots' data folders (their logs) in a folder made in this one
    ap.add_argument("--keep", default=None)
    asyncio.run(bench(ap.parse_args()))


if __name__ == "__main__":
    main()
