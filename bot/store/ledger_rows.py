"""The ledger's rows as values: :class:`Entry`, one task instance (its columns of
bot.store.tables.ledger_tasks); :class:`Pending`, a restart being repaired, kept as JSON in
ledger_servers (bot.store.ledger reads and writes them)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.minecraft.pack_tasks import Task
from bot.store.schedules import OnDoubt
from bot.store.tables import ledger_tasks

__all__ = ["COLUMNS", "Entry", "Pending", "entry_of", "pending_of", "pending_text"]

_t = ledger_tasks.c
# an Entry's columns, in entry_of's order
COLUMNS = (
    _t.key,
    _t.task_id,
    _t.n,
    _t.run,
    _t.request,
    _t.acked_at,
    _t.due,
    _t.interval,
    _t.as_player,
    _t.own,
    _t.state,
    _t.last_op,
    _t.remaining,
    _t.changed_at,
    _t.bkey,
    _t.ran_at,
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


def pending_of(text: str | None) -> Pending | None:
    if not text:
        return None
    data = json.loads(text)
    after, until = data.get("doubt_after"), data.get("doubt_until")
    return Pending(
        int(data["last_time"]),
        int(data["last_serial"]),
        str(data["reason"]),
        int(data["first_key"]),
        after if isinstance(after, int) else None,
        until if isinstance(until, int) else None,
    )


def pending_text(pending: Pending | None) -> str | None:
    if pending is None:
        return None
    return json.dumps(
        {
            "last_time": pending.last_time,
            "last_serial": pending.last_serial,
            "reason": pending.reason,
            "first_key": pending.first_key,
            "doubt_after": pending.doubt_after,
            "doubt_until": pending.doubt_until,
        }
    )
