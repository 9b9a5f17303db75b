"""The run record of the wall-clock schedules (`schedule_runs`, part of the `schedules`
component: bot.store.schedules owns its migrations): the Run value and the queries the run
history, /metrics and the health checks make of it."""

from __future__ import annotations

__all__ = ["RUN_COLUMNS", "Run", "RunQueries", "run_of"]

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, cast

from bot.store.db import Database


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


RUN_COLUMNS = (
    "id, schedule_id, due, handed_over, ran_in_game, lateness, outcome, triggered_by, attempts"
)


class RunQueries:
    """What is read and written of the run record beyond a run's own life (ScheduleStore has
    this; it needs the store's `db` and `migrate`)."""

    db: Database
    if TYPE_CHECKING:  # the store's own (bot.store.schedules.ScheduleStore)

        async def migrate(self) -> None: ...
        def migrate_sync(self) -> None: ...

    async def begin_extra_run(self, schedule_id: int, due: datetime, triggered_by: str) -> int:
        """Record a run someone asked for now (`sending`), leaving the row's next due and
        state as they are: an extra run, not one of its schedule's."""
        await self.migrate()

        def work(db: sqlite3.Connection) -> int:
            cur = db.execute(
                "INSERT INTO schedule_runs (schedule_id, due, outcome, triggered_by)"
                " VALUES (?, ?, 'sending', ?)",
                (schedule_id, due.timestamp(), triggered_by),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

        return await self.db.run(work)

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
        await self.migrate()

        def work(db: sqlite3.Connection) -> bool:
            rows = db.execute(
                "SELECT id, due, ran_in_game, lateness, outcome, handed_over FROM schedule_runs"
                " WHERE schedule_id = ?"
                " AND outcome IN ('sending', 'queued', 'waiting_player', 'paused', 'ran')"
                " ORDER BY id DESC LIMIT 50",
                (schedule_id,),
            ).fetchall()
            found = [r for r in rows if int(float(r[1]) * 1000) == due_ms]
            if not found:
                return False
            run_id, due, ran_before, lateness, was, handed = found[0]
            if outcome == "ran" and ran is not None and ran_before is None:
                # an estimate from game time (RunHistory.ran_at): never before its hand-over
                ran_before = max(ran.timestamp(), float(handed or 0.0))
                if lateness is None:
                    lateness = max(0.0, ran_before - float(due))
            # a run still being handed over keeps `sending`: its hand-over says the outcome
            said = was if was == "sending" else outcome
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(
                    "UPDATE schedule_runs SET outcome = ?, ran_in_game = ?, lateness = ?"
                    " WHERE id = ?",
                    (said, ran_before, lateness, run_id),
                )
                db.execute(
                    "UPDATE schedules SET last_outcome = ?, last_lateness = ?"
                    " WHERE id = ? AND last_due = ?",
                    (said, lateness, schedule_id, due),
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return True

        changed: bool = await self.db.run(work)
        return changed

    async def get_run(self, run_id: int) -> Run | None:
        await self.migrate()
        row = await self.db.run(
            lambda db: db.execute(
                f"SELECT {RUN_COLUMNS} FROM schedule_runs WHERE id = ?", (run_id,)
            ).fetchone()
        )
        return None if row is None else run_of(row)

    async def history(
        self, schedule_ids: Sequence[int], *, offset: int = 0, limit: int = 10
    ) -> tuple[list[Run], int]:
        """The runs of these schedules (one task id's rows over time), newest first, a page of
        them and how many there are."""
        await self.migrate()
        ids = [int(i) for i in schedule_ids]
        if not ids:
            return [], 0
        marks = ", ".join("?" * len(ids))

        def work(db: sqlite3.Connection) -> tuple[list[Run], int]:
            where = f"schedule_id IN ({marks})"
            total = db.execute(f"SELECT COUNT(*) FROM schedule_runs WHERE {where}", ids)
            rows = db.execute(
                f"SELECT {RUN_COLUMNS} FROM schedule_runs WHERE {where}"
                " ORDER BY due DESC, id DESC LIMIT ? OFFSET ?",
                (*ids, limit, offset),
            ).fetchall()
            return [run_of(r) for r in rows], int(total.fetchone()[0])

        return await self.db.run(work)

    async def prune_runs(self, before: datetime) -> int:
        """Forget the finished runs due before `before` (the history's retention); a run still
        being handed over stays."""
        await self.migrate()
        cur = await self.db.run(
            lambda db: db.execute(
                "DELETE FROM schedule_runs WHERE due < ? AND outcome != 'sending'",
                (before.timestamp(),),
            )
        )
        return int(cur.rowcount)

    async def finished_after(
        self, run_id: int, limit: int = 500
    ) -> tuple[list[tuple[int, str, float | None]], int | None]:
        """(id, server, lateness) of the finished runs after `run_id`, oldest first, and the
        oldest run after it still being handed over (it finishes later: a reader's mark may
        not pass it)."""
        await self.migrate()

        def work(db: sqlite3.Connection) -> tuple[list[tuple[int, str, float | None]], int | None]:
            rows = db.execute(
                "SELECT r.id, s.server, r.lateness FROM schedule_runs r"
                " JOIN schedules s ON s.id = r.schedule_id"
                " WHERE r.id > ? AND r.outcome != 'sending' ORDER BY r.id LIMIT ?",
                (run_id, limit),
            ).fetchall()
            sending = db.execute(
                "SELECT MIN(id) FROM schedule_runs WHERE id > ? AND outcome = 'sending'",
                (run_id,),
            ).fetchone()[0]
            found = [(int(r[0]), str(r[1]), cast("float | None", r[2])) for r in rows]
            return found, None if sending is None else int(sending)

        return await self.db.run(work)

    async def handed_not_ran(
        self, server: str, before: datetime, since: datetime, limit: int = 20
    ) -> list[tuple[Run, str, int]]:
        """(run, task id, serial) of a server's runs handed over between `since` and `before`
        that the pack had not run then (outcome `queued`: retrying, or held by its cap)."""
        await self.migrate()

        def work(db: sqlite3.Connection) -> list[tuple[Run, str, int]]:
            rows = db.execute(
                "SELECT r.id, r.schedule_id, r.due, r.handed_over, r.ran_in_game, r.lateness,"
                " r.outcome, r.triggered_by, r.attempts, s.server, s.task_id, r.serial"
                " FROM schedule_runs r JOIN schedules s ON s.id = r.schedule_id"
                " WHERE s.server = ? AND r.outcome = 'queued' AND r.serial IS NOT NULL"
                " AND r.handed_over < ? AND r.handed_over >= ? ORDER BY r.id LIMIT ?",
                (server, before.timestamp(), since.timestamp(), limit),
            ).fetchall()
            return [(run_of(r[:9]), str(r[10]), int(r[11])) for r in rows]

        return await self.db.run(work)

    def last_run_id_sync(self) -> int:
        """The newest run's id (0: none), read in this thread (start-up code)."""
        self.migrate_sync()
        row = self.db.run_sync(
            lambda db: db.execute("SELECT MAX(id) FROM schedule_runs").fetchone()
        )
        return int(row[0] or 0)
