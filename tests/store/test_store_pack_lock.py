"""Two bot processes asking one server's pack at once (a face's request reaches the pack from
whichever process served it): with the database's pack lock each gets its own outcome; each
process is its own RCON connection and its own pool on one PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import ServerConfig
from bot.errors import PackError, ServerUnavailable
from bot.minecraft.pack_client import PackClient
from bot.minecraft.rcon import RconClient
from bot.store.db import Database
from bot.store.pack_lock import pack_lock
from mcsim.server import Server
from tests.bot.pack_sim import PASSWORD, AcceptAll, make_world

EACH = 12  # tasks each process schedules, all at once


@contextlib.asynccontextmanager
async def two_processes(
    tmp_path: Path, postgres: Any, *, locked: bool, wait: float = 5.0
) -> AsyncIterator[tuple[Server, list[PackClient]]]:
    server = Server(make_world(tmp_path / "world"), rcon_port=0, rcon_password=PASSWORD)
    server.start()
    url = postgres.new_database(template="doom_template")
    dbs = [Database(url), Database(url)]
    try:
        assert server.rcon_port is not None
        config = ServerConfig(name="sim", rcon_port=server.rcon_port, rcon_password=PASSWORD)  # type: ignore[arg-type]
        packs = []
        for db in dbs:
            rcon = RconClient("127.0.0.1", server.rcon_port, PASSWORD, timeout=10)
            pack = PackClient(rcon, config, AcceptAll())
            if locked:
                pack.share_exchanges(pack_lock(db, "sim", wait))
            packs.append(pack)
        yield server, packs
    finally:
        for pack in packs:
            await pack.rcon.close()
        for db in dbs:
            await db.close()
        server.stop()


async def _schedule_all(packs: list[PackClient]) -> list[BaseException | object]:
    """Each process schedules and, between, reads the game time (as its event source and
    crash guard do): `get_time` rewrites the pack's outcome record."""
    calls: list[Any] = []
    for n in range(EACH):
        for i, pack in enumerate(packs):
            calls.append(pack.schedule(f"say p{i}t{n}", 100, "s", f"p{i}t{n}"))
            calls.append(pack.get_time())
    return await asyncio.gather(*calls, return_exceptions=True)


def _queued(server: Server) -> list[str]:
    return sorted(t["id"] for t in server.storage("doom.schedule:data").get("queue", []))


async def test_with_the_lock_every_request_gets_its_own_outcome(
    tmp_path: Path, postgres: Any
) -> None:
    async with two_processes(tmp_path, postgres, locked=True) as (server, packs):
        results = await _schedule_all(packs)
        assert [r for r in results if isinstance(r, BaseException)] == []
        assert _queued(server) == sorted(f"p{i}t{n}" for n in range(EACH) for i in range(2))


async def test_without_it_requests_of_two_processes_read_each_others_outcome(
    tmp_path: Path, postgres: Any
) -> None:
    """What the lock is for: the same requests unlocked collide (the test above would fail)."""
    async with two_processes(tmp_path, postgres, locked=False) as (_, packs):
        results = await _schedule_all(packs)
        assert any(isinstance(r, PackError) and r.code == "no_answer" for r in results), results


async def test_a_holder_that_does_not_let_go_is_said_and_nothing_is_sent(
    tmp_path: Path, postgres: Any
) -> None:
    """A process frozen inside an exchange holds the lock: the other waits its bound, then
    says so; nothing reached the server."""
    async with two_processes(tmp_path, postgres, locked=True, wait=0.5) as (server, packs):
        stuck = packs[0]._lock  # the first process, frozen mid-exchange
        await stuck.__aenter__()
        try:
            with pytest.raises(ServerUnavailable, match="Another bot process") as said:
                await packs[1].schedule("say late", 100, "s", "late")
            assert "nothing was sent" in str(said.value)
        finally:
            await stuck.__aexit__(None, None, None)
        assert _queued(server) == []
        # once it lets go, the other goes through
        await packs[1].schedule("say late", 100, "s", "late")
        assert _queued(server) == ["late"]
