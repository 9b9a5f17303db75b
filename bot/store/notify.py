"""PostgreSQL's LISTEN/NOTIFY between bot processes: a row one process writes wakes the one
that acts on it at once, instead of at its next look (which stays, every second, as the fallback
when a notice is lost or the listening connection is down).

Channels: ``doom_leases`` (a lease was released: take it now), ``doom_schedules`` (a
wall-clock row of the server named in the payload was made or changed) and ``doom_events`` (an
event was kept in the event log, the payload its id: bot.background.event_relay). A notice is
sent inside the writing transaction, so it arrives only if the write committed. On SQLite (one
process) nothing is sent and nothing listens.
"""

from __future__ import annotations

__all__ = ["EVENTS", "LEASES", "SCHEDULES", "Listener", "notify"]

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.aio import cancel_and_wait
from bot.store.db import Database

log = logging.getLogger(__name__)

LEASES = "doom_leases"
SCHEDULES = "doom_schedules"
EVENTS = "doom_events"
RETRY = 2.0  # seconds between attempts to listen again after the connection dropped
KEEPALIVE = 5.0  # seconds between checks that the listening connection is alive


async def notify(conn: AsyncConnection, channel: str, payload: str = "") -> None:
    """Tell the other processes, when this transaction commits (PostgreSQL only)."""
    if conn.dialect.name == "postgresql":
        await conn.execute(text("SELECT pg_notify(:c, :p)"), {"c": channel, "p": payload})


class Listener:
    """One connection of its own (not the pool's) listening on channels, calling each
    channel's callback with the payload; reconnects after a drop, for as long as it runs."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.callbacks: dict[str, list[Callable[[str], None]]] = {}
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()

    def on(self, channel: str, callback: Callable[[str], None]) -> None:
        self.callbacks.setdefault(channel, []).append(callback)

    def start(self) -> None:
        if self.db.is_sqlite or self._task is not None:
            return
        self._task = asyncio.create_task(self._run(), name="db-listener")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None

    def _deliver(self, _conn: Any, _pid: int, channel: str, payload: str) -> None:
        for callback in self.callbacks.get(channel, []):
            try:
                callback(payload)
            except Exception:  # one bad callback must not stop the others
                log.exception("a notice on %s failed", channel)

    async def _run(self) -> None:
        import asyncpg

        url = self.db.url.set(drivername="postgresql").render_as_string(hide_password=False)
        while True:
            conn: Any = None
            try:
                conn = await asyncpg.connect(url, timeout=5)
                closed = asyncio.Event()
                conn.add_termination_listener(lambda _conn, done=closed: done.set())
                for channel in self.callbacks:
                    await conn.add_listener(channel, self._deliver)
                self.connected.set()
                while not closed.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(closed.wait(), KEEPALIVE)
                    if not closed.is_set():  # a connection cut unseen fails this
                        await asyncio.wait_for(conn.fetchval("SELECT 1"), KEEPALIVE)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
                log.debug("listening for notices failed: %s", exc)
            finally:
                self.connected.clear()
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(conn.close(), 2)
            # what was missed meanwhile: every listener looks now, as after a notice
            for callbacks in self.callbacks.values():
                for callback in callbacks:
                    with contextlib.suppress(Exception):
                        callback("")
            await asyncio.sleep(RETRY)
