"""What the test folders share, in one place: loaded as a pytest plugin by tests/conftest.py.

- `install_pack`, `start_mcsim`, `server_config`: the test kit's (bot.testkit.servers), which
  plugin authors use too; the `mcsim` fixture (started mcsim servers with the pack, stopped
  afterwards) is the test kit's pytest plugin's (bot.testkit.pytest_plugin), loaded by pytest
  from the installed bot's `pytest11` entry point.
- `start_bot`: the bot's real services and every cog on such a server, over TCP RCON, driven
  through the local Discord (bot/testkit/harness.py).
- the `bare` fixture: the bot with every cog and no Minecraft server (the cogs' and the console's
  tests).
- `sent_to`: every command the bot sends a server from then on, to show that something was (or
  was not) asked of it without counting round trips, which its pollers also make.
- `task_record`: the pack's task record (datapack/README.md, "A task") for tests that write a
  queue straight into storage.

mcsim parses each distinct pack line once per process, so a server start costs ~25 ms after the
first: a test starts its own server rather than sharing one, unless it only reads.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gzip
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from nbtlib.tag import Byte, Compound, Double, Float, Int, String

from bot.services import Services, build_services
from bot.store.audit import AuditStore
from bot.testkit.harness import Harness, make_settings
from bot.testkit.servers import install_pack, server_config, start_mcsim
from mcsim.nbt import NbtList
from mcsim.server import Server

__all__ = [
    "PACK_DIR",
    "REPO",
    "bare",
    "following",
    "install_pack",
    "said_in_logs",
    "sent_to",
    "server_config",
    "start_bot",
    "start_mcsim",
    "task_record",
]

REPO = Path(__file__).resolve().parents[1]
PACK_DIR = REPO / "datapack"


def said_in_logs(world: Path, text: str) -> int:
    """How often `say <text>` ran, in latest.log and every rolled log: as [Server] by the tick
    (and functions), as [Rcon] inside an RCON call (a wall-clock hand-over runs its task so)."""
    total = 0
    for path in (world / "logs").iterdir():
        raw = path.read_bytes()
        log = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8", "replace")
        total += sum(log.count(f"[Not Secure] [{who}] {text}\n") for who in ("Server", "Rcon"))
    return total


@pytest.fixture
async def bare(tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot with every cog loaded and no Minecraft server configured."""
    settings = make_settings(tmp_path)
    services = Services(settings, {}, AuditStore(tmp_path / "audit.sqlite3"))
    harness = await Harness(settings, services).start()
    try:
        yield harness
    finally:
        await harness.close()


async def start_bot(server: Server, tmp_path: Path, password: str, **settings: Any) -> Harness:
    """The bot with every cog on real services pointed at `server`, once its log tailer reads
    the live latest.log. Settings default to a 20 ms log poll."""
    settings.setdefault("log_poll_interval", 0.02)
    config = make_settings(tmp_path, [server_config(server, password)], **settings)
    harness = await Harness(config, await build_services(config)).start()
    await following(harness, server)
    await settled(harness)
    return harness


async def following(harness: Harness, server: Server, name: str = "main") -> None:
    """Wait until the log tailer reads the live latest.log (a fresh tailer starts at its end)."""
    tailer: Any = harness.services.servers[name].events
    lines_read = tailer.lines_read
    async with asyncio.timeout(10):
        while tailer.lines_read == lines_read:
            await asyncio.to_thread(server.run, "say probe")
            await asyncio.sleep(0.02)


async def settled(harness: Harness) -> None:
    """Wait until every server's crash guard has made its first look: that look writes the
    pack's cfg.hold, so a test that compares the pack's storage before and after starts after
    it. (CrashGuard.start clears `idle`; only a finished look sets it.)"""
    async with asyncio.timeout(10):
        for server in harness.services.servers.values():
            if server.guard is not None:
                await server.guard.idle.wait()


def sent_to(harness: Harness, monkeypatch: pytest.MonkeyPatch, name: str = "main") -> list[str]:
    """Every command the bot sends server `name` from now on (its pollers' too, which run
    meanwhile: look for what a test means, never at the count)."""
    rcon = harness.services.servers[name].rcon
    sent: list[str] = []
    original = rcon.command

    async def command(text: str) -> str:
        sent.append(text)
        return await original(text)

    monkeypatch.setattr(rcon, "command", command)
    return sent


def task_record(
    task_id: str,
    run: str,
    *,
    serial: int,
    due: int,
    retry: int = 0,
    retry_delay: int = 1,
    interval: int = 0,
) -> Compound:
    """One queued task as the pack stores it, run at the overworld's origin by nobody."""
    record = Compound(
        {
            "id": String(task_id),
            "run": String(run),
            "n": Int(serial),
            "due": Int(due),
            "at": String("in minecraft:overworld positioned 0 0 0 rotated 0 0"),
            "dimension": String("minecraft:overworld"),
            "pos": NbtList([Double(0), Double(0), Double(0)]),
            "rot": NbtList([Float(0), Float(0)]),
            "retry": Int(retry),
            "retry_left": Int(retry),
            "retry_delay": Int(retry_delay),
            "interval": Int(interval),
            "late": Int(0),
            "player": Byte(0),
        }
    )
    if interval:
        record["anchor"] = Int(due)
    return record


_POSTGRES: list[Any] = []  # this worker's PostgreSQL server, started by the first test needing it


def postgres_server() -> Any:
    """This worker's PostgreSQL (bot.testkit.postgres), started once, with a database
    ``doom_template`` already migrated that each test's database is copied from (70 ms)."""
    if not _POSTGRES:
        import atexit

        from bot.store.db import Database
        from bot.testkit.postgres import PostgresServer

        server = PostgresServer().start()
        atexit.register(server.remove)
        server.psql("CREATE DATABASE doom_template")

        async def migrate() -> None:
            db = Database(server.url_of("doom_template"))
            await db.ready()
            await db.close()

        # a test's loop may be running: migrate in a thread of its own
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, migrate()).result()
        _POSTGRES.append(server)
    return _POSTGRES[0]


@pytest.fixture
def postgres() -> Any:
    """This worker's PostgreSQL server (bot.testkit.postgres.PostgresServer)."""
    return postgres_server()


@pytest.fixture(params=["sqlite", "postgresql"])
async def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    """The bot's database on each engine: the data dir's SQLite file, then a fresh PostgreSQL
    database (the store's tests run on both)."""
    from bot.store.db import Database

    if request.param == "sqlite":
        db = Database(tmp_path / "bot.sqlite3")
    else:
        db = Database(postgres_server().new_database(template="doom_template"))
    try:
        yield db
    finally:
        await db.close()
