"""The ledger: every task the bot put into a server's pack, and every change it made to one.

A crash brings a Minecraft server back with the storage and game time of its last save, so
what the bot did since is gone from the pack although the server acknowledged it. The ledger
is the bot's own copy (the ``ledger`` component of the bot's database, bot.store.db) that the
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
Rows are deleted ``retain`` ticks of game time after they stopped mattering: more than one
autosave interval (6000 ticks), so a crash can never roll back to before a row that is gone.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from bot.events.event import Event
from bot.i18n import N_
from bot.minecraft.pack_tasks import Task
from bot.store.db import Database
from bot.store.ledger_rows import COLUMNS, MIGRATIONS, Entry, Pending, entry_of
from bot.store.ledger_sight import RingSight

__all__ = ["LIVE", "RETAIN_TICKS", "Entry", "Ledger", "Pending"]

log = logging.getLogger(__name__)

RETAIN_TICKS: Final = 12_000  # two autosave intervals of game time
LIVE: Final = ("queue", "offline", "paused")


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
        self._migrated = False
        self._seen = -1  # the highest game time read since the last write (see saw_time)
        # keys of the rows made since the bot last lost sight of the server (a failed read of
        # the ring, an RCON reconnect, this process's start), until a read shows it whole:
        # they may be of the timeline after a restart, so never in doubt; None: in sight
        self._since_lost: set[int] | None = set()
        self._attempt_at: float | None = None  # when the latest read of the ring began
        self._in_flight = False  # that read has not ended yet
        self._lost_at: float | None = None  # the server may have stopped ticking from then on
        self._peak: tuple[float, float] | None = None  # the highest rate measured lately
        # called when an acknowledgement shows a game time or serial below the marks
        self.on_suspect: list[Callable[[], None]] = []
        # restores this process made pending: the server came back from an older save (a
        # hand-over whose answer was lost before one may have run in the world it rolled back)
        self.rollbacks = 0
        # its `ran` events come from the ring, rolled back with the world (else from the log,
        # which outlives a rollback: every run is in the record once it is read to its end)
        self.ring = False

    async def _run(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        if not self._migrated:
            await self.db.migrate("ledger", MIGRATIONS)
            self._migrated = True
        return await self.db.run(work)

    # -- what the bot saw ---------------------------------------------------------------------

    def _server_row(self, db: sqlite3.Connection) -> tuple[int, int, Pending | None]:
        row = db.execute(
            "SELECT last_time, last_serial, pending FROM ledger_servers WHERE server = ?",
            (self.server,),
        ).fetchone()
        if row is None:
            return -1, 0, None
        pending = None
        if row[2]:
            data = json.loads(row[2])
            after, until = data.get("doubt_after"), data.get("doubt_until")
            pending = Pending(
                int(data["last_time"]),
                int(data["last_serial"]),
                str(data["reason"]),
                int(data["first_key"]),
                after if isinstance(after, int) else None,
                until if isinstance(until, int) else None,
            )
        return int(row[0]), int(row[1]), pending

    def _see(
        self, db: sqlite3.Connection, game_time: int, serial: int, *, new_task: bool = False
    ) -> bool:
        """Raise the marks to what the server showed: a game time, and the serial counter (or
        the serial of a task just made, `new_task`). True when either is below the marks: a
        hint only (a concurrent call may have written newer marks after this one read the
        server), so the guard is asked to look (CrashGuard.check compares safely)."""
        last_time, last_serial, pending = self._server_row(db)
        if pending is not None:
            return False  # the marks are the pre-crash ones until the restore ends
        last_time = max(last_time, self._seen)
        serial_back = serial <= last_serial if new_task else 0 <= serial < last_serial
        lower = (0 <= game_time < last_time) or (last_serial > 0 and serial_back)
        db.execute(
            "INSERT INTO ledger_servers (server, last_time, last_serial) VALUES (?, ?, ?)"
            " ON CONFLICT(server) DO UPDATE SET last_time = max(last_time, excluded.last_time),"
            " last_serial = max(last_serial, excluded.last_serial)",
            (self.server, max(game_time, last_time, -1), max(serial, 0)),
        )
        return lower

    @staticmethod
    def _top_key(db: sqlite3.Connection) -> int:
        row = db.execute("SELECT max(key) FROM ledger_tasks").fetchone()
        return int(row[0] or 0)

    def _set_pending(self, db: sqlite3.Connection, pending: Pending | None) -> None:
        text = (
            None
            if pending is None
            else json.dumps(
                {
                    "last_time": pending.last_time,
                    "last_serial": pending.last_serial,
                    "reason": pending.reason,
                    "first_key": pending.first_key,
                    "doubt_after": pending.doubt_after,
                    "doubt_until": pending.doubt_until,
                }
            )
        )
        db.execute(
            "INSERT INTO ledger_servers (server, last_time, last_serial, pending)"
            " VALUES (?, -1, 0, ?) ON CONFLICT(server) DO UPDATE SET pending = excluded.pending",
            (self.server, text),
        )

    def saw_time(self, game_time: int) -> None:
        """Every game time the pack client reads (kept in memory; written with the next
        change, so reads cost no database write)."""
        self._seen = max(self._seen, game_time)

    def _marks(self, db: sqlite3.Connection) -> tuple[int, int, Pending | None]:
        last_time, last_serial, pending = self._server_row(db)
        return max(last_time, self._seen) if pending is None else last_time, last_serial, pending

    async def marks(self) -> tuple[int, int, Pending | None]:
        """(last game time seen, last serial seen, the pending restore or None)."""
        result: tuple[int, int, Pending | None] = await self._run(self._marks)
        return result

    async def saw(
        self, game_time: int, serial: int, before: tuple[int, int, Pending | None]
    ) -> bool:
        """The server's game time and serial counter, read after the marks `before` were
        taken: below them means the server came back from an older save, and a restore is
        made pending (True); else the marks rise. Marks written by other calls since `before`
        do not count, as those calls may have read the server before this one did."""
        last_time, last_serial, _ = before

        def work(db: sqlite3.Connection) -> bool:
            with db:
                _, _, pending = self._server_row(db)
                if pending is not None:
                    return True
                if 0 <= game_time < last_time or 0 <= serial < last_serial:
                    why = (  # N_(): kept in English, translated where an alert shows it
                        N_("its game time went back")
                        if 0 <= game_time < last_time
                        else N_("its task serial went back")
                    )
                    self.rollbacks += 1
                    self._set_pending(db, self._new_pending(db, why))
                    return True
                self._see(db, game_time, serial)
                return False

        rolled: bool = await self._run(work)
        return rolled

    async def begin_restore(self, reason: str) -> Pending:
        """Mark a restore as pending (kept if one is already); returns it. Each call is a start
        of the server, so each counts as a rollback (a second crash while a restore is still
        pending included): over RCON a stop and a crash look alike."""
        self.rollbacks += 1

        def work(db: sqlite3.Connection) -> Pending:
            with db:
                _, _, pending = self._marks(db)
                if pending is None:
                    pending = self._new_pending(db, reason)
                    self._set_pending(db, pending)
                return pending

        result: Pending = await self._run(work)
        return result

    def _new_pending(self, db: sqlite3.Connection, reason: str) -> Pending:
        last_time, last_serial, _ = self._marks(db)
        after, until = self._doubt_window(db, last_time)
        return Pending(last_time, last_serial, reason, self._top_key(db), after, until)

    async def end_restore(self, game_time: int, serial: int) -> None:
        """The pack matches the record again: the marks restart from the server's values and
        ops whose effect was redone row by row are settled."""

        self._seen = game_time
        self._since_lost = self._lost_at = None

        def work(db: sqlite3.Connection) -> None:
            with db:
                db.execute(
                    "UPDATE ledger_servers SET last_time = ?, last_serial = ?, pending = NULL,"
                    " read_time = NULL, read_at = NULL, read_rate = NULL, lost_at = NULL"
                    " WHERE server = ?",
                    (game_time, serial, self.server),
                )
                db.execute(
                    "UPDATE ledger_ops SET settled = 1 WHERE server = ? AND op = 'clear'",
                    (self.server,),
                )

        await self._run(work)

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
        interval = self._interval_ticks(request)
        player = request.get("as_player")
        key = request.get("key")
        bkey = key if isinstance(key, str) and key else None

        def work(db: sqlite3.Connection) -> bool:
            with db:
                rolled = self._see(db, acked, n, new_task=True)
                if (
                    bkey is not None
                    and db.execute(
                        "UPDATE ledger_tasks SET n = ?, due = ?, state = 'queue', changed_at = ?"
                        " WHERE server = ? AND bkey = ?",
                        (n, due, acked, self.server, bkey),
                    ).rowcount
                ):
                    self._replay_early(db, bkey)
                    return rolled  # the crash guard put this task in again, under its key
                db.execute(
                    f"INSERT INTO ledger_tasks (server, {COLUMNS.replace('key, ', '', 1)}) VALUES"
                    " (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 'queue', 'schedule', NULL, ?, ?, NULL)",
                    (
                        self.server,
                        task_id,
                        n,
                        str(request.get("run", "")),
                        json.dumps(dict(request)),
                        acked,
                        due,
                        interval,
                        player if isinstance(player, str) else None,
                        acked,
                        bkey,
                    ),
                )
                made = db.execute("SELECT last_insert_rowid()").fetchone()[0]
                if self._since_lost is not None:
                    self._since_lost.add(int(made))
                if bkey is not None:
                    self._replay_early(db, bkey)
                self._prune(db)
                return rolled

        if await self._run(work):
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

        def work(db: sqlite3.Connection) -> bool:
            with db:
                rolled = self._see(db, game_time, serial)
                db.execute(
                    "INSERT INTO ledger_ops (server, op, task_id, game_time, count, serial)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (self.server, op, id, game_time, count, serial),
                )
                if op == "clear":
                    db.execute(
                        "UPDATE ledger_tasks SET state = 'cancelled', last_op = 'clear',"
                        " changed_at = ? WHERE server = ? AND state IN ('queue', 'offline',"
                        " 'paused')",
                        (game_time, self.server),
                    )
                for task in affected:
                    self._apply(db, task, state, op, game_time)
                self._prune(db)
                return rolled

        if await self._run(work):
            self._suspect()

    def _apply(self, db: sqlite3.Connection, task: Task, state: str, op: str, now: int) -> None:
        remaining: int | None = None
        due: int | None = None
        if op == "pause":  # the pack keeps the ticks that were left (README: pause)
            remaining = max(task.due - now, 0)
        elif op == "resume" and task.remaining is not None:
            due = now + task.remaining
        if task.k is not None:
            updated = db.execute(
                "UPDATE ledger_tasks SET state = ?, last_op = ?, changed_at = ?,"
                " remaining = ?, due = coalesce(?, due) WHERE server = ? AND bkey = ?",
                (state, op, now, remaining, due, self.server, task.k),
            ).rowcount
            if updated:
                return
        updated = db.execute(
            "UPDATE ledger_tasks SET state = ?, last_op = ?, changed_at = ?,"
            " remaining = ?, due = coalesce(?, due) WHERE key = (SELECT key FROM ledger_tasks"
            " WHERE server = ? AND n = ? AND task_id = ? AND run = ? AND state NOT IN"
            " ('replaced') ORDER BY key DESC LIMIT 1)",
            (state, op, now, remaining, due, self.server, task.n, task.id, task.run),
        ).rowcount
        if updated:
            return
        # made in game: remembered so that this change can be redone after a crash too
        db.execute(
            f"INSERT INTO ledger_tasks (server, {COLUMNS.replace('key, ', '', 1)}) VALUES"
            " (?, ?, ?, ?, '{}', ?, ?, ?, NULL, 0, ?, ?, ?, ?, NULL, NULL)",
            (
                self.server,
                task.id,
                task.n,
                task.run,
                now,
                due if due is not None else task.due,
                task.interval,
                state,
                op,
                remaining,
                now,
            ),
        )

    # -- events -------------------------------------------------------------------------------

    async def apply_event(self, event: Event) -> Entry | None:
        """What a pack event says about an own task: by its key when the event has one (k),
        else the first row of its id that fits (see the module); the row it changed, as it
        was before, or None."""
        key = event.details.get("k")
        kind = event.type
        if kind == "waited" and event.details.get("then") == "skip":
            kind = "skipped"  # the wait ran out and the run is skipped (with then run: `ran`)
        if isinstance(key, str) and key:

            def keyed_work(db: sqlite3.Connection) -> Entry | None:
                with db:
                    self._see_event(db, event.game_time)
                    return self._keyed_event(db, kind, event.game_time, key, commit=False)

            keyed: Entry | None = await self._run(keyed_work)
            return keyed
        changes = {
            "offline": ("queue", "offline"),
            "restored": ("offline", "queue"),
            "retry": ("queue", "queue"),
            "retry_exhausted": ("queue", "done"),
            "dropped": ("queue", "done"),
            "invalid": ("queue", "done"),
        }
        before, after = changes.get(event.type, ("", ""))
        t = event.game_time

        def work(db: sqlite3.Connection) -> Entry | None:
            with db:
                self._see_event(db, t)
                if not before:
                    return None
                row = db.execute(
                    f"SELECT {COLUMNS} FROM ledger_tasks WHERE server = ? AND task_id = ? AND"
                    " state = ? AND (state = 'offline' OR due <= ?) ORDER BY due, key LIMIT 1",
                    (self.server, event.task_id, before, t + 1),
                ).fetchone()
                if row is None:
                    return None
                entry = entry_of(row)
                due = entry.due
                if event.type == "restored":
                    due = t + 1
                elif event.type == "retry":
                    delay = entry.request.get("retry_delay", 1)
                    due = t + 1 + (delay if isinstance(delay, int) and delay > 0 else 1)
                db.execute(
                    "UPDATE ledger_tasks SET state = ?, due = ?, changed_at = ? WHERE key = ?",
                    (after, due, t, entry.key),
                )
                return entry

        changed: Entry | None = await self._run(work)
        return changed

    def _see_event(self, db: sqlite3.Connection, game_time: int) -> None:
        """An event of the pack at `game_time`: the server reached it, and the record says so
        in the same transaction as what the event changed, before the source's cursor moves
        past it. Without this, a bot that only polled the ring (and asked no game time) would
        keep marks from before the save, and a rollback to that save would look like none.
        Never a hint of a rollback itself (events are older than the game time read with them);
        kept as it is while a restore is pending (the marks are the pre-crash ones)."""
        if (
            game_time < 0
            or db.execute(
                "SELECT 1 FROM ledger_servers WHERE server = ? AND pending IS NOT NULL",
                (self.server,),
            ).fetchone()
        ):
            return
        db.execute(
            "INSERT INTO ledger_servers (server, last_time, last_serial) VALUES (?, ?, 0)"
            " ON CONFLICT(server) DO UPDATE SET last_time = max(last_time, excluded.last_time)",
            (self.server, game_time),
        )

    def _replay_early(self, db: sqlite3.Connection, key: str) -> None:
        early = db.execute(
            "SELECT type, game_time FROM ledger_early WHERE server = ? AND bkey = ? ORDER BY rowid",
            (self.server, key),
        ).fetchall()
        if not early:
            return
        db.execute("DELETE FROM ledger_early WHERE server = ? AND bkey = ?", (self.server, key))
        for kind, game_time in early:
            self._keyed_event(db, kind, int(game_time), key, commit=False)

    def _keyed_event(
        self, db: sqlite3.Connection, kind: str, t: int, key: str, *, commit: bool = True
    ) -> Entry | None:
        row = db.execute(
            f"SELECT {COLUMNS} FROM ledger_tasks WHERE server = ? AND bkey = ?", (self.server, key)
        ).fetchone()
        if row is None:
            # a task run at once (a hand-over) may say so before its acknowledgement is
            # recorded: kept for that record (or for nobody: another bot's task, a pruned row)
            with db:
                db.execute(
                    "INSERT INTO ledger_early (server, bkey, type, game_time) VALUES (?, ?, ?, ?)",
                    (self.server, key, kind, t),
                )
                db.execute(
                    "DELETE FROM ledger_early WHERE server = ? AND rowid <= (SELECT max(rowid)"
                    " FROM ledger_early) - 10000",
                    (self.server,),
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
        update = (
            "UPDATE ledger_tasks SET state = ?, due = ?, ran_at = ?, changed_at = ? WHERE key = ?"
        )
        if not commit:
            db.execute(update, (state, due, ran_at, t, entry.key))
            return entry
        with db:
            db.execute(update, (state, due, ran_at, t, entry.key))
        return entry

    # -- what the crash guard reads and writes ------------------------------------------------

    async def knows(self, key: str) -> bool:
        """Whether the server had a task of this bot key: its acknowledgement was recorded, or
        the log said an event of it whose acknowledgement never arrived (the server ran it, then
        died before answering: a hand-over retried after that must not send it again)."""
        row = await self._run(
            lambda db: db.execute(
                "SELECT 1 FROM ledger_tasks WHERE server = ? AND bkey = ? UNION ALL"
                " SELECT 1 FROM ledger_early WHERE server = ? AND bkey = ?",
                (self.server, key, self.server, key),
            ).fetchone()
        )
        return row is not None

    async def entries(
        self, states: Iterable[str] | None = None, *, key: str | None = None
    ) -> list[Entry]:
        """The record's tasks (in `states`; of the bot key `key`), in the order made."""
        wanted = tuple(states) if states is not None else None

        def work(db: sqlite3.Connection) -> list[Entry]:
            sql = f"SELECT {COLUMNS} FROM ledger_tasks WHERE server = ?"
            args: list[object] = [self.server]
            if key is not None:
                sql += " AND bkey = ?"
                args.append(key)
            if wanted is not None:
                sql += f" AND state IN ({', '.join('?' * len(wanted))})"
                args.extend(wanted)
            return [entry_of(r) for r in db.execute(sql + " ORDER BY key", args).fetchall()]

        result: list[Entry] = await self._run(work)
        return result

    async def unsettled_clears(self) -> list[tuple[int, int]]:
        """(game time, serial counter) of each clear not yet settled by a restore."""
        rows = await self._run(
            lambda db: db.execute(
                "SELECT game_time, serial FROM ledger_ops WHERE server = ? AND op = 'clear'"
                " AND settled = 0 ORDER BY key",
                (self.server,),
            ).fetchall()
        )
        return [(int(r[0]), int(r[1])) for r in rows]

    async def set_state(self, key: int, state: str, game_time: int) -> None:
        await self._run(
            lambda db: db.execute(
                "UPDATE ledger_tasks SET state = ?, changed_at = ? WHERE key = ?",
                (state, game_time, key),
            )
        )

    async def adopt(self, key: int, task: Task, game_time: int) -> None:
        """The row's task is in the pack under another serial (put in again by a restore
        whose answer was lost): the row follows it."""
        await self._run(
            lambda db: db.execute(
                "UPDATE ledger_tasks SET n = ?, due = ?, changed_at = ?, state = ? WHERE key = ?",
                (
                    task.n,
                    task.due,
                    game_time,
                    "paused" if task.list == "paused" else task.list,
                    key,
                ),
            )
        )

    async def count(self) -> int:
        row = await self._run(
            lambda db: db.execute(
                "SELECT count(*) FROM ledger_tasks WHERE server = ?", (self.server,)
            ).fetchone()
        )
        return int(row[0])

    async def prune(self) -> int:
        def work(db: sqlite3.Connection) -> int:
            with db:
                return self._prune(db)

        result: int = await self._run(work)
        return result

    def _prune(self, db: sqlite3.Connection) -> int:
        """Forget rows that can no longer matter: finished, or one-offs whose due tick the
        game passed, more than `retain` ticks of game time ago. Nothing is pruned while a
        restore is pending (the marks are then the pre-crash ones)."""
        last_time, _, pending = self._server_row(db)
        if pending is not None or last_time < 0:
            return 0
        horizon = last_time - self.retain
        removed = db.execute(
            "DELETE FROM ledger_tasks WHERE server = ? AND ("
            "(state IN ('done', 'cancelled', 'replaced') AND changed_at <= ?)"
            " OR (state = 'queue' AND interval IS NULL AND due <= ?))",
            (self.server, horizon, horizon),
        ).rowcount
        db.execute(
            "DELETE FROM ledger_ops WHERE server = ? AND game_time <= ?", (self.server, horizon)
        )
        return int(removed)
