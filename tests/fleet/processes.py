"""Several real bot processes (`python -m bot serve`) on one PostgreSQL and real mcsim servers:
what the fleet tests and bench/chaos.py --fault failover share.

Each bot has its own data folder and dashboard port; all have the same servers and the same
DOOM_DATABASE_URL. The API token is made once by the CLI (it is in the shared database, so any
process accepts it). Who holds what is read from the leases table with psql, as an operator
would; a marker's runs are counted in the server's own log (tests.fixtures.said_in_logs)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bot.testkit.postgres import PostgresServer
from tests.e2e.bot_process import WAIT, BotProcess, mcsim_process
from tests.e2e.test_acceptance_crash import PASSWORD, McsimProcess
from tests.fixtures import said_in_logs

__all__ = ["Bot", "Fleet", "fleet"]

BOT = [sys.executable, "-m", "bot"]


@dataclass
class Bot:
    process: BotProcess
    base: str = ""  # the dashboard's address
    pid: int = 0
    user: str | None = None  # its own database role (None: the cluster's postgres)


@dataclass
class Fleet:
    tmp_path: Path
    pg: PostgresServer
    url: str
    servers: dict[str, McsimProcess]
    ttl: float
    bots: list[Bot] = field(default_factory=list)
    token: str = ""
    http: aiohttp.ClientSession | None = None
    extra_env: dict[str, str] = field(default_factory=dict)  # e.g. DOOM_MAX_LATE, every bot

    @property
    def database(self) -> str:
        return self.url.rsplit("/", 1)[1]

    def url_as(self, user: str | None) -> str:
        return self.url if user is None else self.url.replace("://postgres@", f"://{user}@", 1)

    def add_role(self, name: str) -> str:
        """A login role of its own for a bot, so that one bot alone can be cut from the
        database (ALTER ROLE ... NOLOGIN, pg_terminate_backend). A member of the tables' owner
        (not a superuser): it may use and migrate them. Roles are the cluster's: the name is
        made unique with the test's database."""
        user = f"{self.database}_{name}"
        self.pg.psql(f"CREATE ROLE {user} LOGIN IN ROLE postgres")
        return user

    def env(self, home: Path, user: str | None = None) -> dict[str, str]:
        probe = BotProcess(home, 0)
        env = {k: v for k, v in probe.env.items() if not k.startswith("DOOM_SERVERS")}
        env.update(
            DOOM_DATABASE_URL=self.url_as(user),
            DOOM_LEASE_TTL=format(self.ttl, "g"),
            DOOM_WEB_PORT="0",
            DOOM_RCON_TIMEOUT="2",
        )
        env.update(self.extra_env)
        for i, (name, mc) in enumerate(self.servers.items()):
            env[f"DOOM_SERVERS__{i}__NAME"] = name
            env[f"DOOM_SERVERS__{i}__RCON_HOST"] = "127.0.0.1"
            env[f"DOOM_SERVERS__{i}__RCON_PORT"] = str(mc.port)
            env[f"DOOM_SERVERS__{i}__RCON_PASSWORD"] = PASSWORD
            env[f"DOOM_SERVERS__{i}__EVENT_SOURCE"] = "rcon"
        return env

    async def start_bot(self, user: str | None = None) -> Bot:
        home = self.tmp_path / f"bot{len(self.bots)}"
        home.mkdir()
        process = BotProcess(home, 0)
        process.env = self.env(home, user)
        await process.start("-m", "bot", "serve")
        said = await process.expect("Serving the dashboard and API at ", limit=WAIT)
        found = re.search(r"http://127\.0\.0\.1:\d+", said)
        assert found is not None
        assert process.proc is not None
        bot = Bot(process, found[0], process.proc.pid, user)
        self.bots.append(bot)
        if not self.token:
            made = await asyncio.to_thread(
                subprocess.run,
                [*BOT, "token", "new", "fleet", "--rank", "moderator"],
                env=process.env,
                cwd=process.cwd,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert made.returncode == 0, made.stderr
            self.token = made.stdout.strip()
        return bot

    def holders(self) -> dict[str, int]:
        """Lease name -> the pid of the process holding it now (by the database's clock)."""
        out = self.pg.psql(
            "SELECT name, holder FROM leases WHERE expires > extract(epoch from clock_timestamp())",
            database=self.database,
        ).stdout
        held: dict[str, int] = {}
        for line in out.splitlines():
            name, holder = line.split("|", 1)
            held[name] = int(holder.split(":")[1])
        return held

    def holder_of(self, server: str) -> int | None:
        return self.holders().get(f"server:{server}")

    def bot_of(self, pid: int) -> Bot:
        return next(b for b in self.bots if b.pid == pid)

    async def wait_for(self, check: Any, limit: float, what: str) -> float:
        """Seconds until `check()` is true (bounded)."""
        began = time.monotonic()
        while not check():
            if time.monotonic() - began > limit:
                raise AssertionError(f"{what}: not within {limit} s; holders {self.holders()}")
            await asyncio.sleep(0.1)
        return time.monotonic() - began

    async def schedule(self, bot: Bot, server: str, task_id: str, when: str) -> dict[str, Any]:
        assert self.http is not None
        body = {"run": f"say {task_id}", "when": when, "id": task_id}
        auth = {"Authorization": f"Bearer {self.token}"}
        async with self.http.post(
            f"{bot.base}/api/servers/{server}/tasks", json=body, headers=auth
        ) as r:
            assert r.status == 201, await r.text()
            return dict(await r.json())

    async def get_json(self, bot: Bot, path: str) -> dict[str, Any]:
        assert self.http is not None
        auth = {"Authorization": f"Bearer {self.token}"}
        async with self.http.get(f"{bot.base}{path}", headers=auth) as r:
            assert r.status == 200, await r.text()
            return dict(await r.json())

    async def get_text(self, bot: Bot, path: str) -> str:
        assert self.http is not None
        async with self.http.get(f"{bot.base}{path}") as r:
            assert r.status == 200, await r.text()
            return await r.text()

    def runs_of(self, server: str, task_id: str) -> int:
        return said_in_logs(self.servers[server].world, task_id)

    async def kill(self, bot: Bot, sig: signal.Signals) -> None:
        assert bot.process.proc is not None
        bot.process.proc.send_signal(sig)
        if sig in (signal.SIGKILL, signal.SIGTERM):
            await asyncio.wait_for(bot.process.proc.wait(), WAIT)


@contextlib.asynccontextmanager
async def fleet(
    tmp_path: Path, pg: PostgresServer, *, servers: int = 2, ttl: float = 4.0
) -> AsyncIterator[Fleet]:
    """`servers` mcsim processes and a database; bots started with Fleet.start_bot."""
    url = pg.new_database(template="doom_template")
    async with contextlib.AsyncExitStack() as stack:
        worlds: dict[str, McsimProcess] = {}
        for i in range(servers):
            name = "ab"[i] if servers <= 2 else f"s{i}"
            worlds[name] = await stack.enter_async_context(mcsim_process(tmp_path / f"mc{i}"))
        group = Fleet(tmp_path, pg, url, worlds, ttl)
        group.http = await stack.enter_async_context(
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT))
        )
        try:
            yield group
        finally:
            for bot in group.bots:
                if bot.process.proc is not None and bot.process.proc.returncode is None:
                    bot.process.proc.send_signal(signal.SIGCONT)
                await bot.process.kill()
