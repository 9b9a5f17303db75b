"""Audit store: every mutation the bot made (who, when, where, what, outcome) and event cursors.

Its tables are the ``audit`` component of the bot's database (bot.store.db).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.store.db import Database
from bot.store.tables import cursors, mutations

__all__ = ["AuditStore", "Mutation"]

log = logging.getLogger(__name__)


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

    @classmethod
    async def open(cls, path: Path | str) -> AuditStore:
        store = cls(path)
        await store.db.ready()
        return store

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

        query = (
            mutations.insert()
            .values(
                time=when,
                user_id=user_id,
                user_name=user_name,
                server=server,
                action=action,
                request=text,
                outcome=outcome,
                face=face,
            )
            .returning(mutations.c.id)
        )
        async with self.db.begin() as conn:
            return int((await conn.execute(query)).scalar_one())

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
        m = mutations.c
        query = select(
            m.id, m.time, m.user_id, m.user_name, m.server, m.action, m.request, m.outcome, m.face
        )
        if action is not None:
            query = query.where(m.action == action)
        if server is not None:
            query = query.where(m.server == server)
        if user_id is not None:
            query = query.where(m.user_id == user_id)
        if before_id is not None:
            query = query.where(m.id < before_id)
        query = query.order_by(m.id.desc()).limit(limit)
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
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
        query = select(cursors.c.value).where(cursors.c.key == key)
        async with self.db.connect() as conn:
            value = (await conn.execute(query)).scalar_one_or_none()
        return None if value is None else json.loads(value)

    async def set_cursor(self, key: str, value: Any) -> None:
        """Store `value` (any JSON value: an int seq, a dict with file id and offset, ...)."""
        text = json.dumps(value, sort_keys=True)
        when = self._clock().isoformat()
        insert = self.db.insert(cursors).values(key=key, value=text, updated=when)
        upsert = insert.on_conflict_do_update(
            index_elements=[cursors.c.key],
            set_={"value": insert.excluded.value, "updated": insert.excluded.updated},
        )
        async with self.db.begin() as conn:
            await conn.execute(upsert)
