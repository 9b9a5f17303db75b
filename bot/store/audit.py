"""Audit store: every mutation the bot made (who, when, where, what, outcome) and event cursors.

SQLite from the standard library, in WAL mode so readers never block the writer. sqlite3 calls
block, so each one runs in a worker thread (asyncio.to_thread); one connection is shared behind a
threading lock, because sqlite3 connections must not be used by two threads at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["AuditStore", "Mutation"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS mutations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time TEXT NOT NULL,          -- ISO 8601, UTC
    user_id INTEGER NOT NULL,
    user_name TEXT NOT NULL,
    server TEXT NOT NULL,
    action TEXT NOT NULL,
    request TEXT NOT NULL,       -- JSON object
    outcome TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mutations_server_time ON mutations (server, id);
CREATE TABLE IF NOT EXISTS cursors (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,         -- JSON
    updated TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Mutation:
    """One audited change, as stored."""

    id: int
    time: datetime
    user_id: int
    user_name: str
    server: str
    action: str
    request: dict[str, Any]
    outcome: str


class AuditStore:
    """The bot's SQLite database. Open it with `await AuditStore.open(path)` or use it directly
    (the schema is created on first use)."""

    def __init__(self, path: Path | str, *, clock: Callable[[], datetime] | None = None) -> None:
        self.path = Path(path)
        self._clock = clock or (lambda: datetime.now(UTC))
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    @classmethod
    async def open(cls, path: Path | str) -> AuditStore:
        store = cls(path)
        await store._run(lambda db: None)
        return store

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            if str(self.path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=5000")
            db.executescript(_SCHEMA)
            self._db = db
        return self._db

    async def _run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        def locked() -> _T:
            with self._lock:
                return work(self._connect())

        return await asyncio.to_thread(locked)

    async def close(self) -> None:
        def shut() -> None:
            with self._lock:
                if self._db is not None:
                    self._db.close()
                    self._db = None

        await asyncio.to_thread(shut)

    async def journal_mode(self) -> str:
        row = await self._run(lambda db: db.execute("PRAGMA journal_mode").fetchone())
        return str(row[0])

    # -- mutations ---------------------------------------------------------------------------

    async def record(
        self,
        user_id: int,
        user_name: str,
        server: str,
        action: str,
        request: Mapping[str, Any],
        outcome: str,
    ) -> int:
        """Store one mutation; returns its id. `request` must be JSON-serialisable."""
        text = json.dumps(dict(request), sort_keys=True, default=str, ensure_ascii=False)
        when = self._clock().isoformat()

        def insert(db: sqlite3.Connection) -> int:
            cur = db.execute(
                "INSERT INTO mutations (time, user_id, user_name, server, action, request, outcome)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (when, user_id, user_name, server, action, text, outcome),
            )
            return int(cur.lastrowid or 0)

        return await self._run(insert)

    async def mutations(
        self,
        *,
        server: str | None = None,
        user_id: int | None = None,
        limit: int = 50,
        before_id: int | None = None,
    ) -> list[Mutation]:
        """Newest first; `before_id` pages backwards."""
        where: list[str] = []
        args: list[object] = []
        if server is not None:
            where.append("server = ?")
            args.append(server)
        if user_id is not None:
            where.append("user_id = ?")
            args.append(user_id)
        if before_id is not None:
            where.append("id < ?")
            args.append(before_id)
        sql = "SELECT id, time, user_id, user_name, server, action, request, outcome FROM mutations"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC LIMIT ?"
        args.append(limit)
        rows = await self._run(lambda db: db.execute(sql, args).fetchall())
        return [
            Mutation(
                id=r[0],
                time=datetime.fromisoformat(r[1]),
                user_id=r[2],
                user_name=r[3],
                server=r[4],
                action=r[5],
                request=json.loads(r[6]),
                outcome=r[7],
            )
            for r in rows
        ]

    # -- event cursors -----------------------------------------------------------------------

    async def get_cursor(self, key: str) -> Any:
        """The value stored under `key` (any JSON value), or None if never set."""
        row = await self._run(
            lambda db: db.execute("SELECT value FROM cursors WHERE key = ?", (key,)).fetchone()
        )
        return None if row is None else json.loads(row[0])

    async def set_cursor(self, key: str, value: Any) -> None:
        """Store `value` (any JSON value: an int seq, a dict with file id and offset, ...)."""
        text = json.dumps(value, sort_keys=True)
        when = self._clock().isoformat()
        await self._run(
            lambda db: db.execute(
                "INSERT INTO cursors (key, value, updated) VALUES (?, ?, ?)"
                " ON CONFLICT(key) DO UPDATE SET"
                " value = excluded.value, updated = excluded.updated",
                (key, text, when),
            )
        )
