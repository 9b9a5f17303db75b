"""bot.store.notify: a notice sent in a transaction reaches another process's listener when it
commits, never when it rolls back; a listener whose connection is killed listens again."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.store.db import Database
from bot.store.notify import LEASES, Listener, notify


async def _heard(heard: list[str], count: int) -> None:
    for _ in range(500):  # 10 s at most
        if len(heard) >= count:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"heard only {heard}")


async def test_a_committed_notice_is_heard_a_rolled_back_one_is_not(postgres: Any) -> None:
    url = postgres.new_database(template="doom_template")
    writer, reader = Database(url), Database(url)
    heard: list[str] = []
    listener = Listener(reader)
    listener.on(LEASES, heard.append)
    listener.start()
    async with asyncio.timeout(10):
        await listener.connected.wait()
    try:
        async with writer.begin() as conn:
            await notify(conn, LEASES, "rolled back")
            raise RuntimeError("no")
    except RuntimeError:
        pass
    async with writer.begin() as conn:
        await notify(conn, LEASES, "server:a")
    await _heard(heard, 1)
    await asyncio.sleep(0.3)
    assert heard == ["server:a"]
    # its connection killed (an operator, a network fault): it listens again, and looks once
    # for what it may have missed meanwhile (an empty notice)
    assert postgres.terminate_backends(url.rsplit("/", 1)[1]) >= 1
    for _ in range(300):  # 15 s at most
        if not listener.connected.is_set() and "" in heard:
            break
        await asyncio.sleep(0.05)
    assert "" in heard
    async with asyncio.timeout(15):
        await listener.connected.wait()
    async with writer.begin() as conn:
        await notify(conn, LEASES, "server:b")
    await _heard(heard, 3)
    assert heard[-1] == "server:b"
    await listener.stop()
    await writer.close()
    await reader.close()


async def test_sqlite_sends_and_listens_to_nothing(tmp_path: Any) -> None:
    db = Database(tmp_path / "bot.sqlite3")
    listener = Listener(db)
    listener.start()
    async with db.begin() as conn:
        await notify(conn, LEASES, "x")  # no error, no effect
    assert listener._task is None
    await db.close()
