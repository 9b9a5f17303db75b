"""Audit store: every mutation the bot made (who, when, where, what, outcome) and event cursors.

Its tables are the ``audit`` component of the bot's database (bot.store.db).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from bot.store.db import Database

__all__ = ["AuditStore", "Mutation"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

# Version 1 is the schema from before migrations, hence IF NOT EXISTS: a legacy database has it.
_MIGRATIONS = [
    """
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
""",
    # where the change came from (bot.operations.caller.Face); '' for rows recorded before
    "ALTER TABLE mutations ADD COLUMN face TEXT NOT NULL DEFAULT '';",
]


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
    face: str = ""  # discord, console, web or api; '' when not recorded


class AuditStore:
    """The audit log and event cursors. `AuditStore(path)` opens a database of its own (tests);
    the services pass the shared :class:`~bot.store.db.Database`."""

    def __init__(
        self, db: Database | Path | str, *, clock: Callable[[], datetime] | None = None
    ) -> None:
        self.db = db if isinstance(db, Database) else Database(db)
        self.path = self.db.path
        self._clock = clock or (lambda: datetime.now(UTC))
        self._migrated = False

    @classmethod
    async def open(cls, path: Path | str) -> AuditStore:
        store = cls(path)
        await store._run(lambda db: None)
        return store

    async def _run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        if not self._migrated:
            await self.db.migrate("audit", _MIGRATIONS)
            self._migrated = True
        return await self.db.run(work)

    async def close(self) -> None:
        await self.db.close()

    async def journal_mode(self) -> str:
        return await self.db.journal_mode()

    # -- mutations ---------------------------------------------------------------------------

    async def record(
        self,
        user_id: int,
        user_name: str,
        server: str,
        action: str,
        request: Mapping[str, Any],
        outcome: str,
        *,
        face: str = "",
    ) -> int:
        """Store one mutation; returns its id. `request` must be JSON-serialisable; `face` says
        where it came from (bot.operations.caller.Face)."""
        text = json.dumps(dict(request), sort_keys=True, default=str, ensure_ascii=False)
        when = self._clock().isoformat()

        def insert(db: sqlite3.Connection) -> int:
            cur = db.execute(
                "INSERT INTO mutations"
                " (time, user_id, user_name, server, action, request, outcome, face)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (when, user_id, user_name, server, action, text, outcome, face),
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
        action: str | None = None,
    ) -> list[Mutation]:
        """Newest first; `before_id` pages backwards."""
        where: list[str] = []
        args: list[object] = []
        if action is not None:
            where.append("action = ?")
            args.append(action)
        if server is not None:
            where.append("server = ?")
            args.append(server)
        if user_id is not None:
            where.append("user_id = ?")
            args.append(user_id)
        if before_id is not None:
            where.append("id < ?")
            args.append(before_id)
        sql = (
            "SELECT id, time, user_id, user_name, server, action, request, outcome, face"
            " FROM mutations"
        )
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
                face=r[8],
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
