"""The wall-clock schedule table and its run record: the `schedules` component of the database.

A row is one moderator's plan ("fri 20:00", "every 30m", "0 20 * * fri" in Europe/Berlin); a run
is one due time of it. Times are stored as UTC epoch seconds (REAL), so the due index sorts.

Never twice: :meth:`ScheduleStore.begin_run` writes the run (outcome ``sending``) and moves the
row to its next due in one transaction *before* the hand-over is attempted, so a bot that dies
mid-hand-over finds the run on start-up and asks the server whether it has it instead of sending
it again (bot.wallclock.scheduler).
"""

from __future__ import annotations

__all__ = ["ACTIVE_STATES", "Creator", "OnDoubt", "Run", "Schedule", "ScheduleStore", "State"]

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, cast

from bot.store.db import Database
from bot.store.schedule_runs import RUN_COLUMNS, Run, RunQueries, run_of
from bot.times.when import Kind, Missed, Spec

State = Literal["active", "paused", "done", "cancelled", "missed"]
ACTIVE_STATES: tuple[State, ...] = ("active", "paused")
# what the crash guard does with a run a crash leaves unknown (bot.background.doubt)
OnDoubt = Literal["skip", "run"]

_MIGRATIONS = [
    """
CREATE TABLE schedules (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    command TEXT NOT NULL,
    task_id TEXT NOT NULL,
    retry INTEGER NOT NULL DEFAULT 0,
    retry_delay INTEGER NOT NULL DEFAULT 1,
    as_player TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('at', 'every', 'cron')),
    at REAL,                      -- kind at: the instant
    every INTEGER,                -- kind every: seconds
    anchor REAL,                  -- kind every: boundaries are anchor + k*every
    cron TEXT,                    -- kind cron: 5 fields read in `timezone`
    timezone TEXT NOT NULL,
    missed TEXT NOT NULL CHECK (missed IN ('skip', 'once')),
    announce TEXT NOT NULL DEFAULT '',   -- seconds before each run, comma separated
    created_by_id INTEGER NOT NULL,
    created_by_name TEXT NOT NULL,
    created_at REAL NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('active', 'paused', 'done', 'cancelled', 'missed')),
    next_due REAL,
    last_due REAL,
    last_outcome TEXT,
    last_lateness REAL,
    run_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX schedules_due ON schedules (state, next_due);
CREATE INDEX schedules_server ON schedules (server, state, next_due);
CREATE INDEX schedules_task ON schedules (server, task_id, state);
CREATE TABLE schedule_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    schedule_id INTEGER NOT NULL REFERENCES schedules (id),
    due REAL NOT NULL,
    handed_over REAL,             -- when the pack acknowledged the task
    ran_in_game REAL,             -- when the command ran in game, when known
    lateness REAL,                -- seconds from due to hand-over
    outcome TEXT NOT NULL         -- sending, ran, queued, waiting_player, missed, skipped, ...
);
CREATE INDEX schedule_runs_schedule ON schedule_runs (schedule_id, id);
CREATE INDEX schedule_runs_sending ON schedule_runs (outcome) WHERE outcome = 'sending';
""",
    """
ALTER TABLE schedule_runs ADD COLUMN triggered_by TEXT;  -- who ran it now; NULL: its schedule
ALTER TABLE schedule_runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;  -- hand-over attempts
ALTER TABLE schedule_runs ADD COLUMN serial INTEGER;  -- the pack's serial of the handed-over task
CREATE INDEX schedule_runs_due ON schedule_runs (due);
""",
    """
ALTER TABLE schedules ADD COLUMN conditions TEXT;  -- JSON: require, if_not, ...; NULL: none
""",
    """
ALTER TABLE schedules ADD COLUMN on_doubt TEXT;  -- 'run'; NULL: skip (the default)
""",
]
_COLUMNS = (
    "id, server, command, task_id, retry, retry_delay, as_player, kind, at, every, anchor, cron,"
    " timezone, missed, announce, created_by_id, created_by_name, created_at, state, next_due,"
    " last_due, last_outcome, last_lateness, run_count, conditions, on_doubt"
)


