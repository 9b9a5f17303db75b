"""Wall-clock scheduler figures.

    python bench/wallclock.py [--rows 100000] [--idle 60] [--runs 200] [--ops 2000]

Prints, for a table of `--rows` schedules: the scheduler's start-up load time and the memory it
holds them in, the cost of one create and one cancel, and the bot's CPU time over `--idle` idle
seconds (nothing due: the scheduler sleeps, it does not poll). Then, on mcsim's realtime loop at
20 TPS and at 10 TPS (mcsim as its own process) with `--runs` one-shot rows due `--spacing`
apart, at varying points of a tick: the lateness from due to the
hand-over (the pack acknowledged the task), the bot's share of it (due -> the submit sent: the
rest is mcsim running the call), and from due to the command having run in game (the return of
the RCON call the pack ran it in: an upper bound); for scale, one RCON round trip of a command
mcsim parsed before and of one new to it (mecha parses in pure Python: ~1.5 ms a fresh line, and
a hand-over's call is always new: it names its run); beside them, how late a game-time task of
the same delay runs at 10 TPS.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.config import DEFAULT_DENY, ServerConfig
from bot.errors import BotError
from bot.minecraft.command_check import CommandChecker
from bot.minecraft.pack_client import PackClient
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices
from bot.store.db import Database
from bot.store.schedules import Creator, ScheduleStore
from bot.store.tables import schedules
from bot.times.when import build_spec
from bot.wallclock.scheduler import Scheduler

__all__ = ["main"]

REPO = Path(__file__).resolve().parent.parent
PASSWORD = "bench-wallclock-pw"
WHO = Creator(1, "bench")


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p * len(ordered)) - 1))]


def _line(name: str, ms: list[float]) -> str:
    return (
        f"{name}: n={len(ms)} mean {statistics.fmean(ms):.2f} ms, p50 {statistics.median(ms):.2f}"
        f" ms, p99 {_pct(ms, 0.99):.2f} ms, max {max(ms):.2f} ms"
    )


def _world(tmp: Path, tps_props: str) -> Path:
    world = tmp / "world"
    (world / "datapacks").mkdir(parents=True)
    shutil.copytree(REPO / "datapack", world / "datapacks" / "doom.schedule")
    (world / "server.properties").write_text(tps_props, encoding="utf-8")
    return world


async def _bulk_rows(path: Path, rows: int) -> None:
    """`rows` active schedules straight into the table (what a long-used bot holds), due from
    a day to a year away, a third repeating."""
    now = time.time()
    values = []
    for i in range(rows):
        due = now + 86400 + (i * 7919) % (365 * 86400)
        kind, every, anchor = ("every", 3600, due) if i % 3 == 0 else ("at", None, None)
        values.append(
            {
                "server": "sim",
                "command": f"say row {i}",
                "task_id": f"row-{i}",
                "kind": kind,
                "at": due if kind == "at" else None,
                "every": every,
                "anchor": anchor,
                "timezone": "UTC",
                "missed": "skip" if every else "once",
                "announce": "",
                "created_by_id": 1,
                "created_by_name": "bench",
                "created_at": now,
                "state": "active",
                "next_due": due,
            }
        )
    db = Database(path)
    try:
        async with db.begin() as conn:
            await conn.execute(schedules.insert(), values)
    finally:
        await db.close()


class _Out(list[str]):
    """The figures, printed as they are measured (a long run shows its progress)."""

    def append(self, line: str) -> None:
        print(line, flush=True)
        super().append(line)


async def table_figures(rows: int, idle: float, ops: int) -> list[str]:
    out: list[str] = _Out()
    with tempfile.TemporaryDirectory() as tmp:
        world = _world(Path(tmp), "pause-when-empty-seconds=0\n")
        proc, services = await _mcsim_process(world)  # its own process: the CPU is the bot's
        try:
            db_path = Path(tmp) / "bot.sqlite3"
            t0 = time.perf_counter()
            await _bulk_rows(db_path, rows)
            out.append(f"{rows} rows written in bulk in {time.perf_counter() - t0:.2f} s")
            rss0 = _rss_kib()
            store = ScheduleStore(Database(db_path))
            scheduler = Scheduler(store, {"sim": services})
            t0 = time.perf_counter()
            await scheduler.start()
            load = time.perf_counter() - t0
            rss1 = _rss_kib()
            out.append(
                f"start-up load of {rows} rows: {load:.2f} s; memory held "
                f"{(rss1 - rss0) / 1024:.1f} MiB RSS ({(rss1 - rss0) * 1024 / rows:.0f} B/row)"
            )
            created = []
            t0 = time.perf_counter()
            for i in range(ops):
                created.append(
                    await scheduler.create(
                        server="sim",
                        command=f"say op {i}",
                        task_id=f"op-{i}",
                        created_by=WHO,
                        when=f"in {1 + i % 50}d",
                    )
                )
            insert = (time.perf_counter() - t0) / ops
            t0 = time.perf_counter()
            for row in created:
                await scheduler.cancel(row.id)
            cancel = (time.perf_counter() - t0) / ops
            out.append(
                f"create (parse, check, insert, arm) {insert * 1e3:.2f} ms each; cancel "
                f"{cancel * 1e3:.2f} ms each (over {ops}, with {rows} rows in the table)"
            )
            cpu0 = time.process_time()
            wall0 = time.perf_counter()
            await asyncio.sleep(idle)
            cpu = time.process_time() - cpu0
            out.append(
                f"idle {time.perf_counter() - wall0:.0f} s with {rows} rows armed: bot CPU "
                f"{cpu * 1e3:.1f} ms ({cpu / idle * 100:.3f} % of one core)"
            )
            await scheduler.stop()
        finally:
            await services.rcon.close()
            proc.terminate()
            proc.wait(30)
    return out


class _SendTimes:
    """When the bot sent each run's submit (the command carrying its mark): splits a hand-over
    into the bot's share (due -> sent) and the server's (sent -> acknowledged). Bench only: it
    wraps the RCON client's `command`."""

    def __init__(self, rcon: RconClient) -> None:
        self.sent: dict[int, float] = {}  # schedule id -> wall-clock time the submit was sent
        self._command = rcon.command
        rcon.command = self._timed  # type: ignore[method-assign]

    async def _timed(self, text: str, *args: object, **kwargs: object) -> str:
        m = _MARKED.search(text)
        if m and (" submit" in text or "submit_staged" in text):
            self.sent.setdefault(int(m.group(1)), time.time())
        return await self._command(text, *args, **kwargs)


