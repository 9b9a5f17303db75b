"""Programs, their runs and each run's steps (`programs`, `program_runs`, `program_steps`).

A program's name has versions: each save is a new row, numbered by the database's unique index
(two processes saving the same name at once: one gets the next number, the other tries the one
after). A run names the version it started with, so a save after a start changes nothing of it.
A run's steps are rows from its start on; a step's one-shot planned row (bot.store.schedules)
is linked once it is made, and the link is written only where none is (`link`), so a step is
made at most once whichever process or restart makes it.
"""

from __future__ import annotations

__all__ = [
    "OccurrenceDecided",
    "Program",
    "ProgramRun",
    "ProgramStore",
    "RunState",
    "StepLink",
    "StepRow",
]

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, cast

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from bot.store.db import Database
from bot.store.schedules import Creator
from bot.store.tables import (
    program_repeat_runs,
    program_runs,
    program_steps,
    programs,
    schedule_runs,
    schedules,
)

RunState = Literal["running", "paused", "done", "cancelled", "stopped"]
SAVE_TRIES = 5  # versions taken by others at the same moment before a save gives up
_CHUNK = 500  # run ids per query (well under SQLite's limit on bound parameters)


class OccurrenceDecided(Exception):
    """A repeat's occurrence on a server was decided without a run (missed or refused)."""


def _dt(value: object) -> datetime:
    return datetime.fromtimestamp(float(cast(float, value)), UTC)


@dataclass(frozen=True, slots=True)
class Program:
    id: int
    name: str
    version: int
    steps: str  # JSON (bot.programs.model.steps_of_json)
    created_by: Creator
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ProgramRun:
    id: int
    program: str
    version: int
    server: str
    start: datetime
    state: RunState
    created_by: Creator
    created_at: datetime
    player: str | None = None  # the steps' executor where a step names none (a trigger's)
    fire_id: int | None = None  # the trigger's firing that started it (bot.triggers)


@dataclass(frozen=True, slots=True)
class StepLink:
    """A step of a run: its planned row once made, or what the program decided of it."""

    step: int
    schedule_id: int | None
    status: str | None  # 'skipped', 'cancelled'; None: its row (or its absence) says


@dataclass(frozen=True, slots=True)
class StepRow:
    """A step with what its planned row says: the row's state and due, and its newest run's
    outcome (the row's last outcome once the history's retention dropped the run)."""

    step: int
    schedule_id: int | None
    status: str | None
    row_state: str | None
    due: datetime | None
    outcome: str | None


_PROGRAM = (
    programs.c.id,
    programs.c.name,
    programs.c.version,
    programs.c.steps,
    programs.c.created_by_id,
    programs.c.created_by_name,
    programs.c.created_at,
)
_RUN = (
    program_runs.c.id,
    program_runs.c.program,
    program_runs.c.version,
    program_runs.c.server,
    program_runs.c.start,
    program_runs.c.state,
    program_runs.c.created_by_id,
    program_runs.c.created_by_name,
    program_runs.c.created_at,
    program_runs.c.player,
    program_runs.c.fire_id,
)


def _program(r: Sequence[object]) -> Program:
    return Program(
        int(cast(int, r[0])),
        str(r[1]),
        int(cast(int, r[2])),
        str(r[3]),
        Creator(int(cast(int, r[4])), str(r[5])),
        _dt(r[6]),
    )


def _run(r: Sequence[object]) -> ProgramRun:
    return ProgramRun(
        int(cast(int, r[0])),
        str(r[1]),
        int(cast(int, r[2])),
        str(r[3]),
        _dt(r[4]),
        cast(RunState, r[5]),
        Creator(int(cast(int, r[6])), str(r[7])),
        _dt(r[8]),
        cast("str | None", r[9]),
        None if r[10] is None else int(cast(int, r[10])),
    )


