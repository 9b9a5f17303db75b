"""Programs on a repeat (`program_repeats`) and each occurrence's decision
(`program_repeat_runs`).

A repeat keeps its time as a planned row does (the Spec's fields, bot.times.runs) and the
servers it starts on. Each occurrence on each server is decided once: a unique index on (repeat,
server, occurrence) lets one process, one look, record it; a started one is recorded in the
transaction that makes its run (bot.store.programs `ProgramStore.start`), a missed or refused one
here (:meth:`RepeatStore.decide`). The newest decided occurrence of a server is where the next
look goes on from.
"""

from __future__ import annotations

__all__ = ["Decision", "Occurrence", "ProgramRepeat", "RepeatState", "RepeatStore"]

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, cast

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from bot.store.db import Database
from bot.store.schedules import Creator
from bot.store.tables import program_repeat_runs, program_repeats
from bot.times.runs import Spec

RepeatState = Literal["active", "stopped"]
Decision = Literal["started", "missed", "refused"]


def _dt(value: object) -> datetime:
    return datetime.fromtimestamp(float(cast(float, value)), UTC)


def _opt_dt(value: object) -> datetime | None:
    return None if value is None else _dt(value)


@dataclass(frozen=True, slots=True)
class ProgramRepeat:
    id: int
    program: str
    target: str  # the server or group as given
    servers: tuple[str, ...]
    repeat: str  # as typed
    spec: Spec
    state: RepeatState
    created_by: Creator
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One occurrence on one server as decided: its run when started."""

    repeat_id: int
    server: str
    occurrence: datetime
    state: Decision
    run_id: int | None
    skipped: int
    reason: str | None


_REPEAT = (
    program_repeats.c.id,
    program_repeats.c.program,
    program_repeats.c.target,
    program_repeats.c.servers,
    program_repeats.c.repeat,
    program_repeats.c.kind,
    program_repeats.c.first_due,
    program_repeats.c.timezone,
    program_repeats.c.every,
    program_repeats.c.anchor,
    program_repeats.c.cron,
    program_repeats.c.dst_repeated,
    program_repeats.c.dst_skipped,
    program_repeats.c.state,
    program_repeats.c.created_by_id,
    program_repeats.c.created_by_name,
    program_repeats.c.created_at,
)


def _repeat(r: Sequence[object]) -> ProgramRepeat:
    spec = Spec(
        cast("Literal['every', 'cron']", r[5]),
        _dt(r[6]),
        str(r[7]),
        every=None if r[8] is None else int(cast(int, r[8])),
        anchor=_opt_dt(r[9]),
        cron=cast("str | None", r[10]),
        missed="skip",
        dst_repeated=cast("Literal['first', 'second', 'both'] | None", r[11]),
        dst_skipped=cast("Literal['shift', 'skip'] | None", r[12]),
    )
    return ProgramRepeat(
        int(cast(int, r[0])),
        str(r[1]),
        str(r[2]),
        tuple(json.loads(str(r[3]))),
        str(r[4]),
        spec,
        cast(RepeatState, r[13]),
        Creator(int(cast(int, r[14])), str(r[15])),
        _dt(r[16]),
    )


class RepeatStore:
    """The repeats and their occurrences in the shared database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def add(
        self,
        program: str,
        target: str,
        servers: Sequence[str],
        repeat: str,
        spec: Spec,
        by: Creator,
        now: datetime,
    ) -> ProgramRepeat:
        values = {
            "program": program,
            "target": target,
            "servers": json.dumps(list(servers)),
            "repeat": repeat,
            "kind": spec.kind,
            "first_due": spec.first_due.timestamp(),
            "timezone": spec.timezone,
            "every": spec.every,
            "anchor": None if spec.anchor is None else spec.anchor.timestamp(),
            "cron": spec.cron,
            "dst_repeated": spec.dst_repeated,
            "dst_skipped": spec.dst_skipped,
            "state": "active",
            "created_by_id": by.id,
            "created_by_name": by.name,
            "created_at": now.timestamp(),
        }
        async with self.db.begin() as conn:
            row = (
                await conn.execute(program_repeats.insert().values(**values).returning(*_REPEAT))
            ).one()
        return _repeat(row)

    async def get(self, repeat_id: int) -> ProgramRepeat | None:
        query = select(*_REPEAT).where(program_repeats.c.id == repeat_id)
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _repeat(row)

    async def repeats(
        self, states: Sequence[RepeatState] | None = None, limit: int = 10_000
    ) -> list[ProgramRepeat]:
        """Repeats by number, of these states (None: any)."""
        query = select(*_REPEAT).order_by(program_repeats.c.id).limit(limit)
        if states is not None:
            query = query.where(program_repeats.c.state.in_(list(states)))
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_repeat(r) for r in rows]

    async def stop(self, repeat_id: int) -> ProgramRepeat | None:
        """Stop an active repeat; None: it was not active (nothing changed)."""
        query = (
            update(program_repeats)
            .where(program_repeats.c.id == repeat_id, program_repeats.c.state == "active")
            .values(state="stopped")
            .returning(*_REPEAT)
        )
        async with self.db.begin() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _repeat(row)

    async def reactivate(self, repeat_id: int) -> ProgramRepeat | None:
        """A stopped repeat active again (a plan import undone); None: it was not stopped."""
        query = (
            update(program_repeats)
            .where(program_repeats.c.id == repeat_id, program_repeats.c.state == "stopped")
            .values(state="active")
            .returning(*_REPEAT)
        )
        async with self.db.begin() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _repeat(row)

    async def drop(self, repeat_id: int) -> bool:
        """Remove a repeat none of whose occurrences was decided yet (a plan import undone);
        False: one was, or it is gone (nothing changed)."""
        decided = (
            select(program_repeat_runs.c.id)
            .where(program_repeat_runs.c.repeat_id == repeat_id)
            .exists()
        )
        query = program_repeats.delete().where(program_repeats.c.id == repeat_id, ~decided)
        async with self.db.begin() as conn:
            return bool((await conn.execute(query)).rowcount)

    async def newest(self, repeat_ids: Sequence[int]) -> dict[tuple[int, str], datetime]:
        """Each (repeat, server)'s newest decided occurrence."""
        if not repeat_ids:
            return {}
        query = (
            select(
                program_repeat_runs.c.repeat_id,
                program_repeat_runs.c.server,
                func.max(program_repeat_runs.c.occurrence),
            )
            .where(program_repeat_runs.c.repeat_id.in_(list(repeat_ids)))
            .group_by(program_repeat_runs.c.repeat_id, program_repeat_runs.c.server)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return {(int(r[0]), str(r[1])): _dt(r[2]) for r in rows}

    async def decide(
        self,
        repeat_id: int,
        server: str,
        occurrence: datetime,
        state: Decision,
        now: datetime,
        *,
        skipped: int = 0,
        reason: str | None = None,
    ) -> bool:
        """Record an occurrence not started (missed, refused); False: it was decided already
        (by another process or an earlier look), nothing changed."""
        values = {
            "repeat_id": repeat_id,
            "server": server,
            "occurrence": occurrence.timestamp(),
            "state": state,
            "skipped": skipped,
            "reason": reason,
            "at": now.timestamp(),
        }
        try:
            async with self.db.begin() as conn:
                await conn.execute(program_repeat_runs.insert().values(**values))
        except IntegrityError:
            return False
        return True

    async def occurrences(self, repeat_id: int, limit: int = 100) -> list[Occurrence]:
        """The repeat's decided occurrences, newest first."""
        c = program_repeat_runs.c
        query = (
            select(c.repeat_id, c.server, c.occurrence, c.state, c.run_id, c.skipped, c.reason)
            .where(c.repeat_id == repeat_id)
            .order_by(c.occurrence.desc(), c.server)
            .limit(limit)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            Occurrence(
                int(r[0]),
                str(r[1]),
                _dt(r[2]),
                cast(Decision, r[3]),
                None if r[4] is None else int(r[4]),
                int(r[5]),
                cast("str | None", r[6]),
            )
            for r in rows
        ]