_MARKED = re.compile(r"done\.s(\d+)r\d+")


async def _wallclock_runs(
    services: ServerServices, db: Path, runs: int, spacing: float
) -> tuple[list[float], list[float], list[float]]:
    """Per run: due -> hand-over, due -> ran in game, due -> submit sent (the bot's share)."""
    sends = _SendTimes(services.rcon)
    store = ScheduleStore(Database(db))
    start = datetime.now(UTC) + timedelta(seconds=3)
    rows = []
    for i in range(runs):
        # `when` has whole seconds; the bench wants dues 60 ms apart at random points of a
        # tick, so the rows go into the store with their exact instants before the start
        due = start + timedelta(seconds=spacing * i, milliseconds=(i * 37) % 50)
        spec = replace(
            build_spec("in 1h", None, None, None, now=datetime.now(UTC)), first_due=due, at=due
        )
        rows.append(
            await store.insert(
                spec,
                server="sim",
                command="scoreboard players add #wall wc 1",
                task_id=f"w{i}",
                created_by=WHO,
                now=datetime.now(UTC),
            )
        )
    scheduler = Scheduler(store, {"sim": services})
    await scheduler.start()
    try:
        await services.pack.get_time()  # connected before the first due time
        last = start + timedelta(seconds=spacing * runs + 2)
        await asyncio.sleep(max(0.0, (last - datetime.now(UTC)).total_seconds()))
        handed: list[float] = []
        in_game: list[float] = []
        bot_share: list[float] = []
        for row in rows:
            got = await scheduler.runs(row.id, 1)
            run = got[0]
            assert run.outcome == "ran", run
            assert run.handed_over is not None and run.ran_in_game is not None
            handed.append((run.handed_over - run.due).total_seconds() * 1e3)
            in_game.append((run.ran_in_game - run.due).total_seconds() * 1e3)
            bot_share.append((sends.sent[row.id] - run.due.timestamp()) * 1e3)
        return handed, in_game, bot_share
    finally:
        await scheduler.stop()


