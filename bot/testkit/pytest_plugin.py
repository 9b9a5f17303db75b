"""The test kit's pytest plugin (the ``pytest11`` entry point ``doom_schedule``, loaded by pytest
wherever the bot is installed): the fixtures the project's own tests use, for a plugin's tests.

- ``mcsim``: ``mcsim(password=..., realtime=..., name="world")`` starts an mcsim server (the
  stand-in Minecraft server running the real pack) on a world in ``tmp_path``; all are stopped
  after the test.
- ``doom_server``: one such server, running in real time, RCON on 127.0.0.1.
- ``doom_core``: the application built on it (bot.core: services, operations, the installed
  plugins, the background work), started; ``doom_admin`` and ``doom_moderator`` are callers.
- ``doom_dashboard``: the dashboard and its API on that core, with an admin logged in.
- ``doom_discord``: the Discord bot on the server (its own core, the plugins loaded) driven by
  the local Discord: ``await doom_discord.run("hello", MOD)`` (``bot.testkit.harness``: the
  users ADMIN, MOD and NOBODY hold the roles its settings name).
- ``manual_clock``: a clock that moves only when told.

Everything is imported when a fixture is used, so loading the plugin costs a test run nothing.
Needs the [sim] extra (mcsim), and [web] for ``doom_dashboard``.
"""

from __future__ import annotations

__all__ = ["PASSWORD", "Dashboard"]

import itertools
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import aiohttp

    from bot.core import Core
    from bot.operations import Caller
    from bot.testkit.harness import Harness
    from bot.times.clock import ManualClock
    from mcsim.server import Server

PASSWORD = "doom-testkit-Pw"  # the RCON password of doom_server
_refs = itertools.count(1)


@pytest.fixture
def mcsim(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """`mcsim(password=..., realtime=..., name="world", **Server options)`: a started server
    with the pack on tmp_path/name; every one is stopped after the test."""
    from bot.testkit.servers import start_mcsim

    started: list[Server] = []

    def make(*, name: str = "world", **options: Any) -> Server:
        server = start_mcsim(tmp_path / name, **options)
        started.append(server)
        return server

    yield make
    for server in reversed(started):
        server.stop()


@pytest.fixture
def doom_server(mcsim: Callable[..., Server]) -> Server:
    """A started mcsim with the pack, ticking in real time, RCON on 127.0.0.1."""
    return mcsim(password=PASSWORD, realtime=True)


@pytest.fixture
async def doom_core(doom_server: Server, tmp_path: Path) -> AsyncIterator[Core]:
    """The application on `doom_server` (its only server, called main), with the installed
    plugins loaded and the background work started; closed after the test."""
    from bot.config import Settings
    from bot.core import build_core
    from bot.testkit.servers import server_config

    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        servers=[server_config(doom_server, PASSWORD)],
        data_dir=tmp_path / "doom",
        log_poll_interval=0.02,
        health_interval=3600,  # its RCON reads would move what a test counts
    )
    core = await build_core(settings)
    try:
        await core.start()
        yield core
    finally:
        await core.close()


def _caller(rank_name: str) -> Caller:
    from bot.operations import Caller, Rank

    rank = Rank.ADMIN if rank_name == "admin" else Rank.MODERATOR
    return Caller(1 if rank == Rank.ADMIN else 2, rank_name, rank, "console", next(_refs))


@pytest.fixture
def doom_admin() -> Caller:
    """A caller with the admin rank (each test its own request number)."""
    return _caller("admin")


@pytest.fixture
def doom_moderator() -> Caller:
    """A caller with the moderator rank."""
    return _caller("moderator")


@pytest.fixture
def manual_clock() -> ManualClock:
    """A clock at Friday 2026-12-11 14:40 UTC that moves only when told (`advance`, `set`)."""
    from bot.times.clock import ManualClock

    return ManualClock(datetime(2026, 12, 11, 14, 40, tzinfo=UTC))


class Dashboard:
    """The dashboard on a core, with an admin logged in (a one-time code, as
    `python -m bot login` gives)."""

    def __init__(self, base_url: str, http: aiohttp.ClientSession) -> None:
        self.base_url = base_url
        self.http = http

    async def get(self, path: str) -> tuple[int, str]:
        async with self.http.get(self.base_url + path, allow_redirects=False) as answer:
            return answer.status, await answer.text()


@pytest.fixture
async def doom_dashboard(doom_core: Core, doom_admin: Caller) -> AsyncIterator[Dashboard]:
    import aiohttp

    from bot.cli.serve import dashboard_on
    from bot.operations import access
    from bot.operations.requests import validated

    web = await dashboard_on(doom_core)
    request = validated(access.AccessRequest, {"name": "tester", "rank": "admin"})
    code = await access.login(doom_core.ops, doom_admin, request)
    http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
    try:
        async with http.post(f"{web.base_url}/login", data={"c": code}) as answer:
            assert answer.status == 200, await answer.text()
        yield Dashboard(web.base_url, http)
    finally:
        await http.close()
        await web.stop()


@pytest.fixture
async def doom_discord(doom_server: Server, tmp_path: Path) -> AsyncIterator[Harness]:
    from bot.core import build_core
    from bot.testkit.harness import Harness, make_settings
    from bot.testkit.servers import server_config

    settings = make_settings(
        tmp_path / "discord", [server_config(doom_server, PASSWORD)], log_poll_interval=0.02
    )
    core = await build_core(settings)  # the installed plugins, their operations and cogs
    harness = Harness(settings, core.services, core)
    try:
        yield await harness.start()
    finally:
        await harness.close()