class ProgramStore:
    """The programs and their runs in the shared database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- programs -------------------------------------------------------------------------------

    async def save(self, name: str, steps: str, by: Creator, now: datetime) -> Program:
        """A new version of `name` (1 for a new name) with these steps."""
        newest = select(func.coalesce(func.max(programs.c.version), 0)).where(
            programs.c.name == name
        )
        for _try in range(SAVE_TRIES):
            try:
                async with self.db.begin() as conn:
                    version = int((await conn.execute(newest)).scalar_one()) + 1
                    row = (
                        await conn.execute(
                            programs.insert()
                            .values(
                                name=name,
                                version=version,
                                steps=steps,
                                created_by_id=by.id,
                                created_by_name=by.name,
                                created_at=now.timestamp(),
                            )
                            .returning(*_PROGRAM)
                        )
                    ).one()
                return _program(row)
            except IntegrityError:  # another process saved this version first: the next one
                continue
        raise RuntimeError(f"program {name!r}: no free version after {SAVE_TRIES} tries")

    async def latest(self, name: str) -> Program | None:
        query = (
            select(*_PROGRAM)
            .where(programs.c.name == name)
            .order_by(programs.c.version.desc())
            .limit(1)
        )
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _program(row)

    async def version(self, name: str, version: int) -> Program | None:
        query = select(*_PROGRAM).where(programs.c.name == name, programs.c.version == version)
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _program(row)

    async def programs(self, limit: int = 100) -> list[Program]:
        """The newest version of each name, by name."""
        newest = (
            select(programs.c.name, func.max(programs.c.version).label("v"))
            .group_by(programs.c.name)
            .subquery()
        )
        query = (
            select(*_PROGRAM)
            .join(
                newest,
                (programs.c.name == newest.c.name) & (programs.c.version == newest.c.v),
            )
            .order_by(programs.c.name)
            .limit(limit)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_program(r) for r in rows]

    async def drop(self, program: Program) -> bool:
        """Remove this saved version if no run started with it (a plan import that failed
        part-way undoes its saves); False: a run uses it, or it is gone (nothing changed)."""
        used = (
            select(program_runs.c.id)
            .where(
                program_runs.c.program == program.name,
                program_runs.c.version == program.version,
            )
            .exists()
        )
        query = programs.delete().where(programs.c.id == program.id, ~used)
        async with self.db.begin() as conn:
            return bool((await conn.execute(query)).rowcount)

    # -- runs -----------------------------------------------------------------------------------

    async def start(
        self,
        program: Program,
        server: str,
        start: datetime,
        steps: int,
        by: Creator,
        now: datetime,
        *,
        fire_id: int | None = None,
        player: str | None = None,
        occurrence: tuple[int, datetime] | None = None,
    ) -> ProgramRun:
        """A new running run of this version, its steps all without a row yet. A firing's run
        is made once: a second start of the same `fire_id` returns the first run. So is a
        repeat's `occurrence` (repeat id, instant) on this server, recorded in the same
        transaction; OccurrenceDecided: it was recorded missed or refused."""
        try:
            async with self.db.begin() as conn:
                row = (
                    await conn.execute(
                        program_runs.insert()
                        .values(
                            program=program.name,
                            version=program.version,
                            server=server,
                            start=start.timestamp(),
                            state="running",
                            created_by_id=by.id,
                            created_by_name=by.name,
                            created_at=now.timestamp(),
                            fire_id=fire_id,
                            player=player,
                        )
                        .returning(*_RUN)
                    )
                ).one()
                run = _run(row)
                await conn.execute(
                    program_steps.insert(),
                    [{"run_id": run.id, "step": n} for n in range(1, steps + 1)],
                )
                if occurrence is not None:
                    await conn.execute(
                        program_repeat_runs.insert().values(
                            repeat_id=occurrence[0],
                            server=server,
                            occurrence=occurrence[1].timestamp(),
                            run_id=run.id,
                            state="started",
                            skipped=0,
                            at=now.timestamp(),
                        )
                    )
        except IntegrityError:
            if occurrence is not None:
                return await self._run_of_occurrence(server, *occurrence)
            if fire_id is None:
                raise
            found = await self.run_of_fire(fire_id)
            if found is None:
                raise
            return found
        return run

    async def _run_of_occurrence(self, server: str, repeat_id: int, at: datetime) -> ProgramRun:
        query = (
            select(*_RUN)
            .select_from(program_repeat_runs)
            .outerjoin(program_runs, program_runs.c.id == program_repeat_runs.c.run_id)
            .where(
                program_repeat_runs.c.repeat_id == repeat_id,
                program_repeat_runs.c.server == server,
                program_repeat_runs.c.occurrence == at.timestamp(),
            )
        )
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None or row[0] is None:
            raise OccurrenceDecided(f"repeat {repeat_id} on {server} at {at.isoformat()}")
        return _run(row)

    async def run_of_fire(self, fire_id: int) -> ProgramRun | None:
        query = select(*_RUN).where(program_runs.c.fire_id == fire_id)
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _run(row)

    async def run(self, run_id: int) -> ProgramRun | None:
        async with self.db.connect() as conn:
            row = (await conn.execute(select(*_RUN).where(program_runs.c.id == run_id))).first()
        return None if row is None else _run(row)

    async def runs(
        self,
        states: Sequence[RunState] | None = None,
        servers: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[ProgramRun]:
        """Runs, newest first, of these states and servers (None: any)."""
        query = select(*_RUN).order_by(program_runs.c.id.desc()).limit(limit)
        if states is not None:
            query = query.where(program_runs.c.state.in_(list(states)))
        if servers is not None:
            query = query.where(program_runs.c.server.in_(list(servers)))
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_run(r) for r in rows]

    async def set_state(
        self, run_id: int, state: RunState, was: Sequence[RunState]
    ) -> ProgramRun | None:
        """Move a run to `state` if it is in one of `was`; None: it was not (nothing changed)."""
        query = (
            update(program_runs)
            .where(program_runs.c.id == run_id, program_runs.c.state.in_(list(was)))
            .values(state=state)
            .returning(*_RUN)
        )
        async with self.db.begin() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _run(row)

    # -- steps ----------------------------------------------------------------------------------

    async def steps(self, run_id: int) -> list[StepLink]:
        query = (
            select(program_steps.c.step, program_steps.c.schedule_id, program_steps.c.status)
            .where(program_steps.c.run_id == run_id)
            .order_by(program_steps.c.step)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            StepLink(int(r[0]), None if r[1] is None else int(r[1]), cast("str | None", r[2]))
            for r in rows
        ]

    async def link(self, run_id: int, step: int, schedule_id: int) -> bool:
        """The step's planned row, if it has none and no status yet; False: it has (nothing
        changed)."""
        query = (
            update(program_steps)
            .where(
                program_steps.c.run_id == run_id,
                program_steps.c.step == step,
                program_steps.c.schedule_id.is_(None),
                program_steps.c.status.is_(None),
            )
            .values(schedule_id=schedule_id)
        )
        async with self.db.begin() as conn:
            return bool((await conn.execute(query)).rowcount)

    async def mark(self, run_id: int, step: int, status: str) -> bool:
        """What the program decided of a step (skipped, cancelled), if nothing was yet."""
        query = (
            update(program_steps)
            .where(
                program_steps.c.run_id == run_id,
                program_steps.c.step == step,
                program_steps.c.status.is_(None),
            )
            .values(status=status)
        )
        async with self.db.begin() as conn:
            return bool((await conn.execute(query)).rowcount)

    async def step_rows(self, run_ids: Sequence[int]) -> dict[int, list[StepRow]]:
        """Each run's steps with their rows and newest runs, in one query (a look at every
        running program reads them all at once)."""
        found: dict[int, list[StepRow]] = {int(i): [] for i in run_ids}
        newest = (
            select(schedule_runs.c.outcome)
            .where(schedule_runs.c.schedule_id == program_steps.c.schedule_id)
            .order_by(schedule_runs.c.id.desc())
            .limit(1)
            .correlate(program_steps)
            .scalar_subquery()
        )
        ids = list(found)
        async with self.db.connect() as conn:
            for at in range(0, len(ids), _CHUNK):
                query = (
                    select(
                        program_steps.c.run_id,
                        program_steps.c.step,
                        program_steps.c.schedule_id,
                        program_steps.c.status,
                        schedules.c.state,
                        schedules.c.at,
                        func.coalesce(newest, schedules.c.last_outcome),
                    )
                    .outerjoin(schedules, schedules.c.id == program_steps.c.schedule_id)
                    .where(program_steps.c.run_id.in_(ids[at : at + _CHUNK]))
                    .order_by(program_steps.c.run_id, program_steps.c.step)
                )
                for r in (await conn.execute(query)).all():
                    found[int(r[0])].append(
                        StepRow(
                            int(r[1]),
                            None if r[2] is None else int(r[2]),
                            cast("str | None", r[3]),
                            cast("str | None", r[4]),
                            None if r[5] is None else _dt(r[5]),
                            cast("str | None", r[6]),
                        )
                    )
        return found
