"""The wall-clock schedule table and its run record (`schedules`, `schedule_runs`).

A row is one moderator's plan ("fri 20:00", "every 30m", "0 20 * * fri" in Europe/Berlin); a run
is one due time of it. Times are stored as UTC epoch seconds, so the due index sorts.

Never twice: :meth:`ScheduleStore.begin_run` writes the run (outcome ``sending``) and moves the
row to its next due in one transaction *before* the hand-over is attempted, so a bot that dies
mid-hand-over finds the run on start-up and asks the server whether it has it instead of sending
it again (bot.wallclock.scheduler). The database keeps the rules whichever process writes (the
unique indexes of bot.store.tables): one live row per server and task id, so a second process
adding the same id is refused in the words a taken id always gets; one run per planned due,
so a second process planning the same run is told it lost and hands nothing over.
"""

from __future__ import annotations

__all__ = [
    "ACTIVE_STATES",
    "Creator",
    "Fence",
    "OnDoubt",
    "Run",
    "Schedule",
    "ScheduleStore",
    "State",
    "taken",
]

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, cast

from sqlalchemy import Select, and_, case, func, nulls_first, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.errors import ValidationError
from bot.i18n import Text, lazy
from bot.store.db import Database, greatest
from bot.store.notify import SCHEDULES, notify
from bot.store.schedule_runs import RUN_COLUMNS, Run, RunQueries, run_of
from bot.store.tables import schedule_runs as runs
from bot.store.tables import schedules
from bot.times.dst import REPEATED, SKIPPED, DstRepeated, DstSkipped
from bot.times.when import Kind, Missed, Spec

# a check made inside a hand-over's transaction: does this process still hold the row's
# server (bot.store.leases.LeaseStore.still_held)? False: the write is not made
Fence = Callable[[AsyncConnection], Awaitable[bool]]


class _Fenced(Exception):
    """The fence said no: the transaction is rolled back, the write lost."""


State = Literal["active", "paused", "done", "cancelled", "missed"]
ACTIVE_STATES: tuple[State, ...] = ("active", "paused")
# what the crash guard does with a run a crash leaves unknown (bot.background.doubt)
OnDoubt = Literal["skip", "run"]

# the columns _schedule reads, in its order
_COLUMNS = (
    schedules.c.id,
    schedules.c.server,
    schedules.c.command,
    schedules.c.task_id,
    schedules.c.retry,
    schedules.c.retry_delay,
    schedules.c.as_player,
    schedules.c.kind,
    schedules.c.at,
    schedules.c.every,
    schedules.c.anchor,
    schedules.c.cron,
    schedules.c.timezone,
    schedules.c.missed,
    schedules.c.announce,
    schedules.c.created_by_id,
    schedules.c.created_by_name,
    schedules.c.created_at,
    schedules.c.state,
    schedules.c.next_due,
    schedules.c.last_due,
    schedules.c.last_outcome,
    schedules.c.last_lateness,
    schedules.c.run_count,
    schedules.c.conditions,
    schedules.c.on_doubt,
    schedules.c.dst_repeated,
    schedules.c.dst_skipped,
)
_LIVE = schedules.c.state.in_(ACTIVE_STATES)


def taken(server: str, task_id: str) -> Text:
    """Why a new row's task id is refused: a live row of its server has it."""
    return lazy(
        "A planned schedule `{id}` already exists on {server}: cancel it first or "
        "choose another id.",
        id=task_id,
        server=server,
    )


