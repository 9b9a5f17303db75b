"""The ledger: every task the bot put into a server's pack, and every change it made to one.

A crash brings a Minecraft server back with the storage and game time of its last save, so
what the bot did since is gone from the pack although the server acknowledged it. The ledger
is the bot's own copy (the ``ledger_*`` tables of the bot's database, bot.store.db) that the
crash guard (bot.background.crash_guard) repairs the pack from. It is fed by the pack client
(:class:`bot.minecraft.pack_tasks.PackRecorder`: each acknowledged schedule, schedule_dynamic,
cancel_one, cancel_all, clear, pause, resume, whoever called it: a cog, the console, the
wall-clock scheduler) and by the pack's events.

A row is one task instance, named as the pack names it: its serial ``n`` with its id and run
text (serials are reused after a rollback, so ``n`` alone is not enough). ``own`` rows are
tasks the bot scheduled; the others are tasks made in game that the bot cancelled, paused or
resumed (so that change can be redone too). ``state`` is what the bot last made of it:
``queue``, ``offline`` (parked for its player), ``paused``, ``cancelled``, ``done`` (ran or was
removed by the pack), ``replaced`` (the crash guard put it in again as a new row).

Success is not an event, so a one-off task counts as run once the game time the bot saw has
passed its due tick (the pack runs a task in the tick that takes game time to its due tick).
Rows are deleted ``retain`` ticks of game time (and up to a twentieth more) after they stopped
mattering: more than one autosave interval (6000 ticks), so a crash can never roll back to
before a row that is gone.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.events.event import Event
from bot.i18n import N_
from bot.minecraft.pack_tasks import Task
from bot.store.db import Database, greatest
from bot.store.ledger_rows import COLUMNS, Entry, Pending, entry_of, pending_of, pending_text
from bot.store.ledger_sight import RingSight
from bot.store.tables import ledger_early, ledger_ops, ledger_servers, ledger_tasks

__all__ = ["LIVE", "RETAIN_TICKS", "Entry", "Ledger", "Pending"]

log = logging.getLogger(__name__)

RETAIN_TICKS: Final = 12_000  # two autosave intervals of game time
LIVE: Final = ("queue", "offline", "paused")

T = ledger_tasks.c
S = ledger_servers.c
E = ledger_early.c


def _int(value: object, default: int = -1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


class Ledger(RingSight):
    """The record of one server (a :class:`~bot.minecraft.pack_tasks.PackRecorder`)."""

    def __init__(
        self,
        db: Database,
        server: str,
        *,
        retain: int = RETAIN_TICKS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.server = server
        self.retain = retain
        self._clock = clock  # wall-clock seconds: the window of doubt is measured with it
        self._seen = -1  # the highest game time read since the last write (see saw_time)
        # keys of the rows made since the bot last lost sight of the server (a failed read of
        # the ring, an RCON reconnect, this process's start), until a read shows it whole:
        # they may be of the timeline after a restart, so never in doubt; None: in sight
        self._since_lost: set[int] | None = set()
        self._attempt_at: float | None = None  # when the latest read of the ring began
        self._in_flight = False  # that read has not ended yet
        self._lost_at: float | None = None  # the server may have stopped ticking from then on
        self._peak: tuple[float, float] | None = None  # the highest rate measured lately
        self._pruned_at: int | None = None  # the game time mark of this process's last prune
        # called when an acknowledgement shows a game time or serial below the marks
        self.on_suspect: list[Callable[[], None]] = []
        # restores this process made pending: the server came back from an older save (a
        # hand-over whose answer was lost before one may have run in the world it rolled back)
        self.rollbacks = 0
        # its `ran` events come from the ring, rolled back with the world (else from the log,
        # which outlives a rollback: every run is in the record once it is read to its end)
        self.ring = False

    # -- what the bot saw ---------------------------------------------------------------------

    async def _server_row(self, conn: AsyncConnection) -> tuple[int, int, Pending | None]:
        query = select(S.last_time, S.last_serial, S.pending).where(S.server == self.server)
        row = (await conn.execute(query)).first()
        if row is None:
            return -1, 0, None
        return int(row[0]), int(row[1]), pending_of(row[2])

    async def _see(
        self, conn: AsyncConnection, game_time: int, serial: int, *, new_task: bool = False
    ) -> tuple[bool, int | None]:
        """Raise the marks to what the server showed: a game time, and the serial counter (or
        the serial of a task just made, `new_task`). First: True when either is below the
        marks: a hint only (a concurrent call may have written newer marks after this one read
        the server), so the guard is asked to look (CrashGuard.check compares safely). Second:
        the game time mark now, None while a restore is pending."""
        last_time, last_serial, pending = await self._server_row(conn)
        if pending is not None:
            return False, None  # the marks are the pre-crash ones until the restore ends
        last_time = max(last_time, self._seen)
        serial_back = serial <= last_serial if new_task else 0 <= serial < last_serial
        lower = (0 <= game_time < last_time) or (last_serial > 0 and serial_back)
        mark = max(game_time, last_time, -1)
        insert = self.db.insert(ledger_servers).values(
            server=self.server, last_time=mark, last_serial=max(serial, 0)
        )
        await conn.execute(
            insert.on_conflict_do_update(
                index_elements=[S.server],
                set_={
                    "last_time": greatest(S.last_time, insert.excluded.last_time),
                    "last_serial": greatest(S.last_serial, insert.excluded.last_serial),
                },
            )
        )
        return lower, mark

    @staticmethod
    async def _top_key(conn: AsyncConnection) -> int:
        top = (await conn.execute(select(func.max(T.key)))).scalar()
        return int(top or 0)

    async def _set_pending(self, conn: AsyncConnection, pending: Pending | None) -> None:
        insert = self.db.insert(ledger_servers).values(
            server=self.server, last_time=-1, last_serial=0, pending=pending_text(pending)
        )
        await conn.execute(
            insert.on_conflict_do_update(
                index_elements=[S.server], set_={"pending": insert.excluded.pending}
            )
        )

    def saw_time(self, game_time: int) -> None:
        """Every game time the pack client reads (kept in memory; written with the next
        change, so reads cost no database write)."""
        self._seen = max(self._seen, game_time)

    async def _marks(self, conn: AsyncConnection) -> tuple[int, int, Pending | None]:
        last_time, last_serial, pending = await self._server_row(conn)
        return max(last_time, self._seen) if pending is None else last_time, last_serial, pending

    async def marks(self) -> tuple[int, int, Pending | None]:
        """(last game time seen, last serial seen, the pending restore or None)."""
        async with self.db.connect() as conn:
            return await self._marks(conn)

    async def saw(
        self, game_time: int, serial: int, before: tuple[int, int, Pending | None]
    ) -> bool:
        """The server's game time and serial counter, read after the marks `before` were
        taken: below them means the server came back from an older save, and a restore is
        made pending (True); else the marks rise. Marks written by other calls since `before`
        do not count, as those calls may have read the server before this one did."""
        last_time, last_serial, _ = before
        async with self.db.begin() as conn:
            _, _, pending = await self._server_row(conn)
            if pending is not None:
                return True
            if 0 <= game_time < last_time or 0 <= serial < last_serial:
                why = (  # N_(): kept in English, translated where an alert shows it
                    N_("its game time went back")
                    if 0 <= game_time < last_time
                    else N_("its task serial went back")
                )
                self.rollbacks += 1
                await self._set_pending(conn, await self._new_pending(conn, why))
                return True
            await self._see(conn, game_time, serial)
            return False

    async def begin_restore(self, reason: str) -> Pending:
        """Mark a restore as pending (kept if one is already); returns it. Each call is a start
        of the server, so each counts as a rollback (a second crash while a restore is still
        pending included): over RCON a stop and a crash look alike."""
        self.rollbacks += 1
        async with self.db.begin() as conn:
            _, _, pending = await self._marks(conn)
            if pending is None:
                pending = await self._new_pending(conn, reason)
                await self._set_pending(conn, pending)
            return pending

    async def _new_pending(self, conn: AsyncConnection, reason: str) -> Pending:
        last_time, last_serial, _ = await self._marks(conn)
        after, until = await self._doubt_window(conn, last_time)
        return Pending(last_time, last_serial, reason, await self._top_key(conn), after, until)

    async def end_restore(self, game_time: int, serial: int) -> None:
        """The pack matches the record again: the marks restart from the server's values and
        ops whose effect was redone row by row are settled."""
        self._seen = game_time
        self._since_lost = self._lost_at = None
        marks = update(ledger_servers).where(S.server == self.server)
        settle = update(ledger_ops).where(
            ledger_ops.c.server == self.server, ledger_ops.c.op == "clear"
        )
        async with self.db.begin() as conn:
            await conn.execute(
                marks.values(
                    last_time=game_time,
                    last_serial=serial,
                    pending=None,
                    read_time=None,
                    read_at=None,
                    read_rate=None,
                    lost_at=None,
                )
            )
            await conn.execute(settle.values(settled=1))

    def _suspect(self) -> None:
        for listener in self.on_suspect:
            listener()

    # -- PackRecorder -------------------------------------------------------------------------

    async def scheduled(self, request: Mapping[str, object], out: Mapping[str, object]) -> None:
        n, due, acked = _int(out.get("n")), _int(out.get("due")), _int(out.get("time"))
        task_id = out.get("id")
        if n < 0 or not isinstance(task_id, str):
            log.warning("%s: the pack's answer has no task serial; not recorded", self.server)
            return
        player = request.get("as_player")
        key = request.get("key")
        bkey = key if isinstance(key, str) and key else None
        row = {
            "server": self.server,
            "task_id": task_id,
            "n": n,
            "run": str(request.get("run", "")),
            "request": json.dumps(dict(request)),
            "acked_at": acked,
            "due": due,
            "interval": self._interval_ticks(request),
            "as_player": player if isinstance(player, str) else None,
            "own": 1,
            "state": "queue",
            "last_op": "schedule",
            "changed_at": acked,
            "bkey": bkey,
        }
        insert = self.db.insert(ledger_tasks).values(row)
        if bkey is not None:  # a key the record has already: its row is updated below
            insert = insert.on_conflict_do_nothing(
                index_elements=[T.server, T.bkey], index_where=T.bkey.is_not(None)
            )
        async with self.db.begin() as conn:
            rolled, mark = await self._see(conn, acked, n, new_task=True)
            made = (await conn.execute(insert.returning(T.key))).scalar()
            if made is None:
                # the crash guard put this task in again under its key, or another process
                # recorded the same acknowledgement first: one row per key, updated
                again = update(ledger_tasks).where(T.server == self.server, T.bkey == bkey)
                await conn.execute(again.values(n=n, due=due, state="queue", changed_at=acked))
            elif self._since_lost is not None:
                self._since_lost.add(int(made))
            if bkey is not None:
                await self._replay_early(conn, bkey)
            if made is not None:
                await self._prune_now_and_then(conn, mark)
        if rolled:
            self._suspect()

    @staticmethod
    def _interval_ticks(request: Mapping[str, object]) -> int | None:
        from bot.minecraft.pack_input import check_unit

        interval = request.get("interval")
        if not isinstance(interval, int) or interval <= 0:
            return None
        return interval * check_unit(str(request.get("unit", "t")))

    async def operated(
        self,
        op: str,
        id: str | None,
        affected: Sequence[Task],
        count: int,
        game_time: int,
        serial: int,
    ) -> None:
        state = {
            "cancel_one": "cancelled",
            "cancel_all": "cancelled",
            "clear": "cancelled",
            "pause": "paused",
            "resume": "queue",
        }[op]
        noted = ledger_ops.insert().values(
            server=self.server, op=op, task_id=id, game_time=game_time, count=count, serial=serial
        )
        async with self.db.begin() as conn:
            rolled, mark = await self._see(conn, game_time, serial)
            await conn.execute(noted)
            if op == "clear":
                live = update(ledger_tasks).where(T.server == self.server, T.state.in_(LIVE))
                await conn.execute(
                    live.values(state="cancelled", last_op="clear", changed_at=game_time)
                )
            for task in affected:
                await self._apply(conn, task, state, op, game_time)
            await self._prune_now_and_then(conn, mark)
        if rolled:
            self._suspect()

    async def _apply(
        self, conn: AsyncConnection, task: Task, state: str, op: str, now: int
    ) -> None:
        remaining: int | None = None
        due: int | None = None
        if op == "pause":  # the pack keeps the ticks that were left (README: pause)
            remaining = max(task.due - now, 0)
        elif op == "resume" and task.remaining is not None:
            due = now + task.remaining
        values: dict[str, object] = {
            "state": state,
            "last_op": op,
            "changed_at": now,
            "remaining": remaining,
        }
        if due is not None:
            values["due"] = due
        if task.k is not None:
            keyed = update(ledger_tasks).where(T.server == self.server, T.bkey == task.k)
            if (await conn.execute(keyed.values(values))).rowcount:
                return
        other = ledger_tasks.alias("instance")
        latest = (
            select(other.c.key)
            .where(
                other.c.server == self.server,
                other.c.n == task.n,
                other.c.task_id == task.id,
                other.c.run == task.run,
                other.c.state != "replaced",
            )
            .order_by(other.c.key.desc())
            .limit(1)
            .scalar_subquery()
        )
        if (
            await conn.execute(update(ledger_tasks).where(T.key == latest).values(values))
        ).rowcount:
            return
        # made in game: remembered so that this change can be redone after a crash too
        made_in_game = ledger_tasks.insert().values(
            server=self.server,
            task_id=task.id,
            n=task.n,
            run=task.run,
            request="{}",
            acked_at=now,
            due=due if due is not None else task.due,
            interval=task.interval,
            own=0,
            state=state,
            last_op=op,
            remaining=remaining,
            changed_at=now,
        )
        await conn.execute(made_in_game)

    # -- events -------------------------------------------------------------------------------

    async def apply_event(self, event: Event) -> Entry | None:
        """What a pack event says about an own task: by its key when the event has one (k),
        else the first row of its id that fits (see the module); the row it changed, as it
        was before, or None."""
        key = event.details.get("k")
        kind = event.type
        if kind == "waited" and event.details.get("then") == "skip":
            kind = "skipped"  # the wait ran out and the run is skipped (with then run: `ran`)
        t = event.game_time
        if isinstance(key, str) and key:
            async with self.db.begin() as conn:
                await self._see_event(conn, t)
                return await self._keyed_event(conn, kind, t, key)
        changes = {
            "offline": ("queue", "offline"),
            "restored": ("offline", "queue"),
            "retry": ("queue", "queue"),
            "retry_exhausted": ("queue", "done"),
            "dropped": ("queue", "done"),
            "invalid": ("queue", "done"),
        }
        before, after = changes.get(event.type, ("", ""))
        first_fit = (
            select(*COLUMNS)
            .where(
                T.server == self.server,
                T.task_id == event.task_id,
                T.state == before,
                or_(T.state == "offline", T.due <= t + 1),
            )
            .order_by(T.due, T.key)
            .limit(1)
        )
        async with self.db.begin() as conn:
            await self._see_event(conn, t)
            if not before:
                return None
            row = (await conn.execute(first_fit)).first()
            if row is None:
                return None
            entry = entry_of(row)
            due = entry.due
            if event.type == "restored":
                due = t + 1
            elif event.type == "retry":
                delay = entry.request.get("retry_delay", 1)
                due = t + 1 + (delay if isinstance(delay, int) and delay > 0 else 1)
            changed = update(ledger_tasks).where(T.key == entry.key)
            await conn.execute(changed.values(state=after, due=due, changed_at=t))
            return entry

    async def _see_event(self, conn: AsyncConnection, game_time: int) -> None:
        """An event of the pack at `game_time`: the server reached it, and the record says so
        in the same transaction as what the event changed, before the source's cursor moves
        past it. Without this, a bot that only polled the ring (and asked no game time) would
        keep marks from before the save, and a rollback to that save would look like none.
        Never a hint of a rollback itself (events are older than the game time read with them);
        kept as it is while a restore is pending (the marks are the pre-crash ones)."""
        if game_time < 0:
            return
        insert = self.db.insert(ledger_servers).values(
            server=self.server, last_time=game_time, last_serial=0
        )
        await conn.execute(
            insert.on_conflict_do_update(
                index_elements=[S.server],
                set_={"last_time": greatest(S.last_time, insert.excluded.last_time)},
                where=S.pending.is_(None),
            )
        )

    async def _replay_early(self, conn: AsyncConnection, key: str) -> None:
        taken = delete(ledger_early).where(E.server == self.server, E.bkey == key)
        early = (await conn.execute(taken.returning(E.id, E.type, E.game_time))).all()
        for row in sorted(early, key=lambda r: int(r.id)):  # in the order they were read
            await self._keyed_event(conn, str(row.type), int(row.game_time), key)

    async def _keyed_event(
        self, conn: AsyncConnection, kind: str, t: int, key: str
    ) -> Entry | None:
        query = select(*COLUMNS).where(T.server == self.server, T.bkey == key)
        row = (await conn.execute(query)).first()
        if row is None:
            # a task run at once (a hand-over) may say so before its acknowledgement is
            # recorded: kept for that record (or for nobody: another bot's task, a pruned row)
            await conn.execute(
                ledger_early.insert().values(server=self.server, bkey=key, type=kind, game_time=t)
            )
            top = select(func.max(ledger_early.alias("newest").c.id)).scalar_subquery()
            await conn.execute(
                delete(ledger_early).where(E.server == self.server, E.id <= top - 10000)
            )
            return None
        entry = entry_of(row)
        state, due, ran_at = entry.state, entry.due, entry.ran_at
        if kind in ("ran", "skipped"):  # a skipped run moves on as a run does, unrun
            ran_at = t if kind == "ran" else ran_at
            if entry.interval is None:
                state = "done"
            else:  # the pack's next boundary: the first due + k*interval after this tick
                due = entry.due + ((t + 1 - entry.due) // entry.interval + 1) * entry.interval
                due = max(due, entry.due)
        elif kind == "retry":
            delay = entry.request.get("retry_delay", 1)
            state, due = "queue", t + 1 + (delay if isinstance(delay, int) and delay > 0 else 1)
        elif kind in ("retry_exhausted", "dropped", "invalid"):
            state = "done"
        elif kind == "offline":
            state = "offline"
        elif kind == "restored":
            state, due = "queue", t + 1
        else:
            return None
        if entry.state in ("cancelled", "paused") and kind != "ran":
            return None  # the bot changed it since: that stands
        if entry.state in ("cancelled", "paused"):
            state = entry.state  # a run the log says late: noted, the bot's change stands
        changed = update(ledger_tasks).where(T.key == entry.key)
        await conn.execute(changed.values(state=state, due=due, ran_at=ran_at, changed_at=t))
        return entry

    # -- what the crash guard reads and writes ------------------------------------------------

    async def knows(self, key: str) -> bool:
        """Whether the server had a task of this bot key: its acknowledgement was recorded, or
        the log said an event of it whose acknowledgement never arrived (the server ran it, then
        died before answering: a hand-over retried after that must not send it again)."""
        query = (
            select(T.key)
            .where(T.server == self.server, T.bkey == key)
            .union_all(select(E.id).where(E.server == self.server, E.bkey == key))
        )
        async with self.db.connect() as conn:
            return (await conn.execute(query)).first() is not None

    async def entries(
        self, states: Iterable[str] | None = None, *, key: str | None = None
    ) -> list[Entry]:
        """The record's tasks (in `states`; of the bot key `key`), in the order made."""
        query = select(*COLUMNS).where(T.server == self.server)
        if key is not None:
            query = query.where(T.bkey == key)
        if states is not None:
            query = query.where(T.state.in_(tuple(states)))
        async with self.db.connect() as conn:
            rows = (await conn.execute(query.order_by(T.key))).all()
        return [entry_of(r) for r in rows]

    async def unsettled_clears(self) -> list[tuple[int, int]]:
        """(game time, serial counter) of each clear not yet settled by a restore."""
        o = ledger_ops.c
        query = (
            select(o.game_time, o.serial)
            .where(o.server == self.server, o.op == "clear", o.settled == 0)
            .order_by(o.key)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [(int(r[0]), int(r[1])) for r in rows]

    async def set_state(self, key: int, state: str, game_time: int) -> None:
        async with self.db.begin() as conn:
            changed = update(ledger_tasks).where(T.key == key)
            await conn.execute(changed.values(state=state, changed_at=game_time))

    async def adopt(self, key: int, task: Task, game_time: int) -> None:
        """The row's task is in the pack under another serial (put in again by a restore
        whose answer was lost): the row follows it."""
        state = "paused" if task.list == "paused" else task.list
        async with self.db.begin() as conn:
            changed = update(ledger_tasks).where(T.key == key)
            await conn.execute(
                changed.values(n=task.n, due=task.due, changed_at=game_time, state=state)
            )

    async def count(self) -> int:
        query = select(func.count()).select_from(ledger_tasks).where(T.server == self.server)
        async with self.db.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def prune(self) -> int:
        async with self.db.begin() as conn:
            last_time, _, pending = await self._server_row(conn)
            return 0 if pending is not None else await self._prune(conn, last_time)

    async def _prune_now_and_then(self, conn: AsyncConnection, mark: int | None) -> None:
        """Prune with a write once the game time has moved a twentieth of `retain` on since
        the last time: rows are kept a little longer, and most writes make two statements
        fewer. `mark`: the game time mark, None while a restore is pending."""
        if mark is None:
            return
        if self._pruned_at is None or mark >= self._pruned_at + self.retain // 20:
            self._pruned_at = mark
            await self._prune(conn, mark)

    async def _prune(self, conn: AsyncConnection, last_time: int) -> int:
        """Forget rows that can no longer matter: finished, or one-offs whose due tick the
        game passed, more than `retain` ticks of game time before `last_time` (the game time
        mark). Never while a restore is pending (the marks are then the pre-crash ones: the
        callers pass none)."""
        if last_time < 0:
            return 0
        horizon = last_time - self.retain
        finished = and_(T.state.in_(("done", "cancelled", "replaced")), T.changed_at <= horizon)
        passed = and_(T.state == "queue", T.interval.is_(None), T.due <= horizon)
        removed = await conn.execute(
            delete(ledger_tasks).where(T.server == self.server, or_(finished, passed))
        )
        o = ledger_ops.c
        await conn.execute(
            delete(ledger_ops).where(o.server == self.server, o.game_time <= horizon)
        )
        return int(removed.rowcount)
