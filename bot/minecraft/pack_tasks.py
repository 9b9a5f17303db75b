"""The pack's game-time tasks as the pack client hands them out: the Task value (one element of
a doom.schedule list, typed), the lists' names, and the recorder told of every change to them.

Built from the task compound the pack keeps in `doom.schedule:data <list>` (datapack/README.md,
"A task"), after the storage SNBT was parsed to Python values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol

__all__ = ["TASK_LISTS", "PackRecorder", "Task", "TaskList", "task_from_storage"]

TaskList = Literal["queue", "offline", "paused"]
TASK_LISTS: Final[tuple[TaskList, ...]] = ("queue", "offline", "paused")


@dataclass(frozen=True, slots=True)
class Task:
    """One scheduled task as the pack stores it."""

    id: str
    run: str
    due: int
    list: TaskList
    executor: str | None  # hyphenated UUID of the entity that scheduled it; None for the console
    player: bool
    dimension: str
    retry_left: int
    retry_delay: int
    interval: int | None  # ticks between runs; None when it runs once
    remaining: int | None  # paused tasks keep their remaining delay
    # additive fields (after the interface's): serial, configured retries, last lateness
    n: int = 0
    retry: int = 0
    late: int = 0
    k: str | None = None  # the bot's key (request `key`): its name for the task across rollbacks
    cond: Mapping[str, object] | None = None  # the conditions checked when due (pack `cond`)


def _int(value: object, default: int = 0) -> int:
    # Storage numbers come back as int (Byte/Short/Int/Long) or float; bools never appear.
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    return default


def task_from_storage(value: Mapping[str, object], which: TaskList) -> Task:
    """A Task from one parsed task compound of list `which`."""
    interval = _int(value.get("interval"))
    executor = value.get("executor")
    remaining = value.get("remaining")
    return Task(
        id=str(value.get("id", "")),
        run=str(value.get("run", "")),
        due=_int(value.get("due")),
        list=which,
        executor=executor if isinstance(executor, str) and executor else None,
        player=_int(value.get("player")) != 0,
        dimension=str(value.get("dimension", "minecraft:overworld")),
        retry_left=_int(value.get("retry_left")),
        retry_delay=max(1, _int(value.get("retry_delay"), 1)),
        interval=interval if interval > 0 else None,
        remaining=_int(remaining) if remaining is not None else None,
        n=_int(value.get("n")),
        retry=_int(value.get("retry")),
        late=_int(value.get("late")),
        k=key if isinstance(key := value.get("k"), str) and key else None,
        cond=cond if isinstance(cond := value.get("cond"), dict) else None,
    )


class PackRecorder(Protocol):
    """Told of every change the server acknowledged (bot.store.ledger.Ledger keeps the record
    a crash is repaired from). Called after the pack's answer; an error here is logged, never
    raised: the change was made whatever the record does."""

    def saw_time(self, game_time: int) -> None:
        """A game time the pack client read (the highest one is the mark a rollback is told
        by)."""

    async def scheduled(self, request: Mapping[str, object], out: Mapping[str, object]) -> None:
        """`request` is what was sent (run, id or prefix, time/tick, unit, interval, retry,
        retry_delay, as_player); `out` the pack's outcome record (id, n, due, time)."""

    async def operated(
        self,
        op: str,
        id: str | None,
        affected: Sequence[Task],
        count: int,
        game_time: int,
        serial: int,
    ) -> None:
        """cancel_one/cancel_all/pause/resume/clear done: the tasks it acted on (read just
        before; empty for clear), how many the pack counted, the game time and the pack's
        task serial counter just after."""
