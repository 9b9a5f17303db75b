"""Fixtures for the bot core: mcsim's real RCON server with a command handler the test defines."""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mcsim.log import ServerLog
from mcsim.rcon import RconServer

PASSWORD = "s3cret-rcon-Pa55"  # distinctive, so test_secrets can grep for it
TOKEN = "MTIz.discord-token.Xy9-very-secret"

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
