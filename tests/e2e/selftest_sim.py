"""A realtime (20 TPS) mcsim with the pack, and the bot's own services on it, for the selftest.

The selftest measures the real thing (ticks pass on the server's clock), so unlike the other
end-to-end tests the server runs its own game loop here. Faults are planted in the world, the
pack copy or the server's settings before the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.config import ServerConfig
from bot.minecraft.selftest import OBJECTIVE, SELFTEST_PREFIX, STORAGE, SelftestResult
from bot.services import Services, build_services
from bot.testkit.harness import make_settings
from mcsim.nbt import NbtList, format_snbt
from mcsim.server import Server
from mcsim.world import read_properties, write_properties
from tests.bot.pack_sim import bulk_task
from tests.fixtures import PACK_DIR, install_pack

PASSWORD = "selftest-rcon-Pw"
DEFAULTS = {"broadcast-rcon-to-ops": "false", "pause-when-empty-seconds": "0"}
LINE = re.compile(r"^(PASS|FAIL|WARN) ([a-zA-Z_/ -]+?)(?:: (.+))?$")
# every check the issue asks for, by the name the selftest prints
CHECKS = (
    "server software",
    "rcon",
    "pack enabled",
    "pack version",
    "function tags",
    "pack state",
    "command budget",
    "cancel_all counts",
    "game time",
    "pause when empty",
    "pause/resume",
    "hostile run text",
    "marker task",
    "event source",
    "retry counts",
    "measured TPS",
    "broadcast-rcon-to-ops",
    "cleanup",
)


@dataclass
class Live:
    server: Server
    world: Path
    services: Services
    tmp: Path

    @property
    def main(self) -> Any:
        return self.services.servers["main"]

    def lists(self) -> tuple[object, object, object]:
        data = self.server.storage("doom.schedule:data")
        return data.get("queue"), data.get("offline"), data.get("paused")


def copy_pack(tmp: Path, edit: Callable[[Path], None] | None = None) -> Path:
    """A copy of the bundled pack in the test's tmp dir, changed by `edit`."""
    pack = tmp / "pack-copy"
    shutil.copytree(PACK_DIR, pack, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    if edit is not None:
        edit(pack)
    return pack


@contextlib.contextmanager
def running_server(
    world: Path,
    *,
    pack: Path | None = None,
    properties: dict[str, str] | None = None,
    flavour: str | None = None,
) -> Iterator[Server]:
    """An mcsim at 20 TPS with `pack` (default: the bundled one) installed. Defaults: no RCON
    echo, no empty-server pause."""
    install_pack(world, pack)
    values = read_properties(world / "server.properties")
    values.update(DEFAULTS)
    values.update(properties or {})
    write_properties(world / "server.properties", values)
    options: dict[str, Any] = {"flavour": flavour} if flavour else {}
    server = Server(world, rcon_port=0, rcon_password=PASSWORD, **options)
    server.start(realtime=True)
    try:
        yield server
    finally:
        server.stop()


@contextlib.asynccontextmanager
async def bot_services(
    server: Server, tmp: Path, *, event_source: str = "log", log_path: Path | None = None
) -> AsyncIterator[Live]:
    """The services the bot would build for `server`."""
    assert server.rcon_port is not None
    config = ServerConfig(
        name="main",
        rcon_port=server.rcon_port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=server.world,
        log_path=log_path or server.log_path,
        event_source=event_source,  # type: ignore[arg-type]
    )
    settings = make_settings(tmp, [config], log_poll_interval=0.1, rcon_poll_interval=0.5)
    services = await build_services(settings)
    try:
        yield Live(server, server.world, services, tmp)
    finally:
        await services.close()


@contextlib.asynccontextmanager
async def live_server(
    tmp: Path,
    *,
    pack: Path | None = None,
    properties: dict[str, str] | None = None,
    event_source: str = "log",
    log_path: Path | None = None,
    flavour: str | None = None,
) -> AsyncIterator[Live]:
    """A server of its own (`running_server`) and the bot's services on it."""
    with running_server(tmp / "world", pack=pack, properties=properties, flavour=flavour) as srv:
        async with bot_services(srv, tmp, event_source=event_source, log_path=log_path) as live:
            yield live


def bulk_queue(server: Server, count: int, *, due_from: int = 10_000_000) -> None:
    """Append `count` tasks to the running server's queue, in the pack's task layout
    (datapack/README.md, "A task"), in two console commands: what a busy server holds."""
    tasks = NbtList()
    for i in range(count):
        # serials far from the pack's own
        tasks.append(bulk_task(i, serial=due_from + i, due=due_from + i))
    server.run(f"data modify storage doom.test:bulk q set value {format_snbt(tasks)}")
    server.run(
        "data modify storage doom.schedule:data queue append from storage doom.test:bulk q[]"
    )
    server.run("data remove storage doom.test:bulk q")


def reset(server: Server) -> None:
    """Undo what a test planted on a shared server (the faults and the tasks; a test that
    joins a player makes it leave)."""
    server.run("tick unfreeze")
    server.run('datapack enable "file/doom.schedule"')
    server.run("data modify storage doom.schedule:data cfg.log set value 1b")
    server.run("gamerule max_command_sequence_length 65536")
    server.properties.update(DEFAULTS)
    path = server.world / "server.properties"
    values = read_properties(path)
    values.update(DEFAULTS)
    write_properties(path, values)
    server.run("function doom.schedule:clear")


async def until(condition: Callable[[], bool], limit: float = 10.0) -> bool:
    """Poll `condition` (server state has no event to wait on) until true or `limit` s pass."""
    deadline = time.monotonic() + limit
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)


def statuses(result: SelftestResult) -> dict[str, str]:
    """check name -> status, from the printed lines (so the format is tested too)."""
    found: dict[str, str] = {}
    for line in result.lines()[:-1]:
        m = LINE.match(line)
        assert m is not None, line
        assert m.group(2) not in found, f"{m.group(2)} reported twice"
        found[m.group(2)] = m.group(1)
    return found


def assert_clean(live: Live) -> None:
    """Nothing of the selftest is left: no task, no objective, no scratch storage."""
    for tasks in live.lists():
        assert isinstance(tasks, list | None)
        assert not [t for t in tasks or [] if str(t["id"]).startswith(SELFTEST_PREFIX)]
    assert not live.server.storage(STORAGE)
    reply = live.server.run("scoreboard objectives list").feedback
    assert not any(OBJECTIVE in line for line in reply), reply
