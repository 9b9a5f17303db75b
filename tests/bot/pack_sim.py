"""An mcsim world with the real doom.schedule pack, and pack clients talking to it over TCP RCON.

Shared by the pack-client tests. The server runs without its own game loop (ticks only when a
test steps it), so every test decides exactly when due tasks run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from nbtlib.tag import Compound, Int

from bot.config import DEFAULT_DENY, ServerConfig
from bot.minecraft.command_check import CommandChecker
from bot.minecraft.pack_client import CommandCheck, PackClient
from bot.minecraft.rcon import RconClient
from mcsim.nbt import NbtList, read_nbt_file, write_nbt_file
from mcsim.server import Server
from tests.fixtures import install_pack, task_record

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "pack-client-Pa55"
STORAGE_FILE = "data/command_storage_doom.schedule.dat"


class AcceptAll:
    """A checker with no policy: isolates the transport (escaping) from the checker's rules."""

    def check(self, command: str) -> None:
        return None


def make_world(world: Path) -> Path:
    """A world folder holding the repository's pack (the server creates the rest)."""
    return install_pack(world)


@dataclass
class PackSim:
    world: Path
    server: Server

    @property
    def config(self) -> ServerConfig:
        return ServerConfig(
            name="sim",
            rcon_port=self.server.rcon_port or 1,
            rcon_password=PASSWORD,  # type: ignore[arg-type]
            world_dir=self.world,
            log_path=self.server.log_path,
        )

    def client(self, *, timeout: float = 10.0, checker: CommandCheck | None = None) -> PackClient:
        rcon = RconClient("127.0.0.1", self.server.rcon_port or 0, PASSWORD, timeout=timeout)
        return PackClient(rcon, self.config, checker or CommandChecker(deny=DEFAULT_DENY))

    def data(self) -> dict[str, object]:
        return self.server.storage("doom.schedule:data")

    def lists(self) -> tuple[object, object, object]:
        d = self.data()
        return d.get("queue"), d.get("offline"), d.get("paused")

    def ids(self, which: str = "queue") -> list[str]:
        tasks = self.data().get(which)
        assert isinstance(tasks, list)
        return [str(t["id"]) for t in tasks]

    def reset(self) -> None:
        self.server.run("function doom.schedule:clear")
        self.server.run("data remove storage doom.schedule:in task")
        self.server.run("data remove storage doom.test:rt v")


def start_sim(world: Path, *, realtime: bool = False) -> PackSim:
    make_world(world)
    server = Server(world, rcon_port=0, rcon_password=PASSWORD)
    server.start(realtime=realtime)
    return PackSim(world, server)


def running_sim(world: Path, *, realtime: bool = False) -> Iterator[PackSim]:
    sim = start_sim(world, realtime=realtime)
    try:
        yield sim
    finally:
        sim.server.stop()


def bulk_task(i: int, *, serial: int, due: int) -> Compound:
    """The i-th task of a bulk queue: a quoted, escaped, non-ASCII command, 0-2 retries."""
    return task_record(
        f"bulk-{i:05d}",
        f'say "task" {i} \\ é',
        serial=serial,
        due=due,
        retry=i % 3,
        retry_delay=1 + i % 5,
    )


def bulk_queue(world: Path, count: int, *, due_from: int = 1_000_000) -> None:
    """Put `count` tasks straight into the pack's saved storage (the server must be stopped):
    what a long-running server's world holds, without 10,000 RCON calls."""
    path = world / STORAGE_FILE
    root = read_nbt_file(path)
    data = root["data"]["contents"]["data"]
    queue = NbtList()
    for i in range(count):
        queue.append(bulk_task(i, serial=i + 1, due=due_from + i))
    data["queue"] = queue
    data["serial"] = Int(count)
    write_nbt_file(path, root)
