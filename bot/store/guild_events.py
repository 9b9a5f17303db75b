"""Discord scheduled events bound to wall-clock tasks: the `guild_events` component of the database.

A row is one occurrence: the guild scheduled event (its Discord id), the times, what runs at start
and end, and the ids of the two wall-clock schedules bound to it. A repeating event is a chain of
rows (`previous_id`), one native Discord event each.

State `creating` marks a row whose Discord event and tasks are being made: a bot that dies in
between finds it on start-up and undoes whatever half exists (bot.discord.guildevents.binding),
so there is never a Discord event without its tasks nor tasks without their event.
"""

from __future__ import annotations

__all__ = ["EventRow", "EventState", "GuildEventStore", "NewEvent"]

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any, Literal, cast

from bot.store.db import Database

EventState = Literal["creating", "scheduled", "active", "completed", "cancelled"]
LIVE_STATES: tuple[EventState, ...] = ("scheduled", "active")

_MIGRATIONS = [
    """
CREATE TABLE guild_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    guild_id INTEGER NOT NULL,
    discord_id INTEGER,            -- the guild scheduled event; NULL until Discord made it
    name TEXT NOT NULL,
    description TEXT,
    location TEXT NOT NULL,
    start REAL NOT NULL,           -- UTC epoch seconds
    end REAL NOT NULL,
    start_run TEXT NOT NULL,
    end_run TEXT NOT NULL,
    announce TEXT NOT NULL DEFAULT '',        -- seconds before start, comma separated
    reminders TEXT NOT NULL DEFAULT '',       -- seconds before start, comma separated
    reminders_sent TEXT NOT NULL DEFAULT '',  -- the offsets already posted
    repeat TEXT,                   -- as /schedule's `repeat`: an interval or a cron expression
    anchor REAL,                   -- the first occurrence's start, the grid of `repeat`
    timezone TEXT NOT NULL,
    start_task INTEGER,            -- wall-clock schedule ids
    end_task INTEGER,
    state TEXT NOT NULL CHECK (state IN ('creating', 'scheduled', 'active', 'completed',
                                         'cancelled')),
    interested INTEGER NOT NULL DEFAULT 0,
    occurrence INTEGER NOT NULL DEFAULT 1,
    previous_id INTEGER REFERENCES guild_events (id),
    created_by_id INTEGER NOT NULL,
    created_by_name TEXT NOT NULL,
    created_at REAL NOT NULL,
    checked TEXT NOT NULL DEFAULT '',         -- 'start', 'end': outcomes already looked at
    revision INTEGER NOT NULL DEFAULT 0       -- times the tasks were moved (part of their ids)
);
CREATE UNIQUE INDEX guild_events_discord ON guild_events (discord_id)
    WHERE discord_id IS NOT NULL;
CREATE INDEX guild_events_state ON guild_events (state, start);
""",
    """
ALTER TABLE guild_events ADD COLUMN conditions TEXT;  -- JSON: the start task's require, ...
""",
]