def _ts(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def _dt(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


@dataclass(frozen=True, slots=True)
class Creator:
    id: int
    name: str


@dataclass(frozen=True, slots=True)
class Schedule:
    """One wall-clock schedule as stored."""

    id: int
    server: str
    command: str
    task_id: str
    retry: int
    retry_delay: int
    as_player: str | None
    kind: Kind
    at: datetime | None
    every: int | None
    anchor: datetime | None
    cron: str | None
    timezone: str
    missed: Missed
    announce: tuple[int, ...]
    created_by: Creator
    created_at: datetime
    state: State
    next_due: datetime | None
    last_due: datetime | None = None
    last_outcome: str | None = None
    last_lateness: float | None = None
    run_count: int = 0
    # the condition options as given (bot.minecraft.conditions: require, if_not, max_wait,
    # after_wait)
    conditions: Mapping[str, str] | None = None
    on_doubt: OnDoubt = "skip"

    @property
    def spec(self) -> Spec:
        """The time part, as bot.times.when computes with it."""
        first = self.next_due or self.at or self.anchor or self.created_at
        return Spec(
            self.kind,
            first,
            self.timezone,
            self.at,
            self.every,
            self.anchor,
            self.cron,
            self.announce,
            self.missed,
        )


def _schedule(row: Sequence[object]) -> Schedule:
    r = list(row)
    announce = tuple(int(x) for x in str(r[14]).split(",") if x)
    return Schedule(
        id=int(cast(int, r[0])),
        server=str(r[1]),
        command=str(r[2]),
        task_id=str(r[3]),
        retry=int(cast(int, r[4])),
        retry_delay=int(cast(int, r[5])),
        as_player=cast("str | None", r[6]),
        kind=cast(Kind, r[7]),
        at=_dt(cast("float | None", r[8])),
        every=cast("int | None", r[9]),
        anchor=_dt(cast("float | None", r[10])),
        cron=cast("str | None", r[11]),
        timezone=str(r[12]),
        missed=cast(Missed, r[13]),
        announce=announce,
        created_by=Creator(int(cast(int, r[15])), str(r[16])),
        created_at=datetime.fromtimestamp(float(cast(float, r[17])), UTC),
        state=cast(State, r[18]),
        next_due=_dt(cast("float | None", r[19])),
        last_due=_dt(cast("float | None", r[20])),
        last_outcome=cast("str | None", r[21]),
        last_lateness=cast("float | None", r[22]),
        run_count=int(cast(int, r[23])),
        conditions=_conditions(r[24]),
        on_doubt="run" if r[25] == "run" else "skip",
    )


def _conditions(value: object) -> dict[str, str] | None:
    if not isinstance(value, str):
        return None
    loaded = json.loads(value)
    if not isinstance(loaded, dict):
        return None
    return {str(k): str(v) for k, v in loaded.items()}


class ScheduleStore(RunQueries):
    """The schedule rows and their runs in the shared database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._migrated = False

    async def migrate(self) -> None:
        if not self._migrated:
            await self.db.migrate("schedules", _MIGRATIONS)
            self._migrated = True

    def migrate_sync(self) -> None:
        if not self._migrated:
            self.db.migrate_sync("schedules", _MIGRATIONS)
            self._migrated = True

    # -- rows -----------------------------------------------------------------------------------

    async def insert(
        self,
        spec: Spec,
        *,
        server: str,
        command: str,
        task_id: str,
        retry: int = 0,
        retry_delay: int = 1,
        as_player: str | None = None,
        created_by: Creator,
        now: datetime,
        conditions: Mapping[str, str] | None = None,
        on_doubt: OnDoubt = "skip",
    ) -> Schedule:
        await self.migrate()
        values = (
            server,
            command,
            task_id,
            retry,
            retry_delay,
            as_player,
            spec.kind,
            _ts(spec.at),
            spec.every,
            _ts(spec.anchor),
            spec.cron,
            spec.timezone,
            spec.missed,
            ",".join(str(x) for x in spec.announce),
            created_by.id,
            created_by.name,
            now.timestamp(),
            "active",
            spec.first_due.timestamp(),
            json.dumps(dict(conditions)) if conditions else None,
            "run" if on_doubt == "run" else None,
        )

        def work(db: sqlite3.Connection) -> Schedule:
            cur = db.execute(
                "INSERT INTO schedules (server, command, task_id, retry, retry_delay, as_player,"
                " kind, at, every, anchor, cron, timezone, missed, announce, created_by_id,"
                " created_by_name, created_at, state, next_due, conditions, on_doubt)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
            row = db.execute(
                f"SELECT {_COLUMNS} FROM schedules WHERE id = ?", (cur.lastrowid,)
            ).fetchone()
            return _schedule(row)

        return await self.db.run(work)

    async def get(self, schedule_id: int) -> Schedule | None:
        await self.migrate()
        row = await self.db.run(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM schedules WHERE id = ?", (schedule_id,)
            ).fetchone()
        )
        return None if row is None else _schedule(row)

    async def find(self, server: str, task_id: str) -> Schedule | None:
        """The active or paused row of this server with this task id (ids are unique there)."""
        await self.migrate()
        row = await self.db.run(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM schedules WHERE server = ? AND task_id = ?"
                " AND state IN ('active', 'paused') ORDER BY id LIMIT 1",
                (server, task_id),
            ).fetchone()
        )
        return None if row is None else _schedule(row)

    async def active(self) -> list[Schedule]:
        """Every row the scheduler must keep an eye on (state active)."""
        await self.migrate()
        rows = await self.db.run(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM schedules WHERE state = 'active'"
            ).fetchall()
        )
        return [_schedule(r) for r in rows]

    async def armed(self) -> list[tuple[int, float, tuple[int, ...]]]:
        """(id, next due, announce offsets) of every active row with a next due: what the
        scheduler keeps in memory (the rows themselves are read when they fire)."""
        await self.migrate()
        rows = await self.db.run(
            lambda db: db.execute(
                "SELECT id, next_due, announce FROM schedules"
                " WHERE state = 'active' AND next_due IS NOT NULL"
            ).fetchall()
        )
        return [
            (int(r[0]), float(r[1]), tuple(int(x) for x in str(r[2]).split(",") if x)) for r in rows
        ]

    async def set_state(
        self, schedule_id: int, state: State, next_due: datetime | None
    ) -> Schedule | None:
        await self.migrate()

        def work(db: sqlite3.Connection) -> Schedule | None:
            db.execute(
                "UPDATE schedules SET state = ?, next_due = ? WHERE id = ?",
                (state, _ts(next_due), schedule_id),
            )
            row = db.execute(
                f"SELECT {_COLUMNS} FROM schedules WHERE id = ?", (schedule_id,)
            ).fetchone()
            return None if row is None else _schedule(row)

        return await self.db.run(work)

    async def planned(
        self, server: str, *, offset: int = 0, limit: int = 20, search: str = ""
    ) -> tuple[list[Schedule], int]:
        """Active and paused rows of a server, soonest first, and how many there are."""
        await self.migrate()
        like = f"%{search.replace('%', '').replace('_', '')}%"

        def work(db: sqlite3.Connection) -> tuple[list[Schedule], int]:
            where = (
                "server = ? AND state IN ('active', 'paused')"
                " AND (task_id LIKE ? OR command LIKE ?)"
            )
            total = db.execute(
                f"SELECT COUNT(*) FROM schedules WHERE {where}", (server, like, like)
            ).fetchone()[0]
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM schedules WHERE {where}"
                " ORDER BY state = 'paused', next_due, id LIMIT ? OFFSET ?",
                (server, like, like, limit, offset),
            ).fetchall()
            return [_schedule(r) for r in rows], int(total)

        return await self.db.run(work)

    async def in_states(
        self, server: str, states: Sequence[State], limit: int = 1000
    ) -> list[Schedule]:
        """A server's rows in these states, newest first, at most `limit`."""
        await self.migrate()
        marks = ", ".join("?" for _ in states)
        rows = await self.db.run(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM schedules WHERE server = ? AND state IN ({marks})"
                " ORDER BY id DESC LIMIT ?",
                (server, *states, limit),
            ).fetchall()
        )
        return [_schedule(r) for r in rows]

    async def task_ids(self, server: str, prefix: str, limit: int) -> list[str]:
        """Task ids of active/paused rows starting with (then containing) `prefix`."""
        await self.migrate()
        low = prefix.lower()
        rows = await self.db.run(
            lambda db: db.execute(
                "SELECT DISTINCT task_id FROM schedules WHERE server = ?"
                " AND state IN ('active', 'paused') ORDER BY task_id",
                (server,),
            ).fetchall()
        )
        ids = [str(r[0]) for r in rows]
        ranked = [i for i in ids if i.lower().startswith(low)]
        ranked += [i for i in ids if low in i.lower() and i not in ranked]
        return ranked[:limit]

    # -- runs -----------------------------------------------------------------------------------

    async def begin_run(
        self, schedule_id: int, due: datetime, next_due: datetime | None, state: State
    ) -> int:
        """Record a run as `sending` and move its row on, in one transaction: the run exists in
        the record before the server is asked, so it can never be sent twice."""
        await self.migrate()

        def work(db: sqlite3.Connection) -> int:
            db.execute("BEGIN IMMEDIATE")
            try:
                cur = db.execute(
                    "INSERT INTO schedule_runs (schedule_id, due, outcome)"
                    " VALUES (?, ?, 'sending')",
                    (schedule_id, due.timestamp()),
                )
                db.execute(
                    "UPDATE schedules SET next_due = ?, state = ?, last_due = ?,"
                    " last_outcome = 'sending', run_count = run_count + 1 WHERE id = ?",
                    (_ts(next_due), state, due.timestamp(), schedule_id),
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            assert cur.lastrowid is not None
            return cur.lastrowid

        return await self.db.run(work)

    async def finish_run(
        self,
        run_id: int,
        outcome: str,
        *,
        handed_over: datetime | None = None,
        ran_in_game: datetime | None = None,
        lateness: float | None = None,
        state: State | None = None,
        attempts: int = 0,
        serial: int | None = None,
    ) -> None:
        """What became of a run; also the row's last outcome (and state, for a missed one-shot)."""
        await self.migrate()

        values = (outcome, _ts(handed_over), _ts(ran_in_game), lateness, attempts, serial, run_id)

        def work(db: sqlite3.Connection) -> None:
            db.execute("BEGIN IMMEDIATE")
            try:
                # a time left out is kept: the pack's `ran` may have told it first
                # (RunQueries.saw_in_game), as for a run found handed over after a restart
                db.execute(
                    "UPDATE schedule_runs SET outcome = ?, handed_over = COALESCE(?, handed_over),"
                    " ran_in_game = COALESCE(?, ran_in_game), lateness = COALESCE(?, lateness),"
                    " attempts = MAX(attempts, ?), serial = COALESCE(?, serial) WHERE id = ?",
                    values,
                )
                sid = db.execute(
                    "SELECT schedule_id FROM schedule_runs WHERE id = ?", (run_id,)
                ).fetchone()[0]
                db.execute(
                    "UPDATE schedules SET last_outcome = ?, last_lateness = ? WHERE id = ?",
                    (outcome, lateness, sid),
                )
                if state is not None:
                    db.execute("UPDATE schedules SET state = ? WHERE id = ?", (state, sid))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

        await self.db.run(work)

    async def record_missed(
        self,
        schedule_id: int,
        due: datetime,
        outcome: str,
        next_due: datetime | None,
        state: State,
    ) -> None:
        """A due time that did not run (missed, or N skipped), and the row moved on."""
        await self.migrate()

        def work(db: sqlite3.Connection) -> None:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(
                    "INSERT INTO schedule_runs (schedule_id, due, outcome) VALUES (?, ?, ?)",
                    (schedule_id, due.timestamp(), outcome),
                )
                db.execute(
                    "UPDATE schedules SET next_due = ?, state = ?, last_due = ?,"
                    " last_outcome = ? WHERE id = ?",
                    (_ts(next_due), state, due.timestamp(), outcome, schedule_id),
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

        await self.db.run(work)

    async def sending(self) -> list[Run]:
        """Runs recorded as `sending`: a hand-over the bot did not see the end of."""
        await self.migrate()
        rows = await self.db.run(
            lambda db: db.execute(
                f"SELECT {RUN_COLUMNS} FROM schedule_runs WHERE outcome = 'sending' ORDER BY id"
            ).fetchall()
        )
        return [run_of(r) for r in rows]

    async def runs(self, schedule_id: int, limit: int = 10) -> list[Run]:
        """The newest runs of a schedule, newest first."""
        await self.migrate()
        rows = await self.db.run(
            lambda db: db.execute(
                f"SELECT {RUN_COLUMNS} FROM schedule_runs WHERE schedule_id = ?"
                " ORDER BY id DESC LIMIT ?",
                (schedule_id, limit),
            ).fetchall()
        )
        return [run_of(r) for r in rows]

    async def rows_of(self, server: str, task_id: str) -> list[Schedule]:
        """Every row of this server with this task id, whatever its state, newest first."""
        await self.migrate()
        rows = await self.db.run(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM schedules WHERE server = ? AND task_id = ?"
                " ORDER BY id DESC",
                (server, task_id),
            ).fetchall()
        )
        return [_schedule(r) for r in rows]
