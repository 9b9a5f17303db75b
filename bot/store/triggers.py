"""Triggers and their firings (`triggers`, `trigger_fires`; bot.triggers).

A firing is decided in one transaction: the occurrence not fired before (its unique index),
the trigger enabled, out of its cool-down and under its day's limit; then the trigger's counters
move and the firing is written. Two processes that see the same occurrence, or two occurrences
inside the cool-down, make one firing: whichever commits first, the other finds it. The
firing's program run is made after, once (`program_runs.fire_id` is unique: bot.store.programs).
"""

from __future__ import annotations

__all__ = ["Fire", "FireOutcome", "Trigger", "TriggerSpec", "TriggerStore"]

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, cast

from sqlalchemy import case, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from bot.store.db import Database
from bot.store.schedules import Creator
from bot.store.tables import program_runs, trigger_fires, triggers

DAY = 86400.0
FireState = Literal["fired", "started", "refused"]
Kind = Literal["started", "players", "join", "log", "interest"]


@dataclass(frozen=True, slots=True)
class TriggerSpec:
    """A trigger's settings as kept (checked by bot.triggers.model.check_trigger)."""

    name: str
    kind: Kind
    program: str
    server: str
    cooldown: int  # seconds
    per_day: int
    players: int | None = None
    direction: Literal["up", "down"] | None = None
    player: str | None = None
    pattern: str | None = None
    # interest: a Discord event's interested count reaching `interested` by `deadline` seconds
    # before its start; else `if_not` (postpone it by `postpone` seconds, or cancel it)
    event: int | None = None
    interested: int | None = None
    deadline: int | None = None
    if_not: Literal["postpone", "cancel"] | None = None
    postpone: int | None = None

    def settings(self) -> dict[str, Any]:
        """The kind's own settings, as kept (JSON) and as the faces show them."""
        values = {
            "players": self.players,
            "direction": self.direction,
            "player": self.player,
            "pattern": self.pattern,
            "event": self.event,
            "interested": self.interested,
            "deadline": self.deadline,
            "if_not": self.if_not,
            "postpone": self.postpone,
        }
        return {k: v for k, v in values.items() if v is not None}


def _dt(value: object) -> datetime:
    return datetime.fromtimestamp(float(cast(float, value)), UTC)


@dataclass(frozen=True, slots=True)
class Trigger:
    id: int
    spec: TriggerSpec
    enabled: bool
    created_by: Creator
    created_at: datetime
    last_fired: datetime | None
    day_count: int  # firings in the current 24 hours (0 once they are over)

    @property
    def name(self) -> str:
        return self.spec.name


@dataclass(frozen=True, slots=True)
class Fire:
    id: int
    trigger_id: int
    occurrence: str
    at: datetime
    player: str | None
    state: FireState
    reason: str | None


@dataclass(frozen=True, slots=True)
class FireOutcome:
    """What a firing's attempt came to: `fired` (with the firing), `repeat` (this occurrence
    fired before), `cooldown`, `limited` (`say`: the first refusal of this day's window, to be
    alerted), `off` (paused or removed)."""

    result: Literal["fired", "repeat", "cooldown", "limited", "off"]
    fire: Fire | None = None
    say: bool = False


_TRIGGER = (
    triggers.c.id,
    triggers.c.name,
    triggers.c.kind,
    triggers.c.server,
    triggers.c.program,
    triggers.c.settings,
    triggers.c.cooldown,
    triggers.c.per_day,
    triggers.c.enabled,
    triggers.c.created_by_id,
    triggers.c.created_by_name,
    triggers.c.created_at,
    triggers.c.last_fired,
    triggers.c.day_start,
    triggers.c.day_count,
)
_FIRE = (
    trigger_fires.c.id,
    trigger_fires.c.trigger_id,
    trigger_fires.c.occurrence,
    trigger_fires.c.at,
    trigger_fires.c.player,
    trigger_fires.c.state,
    trigger_fires.c.reason,
)


def _trigger(r: Sequence[Any], now: float | None = None) -> Trigger:
    settings = json.loads(str(r[5]))
    spec = TriggerSpec(
        name=str(r[1]),
        kind=r[2],
        server=str(r[3]),
        program=str(r[4]),
        cooldown=int(float(r[6])),
        per_day=int(r[7]),
        **settings,
    )
    day_start = r[13]
    count = int(r[14])
    if day_start is None or (now is not None and float(day_start) <= now - DAY):
        count = 0
    return Trigger(
        int(r[0]),
        spec,
        bool(r[8]),
        Creator(int(r[9]), str(r[10])),
        _dt(r[11]),
        None if r[12] is None else _dt(r[12]),
        count,
    )


