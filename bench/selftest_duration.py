"""Prints how long the selftest takes against mcsim at 20 TPS (the issue's bound is 15 s), with
the bot's default poll intervals, for the log and the RCON event source, and with hundreds of
the server's own tasks pending.

    python bench/selftest_duration.py [--runs 3] [--pending 500] [--flavour paper]

Each run is a full `run_selftest` through the bot's services over TCP RCON; the figure is its
own `duration` (what it prints on its last line).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bot.config import ServerConfig, Settings
from bot.minecraft.selftest import run_selftest
from bot.services import build_services
from mcsim.server import Server
from mcsim.world import read_properties, write_properties

__all__ = ["main", "measure"]

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "bench-selftest"


async def measure(
    runs: int, pending: int, event_source: str, flavour: str | None
) -> tuple[list[float], list[str]]:
    with tempfile.TemporaryDirectory() as tmp:
        world = Path(tmp) / "world"
        (world / "datapacks").mkdir(parents=True)
        shutil.copytree(ROOT / "datapack", world / "datapacks" / "doom.schedule")
        values = read_properties(world / "server.properties")
        values.update({"broadcast-rcon-to-ops": "false", "pause-when-empty-seconds": "0"})
        write_properties(world / "server.properties", values)
        options: dict[str, Any] = {"flavour": flavour} if flavour else {}
        server = Server(world, rcon_port=0, rcon_password=PASSWORD, **options)
        server.start(realtime=True)
        try:
            for i in range(pending):
                server.run(
                    "function doom.schedule:schedule "
                    f'{{run:"say own {i}",time:{100_000 + i},unit:"t",id:"own{i}"}}'
                )
            assert server.rcon_port is not None
            config = ServerConfig(
                name="bench",
                rcon_port=server.rcon_port,
                rcon_password=SecretStr(PASSWORD),
                world_dir=world,
                log_path=server.log_path,
                event_source=event_source,  # type: ignore[arg-type]
            )
            settings = Settings(_env_file=None, servers=[config], data_dir=Path(tmp) / "data")  # type: ignore[call-arg]
            services = await build_services(settings)
            durations: list[float] = []
            failed: list[str] = []
            try:
                for _ in range(runs):
                    result = await run_selftest(services.servers["bench"])
                    durations.append(result.duration)
                    failed += [c.line() for c in result.failed]
            finally:
                await services.close()
            return durations, failed
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pending", type=int, default=500, help="the server's own tasks")
    parser.add_argument("--flavour", default=None, help="an mcsim flavour (default: vanilla)")
    args = parser.parse_args()
    for source in ("log", "rcon"):
        durations, failed = asyncio.run(measure(args.runs, args.pending, source, args.flavour))
        print(
            f"selftest at 20 TPS, {source} events, {args.pending} tasks pending, "
            f"{args.flavour or 'vanilla'}: mean {statistics.mean(durations):.2f} s, "
            f"max {max(durations):.2f} s over {len(durations)} runs"
            + (f"; FAILED: {failed}" if failed else "")
        )


if __name__ == "__main__":
    main()