def _dt(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


def _offsets(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x)


def _join(values: Sequence[int]) -> str:
    return ",".join(str(v) for v in values)


@dataclass(frozen=True, slots=True)
class NewEvent:
    """What /event create (or the next occurrence of a repeating event) stores first."""

    server: str
    guild_id: int
    name: str
    description: str | None
    location: str
    start: datetime
    end: datetime
    start_run: str
    end_run: str
    announce: tuple[int, ...]
    reminders: tuple[int, ...]
    repeat: str | None
    anchor: datetime | None
    timezone: str
    created_by_id: int
    created_by_name: str
    occurrence: int = 1
    previous_id: int | None = None
    # the start task's condition options (bot.minecraft.conditions: require, if_not, ...)
    conditions: Mapping[str, str] | None = None


@dataclass(frozen=True, slots=True)
class EventRow:
    id: int
    server: str
    guild_id: int
    discord_id: int | None
    name: str
    description: str | None
    location: str
    start: datetime
    end: datetime
    start_run: str
    end_run: str
    announce: tuple[int, ...]
    reminders: tuple[int, ...]
    reminders_sent: tuple[int, ...]
    repeat: str | None
    anchor: datetime | None
    timezone: str
    start_task: int | None
    end_task: int | None
    state: EventState
    interested: int
    occurrence: int
    previous_id: int | None
    created_by_id: int
    created_by_name: str
    created_at: datetime
    checked: tuple[str, ...]
    revision: int
    conditions: Mapping[str, str] | None = None

    @property
    def tasks(self) -> tuple[int, ...]:
        return tuple(t for t in (self.start_task, self.end_task) if t is not None)


_COLUMNS = ", ".join(f.name for f in fields(EventRow))


def _row(r: Sequence[Any]) -> EventRow:
    v = dict(zip([f.name for f in fields(EventRow)], r, strict=True))
    for key in ("start", "end", "created_at"):
        v[key] = datetime.fromtimestamp(float(v[key]), UTC)
    v["anchor"] = _dt(v["anchor"])
    for key in ("announce", "reminders", "reminders_sent"):
        v[key] = _offsets(str(v[key]))
    v["checked"] = tuple(x for x in str(v["checked"]).split(",") if x)
    v["state"] = cast(EventState, v["state"])
    v["conditions"] = json.loads(v["conditions"]) if v["conditions"] else None
    return EventRow(**v)


class GuildEventStore:
    """The event rows in the shared database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._migrated = False

    async def migrate(self) -> None:
        if not self._migrated:
            await self.db.migrate("guild_events", _MIGRATIONS)
            self._migrated = True

    async def insert(self, new: NewEvent, now: datetime) -> EventRow:
        await self.migrate()

        def work(db: sqlite3.Connection) -> int:
            cur = db.execute(
                "INSERT INTO guild_events (server, guild_id, name, description, location, start,"
                " end, start_run, end_run, announce, reminders, repeat, anchor, timezone, state,"
                " occurrence, previous_id, created_by_id, created_by_name, created_at, conditions)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'creating', ?, ?, ?, ?, ?, ?)",
                (
                    new.server,
                    new.guild_id,
                    new.name,
                    new.description,
                    new.location,
                    new.start.timestamp(),
                    new.end.timestamp(),
                    new.start_run,
                    new.end_run,
                    _join(new.announce),
                    _join(new.reminders),
                    new.repeat,
                    new.anchor.timestamp() if new.anchor else None,
                    new.timezone,
                    new.occurrence,
                    new.previous_id,
                    new.created_by_id,
                    new.created_by_name,
                    now.timestamp(),
                    json.dumps(dict(new.conditions)) if new.conditions else None,
                ),
            )
            return int(cast(int, cur.lastrowid))

        row_id = await self.db.run(work)
        row = await self.get(row_id)
        assert row is not None
        return row

    async def get(self, event_id: int) -> EventRow | None:
        await self.migrate()
        found = await self.db.run(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM guild_events WHERE id = ?", (event_id,)
            ).fetchone()
        )
        return None if found is None else _row(found)

    async def by_discord(self, discord_id: int) -> EventRow | None:
        await self.migrate()
        found = await self.db.run(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM guild_events WHERE discord_id = ?", (discord_id,)
            ).fetchone()
        )
        return None if found is None else _row(found)

    async def in_states(
        self, states: Sequence[EventState], server: str | None = None
    ) -> list[EventRow]:
        await self.migrate()
        marks = ", ".join("?" for _ in states)
        sql = f"SELECT {_COLUMNS} FROM guild_events WHERE state IN ({marks})"
        args: list[object] = list(states)
        if server is not None:
            sql += " AND server = ?"
            args.append(server)
        sql += " ORDER BY start, id"
        rows = await self.db.run(lambda db: db.execute(sql, args).fetchall())
        return [_row(r) for r in rows]

    async def update(self, event_id: int, **changes: object) -> EventRow:
        """Set columns; datetimes and offset tuples are stored as the table keeps them."""
        await self.migrate()
        allowed = {f.name for f in fields(EventRow)} - {"id", "created_at"}
        unknown = set(changes) - allowed
        if unknown:
            raise KeyError(f"unknown columns {sorted(unknown)}")
        values: list[object] = []
        for value in changes.values():
            if isinstance(value, datetime):
                value = value.timestamp()
            elif isinstance(value, tuple):
                value = ",".join(str(v) for v in value)
            values.append(value)
        sets = ", ".join(f"{k} = ?" for k in changes)
        await self.db.run(
            lambda db: db.execute(
                f"UPDATE guild_events SET {sets} WHERE id = ?", (*values, event_id)
            )
        )
        row = await self.get(event_id)
        assert row is not None
        return row

    async def delete(self, event_id: int) -> None:
        await self.migrate()
        await self.db.run(
            lambda db: db.execute("DELETE FROM guild_events WHERE id = ?", (event_id,))
        )

    async def pending(self) -> list[EventRow]:
        """Rows the event timers still act on: live ones, and ended ones whose end outcome has
        not been looked at yet."""
        await self.migrate()
        rows = await self.db.run(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM guild_events WHERE state IN ('scheduled', 'active')"
                " OR (state = 'completed' AND instr(checked, 'end') = 0) ORDER BY start, id"
            ).fetchall()
        )
        return [_row(r) for r in rows]