def _unique_broken(exc: IntegrityError) -> bool:
    """A unique index refused the write (PostgreSQL: "duplicate key value violates unique
    constraint", SQLite: "UNIQUE constraint failed"), not another rule."""
    return "unique" in str(exc.orig).lower()


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
    # what it does when the clocks change (bot.times.dst); None: the default
    dst_repeated: DstRepeated | None = None
    dst_skipped: DstSkipped | None = None

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
            self.dst_repeated,
            self.dst_skipped,
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
        dst_repeated=cast("DstRepeated", r[26]) if r[26] in REPEATED else None,
        dst_skipped=cast("DstSkipped", r[27]) if r[27] in SKIPPED else None,
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
        """Store a new active row. ValidationError (nothing stored) when a live row of the
        server has the task id, whichever process added it (the index ``schedules_live``)."""
        query = (
            schedules.insert()
            .values(
                server=server,
                command=command,
                task_id=task_id,
                retry=retry,
                retry_delay=retry_delay,
                as_player=as_player,
                kind=spec.kind,
                at=_ts(spec.at),
                every=spec.every,
                anchor=_ts(spec.anchor),
                cron=spec.cron,
                timezone=spec.timezone,
                missed=spec.missed,
                announce=",".join(str(x) for x in spec.announce),
                created_by_id=created_by.id,
                created_by_name=created_by.name,
                created_at=now.timestamp(),
                state="active",
                next_due=spec.first_due.timestamp(),
                conditions=json.dumps(dict(conditions)) if conditions else None,
                on_doubt="run" if on_doubt == "run" else None,
                dst_repeated=spec.dst_repeated,
                dst_skipped=spec.dst_skipped,
            )
            .returning(*_COLUMNS)
        )
        try:
            async with self.db.begin() as conn:
                row = (await conn.execute(query)).one()
                await notify(conn, SCHEDULES, server)  # the server's holder arms it now
        except IntegrityError as exc:
            if not _unique_broken(exc):
                raise
            raise ValidationError(taken(server, task_id), field="id") from exc
        return _schedule(row)

    async def get(self, schedule_id: int) -> Schedule | None:
        async with self.db.connect() as conn:
            row = (await conn.execute(_select().where(schedules.c.id == schedule_id))).first()
        return None if row is None else _schedule(row)

    async def find(self, server: str, task_id: str) -> Schedule | None:
        """The active or paused row of this server with this task id (ids are unique there)."""
        query = (
            _select()
            .where(schedules.c.server == server, schedules.c.task_id == task_id, _LIVE)
            .order_by(schedules.c.id)
            .limit(1)
        )
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _schedule(row)

    async def active(self) -> list[Schedule]:
        """Every row the scheduler must keep an eye on (state active)."""
        async with self.db.connect() as conn:
            rows = (await conn.execute(_select().where(schedules.c.state == "active"))).all()
        return [_schedule(r) for r in rows]

    async def armed(self) -> list[tuple[int, float, tuple[int, ...]]]:
        """(id, next due, announce offsets) of every active row with a next due: what the
        scheduler keeps in memory (the rows themselves are read when they fire)."""
        query = select(schedules.c.id, schedules.c.next_due, schedules.c.announce).where(
            schedules.c.state == "active", schedules.c.next_due.is_not(None)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            (int(r[0]), float(r[1]), tuple(int(x) for x in str(r[2]).split(",") if x)) for r in rows
        ]

    async def set_state(
        self, schedule_id: int, state: State, next_due: datetime | None
    ) -> Schedule | None:
        query = (
            update(schedules)
            .where(schedules.c.id == schedule_id)
            .values(state=state, next_due=_ts(next_due))
            .returning(*_COLUMNS)
        )
        async with self.db.begin() as conn:
            row = (await conn.execute(query)).first()
            if row is not None:
                await notify(conn, SCHEDULES, str(row.server))
        return None if row is None else _schedule(row)

    async def planned(
        self, server: str, *, offset: int = 0, limit: int = 20, search: str = ""
    ) -> tuple[list[Schedule], int]:
        """Active and paused rows of a server, soonest first, and how many there are."""
        like = f"%{search.replace('%', '').replace('_', '')}%"
        where = and_(
            schedules.c.server == server,
            _LIVE,
            or_(schedules.c.task_id.ilike(like), schedules.c.command.ilike(like)),
        )
        page = (
            _select()
            .where(where)
            # active first, each soonest first; a row between its run and its end (no next
            # due) first of all, as SQLite sorts NULL
            .order_by(
                case((schedules.c.state == "paused", 1), else_=0),
                nulls_first(schedules.c.next_due.asc()),
                schedules.c.id,
            )
            .limit(limit)
            .offset(offset)
        )
        async with self.db.connect() as conn:
            total = (await conn.execute(select(func.count()).where(where))).scalar_one()
            rows = (await conn.execute(page)).all()
        return [_schedule(r) for r in rows], int(total)

    async def in_states(
        self, server: str, states: Sequence[State], limit: int = 1000
    ) -> list[Schedule]:
        """A server's rows in these states, newest first, at most `limit`."""
        query = (
            _select()
            .where(schedules.c.server == server, schedules.c.state.in_(list(states)))
            .order_by(schedules.c.id.desc())
            .limit(limit)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_schedule(r) for r in rows]

    async def task_ids(self, server: str, prefix: str, limit: int) -> list[str]:
        """Task ids of active/paused rows starting with (then containing) `prefix`."""
        low = prefix.lower()
        query = (
            select(schedules.c.task_id)
            .distinct()
            .where(schedules.c.server == server, _LIVE)
            .order_by(schedules.c.task_id)
        )
        async with self.db.connect() as conn:
            ids = [str(r[0]) for r in (await conn.execute(query)).all()]
        ranked = [i for i in ids if i.lower().startswith(low)]
        ranked += [i for i in ids if low in i.lower() and i not in ranked]
        return ranked[:limit]

    async def rows_of(self, server: str, task_id: str) -> list[Schedule]:
        """Every row of this server with this task id, whatever its state, newest first."""
        query = (
            _select()
            .where(schedules.c.server == server, schedules.c.task_id == task_id)
            .order_by(schedules.c.id.desc())
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_schedule(r) for r in rows]

    # -- runs -----------------------------------------------------------------------------------

    async def begin_run(
        self,
        schedule_id: int,
        due: datetime,
        next_due: datetime | None,
        state: State,
        *,
        fence: Fence | None = None,
    ) -> int | None:
        """Record a run as `sending` and move its row on, in one transaction: the run exists in
        the record before the server is asked, so it can never be sent twice. None: lost,
        this run of the row is planned already (another process came first: the index
        ``schedule_runs_planned``), or `fence` says this process no longer holds the row's
        server (bot.store.leases), and nothing changed; the caller must not hand it over."""
        try:
            async with self.db.begin() as conn:
                if fence is not None and not await fence(conn):
                    raise _Fenced
                run_id = (
                    await conn.execute(
                        runs.insert()
                        .values(schedule_id=schedule_id, due=due.timestamp(), outcome="sending")
                        .returning(runs.c.id)
                    )
                ).scalar_one()
                await conn.execute(
                    update(schedules)
                    .where(schedules.c.id == schedule_id)
                    .values(
                        next_due=_ts(next_due),
                        state=state,
                        last_due=due.timestamp(),
                        last_outcome="sending",
                        run_count=schedules.c.run_count + 1,
                    )
                )
        except _Fenced:
            return None
        except IntegrityError as exc:
            if not _unique_broken(exc):
                raise
            return None
        return int(run_id)

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
        async with self.db.begin() as conn:
            # a time left out is kept: the pack's `ran` may have told it first
            # (RunQueries.saw_in_game), as for a run found handed over after a restart
            schedule_id = (
                await conn.execute(
                    update(runs)
                    .where(runs.c.id == run_id)
                    .values(
                        outcome=outcome,
                        handed_over=func.coalesce(_ts(handed_over), runs.c.handed_over),
                        ran_in_game=func.coalesce(_ts(ran_in_game), runs.c.ran_in_game),
                        lateness=func.coalesce(lateness, runs.c.lateness),
                        attempts=greatest(runs.c.attempts, attempts),
                        serial=func.coalesce(serial, runs.c.serial),
                    )
                    .returning(runs.c.schedule_id)
                )
            ).scalar_one()
            row: dict[str, object] = {"last_outcome": outcome, "last_lateness": lateness}
            if state is not None:
                row["state"] = state
            await conn.execute(update(schedules).where(schedules.c.id == schedule_id).values(**row))

    async def record_missed(
        self,
        schedule_id: int,
        due: datetime,
        outcome: str,
        next_due: datetime | None,
        state: State,
        *,
        fence: Fence | None = None,
    ) -> bool:
        """A due time that did not run (missed, or N skipped), and the row moved on. False:
        lost, another process recorded this due time first, or no longer holds the server
        (`fence`), and nothing changed."""
        try:
            async with self.db.begin() as conn:
                if fence is not None and not await fence(conn):
                    raise _Fenced
                await conn.execute(
                    runs.insert().values(
                        schedule_id=schedule_id, due=due.timestamp(), outcome=outcome
                    )
                )
                await conn.execute(
                    update(schedules)
                    .where(schedules.c.id == schedule_id)
                    .values(
                        next_due=_ts(next_due),
                        state=state,
                        last_due=due.timestamp(),
                        last_outcome=outcome,
                    )
                )
        except _Fenced:
            return False
        except IntegrityError as exc:
            if not _unique_broken(exc):
                raise
            return False
        return True

    async def armed_of(
        self, servers: Sequence[str]
    ) -> list[tuple[int, float, tuple[int, ...], str]]:
        """:meth:`armed` of these servers' rows only (the servers this process holds), each
        with its server."""
        query = select(
            schedules.c.id, schedules.c.next_due, schedules.c.announce, schedules.c.server
        ).where(
            schedules.c.state == "active",
            schedules.c.next_due.is_not(None),
            schedules.c.server.in_(list(servers)),
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            (int(r[0]), float(r[1]), tuple(int(x) for x in str(r[2]).split(",") if x), str(r[3]))
            for r in rows
        ]

    async def sending(self, servers: Sequence[str] | None = None) -> list[Run]:
        """Runs recorded as `sending`: a hand-over the bot did not see the end of (of these
        servers' rows only, when named)."""
        query = select(*RUN_COLUMNS).where(runs.c.outcome == "sending").order_by(runs.c.id)
        if servers is not None:
            query = query.where(
                runs.c.schedule_id.in_(
                    select(schedules.c.id).where(schedules.c.server.in_(list(servers)))
                )
            )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [run_of(r) for r in rows]

    async def runs(self, schedule_id: int, limit: int = 10) -> list[Run]:
        """The newest runs of a schedule, newest first."""
        query = (
            select(*RUN_COLUMNS)
            .where(runs.c.schedule_id == schedule_id)
            .order_by(runs.c.id.desc())
            .limit(limit)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [run_of(r) for r in rows]


def _select() -> Select[Any]:
    return select(*_COLUMNS)
