"""Running a task once, now (`run_now`), and what became of its runs (`history`).

Run now leaves the schedule as it is: a planned wall-clock row is handed over as an extra run,
recorded as triggered by the caller (its next due stays); a queued game-time task gets a copy
of itself (its command, retries and context) handed over due now, and stays queued at its due.
"""

from __future__ import annotations

__all__ = ["History", "HistoryRequest", "RanNow", "history", "run_now"]

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.i18n import _
from bot.minecraft import handover
from bot.operations.queue import TaskRef
from bot.operations.ranks import Rank
from bot.store.history import HistoryEntry

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices
    from bot.store.schedules import Run

PAGE = 10  # runs on a page of the history
MAX_PAGE = 10_000


@dataclass(frozen=True)
class RanNow:
    """What run now did: `done` is False when there was nothing of that id; `run` is the
    wall-clock run's record (None for a game-time task); `where` what the pack did with it."""

    server: ServerServices
    text: str
    done: bool
    where: str = ""
    run: Run | None = None


def _said(task_id: str, server: str, where: str) -> str:
    if where == "ran":
        return _(
            "Ran `{id}` on {server} now; its schedule is unchanged.", id=task_id, server=server
        )
    if where in ("queue", "queued"):
        return _(
            "Handed `{id}` over to {server} now: it waits in the queue (retrying, or past "
            "the pack's per-tick cap); its schedule is unchanged.",
            id=task_id,
            server=server,
        )
    if where in ("offline", "waiting_player"):
        return _(
            "Handed `{id}` over to {server} now: it runs when its player is back online; "
            "its schedule is unchanged.",
            id=task_id,
            server=server,
        )
    if where == "sending":
        return _(
            "`{id}` is being handed over to {server}; /history {id} shows when it ran.",
            id=task_id,
            server=server,
        )
    return _(
        "`{id}` could not be run on {server} now ({outcome}); its schedule is unchanged.",
        id=task_id,
        server=server,
        outcome=where,
    )


async def run_now(ops: Operations, caller: Caller, req: TaskRef) -> RanNow:
    """Run the planned row of that id (else the pack's first task of that id) once, now."""
    ops.require(caller, Rank.MODERATOR, "/run_now")
    target = ops.server(req.server)
    scheduler = ops.services.scheduler
    row = None if scheduler is None else await scheduler.find(target.name, req.id)
    if row is not None:
        assert scheduler is not None
        target.checker.check(row.command)
        run = await scheduler.run_now(row.id, caller.name)
        text = _said(row.task_id, target.name, run.outcome)
        await ops.audit(caller, target, "run_now", {"id": req.id, "planned": row.id}, text)
        return RanNow(target, text, run.outcome not in ("missed", "cancelled"), run.outcome, run)
    task = await target.pack.show(req.id)
    if task is None:
        return RanNow(
            target, _("No task `{id}` on {server}.", id=req.id, server=target.name), False
        )
    target.checker.check(task.run)  # the copy is a new submit: the rules of today apply
    runs = ops.services.history
    asked = runs.clock.now()
    try:
        done = await handover.run_copy(
            target.pack, task, key=f"now{caller.ref:x}", now=runs.clock.now
        )
    except errors.PackError as exc:
        if exc.code != "player_offline":
            raise
        raise errors.ValidationError(
            _(
                "`{id}` runs as a player who is not online on {server}: it cannot run now.",
                id=task.id,
                server=target.name,
            )
        ) from None
    words = {"ran": "ran", "queue": "queued", "offline": "waiting_player"}  # as _deliver says
    outcome = words.get(done.where, done.where)
    await runs.record_copy(
        target.name,
        task.id,
        due=asked,
        handed_over=done.handed_at,
        ran=done.ran_at if done.where == "ran" else None,
        outcome=outcome,
        by=caller.name,
    )
    text = _said(task.id, target.name, done.where)
    await ops.audit(caller, target, "run_now", {"id": req.id}, text)
    return RanNow(target, text, True, done.where)


class HistoryRequest(BaseModel):
    """One page (from 1) of a task id's runs on a server (default: the only one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=64)
    server: str | None = None
    page: int = Field(default=1, ge=1, le=MAX_PAGE)


@dataclass(frozen=True)
class History:
    """A page of runs, newest first; `page` from 1 (clamped to the last), `text` says what
    the page is (or that there is nothing)."""

    server: ServerServices
    task_id: str
    entries: tuple[HistoryEntry, ...]
    page: int
    pages: int
    total: int
    days: float
    text: str


async def history(ops: Operations, caller: Caller, req: HistoryRequest) -> History:
    """The runs the bot knows of for this id: its wall-clock rows' runs (every state) and its
    game-time runs (run-now copies, the pack's events about tasks the bot made)."""
    ops.require(caller, Rank.MODERATOR, "/history")
    target = ops.server(req.server)
    found = ops.services.history
    days = ops.services.settings.history_days
    page = req.page
    entries, total = await found.page(target.name, req.id, offset=(page - 1) * PAGE, limit=PAGE)
    pages = max(1, -(-total // PAGE))
    if page > pages:  # past the end: the last page, as the lists do
        page = pages
        entries, total = await found.page(target.name, req.id, offset=(page - 1) * PAGE, limit=PAGE)
        pages = max(1, -(-total // PAGE))
    if total == 0:
        text = _(
            "No runs of `{id}` on {server} in the last {days} days.",
            id=req.id,
            server=target.name,
            days=f"{days:g}",
        )
    else:
        text = _(
            "Runs of `{id}` on {server}: {n} in the last {days} days, newest first.",
            id=req.id,
            server=target.name,
            n=total,
            days=f"{days:g}",
        )
    return History(target, req.id, tuple(entries), page, pages, total, days, text)
