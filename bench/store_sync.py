"""What `PRAGMA synchronous=FULL` costs the bot's database (bot/store/db.py) against NORMAL.

    python bench/store_sync.py [--creates 300] [--dir PATH]

Creates `--creates` wall-clock schedules through the scheduler (`Scheduler.create`, what
`/schedule when:` does: check, parse, one transaction in SQLite; no server is contacted), on a
fresh database for each mode, and prints the time per create (mean, median, p95) and creates per
second. In WAL mode NORMAL syncs only at checkpoints, so the last acknowledged writes can be
lost on power failure; FULL syncs the WAL at every commit. The figures depend on the disk: the
database goes in `--dir` (default: the current directory; a tmpfs such as /tmp makes fsync free).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import event

from bot.config import DEFAULT_DENY, ServerConfig
from bot.minecraft.command_check import CommandChecker
from bot.minecraft.pack_client import PackClient
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices
from bot.store.db import Database
from bot.store.schedules import Creator, ScheduleStore
from bot.wallclock.scheduler import Scheduler

MOD = Creator(7002, "mod#0001")


def filesystem(path: Path) -> str:
    """The type of the filesystem `path` is on (from /proc/mounts), or "unknown"."""
    best, kind = "", "unknown"
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return kind
    resolved = str(path.resolve())
    for line in mounts:
        parts = line.split()
        if len(parts) > 2 and resolved.startswith(parts[1]) and len(parts[1]) > len(best):
            best, kind = parts[1], parts[2]
    return kind


async def creates(folder: Path, mode: str, count: int) -> list[float]:
    """Seconds each of `count` creates took on a fresh database in `folder` at `mode`."""
    config = ServerConfig(name="sim", rcon_port=1, rcon_password="unused-password")  # type: ignore[arg-type]
    rcon = RconClient("127.0.0.1", 1, "unused-password", timeout=0.5)
    checker = CommandChecker(deny=DEFAULT_DENY)
    server = ServerServices(config, rcon, PackClient(rcon, config, checker), checker, None)
    db = Database(folder / f"{mode.lower()}.sqlite3")

    # after the database's own connect hook (which sets FULL): the mode cannot change inside
    # a transaction, and every statement of the engine is in one
    @event.listens_for(db.engine.sync_engine, "connect")
    def _mode(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA synchronous={mode}")
        cursor.close()

    async with db.connect() as conn:
        got = (await conn.exec_driver_sql("PRAGMA synchronous")).scalar_one()
    assert got == {"NORMAL": 1, "FULL": 2}[mode], got
    scheduler = Scheduler(ScheduleStore(db), {"sim": server})
    await scheduler.start()
    times: list[float] = []
    try:
        for i in range(count):
            t0 = time.perf_counter()
            await scheduler.create(
                server="sim", command="say hi", task_id=f"t{i}", created_by=MOD, when="in 2h"
            )
            times.append(time.perf_counter() - t0)
    finally:
        await scheduler.stop()
        await db.close()
        await rcon.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--creates", type=int, default=300)
    parser.add_argument("--dir", type=Path, default=Path.cwd())
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # the scheduler's stop notes are not figures
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="store-sync-") as tmp:
        folder = Path(tmp)
        print(
            f"database in {folder} ({filesystem(folder)}), {args.creates} creates per mode, "
            f"python {sys.version.split()[0]}, {os.cpu_count()} cores"
        )
        (folder / "warm-up").mkdir()
        asyncio.run(creates(folder / "warm-up", "NORMAL", 20))  # imports, the parsers' caches
        for mode in ("NORMAL", "FULL"):
            times = sorted(asyncio.run(creates(folder, mode, args.creates)))
            ms = [t * 1000 for t in times]
            p95 = ms[int(len(ms) * 0.95) - 1]
            print(
                f"synchronous={mode:<6}: mean {statistics.fmean(ms):.2f} ms, median "
                f"{statistics.median(ms):.2f} ms, p95 {p95:.2f} ms per create; "
                f"{len(ms) / sum(times):.0f} creates/s"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
