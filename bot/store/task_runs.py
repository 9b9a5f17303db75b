"""The runs of game-time tasks the bot knows of: the `task_runs` component of the database.

The pack says nothing when a task succeeds (datapack/README.md, "Events"), so what the bot knows
of a game-time task's runs is what it did itself (a run-now copy it handed over and saw run) and
the pack's events about the tasks it made (a retry, out of retries, parked for its player, its
entity gone, its command invalid). Wall-clock runs are kept with their rows (bot.store.schedules).
"""

from __future__ import annotations

__all__ = ["TaskRun", "TaskRunStore"]

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import cast

from sqlalchemy import delete, func, select, update

from bot.store.db import Database
from bot.store.tables import task_runs

_COLUMNS = (
    task_runs.c.id,
    task_runs.c.server,
    task_runs.c.task_id,
    task_runs.c.due,
    task_runs.c.handed_over,
    task_runs.c.ran,
    task_runs.c.lateness,
    task_runs.c.outcome,
    task_runs.c.attempts,
    task_runs.c.triggered_by,
)


def _ts(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def _dt(value: object) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(float(cast(float, value)), UTC)


@dataclass(frozen=True, slots=True)
class TaskRun:
    """One run of a game-time task, as far as the bot knows it."""

    id: int
    server: str
    task_id: str
    due: datetime
    handed_over: datetime | None
    ran: datetime | None
    lateness: float | None
    outcome: str
    attempts: int
    triggered_by: str | None


def _run(row: Sequence[object]) -> TaskRun:
    due = _dt(row[3])
    assert due is not None
    return TaskRun(
        id=int(cast(int, row[0])),
        server=str(row[1]),
        task_id=str(row[2]),
        due=due,
        handed_over=_dt(row[4]),
        ran=_dt(row[5]),
        lateness=cast("float | None", row[6]),
        outcome=str(row[7]),
        attempts=int(cast(int, row[8])),
        triggered_by=cast("str | None", row[9]),
    )


class TaskRunStore:
    """The game-time runs in the shared database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def last_id(self) -> int:
        """The newest run's id (0: none)."""
        async with self.db.connect() as conn:
            newest = (await conn.execute(select(func.max(task_runs.c.id)))).scalar()
        return int(newest or 0)

    async def record(
        self,
        server: str,
        task_id: str,
        *,
        due: datetime,
        outcome: str,
        handed_over: datetime | None = None,
        ran: datetime | None = None,
        lateness: float | None = None,
        attempts: int = 1,
        triggered_by: str | None = None,
    ) -> int:
        query = (
            task_runs.insert()
            .values(
                server=server,
                task_id=task_id,
                due=due.timestamp(),
                handed_over=_ts(handed_over),
                ran=_ts(ran),
                lateness=lateness,
                outcome=outcome,
                attempts=attempts,
                triggered_by=triggered_by,
            )
            .returning(task_runs.c.id)
        )
        async with self.db.begin() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def amend_last_ran(
        self, server: str, task_id: str, *, outcome: str, attempts: int
    ) -> bool:
        """Give the newest run of this task still said as `ran` its outcome (the pack says a
        task's run before its command, and a failure right after); False when there is none."""
        t = task_runs.c
        newest = (
            select(t.id)
            .where(t.server == server, t.task_id == task_id, t.outcome == "ran")
            .order_by(t.id.desc())
            .limit(1)
            .scalar_subquery()
        )
        query = (
            update(task_runs)
            .where(t.id == newest)
            .values(outcome=outcome, attempts=attempts)
            .returning(t.id)
        )
        async with self.db.begin() as conn:
            return (await conn.execute(query)).first() is not None

    async def runs(
        self, server: str, task_id: str, *, offset: int = 0, limit: int = 10
    ) -> tuple[list[TaskRun], int]:
        """A page of one task id's runs, newest first, and how many there are."""
        t = task_runs.c
        this = (t.server == server) & (t.task_id == task_id)
        page = (
            select(*_COLUMNS)
            .where(this)
            .order_by(t.due.desc(), t.id.desc())
            .limit(limit)
            .offset(offset)
        )
        async with self.db.connect() as conn:
            total = (
                await conn.execute(select(func.count()).select_from(task_runs).where(this))
            ).scalar_one()
            rows = (await conn.execute(page)).all()
        return [_run(r) for r in rows], int(total)

    async def after(self, run_id: int, limit: int = 500) -> list[TaskRun]:
        """Runs recorded after `run_id`, oldest first (what /metrics has not seen yet)."""
        query = (
            select(*_COLUMNS).where(task_runs.c.id > run_id).order_by(task_runs.c.id).limit(limit)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_run(r) for r in rows]

    async def prune(self, before: datetime) -> int:
        """Forget the runs due before `before` (the history's retention)."""
        query = delete(task_runs).where(task_runs.c.due < before.timestamp())
        async with self.db.begin() as conn:
            return int((await conn.execute(query)).rowcount)
