"""The run record of the wall-clock schedules (`schedule_runs`, beside `schedules`:
bot.store.schedules writes a run's life): the Run value and the queries the run history,
/metrics and the health checks make of it."""

from __future__ import annotations

__all__ = ["RUN_COLUMNS", "Run", "RunQueries", "run_of"]

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import cast

from sqlalchemy import case, delete, func, literal, select, update

from bot.store.db import Database
from bot.store.tables import schedule_runs as runs
from bot.store.tables import schedules


def _dt(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


@dataclass(frozen=True, slots=True)
class Run:
    """One due time of a schedule and what became of it."""

    id: int
    schedule_id: int
    due: datetime
    handed_over: datetime | None
    ran_in_game: datetime | None
    lateness: float | None  # seconds from due to hand-over
    outcome: str
    triggered_by: str | None = None  # who ran it by hand (run now); None: its schedule
    attempts: int = 0  # hand-over attempts it took


def run_of(row: Sequence[object]) -> Run:
    return Run(
        id=int(cast(int, row[0])),
        schedule_id=int(cast(int, row[1])),
        due=datetime.fromtimestamp(float(cast(float, row[2])), UTC),
        handed_over=_dt(cast("float | None", row[3])),
        ran_in_game=_dt(cast("float | None", row[4])),
        lateness=cast("float | None", row[5]),
        outcome=str(row[6]),
        triggered_by=cast("str | None", row[7]),
        attempts=int(cast(int, row[8] or 0)),
    )


# the columns run_of reads, in its order
RUN_COLUMNS = (
    runs.c.id,
    runs.c.schedule_id,
    runs.c.due,
    runs.c.handed_over,
    runs.c.ran_in_game,
    runs.c.lateness,
    runs.c.outcome,
    runs.c.triggered_by,
    runs.c.attempts,
)
# what the pack may still say of a run (saw_in_game): an open one, or one said to have run
_OPEN = ("sending", "queued", "waiting_player", "paused", "ran")


class RunQueries:
    """What is read and written of the run record beyond a run's own life (ScheduleStore has
    this; it needs the store's `db`)."""

    db: Database

    async def begin_extra_run(self, schedule_id: int, due: datetime, triggered_by: str) -> int:
        """Record a run someone asked for now (`sending`), leaving the row's next due and
        state as they are: an extra run, not one of its schedule's."""
        query = (
            runs.insert()
            .values(
                schedule_id=schedule_id,
                due=due.timestamp(),
                outcome="sending",
                triggered_by=triggered_by,
            )
            .returning(runs.c.id)
        )
        async with self.db.begin() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def saw_in_game(
        self, schedule_id: int, due_ms: int, outcome: str, ran: datetime | None
    ) -> bool:
        """What the pack said of a handed-over run (its task key names the row and the due in
        ms): `ran` with when it ran, or what became of it after (`queued` again while it
        retries, out of retries, its player gone...). Only a run still open or said to have
        run changes: a missed, skipped or cancelled one stays as it is, and one still being
        handed over keeps `sending` (its hand-over ends it; a one-shot row ends with it). A
        `ran` keeps an earlier ran time (the hand-over's own, taken as it returned); it fills
        one not known yet (a run found handed over after a restart), with its lateness as due
        to run when the hand-over's time is not known either. False: no such run."""
        query = (
            select(
                runs.c.id,
                runs.c.due,
                runs.c.ran_in_game,
                runs.c.lateness,
                runs.c.handed_over,
            )
            .where(runs.c.schedule_id == schedule_id, runs.c.outcome.in_(_OPEN))
            .order_by(runs.c.id.desc())
            .limit(50)
        )
        async with self.db.begin() as conn:
            rows = (await conn.execute(query)).all()
            found = [r for r in rows if int(float(r[1]) * 1000) == due_ms]
            if not found:
                return False
            run_id, due, ran_before, lateness, handed = found[0]
            if outcome == "ran" and ran is not None and ran_before is None:
                # an estimate from game time (RunHistory.ran_at): never before its hand-over
                ran_before = max(ran.timestamp(), float(cast(float, handed or 0.0)))
                if lateness is None:
                    lateness = max(0.0, ran_before - float(cast(float, due)))
            # A run still being handed over keeps `sending`: its hand-over says the outcome.
            # Decided by the row as it is when updated, not as read above: the hand-over's own
            # record may commit in between (its `ran` would be overwritten with `sending`,
            # and the run left open for ever), and a time it wrote is kept.
            said = case((runs.c.outcome == "sending", runs.c.outcome), else_=literal(outcome))
            await conn.execute(
                update(runs)
                .where(runs.c.id == run_id, runs.c.outcome.in_(_OPEN))
                .values(
                    outcome=said,
                    ran_in_game=func.coalesce(runs.c.ran_in_game, ran_before),
                    lateness=func.coalesce(runs.c.lateness, lateness),
                )
            )
            await conn.execute(
                update(schedules)
                .where(
                    schedules.c.id == schedule_id,
                    schedules.c.last_due == due,
                    schedules.c.last_outcome.in_(_OPEN),
                )
                .values(
                    last_outcome=case(
                        (schedules.c.last_outcome == "sending", schedules.c.last_outcome),
                        else_=literal(outcome),
                    ),
                    last_lateness=func.coalesce(schedules.c.last_lateness, lateness),
                )
            )
        return True

    async def get_run(self, run_id: int) -> Run | None:
        async with self.db.connect() as conn:
            row = (await conn.execute(select(*RUN_COLUMNS).where(runs.c.id == run_id))).first()
        return None if row is None else run_of(row)

    async def history(
        self, schedule_ids: Sequence[int], *, offset: int = 0, limit: int = 10
    ) -> tuple[list[Run], int]:
        """The runs of these schedules (one task id's rows over time), newest first, a page of
        them and how many there are."""
        ids = [int(i) for i in schedule_ids]
        if not ids:
            return [], 0
        where = runs.c.schedule_id.in_(ids)
        page = (
            select(*RUN_COLUMNS)
            .where(where)
            .order_by(runs.c.due.desc(), runs.c.id.desc())
            .limit(limit)
            .offset(offset)
        )
        async with self.db.connect() as conn:
            total = (await conn.execute(select(func.count()).where(where))).scalar_one()
            rows = (await conn.execute(page)).all()
        return [run_of(r) for r in rows], int(total)

    async def prune_runs(self, before: datetime) -> int:
        """Forget the finished runs due before `before` (the history's retention); a run still
        being handed over stays."""
        query = delete(runs).where(runs.c.due < before.timestamp(), runs.c.outcome != "sending")
        async with self.db.begin() as conn:
            return int((await conn.execute(query)).rowcount)

    async def finished_after(
        self, run_id: int, limit: int = 500
    ) -> tuple[list[tuple[int, str, float | None]], int | None]:
        """(id, server, lateness) of the finished runs after `run_id`, oldest first, and the
        oldest run after it still being handed over (it finishes later: a reader's mark may
        not pass it)."""
        finished = (
            select(runs.c.id, schedules.c.server, runs.c.lateness)
            .join(schedules, schedules.c.id == runs.c.schedule_id)
            .where(runs.c.id > run_id, runs.c.outcome != "sending")
            .order_by(runs.c.id)
            .limit(limit)
        )
        oldest_sending = select(func.min(runs.c.id)).where(
            runs.c.id > run_id, runs.c.outcome == "sending"
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(finished)).all()
            sending = (await conn.execute(oldest_sending)).scalar_one()
        found = [(int(r[0]), str(r[1]), cast("float | None", r[2])) for r in rows]
        return found, None if sending is None else int(sending)

    async def handed_not_ran(
        self, server: str, before: datetime, since: datetime, limit: int = 20
    ) -> list[tuple[Run, str, int]]:
        """(run, task id, serial) of a server's runs handed over between `since` and `before`
        that the pack had not run then (outcome `queued`: retrying, or held by its cap)."""
        query = (
            select(*RUN_COLUMNS, schedules.c.task_id, runs.c.serial)
            .join(schedules, schedules.c.id == runs.c.schedule_id)
            .where(
                schedules.c.server == server,
                runs.c.outcome == "queued",
                runs.c.serial.is_not(None),
                runs.c.handed_over < before.timestamp(),
                runs.c.handed_over >= since.timestamp(),
            )
            .order_by(runs.c.id)
            .limit(limit)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [(run_of(r[:9]), str(r[9]), int(r[10])) for r in rows]

    async def last_run_id(self) -> int:
        """The newest run's id (0: none): where a reader of the runs from now on starts."""
        async with self.db.connect() as conn:
            found = (await conn.execute(select(func.max(runs.c.id)))).scalar_one()
        return int(found or 0)
