"""Reading a server's state: its game clock, a page of one of its lists, one task. Reads are for
moderators and leave no audit entry."""

from __future__ import annotations

__all__ = [
    "LISTS",
    "PAGE_SIZE",
    "Clock",
    "ListRequest",
    "Page",
    "Shown",
    "doubt_fact",
    "game_time",
    "page",
    "planned_facts",
    "show",
]

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.i18n import N_, _
from bot.minecraft.conditions import describe, pack_cond
from bot.operations.queue import ServerRef, TaskRef
from bot.operations.ranks import Rank
from bot.store.ledger import LIVE
from bot.times.dst_words import dst_facts
from bot.times.when import human

if TYPE_CHECKING:
    from bot.minecraft.pack_tasks import Task
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices
    from bot.store.schedules import OnDoubt, Run, Schedule

PAGE_SIZE = 10
LISTS = ("queue", "offline", "paused", "planned")
ListName = Literal["queue", "offline", "paused", "planned"]


class ListRequest(BaseModel):
    """One page of a list: the pack's `queue`, `offline` or `paused`, or the bot's `planned`
    wall-clock rows. A page past the last is the last page."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    which: ListName = "queue"
    page: int = Field(default=0, ge=0, le=2**31 - 1)
    server: str | None = None


@dataclass(frozen=True)
class Clock:
    server: ServerServices
    ticks: int
    tps: float

    @property
    def day(self) -> int:
        return self.ticks // 24000


@dataclass(frozen=True)
class Page:
    """`page` (0-based, clamped) of `pages`; `tasks` for the pack's lists, `planned` (with each
    row's next runs) for the wall-clock one."""

    server: ServerServices
    which: str
    page: int
    pages: int
    total: int
    tasks: list[Task] = field(default_factory=list)
    planned: list[tuple[Schedule, list[datetime]]] = field(default_factory=list)


@dataclass(frozen=True)
class Shown:
    """One task by its id: a planned row (with its next runs and last runs) or a queued task;
    both None when there is none. `on_doubt`: its policy after a crash (bot.background.doubt)."""

    server: ServerServices
    task: Task | None = None
    planned: Schedule | None = None
    upcoming: list[datetime] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    on_doubt: OnDoubt = "skip"


async def game_time(ops: Operations, caller: Caller, req: ServerRef) -> Clock:
    ops.require(caller, Rank.MODERATOR, "/time")
    target = ops.server(req.server)
    ticks = await target.pack.get_time()
    return Clock(target, ticks, await target.pack.tps())


def _pages(total: int) -> int:
    return max(1, -(-total // PAGE_SIZE))


async def page(ops: Operations, caller: Caller, req: ListRequest) -> Page:
    ops.require(caller, Rank.MODERATOR, "/list")
    target = ops.server(req.server)
    if req.which == "planned":
        scheduler = ops.scheduler()
        rows, total = await scheduler.planned(
            target.name, offset=req.page * PAGE_SIZE, limit=PAGE_SIZE
        )
        at = min(req.page, _pages(total) - 1)
        if at != req.page:
            rows, total = await scheduler.planned(
                target.name, offset=at * PAGE_SIZE, limit=PAGE_SIZE
            )
        planned = [(r, scheduler.upcoming(r)) for r in rows]
        return Page(target, req.which, at, _pages(total), total, planned=planned)
    tasks, total = await target.pack.list_tasks(
        req.which, offset=req.page * PAGE_SIZE, limit=PAGE_SIZE
    )
    at = min(req.page, _pages(total) - 1)
    if at != req.page:  # past the end: the last page instead
        tasks, total = await target.pack.list_tasks(
            req.which, offset=at * PAGE_SIZE, limit=PAGE_SIZE
        )
    return Page(target, req.which, at, _pages(total), total, tasks=tasks)


async def show(ops: Operations, caller: Caller, req: TaskRef) -> Shown:
    ops.require(caller, Rank.MODERATOR, "/show")
    target = ops.server(req.server)
    scheduler = ops.services.scheduler
    row = await scheduler.find(target.name, req.id) if scheduler is not None else None
    if row is not None and scheduler is not None:
        return Shown(
            target,
            planned=row,
            upcoming=scheduler.upcoming(row),
            runs=await scheduler.runs(row.id, 5),
            on_doubt=row.on_doubt,
        )
    task = await target.pack.show(req.id)
    return Shown(target, task=task, on_doubt=await task_on_doubt(target, task))


async def task_on_doubt(target: ServerServices, task: Task | None) -> OnDoubt:
    """A game-time task's policy after a crash: the bot's record of it keeps it (the pack does
    not); a task made in game, or on a server without the record, has the default."""
    if task is None or task.k is None or target.guard is None:
        return "skip"
    found = await target.guard.ledger.entries(LIVE, key=task.k)
    return found[0].on_doubt if found else "skip"


# the names of a planned row's facts, as a game-time task's reply names its conditions
_ONLY_IF = N_("only if")
_ANNOUNCE = N_("announce")


def doubt_fact(on_doubt: str) -> tuple[str, str] | None:
    """A task's policy after a crash (bot.background.doubt) as (name, text) in the reader's
    language, when it is not the default; every face says it from here."""
    if on_doubt != "run":
        return None
    return _("after a crash"), _("run again if it may not have run")


def planned_facts(row: Schedule) -> list[tuple[str, str]]:
    """What a planned row holds besides its command and times, as (name, text) in the reader's
    language: its conditions (`require`, `if_not`, `max_wait`, `after_wait`), its in-game
    countdown (`announce`) and, repeating, what it does when the clocks change with the clock
    changes in the 12 months from its next run. Every face shows these, from here."""
    facts = []
    cond = pack_cond(row.conditions)
    if cond is not None:
        facts.append((_(_ONLY_IF), describe(cond)))
    if row.announce:
        facts.append((_(_ANNOUNCE), ", ".join(human(s) for s in row.announce)))
    if row.next_due is not None:
        facts += dst_facts(row.spec, row.next_due)
    return facts