async def _game_time_runs(services: ServerServices, count: int) -> list[float]:
    """Game-time tasks of a 2 s delay (40 ticks): how late each runs, by wall clock (the score
    is read over RCON every 5 ms)."""
    late: list[float] = []
    for i in range(count):
        holder = f"#g{i}"
        await services.pack.schedule(f"scoreboard players add {holder} wc 1", 2, "second", f"g{i}")
        due = time.perf_counter() + 2.0
        for _ in range(4000):  # at most 20 s
            reply = await services.rcon.command(f"scoreboard players get {holder} wc")
            if reply.startswith(holder + " has"):
                break
            await asyncio.sleep(0.005)
        late.append((time.perf_counter() - due) * 1e3)
    return late


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _mcsim_process(world: Path) -> tuple[subprocess.Popen[bytes], ServerServices]:
    """mcsim as its own process (its game loop must not share the bot's GIL), realtime."""
    port = _free_port()
    proc = subprocess.Popen(  # noqa: ASYNC220 - started once, before anything is timed
        [
            sys.executable,
            "-m",
            "mcsim",
            "--world",
            str(world),
            "--rcon-port",
            str(port),
            "--rcon-password",
            PASSWORD,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    config = ServerConfig(
        name="sim",
        rcon_port=port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=world,
        log_path=world / "logs" / "latest.log",
    )
    rcon = RconClient("127.0.0.1", port, PASSWORD, timeout=10, name="sim")
    checker = CommandChecker(deny=DEFAULT_DENY)
    services = ServerServices(config, rcon, PackClient(rcon, config, checker), checker, None)
    for _ in range(300):  # up to 30 s for the process to listen and load the pack
        try:
            await services.pack.version()
            return proc, services
        except BotError:
            await asyncio.sleep(0.1)
    proc.kill()
    raise RuntimeError("mcsim did not start")


async def loop_figures(runs: int, spacing: float) -> list[str]:
    out: list[str] = _Out()
    for tps in (20, 10):
        with tempfile.TemporaryDirectory() as tmp:
            world = _world(Path(tmp), "pause-when-empty-seconds=0\n")
            proc, services = await _mcsim_process(world)
            try:
                await services.rcon.command("scoreboard objectives add wc dummy")
                if tps != 20:
                    await services.rcon.command(f"tick rate {tps}")
                handed, in_game, bot_share = await _wallclock_runs(
                    services, Path(tmp) / "bot.sqlite3", runs, spacing
                )
                tick = 1000 / tps
                rtt = []
                for _ in range(100):  # what one RCON round trip costs on this mcsim, for scale
                    t0 = time.perf_counter()
                    await services.rcon.command("time query gametime")
                    rtt.append((time.perf_counter() - t0) * 1e3)
                    await asyncio.sleep(0.013)
                fresh = []
                for i in range(100):  # a command mcsim has not parsed before (mecha: pure Python)
                    t0 = time.perf_counter()
                    await services.rcon.command(f"data remove storage bench:fresh k{tps}x{i}")
                    fresh.append((time.perf_counter() - t0) * 1e3)
                    await asyncio.sleep(0.013)
                out.append(_line(f"{tps} TPS, one RCON round trip (a command parsed before)", rtt))
                out.append(_line(f"{tps} TPS, one RCON round trip (a command new to mcsim)", fresh))
                out.append(_line(f"{tps} TPS, due -> hand-over (goal p99 <= 10 ms)", handed))
                out.append(
                    _line(f"{tps} TPS, of which the bot's share: due -> submit sent", bot_share)
                )
                goal = f"goal p99 <= {tick:.0f} + 10 ms"
                out.append(_line(f"{tps} TPS, due -> ran in game ({goal})", in_game))
                if tps == 10:
                    game = await _game_time_runs(services, 20)
                    out.append(_line("10 TPS, a game-time task of 2 s, late by", game))
            finally:
                await services.rcon.close()
                proc.terminate()
                proc.wait(30)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--ops", type=int, default=2000)
    parser.add_argument("--spacing", type=float, default=0.25, help="seconds between dues")
    args = parser.parse_args()
    print(f"bench/wallclock.py on {os.cpu_count()} CPU(s)")
    asyncio.run(table_figures(args.rows, args.idle, args.ops))
    asyncio.run(loop_figures(args.runs, args.spacing))


if __name__ == "__main__":
    main()
