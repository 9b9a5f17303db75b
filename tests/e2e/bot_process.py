"""The bot as a real process (`python -m bot console`, or `run` on a Discord that never answers)
beside mcsim as a real process (`python -m mcsim`), for the faults that are about processes:
a frozen (SIGSTOP) or unreachable server, SIGTERM and SIGINT. Every wait is bounded; both
processes are killed if a test fails."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from mcsim.server import Server
from tests.e2e.test_acceptance_crash import PASSWORD, McsimProcess

__all__ = ["BotProcess", "mcsim_process", "seed_world", "stalled_discord"]

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0


def seed_world(tmp_path: Path) -> Path:
    """A world with the pack, its server.properties and level.dat written, never pausing."""
    world = tmp_path / "world"
    (world / "datapacks").mkdir(parents=True)
    shutil.copytree(ROOT / "datapack", world / "datapacks" / "doom.schedule")
    seed = Server(world)
    seed.start()
    seed.stop()
    props = world / "server.properties"
    props.write_text(props.read_text() + "\npause-when-empty-seconds=0\n")
    return world


@asynccontextmanager
async def mcsim_process(tmp_path: Path) -> AsyncIterator[McsimProcess]:
    process = McsimProcess(seed_world(tmp_path))
    await process.start()
    try:
        yield process
    finally:
        if process.proc is not None and process.proc.returncode is None:
            process.proc.send_signal(signal.SIGCONT)  # a stopped process dies only once woken
        await process.kill()


def _thread_states(pid: int) -> list[str]:
    """Each thread's state letter from /proc (R, S, T, ...)."""
    states = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            # the state follows the name, which is in parentheses and may hold spaces
            states.append((task / "stat").read_text().rsplit(")", 1)[1].split()[0])
        except (FileNotFoundError, IndexError):
            continue  # a thread that has just ended
    return states


async def freeze(process: McsimProcess, within: float = 5.0) -> None:
    """SIGSTOP, then wait until every thread of it is stopped ("T" in /proc): kill(2) returns
    before a thread running on the other core has taken the stop, and on a loaded machine it can
    still answer a command sent right after."""
    assert process.proc is not None
    pid = process.proc.pid
    process.proc.send_signal(signal.SIGSTOP)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        states = _thread_states(pid)
        if states and all(s in ("T", "t") for s in states):
            return
        if loop.time() > deadline:
            raise AssertionError(f"mcsim {pid} not stopped {within} s after SIGSTOP: {states}")
        await asyncio.sleep(0.01)


class BotProcess:
    """`python -m bot <argv>` with its stdin a pipe; what it prints is collected as it comes."""

    def __init__(self, tmp_path: Path, port: int, *, rcon_timeout: float | None = None) -> None:
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
        self.env.update(
            PYTHONPATH=str(ROOT),
            DOOM_DATA_DIR=str(tmp_path / "botdata"),
            DOOM_LOCALE="en",
            DOOM_SERVERS__0__NAME="main",
            DOOM_SERVERS__0__RCON_HOST="127.0.0.1",
            DOOM_SERVERS__0__RCON_PORT=str(port),
            DOOM_SERVERS__0__RCON_PASSWORD=PASSWORD,
            DOOM_SERVERS__0__EVENT_SOURCE="rcon",
        )
        if rcon_timeout is not None:
            self.env["DOOM_RCON_TIMEOUT"] = format(rcon_timeout, "g")
        self.cwd = tmp_path
        self.proc: asyncio.subprocess.Process | None = None
        self.out = ""
        self.err = ""
        self._readers: list[asyncio.Task[None]] = []

    async def start(self, *argv: str) -> BotProcess:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *argv,
            env=self.env,
            cwd=self.cwd,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._readers = [
            asyncio.create_task(self._collect(self.proc.stdout, "out")),
            asyncio.create_task(self._collect(self.proc.stderr, "err")),
        ]
        return self

    async def _collect(self, stream: asyncio.StreamReader, into: str) -> None:
        while chunk := await stream.read(65536):
            setattr(self, into, getattr(self, into) + chunk.decode("utf-8", "replace"))

    async def type(self, line: str, end: str = "\n") -> int:
        """Send a line; returns where the output was, to look after it."""
        assert self.proc is not None and self.proc.stdin is not None
        mark = len(self.out)
        self.proc.stdin.write((line + end).encode())
        await self.proc.stdin.drain()
        return mark

    async def expect(
        self, text: str, *, after: int = 0, limit: float = WAIT, stream: str = "out"
    ) -> str:
        """Wait until `text` shows in stdout (or "err") after position `after`; the output
        from there."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        while text not in getattr(self, stream)[after:]:
            if loop.time() > deadline or (self.proc is not None and self.proc.returncode):
                raise AssertionError(
                    f"{text!r} never showed; stdout:\n{self.out}\nstderr:\n{self.err}"
                )
            await asyncio.sleep(0.05)
        return str(getattr(self, stream)[after:])

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def stop_with(self, sig: signal.Signals | None, limit: float) -> tuple[int, float]:
        """Send `sig` (None: end the input); the exit code and the seconds until the process
        ended (bounded)."""
        assert self.proc is not None and self.proc.stdin is not None
        loop = asyncio.get_running_loop()
        sent = loop.time()
        if sig is None:
            self.proc.stdin.close()
        else:
            self.proc.send_signal(sig)
        rc = await asyncio.wait_for(self.proc.wait(), limit)
        await asyncio.gather(*self._readers)
        return rc, loop.time() - sent

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await asyncio.wait_for(self.proc.wait(), WAIT)
        for reader in self._readers:
            reader.cancel()


USER = {
    "id": "1100000000000000001",
    "username": "doom",
    "discriminator": "0",
    "avatar": None,
    "bot": True,
    "global_name": None,
}
APP = {
    "id": USER["id"],
    "name": "doom",
    "description": "",
    "icon": None,
    "bot_public": False,
    "bot_require_code_grant": False,
    "owner": USER,
    "verify_key": "0" * 64,
    "flags": 0,
}


@asynccontextmanager
async def stalled_discord() -> AsyncIterator[int]:
    """A "Discord" on 127.0.0.1 (its port) that logs the bot in (its user, its application,
    the command sync) and then never answers: the gateway's connection hangs, so `run` is up
    with its services running for as long as the test likes (a test has no Discord to reach)."""
    from aiohttp import web

    async def hang(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(WAIT * 10)
        raise web.HTTPServiceUnavailable

    def answer(body: object) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handler(request: web.Request) -> web.StreamResponse:
            # exactly this header: discord.py reads a body as JSON only then
            return web.Response(body=json.dumps(body).encode(), content_type="application/json")

        return handler

    app = web.Application()
    app.router.add_get("/api/v10/users/@me", answer(USER))
    app.router.add_get("/api/v10/oauth2/applications/@me", answer(APP))
    app.router.add_put("/api/v10/applications/{app}/commands", answer([]))
    app.router.add_route("*", "/{tail:.*}", hang)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield int(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]
    finally:
        await runner.cleanup()
