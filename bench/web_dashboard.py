"""Dashboard page and API latency with 10,000 tasks pending (goal p95 < 200 ms).

    python bench/web_dashboard.py [--tasks 10000] [--requests 60]

(Not bench/web.py: a script named web.py would shadow the `web` package, both when run,
since the script folder comes first on sys.path, and for mypy.)

An mcsim world holding the tasks (written straight into its saved storage, as a long-running
server's world would hold them), the bot's real services over TCP RCON, the dashboard served by
Hypercorn on 127.0.0.1 port 0 in this process, and an aiohttp client logged in through a
one-time link. Prints p50/p95 per page and API call, sequential requests.

Measured 2026-12-01 (2 cores shared, load average 3-4): every page and API call p95 under
80 ms (queue page 32 ms, search by id 78 ms, one task 74 ms, /metrics 34 ms); at load 8,
/servers 155 ms, search 269 ms and one task 216 ms p95 (mcsim scanning 10,000 compounds).
With the group pages (load average 2-3, 30 requests a path): /groups/all/queue 66 ms, its last
page 28 ms, one task of the group 146 ms p95; /groups/all and /servers alike p50 ~32 ms but
p95 ~1 s, the one request in 30 that waits for a new TPS sample.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import aiohttp
from nbtlib.tag import Byte, Compound, Double, Float, Int, String

from bot.config import ServerConfig, Settings
from bot.discord.app import DoomBot
from bot.services import build_services
from bot.testkit.localdiscord.emulator import GUILD_ID, LocalDiscord
from mcsim.nbt import NbtList, read_nbt_file, write_nbt_file
from mcsim.server import Server
from web.server import WebServer

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "bench-web-pw"
USER = 1_100_000_000_000_000_077
PAGES = [
    "/servers",
    "/servers/main/queue",
    "/servers/main/queue?page=250",
    "/servers/main/queue?id=bulk-05000",
    "/servers/main/tasks/bulk-09999",
    "/events",
    "/audit",
    "/groups/all",
    "/groups/all/queue",
    "/groups/all/queue?page=1000",
    "/groups/all/tasks/bulk-09999",
]
API = [
    "/api/servers",
    "/api/servers/main/lists/queue",
    "/api/servers/main/lists/queue?page=499",
    "/api/servers/main/tasks/bulk-09999",
    "/api/audit",
    "/metrics",
    "/healthz",
]


def world_with_tasks(world: Path, count: int) -> None:
    (world / "datapacks").mkdir(parents=True)
    shutil.copytree(ROOT / "datapack", world / "datapacks" / "doom.schedule")
    server = Server(world, rcon_port=0, rcon_password=PASSWORD)
    server.start()  # the pack initialises its storage
    server.stop()
    path = world / "data" / "command_storage_doom.schedule.dat"
    root = read_nbt_file(path)
    data = root["data"]["contents"]["data"]
    queue = NbtList()
    for i in range(count):
        queue.append(
            Compound(
                {
                    "id": String(f"bulk-{i:05d}"),
                    "run": String(f"say task {i}"),
                    "n": Int(i + 1),
                    "due": Int(1_000_000 + i),
                    "anchor": Int(1_000_000 + i),
                    "at": String("in minecraft:overworld positioned 0 0 0 rotated 0 0"),
                    "dimension": String("minecraft:overworld"),
                    "pos": NbtList([Double(0), Double(0), Double(0)]),
                    "rot": NbtList([Float(0), Float(0)]),
                    "retry": Int(0),
                    "retry_left": Int(0),
                    "retry_delay": Int(1),
                    "interval": Int(0),
                    "late": Int(0),
                    "player": Byte(0),
                }
            )
        )
    data["queue"] = queue
    data["serial"] = Int(count)
    write_nbt_file(path, root)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run(count: int, requests: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = Path(tmp) / "world"
        world_with_tasks(world, count)
        mc = Server(world, rcon_port=0, rcon_password=PASSWORD)
        mc.start()
        try:
            config = ServerConfig(
                name="main",
                rcon_port=mc.rcon_port or 0,
                rcon_password=PASSWORD,  # type: ignore[arg-type]
                world_dir=world,
                log_path=mc.log_path,
                event_source="log",
            )
            settings = Settings(  # type: ignore[call-arg]
                _env_file=None,
                servers=[config],
                data_dir=Path(tmp) / "data",
                admin_user_ids=[USER],
                web_port=0,
            )
            services = await build_services(settings)
            bot = DoomBot(settings, services)
            async with LocalDiscord(bot):
                web = WebServer(services, bot, port=0)
                await web.start()
                try:
                    await measure(web, count, requests)
                finally:
                    await web.stop()
        finally:
            mc.stop()


async def measure(web: WebServer, count: int, requests: int) -> None:
    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(web.base_url, cookie_jar=jar) as http:
        token = web.login_link(USER, GUILD_ID, "bench").split("t=")[1]
        async with http.post("/login", data={"t": token}, allow_redirects=False) as r:
            assert r.status == 303, r.status
        async with http.get("/api/servers") as r:
            queue = (await r.json())["servers"][0]["queues"]["queue"]
        print(f"{queue} tasks pending (asked for {count}); {requests} requests per path")
        for title, paths in (("pages", PAGES), ("API", API)):
            print(f"\n{title}:{'':34} p50 ms   p95 ms")
            for path in paths:
                times = []
                for _ in range(requests):
                    start = time.perf_counter()
                    async with http.get(path) as r:
                        await r.read()
                        assert r.status == 200, (path, r.status)
                    times.append((time.perf_counter() - start) * 1000)
                print(f"  {path:<40} {statistics.median(times):7.1f}  {pct(times, 0.95):7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=60)
    args = parser.parse_args()
    asyncio.run(run(args.tasks, args.requests))


if __name__ == "__main__":
    main()
