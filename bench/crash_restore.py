"""What the crash record costs and how long a restore takes, on mcsim over TCP RCON.

    python bench/crash_restore.py [--saved 300] [--lost 100] [--ops 20]

Prints: RCON round trips and time per schedule and per cancel/pause with and without the
ledger (the ledger's pre-read of the affected task and its game-time/serial read are the
difference); then, with `--saved` bot tasks in the last save and `--lost` schedules plus `--ops`
cancels and pauses after it, a crash (mcsim Server.crash) and the restore: its time, its round
trips, and the ledger's rows.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import tempfile
import time
from pathlib import Path

from bot.background.crash_guard import CrashGuard
from bot.config import ServerConfig
from bot.minecraft.pack_client import PackClient
from bot.minecraft.rcon import RconClient
from bot.store.db import Database
from bot.store.ledger import Ledger
from mcsim.server import Server

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "bench-crash-restore"


class AcceptAll:
    def check(self, command: str) -> None:
        return None


async def per_call(pack: PackClient, label: str, count: int) -> None:
    rcon = pack.rcon
    for kind in ("schedule", "pause", "cancel_one"):
        trips = rcon.round_trips
        began = time.perf_counter()
        for i in range(count):
            task_id = f"{label.replace(' ', '-')}-{i}"
            if kind == "schedule":
                await pack.schedule(f"say {task_id}", 100_000, "t", task_id)
            elif kind == "pause":
                await pack.pause(task_id)
            else:
                await pack.cancel_one(task_id)
        spent = time.perf_counter() - began
        print(
            f"{kind:<11} {label:<14} {(rcon.round_trips - trips) / count:5.1f} round trips"
            f"  {spent / count * 1000:6.2f} ms per call"
        )


async def main(saved: int, lost: int, ops: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = Path(tmp) / "world"
        (world / "datapacks").mkdir(parents=True)
        shutil.copytree(ROOT / "datapack", world / "datapacks" / "doom.schedule")
        server = Server(world, rcon_port=0, rcon_password=PASSWORD)
        server.start()
        port = server.rcon_port
        assert port is not None
        config = ServerConfig(name="b", rcon_port=port, rcon_password=PASSWORD)  # type: ignore[arg-type]
        rcon = RconClient("127.0.0.1", port, PASSWORD, timeout=60)
        pack = PackClient(rcon, config, AcceptAll())
        db = Database(Path(tmp) / "bot.sqlite3")
        ledger = Ledger(db, "b")
        guard = CrashGuard(ledger, pack)
        try:
            await per_call(pack, "no ledger", 50)
            pack.recorder = ledger
            await per_call(pack, "with ledger", 50)
            for i in range(saved):
                await pack.schedule(f"say s{i}", 50_000 + i, "t", f"s{i}")
            server.run("save-all")
            server.step(20)
            for i in range(lost):
                await pack.schedule(f"say l{i}", 60_000 + i, "t", f"l{i}")
            for i in range(ops):
                await (pack.cancel_one if i % 2 else pack.pause)(f"s{i}")
            await pack.get_time()
            server.crash()
            server = Server(world, rcon_port=port, rcon_password=PASSWORD)
            server.start()
            with contextlib.suppress(Exception):
                await pack.get_time()  # the dead connection
            trips = rcon.round_trips
            guard.notice_start()
            began = time.perf_counter()
            report = await guard.check()
            spent = time.perf_counter() - began
            assert report is not None
            counts = {k: len(v) for k, v in report.done.items()}
            print(
                f"restore: {saved} saved + {lost} lost tasks, {ops} lost cancels/pauses: "
                f"{spent:.2f} s, {rcon.round_trips - trips} round trips; did {counts}"
            )
            print(f"ledger rows after: {await ledger.count()}")
        finally:
            await rcon.close()
            await db.close()
            server.stop()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--saved", type=int, default=300)
    ap.add_argument("--lost", type=int, default=100)
    ap.add_argument("--ops", type=int, default=20)
    args = ap.parse_args()
    asyncio.run(main(args.saved, args.lost, args.ops))
