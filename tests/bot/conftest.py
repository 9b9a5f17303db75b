"""Fixtures for the bot core: mcsim's real RCON server with a command handler the test defines;
`ops`, the application on a started mcsim with an auditor (`Recorder`) that keeps what it is
told (a module's own `ops` fixture, where it has one, is used instead)."""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.operations import Operations
from bot.operations.base import AuditEntry
from bot.services import build_services
from bot.testkit.harness import make_settings
from bot.testkit.servers import server_config
from mcsim.log import ServerLog
from mcsim.rcon import RconServer
from mcsim.server import Server

PASSWORD = "s3cret-rcon-Pa55"  # distinctive, so test_secrets can grep for it
TOKEN = "MTIz.discord-token.Xy9-very-secret"
OPS_PASSWORD = "operations-Pw"

Handler = Callable[[str], "concurrent.futures.Future[str] | str"]


@dataclass
class Scripted:
    """A stand-in game loop: answers each command with `handler(command)`.

    A handler may return the reply text, or a Future it resolves later (a slow or hung command).
    Every command received is recorded, in order, with an Event set on each arrival.
    """

    handler: Handler
    received: list[str] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)

    def submit(self, command: str) -> concurrent.futures.Future[str]:
        self.received.append(command)
        self.arrived.set()
        answer = self.handler(command)
        if isinstance(answer, concurrent.futures.Future):
            return answer
        done: concurrent.futures.Future[str] = concurrent.futures.Future()
        done.set_result(answer)
        return done


@dataclass
class RconHarness:
    """mcsim's RconServer on 127.0.0.1, restartable on the same port."""

    logs: Path
    script: Scripted
    password: str = PASSWORD
    server: RconServer | None = None
    port: int = 0

    def start(self) -> RconServer:
        log = ServerLog(self.logs)
        self.server = RconServer("127.0.0.1", self.port, self.password, self.script.submit, log)
        self.server.start()
        self.port = self.server.port
        return self.server

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def echo(command: str) -> str:
    return f"echo:{command}"


@pytest.fixture
def rcon_harness(tmp_path: Path) -> Iterator[RconHarness]:
    harness = RconHarness(tmp_path / "logs", Scripted(echo))
    harness.start()
    try:
        yield harness
    finally:
        harness.stop()


class Recorder:
    """An auditor that keeps what it was told."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str, str, dict[str, object], str]] = []

    async def record(self, entry: AuditEntry) -> None:
        name = entry.server.name if entry.server is not None else ""
        self.entries.append(
            (entry.caller.face, name, entry.action, dict(entry.request), entry.outcome)
        )


@pytest.fixture
async def ops(
    mcsim: Callable[..., Server], tmp_path: Path
) -> AsyncIterator[tuple[Operations, Recorder, Server]]:
    server = mcsim(password=OPS_PASSWORD)
    settings = make_settings(tmp_path, [server_config(server, OPS_PASSWORD)])
    services = await build_services(settings)
    recorder = Recorder()
    try:
        yield Operations(services, recorder), recorder, server
    finally:
        await services.close()
