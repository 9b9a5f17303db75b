"""The ledger's table (its migrations) and its rows as values: :class:`Entry`, one task
instance; :class:`Pending`, a restart being repaired (bot.store.ledger reads and writes them)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.minecraft.pack_tasks import Task
from bot.store.schedules import OnDoubt

__all__ = ["COLUMNS", "MIGRATIONS", "Entry", "Pending", "entry_of"]

MIGRATIONS = [
    """
CREATE TABLE ledger_tasks (
    key INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    task_id TEXT NOT NULL,
    n INTEGER NOT NULL,           -- the pack's serial of this instance
    run TEXT NOT NULL,
    request TEXT NOT NULL,        -- JSON: what was sent ({} for tasks made in game)
    acked_at INTEGER NOT NULL,    -- game time when the server acknowledged it
    due INTEGER NOT NULL,         -- due tick (paused: when paused)
    interval INTEGER,             -- ticks, repeating tasks only
    as_player TEXT,
    own INTEGER NOT NULL,         -- 1: the bot scheduled it; 0: made in game, changed by the bot
    state TEXT NOT NULL,          -- queue | offline | paused | cancelled | done | replaced
    last_op TEXT NOT NULL,        -- schedule | cancel_one | cancel_all | clear | pause | resume
    remaining INTEGER,            -- paused: ticks left
    changed_at INTEGER NOT NULL   -- game time of the last change
);
CREATE INDEX ledger_tasks_server ON ledger_tasks (server, state);
CREATE TABLE ledger_ops (
    key INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    op TEXT NOT NULL,
    task_id TEXT,
    game_time INTEGER NOT NULL,
    count INTEGER NOT NULL,
    serial INTEGER NOT NULL,      -- the pack's serial counter just after
    settled INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX ledger_ops_server ON ledger_ops (server, key);
CREATE TABLE ledger_servers (
    server TEXT PRIMARY KEY,
    last_time INTEGER NOT NULL,   -- the highest game time the bot saw
    last_serial INTEGER NOT NULL, -- the highest task serial the bot saw
    pending TEXT                  -- JSON: a restore that has not finished
);
""",
    """
ALTER TABLE ledger_tasks ADD COLUMN bkey TEXT;     -- the bot's key of the task (the pack's k)
ALTER TABLE ledger_tasks ADD COLUMN ran_at INTEGER; -- game time of its last run the log said
CREATE INDEX ledger_tasks_bkey ON ledger_tasks (server, bkey);
CREATE TABLE ledger_early (       -- events of a key read before its acknowledgement was recorded
    server TEXT NOT NULL,
    bkey TEXT NOT NULL,
    type TEXT NOT NULL,
    game_time INTEGER NOT NULL
);
""",
    # the ring-buffer source's reads, from which a crash's window of doubt is measured
    """
ALTER TABLE ledger_servers ADD COLUMN read_time INTEGER; -- game time of the last whole read
ALTER TABLE ledger_servers ADD COLUMN read_at REAL;      -- wall-clock seconds of that read
ALTER TABLE ledger_servers ADD COLUMN read_rate REAL;    -- ticks a second between the last two
ALTER TABLE ledger_servers ADD COLUMN lost_at REAL;      -- the first failed read after it
""",
]

COLUMNS = (
    "key, task_id, n, run, request, acked_at, due, interval, as_player, own, state, last_op,"
    " remaining, changed_at, bkey, ran_at"
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One ledger row."""

    key: int
    task_id: str
    n: int
    run: str
    request: Mapping[str, Any]
    acked_at: int
    due: int
    interval: int | None
    as_player: str | None
    own: bool
    state: str
    last_op: str
    remaining: int | None
    changed_at: int
    bkey: str | None = None  # the bot's key: names the task in every timeline (own rows)
    ran_at: int | None = None  # the game time of its last run, from the pack's `ran` event

    @property
    def on_doubt(self) -> OnDoubt:
        """What the crash guard does with this task when it cannot tell whether it ran (see
        bot.background.doubt): `skip` unless its request said `run`."""
        return "run" if self.request.get("on_doubt") == "run" else "skip"

    def same_task(self, task: Task) -> bool:
        if self.bkey is not None:
            return task.k == self.bkey
        return task.n == self.n and task.id == self.task_id and task.run == self.run


@dataclass(frozen=True, slots=True)
class Pending:
    """A restart being repaired: what the bot had seen before it."""

    last_time: int
    last_serial: int
    reason: str
    first_key: int  # rows with a greater key were made after the restart
    # the ring-buffer source: a run the bot got no `ran` of can have happened from the last
    # whole read of the ring (doubt_after) to the latest game time the server could have
    # reached before it stopped (doubt_until); None with the log, which is read to its end
    doubt_after: int | None = None
    doubt_until: int | None = None


def entry_of(row: Sequence[Any]) -> Entry:
    return Entry(
        key=row[0],
        task_id=row[1],
        n=row[2],
        run=row[3],
        request=json.loads(row[4]),
        acked_at=row[5],
        due=row[6],
        interval=row[7],
        as_player=row[8],
        own=bool(row[9]),
        state=row[10],
        last_op=row[11],
        remaining=row[12],
        changed_at=row[13],
        bkey=row[14],
        ran_at=row[15],
    )
