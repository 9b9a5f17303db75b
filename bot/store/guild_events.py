"""Discord scheduled events bound to wall-clock tasks: the `guild_events` component of the database.

A row is one occurrence: the guild scheduled event (its Discord id), the times, what runs at start
and end, and the ids of the two wall-clock schedules bound to it. A repeating event is a chain of
rows (`previous_id`), one native Discord event each.

State `creating` marks a row whose Discord event and tasks are being made: a bot that dies in
between finds it on start-up and undoes whatever half exists (bot.discord.guildevents.binding),
so there is never a Discord event without its tasks nor tasks without their event.

One row per Discord event id: the unique index ``guild_events_discord`` refuses a second
binding of the same id (bot processes sharing one PostgreSQL), and :meth:`GuildEventStore.update`
says so instead of binding it twice.
"""

from __future__ import annotations

__all__ = ["EventRow", "EventState", "GuildEventStore", "NewEvent"]

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any, Literal, cast

from sqlalchemy import and_, delete, insert, not_, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.errors import ValidationError
from bot.i18n import _
from bot.store.db import Database
from bot.store.tables import guild_events as events

EventState = Literal["creating", "scheduled", "active", "completed", "cancelled"]
LIVE_STATES: tuple[EventState, ...] = ("scheduled", "active")


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


_COLUMNS = tuple(events.c[f.name] for f in fields(EventRow))


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

    async def insert(self, new: NewEvent, now: datetime) -> EventRow:
        values = {
            "server": new.server,
            "guild_id": new.guild_id,
            "name": new.name,
            "description": new.description,
            "location": new.location,
            "start": new.start.timestamp(),
            "end": new.end.timestamp(),
            "start_run": new.start_run,
            "end_run": new.end_run,
            "announce": _join(new.announce),
            "reminders": _join(new.reminders),
            "repeat": new.repeat,
            "anchor": new.anchor.timestamp() if new.anchor else None,
            "timezone": new.timezone,
            "state": "creating",
            "occurrence": new.occurrence,
            "previous_id": new.previous_id,
            "created_by_id": new.created_by_id,
            "created_by_name": new.created_by_name,
            "created_at": now.timestamp(),
            "conditions": json.dumps(dict(new.conditions)) if new.conditions else None,
        }
        async with self.db.begin() as conn:
            found = (await conn.execute(insert(events).values(values).returning(*_COLUMNS))).one()
        return _row(found)

    async def get(self, event_id: int) -> EventRow | None:
        async with self.db.connect() as conn:
            return await _get(conn, event_id)

    async def by_discord(self, discord_id: int) -> EventRow | None:
        query = select(*_COLUMNS).where(events.c.discord_id == discord_id)
        async with self.db.connect() as conn:
            found = (await conn.execute(query)).first()
        return None if found is None else _row(found)

    async def in_states(
        self, states: Sequence[EventState], server: str | None = None
    ) -> list[EventRow]:
        query = select(*_COLUMNS).where(events.c.state.in_(list(states)))
        if server is not None:
            query = query.where(events.c.server == server)
        async with self.db.connect() as conn:
            rows = (await conn.execute(query.order_by(events.c.start, events.c.id))).all()
        return [_row(r) for r in rows]

    async def update(self, event_id: int, **changes: object) -> EventRow:
        """Set columns; datetimes and offset tuples are stored as the table keeps them.

        Binding a Discord event id that another row already holds (another process bound it
        first) changes nothing and raises :class:`ValidationError`."""
        allowed = {f.name for f in fields(EventRow)} - {"id", "created_at"}
        unknown = set(changes) - allowed
        if unknown:
            raise KeyError(f"unknown columns {sorted(unknown)}")
        values: dict[str, object] = {}
        for key, value in changes.items():
            if isinstance(value, datetime):
                value = value.timestamp()
            elif isinstance(value, tuple):
                value = ",".join(str(v) for v in value)
            elif key == "conditions" and value is not None:
                value = json.dumps(dict(cast(Mapping[str, str], value)))
            values[key] = value
        statement = update(events).where(events.c.id == event_id).values(values)
        try:
            async with self.db.begin() as conn:
                await conn.execute(statement)
                row = await _get(conn, event_id)
        except IntegrityError:
            if changes.get("discord_id") is None:
                raise
            raise await self._taken(event_id, cast(int, changes["discord_id"])) from None
        if row is None:
            raise KeyError(f"no event row {event_id}")
        return row

    async def _taken(self, event_id: int, discord_id: int) -> ValidationError:
        holder = await self.by_discord(discord_id)
        return ValidationError(
            _(
                "The Discord event {discord_id} is already bound to the event {other}, so it"
                " was not bound to event #{event} too: nothing was changed.",
                discord_id=discord_id,
                other=repr(holder.name) if holder is not None else "?",
                event=event_id,
            )
        )

    async def delete(self, event_id: int) -> None:
        async with self.db.begin() as conn:
            await conn.execute(delete(events).where(events.c.id == event_id))

    async def pending(self) -> list[EventRow]:
        """Rows the event timers still act on: live ones, and ended ones whose end outcome has
        not been looked at yet."""
        query = (
            select(*_COLUMNS)
            .where(
                or_(
                    events.c.state.in_(LIVE_STATES),
                    and_(events.c.state == "completed", not_(events.c.checked.contains("end"))),
                )
            )
            .order_by(events.c.start, events.c.id)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_row(r) for r in rows]


async def _get(conn: AsyncConnection, event_id: int) -> EventRow | None:
    found = (await conn.execute(select(*_COLUMNS).where(events.c.id == event_id))).first()
    return None if found is None else _row(found)