def _fire(r: Sequence[Any]) -> Fire:
    return Fire(
        int(r[0]),
        int(r[1]),
        str(r[2]),
        _dt(r[3]),
        cast("str | None", r[4]),
        cast(FireState, r[5]),
        cast("str | None", r[6]),
    )


def _settings(spec: TriggerSpec) -> str:
    return json.dumps(spec.settings(), sort_keys=True)


class TriggerStore:
    """The triggers and their firings in the shared database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def add(self, spec: TriggerSpec, by: Creator, now: datetime) -> Trigger | None:
        """The new trigger; None: one of that name exists (nothing changed)."""
        try:
            async with self.db.begin() as conn:
                row = (
                    await conn.execute(
                        triggers.insert()
                        .values(
                            name=spec.name,
                            kind=spec.kind,
                            server=spec.server,
                            program=spec.program,
                            settings=_settings(spec),
                            cooldown=float(spec.cooldown),
                            per_day=spec.per_day,
                            enabled=1,
                            created_by_id=by.id,
                            created_by_name=by.name,
                            created_at=now.timestamp(),
                            day_count=0,
                        )
                        .returning(*_TRIGGER)
                    )
                ).one()
        except IntegrityError:
            return None
        return _trigger(row)

    async def all(self, now: datetime | None = None) -> list[Trigger]:
        at = None if now is None else now.timestamp()
        async with self.db.connect() as conn:
            rows = (await conn.execute(select(*_TRIGGER).order_by(triggers.c.name))).all()
        return [_trigger(r, at) for r in rows]

    async def get(self, name: str, now: datetime | None = None) -> Trigger | None:
        at = None if now is None else now.timestamp()
        async with self.db.connect() as conn:
            row = (await conn.execute(select(*_TRIGGER).where(triggers.c.name == name))).first()
        return None if row is None else _trigger(row, at)

    async def set_enabled(self, name: str, enabled: bool) -> Trigger | None:
        """Pause or resume it; None: no such trigger, or it already was (nothing changed)."""
        query = (
            update(triggers)
            .where(triggers.c.name == name, triggers.c.enabled == (0 if enabled else 1))
            .values(enabled=1 if enabled else 0)
            .returning(*_TRIGGER)
        )
        async with self.db.begin() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _trigger(row)

    async def remove(self, name: str) -> bool:
        """Remove it and its firings (the runs they started stay, no longer linked)."""
        async with self.db.begin() as conn:
            found = (
                await conn.execute(select(triggers.c.id).where(triggers.c.name == name))
            ).first()
            if found is None:
                return False
            fires = select(trigger_fires.c.id).where(trigger_fires.c.trigger_id == found[0])
            await conn.execute(
                update(program_runs).where(program_runs.c.fire_id.in_(fires)).values(fire_id=None)
            )
            await conn.execute(delete(trigger_fires).where(trigger_fires.c.trigger_id == found[0]))
            await conn.execute(delete(triggers).where(triggers.c.id == found[0]))
        return True

    async def fire(
        self,
        trigger: Trigger,
        occurrence: str,
        now: datetime,
        player: str | None = None,
        *,
        cooled: bool = True,
    ) -> FireOutcome:
        """Fire `trigger` for this occurrence if it may (see the module's text); `cooled`
        False: the cool-down does not hold it (each occurrence is news: an event's start)."""
        at = now.timestamp()
        t = triggers.c
        new_day = or_(t.day_start.is_(None), t.day_start <= at - DAY)
        cool = or_(t.last_fired.is_(None), t.last_fired <= at - t.cooldown)
        move = (
            update(triggers)
            .where(
                t.id == trigger.id,
                t.enabled == 1,
                cool if cooled else t.id == trigger.id,
                or_(new_day, t.day_count < t.per_day),
            )
            .values(
                last_fired=at,
                day_start=case((new_day, at), else_=t.day_start),
                day_count=case((new_day, 1), else_=t.day_count + 1),
            )
            .returning(t.id)
        )
        seen = select(trigger_fires.c.id).where(
            trigger_fires.c.trigger_id == trigger.id, trigger_fires.c.occurrence == occurrence
        )
        try:
            async with self.db.begin() as conn:
                if (await conn.execute(seen)).first() is not None:
                    return FireOutcome("repeat")
                if (await conn.execute(move)).first() is None:
                    # waited for another's firing of this very occurrence (PostgreSQL's row
                    # lock): it is committed now, and this is a repeat, not a cool-down
                    if (await conn.execute(seen)).first() is not None:
                        return FireOutcome("repeat")
                    return await self._refused(conn, trigger.id, at)
                row = (
                    await conn.execute(
                        trigger_fires.insert()
                        .values(
                            trigger_id=trigger.id,
                            occurrence=occurrence,
                            at=at,
                            player=player,
                            state="fired",
                        )
                        .returning(*_FIRE)
                    )
                ).one()
        except IntegrityError:  # another process fired this occurrence at the same moment
            return FireOutcome("repeat")
        return FireOutcome("fired", _fire(row))

    async def _refused(self, conn: Any, trigger_id: int, at: float) -> FireOutcome:
        row = (
            await conn.execute(
                select(
                    triggers.c.enabled,
                    triggers.c.last_fired,
                    triggers.c.cooldown,
                    triggers.c.day_start,
                    triggers.c.limit_said,
                ).where(triggers.c.id == trigger_id)
            )
        ).first()
        if row is None or not row[0]:
            return FireOutcome("off")
        if row[1] is not None and float(row[1]) > at - float(row[2]):
            return FireOutcome("cooldown")
        said = row[4] is not None and row[3] is not None and float(row[4]) >= float(row[3])
        if not said:
            await conn.execute(
                update(triggers).where(triggers.c.id == trigger_id).values(limit_said=at)
            )
        return FireOutcome("limited", say=not said)

    async def pending(self) -> list[tuple[Fire, Trigger]]:
        """Firings whose program run is not made yet, oldest first, with their triggers."""
        query = (
            select(*_FIRE, *_TRIGGER)
            .join(triggers, triggers.c.id == trigger_fires.c.trigger_id)
            .where(trigger_fires.c.state == "fired")
            .order_by(trigger_fires.c.id)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        n = len(_FIRE)
        return [(_fire(r[:n]), _trigger(r[n:])) for r in rows]

    async def settle(self, fire_id: int, state: FireState, reason: str | None = None) -> None:
        query = (
            update(trigger_fires)
            .where(trigger_fires.c.id == fire_id, trigger_fires.c.state == "fired")
            .values(state=state, reason=reason)
        )
        async with self.db.begin() as conn:
            await conn.execute(query)

    async def decide_once(
        self, trigger: Trigger, occurrence: str, now: datetime, reason: str
    ) -> bool:
        """Record what was decided instead of a firing (an event's interest short at its
        deadline), once per occurrence, outside the cool-down and the day's count; False: it
        was decided before (by this process or another)."""
        try:
            async with self.db.begin() as conn:
                await conn.execute(
                    trigger_fires.insert().values(
                        trigger_id=trigger.id,
                        occurrence=occurrence,
                        at=now.timestamp(),
                        state="refused",
                        reason=reason,
                    )
                )
        except IntegrityError:
            return False
        return True

    async def decided(self, trigger_id: int, prefix: str) -> int:
        """How many occurrences starting with `prefix` were decided or fired."""
        query = select(func.count()).where(
            trigger_fires.c.trigger_id == trigger_id,
            trigger_fires.c.occurrence.startswith(prefix, autoescape=True),
        )
        async with self.db.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def started_with(self, trigger_id: int, prefix: str) -> list[Fire]:
        """Its firings that started a run, of occurrences starting with `prefix`."""
        query = select(*_FIRE).where(
            trigger_fires.c.trigger_id == trigger_id,
            trigger_fires.c.state == "started",
            trigger_fires.c.occurrence.startswith(prefix, autoescape=True),
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_fire(r) for r in rows]

    async def fires(self, trigger_id: int, limit: int = 10) -> list[Fire]:
        """Its newest firings, newest first."""
        query = (
            select(*_FIRE)
            .where(trigger_fires.c.trigger_id == trigger_id)
            .order_by(trigger_fires.c.id.desc())
            .limit(limit)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_fire(r) for r in rows]
