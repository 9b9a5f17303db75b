"""The runs of game-time tasks the bot knows of: the `task_runs` component of the database.

The pack says nothing when a task succeeds (datapack/README.md, "Events"), so what the bot knows
of a game-time task's runs is what it did itself (a run-now copy it handed over and saw run) and
the pack's events about the tasks it made (a retry, out of retries, parked for its player, its
entity gone, its command invalid). Wall-clock runs are kept with their rows (bot.store.schedules).
"""

from __future__ import annotations

__all__ = ["TaskRun", "TaskRunStore"]

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import cast

from bot.store.db import Database

_MIGRATIONS = [
    """
CREATE TABLE task_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    task_id TEXT NOT NULL,
    due REAL NOT NULL,            -- when it was due (the run's time less its lateness)
    handed_over REAL,             -- a run-now copy: when the pack acknowledged it
    ran REAL,                     -- when it ran, when known
    lateness REAL,                -- seconds after its due that it ran
    outcome TEXT NOT NULL,        -- ran, queued, retry, retry_exhausted, offline, dropped, ...
    attempts INTEGER NOT NULL DEFAULT 1,
    triggered_by TEXT             -- who ran it now; NULL: it ran at its own time
);
CREATE INDEX task_runs_task ON task_runs (server, task_id, due);
CREATE INDEX task_runs_due ON task_runs (due);
""",
]
_COLUMNS = "id, server, task_id, due, handed_over, ran, lateness, outcome, attempts, triggered_by"


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
        self._migrated = False

    async def migrate(self) -> None:
        if not self._migrated:
            await self.db.migrate("task_runs", _MIGRATIONS)
            self._migrated = True

    def last_id_sync(self) -> int:
        """The newest run's id (0: none), read in this thread (start-up code)."""
        if not self._migrated:
            self.db.migrate_sync("task_runs", _MIGRATIONS)
            self._migrated = True
        row = self.db.run_sync(lambda db: db.execute("SELECT MAX(id) FROM task_runs").fetchone())
        return int(row[0] or 0)

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
        await self.migrate()
        values = (
            server,
            task_id,
            due.timestamp(),
            _ts(handed_over),
            _ts(ran),
            lateness,
            outcome,
            attempts,
            triggered_by,
        )

        def work(db: sqlite3.Connection) -> int:
            cur = db.execute(
                f"INSERT INTO task_runs ({_COLUMNS.removeprefix('id, ')})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

        return await self.db.run(work)

    async def amend_last_ran(
        self, server: str, task_id: str, *, outcome: str, attempts: int
    ) -> bool:
        """Give the newest run of this task still said as `ran` its outcome (the pack says a
        task's run before its command, and a failure right after); False when there is none."""
        await self.migrate()

        def work(db: sqlite3.Connection) -> bool:
            cur = db.execute(
                "UPDATE task_runs SET outcome = ?, attempts = ? WHERE id = (SELECT id FROM"
                " task_runs WHERE server = ? AND task_id = ? AND outcome = 'ran'"
                " ORDER BY id DESC LIMIT 1)",
                (outcome, attempts, server, task_id),
            )
            return cur.rowcount > 0

        changed: bool = await self.db.run(work)
        return changed

    async def runs(
        self, server: str, task_id: str, *, offset: int = 0, limit: int = 10
    ) -> tuple[list[TaskRun], int]:
        """A page of one task id's runs, newest first, and how many there are."""
        await self.migrate()

        def work(db: sqlite3.Connection) -> tuple[list[TaskRun], int]:
            key = (server, task_id)
            total = db.execute(
                "SELECT COUNT(*) FROM task_runs WHERE server = ? AND task_id = ?", key
            ).fetchone()[0]
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM task_runs WHERE server = ? AND task_id = ?"
                " ORDER BY due DESC, id DESC LIMIT ? OFFSET ?",
                (*key, limit, offset),
            ).fetchall()
            return [_run(r) for r in rows], int(total)

        return await self.db.run(work)

    async def after(self, run_id: int, limit: int = 500) -> list[TaskRun]:
        """Runs recorded after `run_id`, oldest first (what /metrics has not seen yet)."""
        await self.migrate()
        rows = await self.db.run(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM task_runs WHERE id > ? ORDER BY id LIMIT ?",
                (run_id, limit),
            ).fetchall()
        )
        return [_run(r) for r in rows]

    async def prune(self, before: datetime) -> int:
        """Forget the runs due before `before` (the history's retention)."""
        await self.migrate()
        cur = await self.db.run(
            lambda db: db.execute("DELETE FROM task_runs WHERE due < ?", (before.timestamp(),))
        )
        return int(cur.rowcount)
