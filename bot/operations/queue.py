"""Changing what is queued or planned: cancel, pause and resume one task by its id (a planned
wall-clock row of that id first, else the pack's queued task), cancel every task of an id, clear a
server's queue. The faces that ask first (Discord's Confirm button) call `count` or `size`, then
the change."""

from __future__ import annotations

__all__ = [
    "Changed",
    "Counted",
    "PlanChange",
    "ServerRef",
    "TaskRef",
    "cancel",
    "cancel_all",
    "change_planned",
    "clear",
    "count",
    "pause",
    "resume",
    "size",
]

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.i18n import N_, _
from bot.i18n.formats import stamp_with_distance
from bot.operations.ranks import Rank

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices
    from bot.store.schedules import Schedule
    from bot.wallclock.scheduler import Scheduler


class TaskRef(BaseModel):
    """One task (or planned row) by its id, on a server (default: the only one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=64)
    server: str | None = None


class ServerRef(BaseModel):
    """A whole server's queue."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str | None = None


@dataclass(frozen=True)
class Changed:
    """What a change did: `done` is False when there was nothing of that id to change."""

    server: ServerServices
    text: str
    done: bool
    count: int = 0


async def _planned(ops: Operations, target: ServerServices, task_id: str) -> Schedule | None:
    scheduler = ops.services.scheduler
    return None if scheduler is None else await scheduler.find(target.name, task_id)


# what a change by id does: to the planned row of that id (its sentence), else to the pack's
# task (done?, its sentence)
PlannedChange = Callable[["Scheduler", "Schedule"], Awaitable[str]]
PackChange = Callable[["ServerServices", str], Awaitable[tuple[bool, str]]]


async def _by_id(
    ops: Operations,
    caller: Caller,
    req: TaskRef,
    verb: str,
    planned: PlannedChange,
    queued: PackChange,
) -> Changed:
    """cancel, pause or resume: a planned wall-clock row of that id first, as every face has
    it, else the pack's first task with that id; audited either way."""
    ops.require(caller, Rank.MODERATOR, f"/{verb}")
    target = ops.server(req.server)
    row = await _planned(ops, target, req.id)
    if row is not None:
        done, text = True, await planned(ops.scheduler(), row)
    else:
        done, text = await queued(target, req.id)
    await ops.audit(caller, target, verb, {"id": req.id}, text)
    return Changed(target, text, done)


async def _cancel_planned(scheduler: Scheduler, row: Schedule) -> str:
    await scheduler.cancel(row.id)
    return _(
        "Cancelled the planned schedule `{id}` on {server}.", id=row.task_id, server=row.server
    )


async def _cancel_queued(target: ServerServices, task_id: str) -> tuple[bool, str]:
    if await target.pack.cancel_one(task_id):
        return True, _("Cancelled `{id}`.", id=task_id)
    return False, _("No task `{id}` on {server}.", id=task_id, server=target.name)


async def _pause_planned(scheduler: Scheduler, row: Schedule) -> str:
    await scheduler.pause(row.id)
    return _("Paused the planned schedule `{id}`: it does not run until resumed.", id=row.task_id)


async def _pause_queued(target: ServerServices, task_id: str) -> tuple[bool, str]:
    if await target.pack.pause(task_id):
        return True, _("Paused `{id}`.", id=task_id)
    return False, _("No queued task `{id}` on {server}.", id=task_id, server=target.name)


async def _resume_planned(scheduler: Scheduler, row: Schedule) -> str:
    due = (await scheduler.resume(row.id)).next_due
    if due is None:
        return _("Resumed the planned schedule `{id}`.", id=row.task_id)
    return _(
        "Resumed the planned schedule `{id}`: next run {when}.",
        id=row.task_id,
        when=stamp_with_distance(due),
    )


async def _resume_queued(target: ServerServices, task_id: str) -> tuple[bool, str]:
    if await target.pack.resume(task_id):
        return True, _("Resumed `{id}`.", id=task_id)
    return False, _("No paused task `{id}` on {server}.", id=task_id, server=target.name)


async def cancel(ops: Operations, caller: Caller, req: TaskRef) -> Changed:
    return await _by_id(ops, caller, req, "cancel", _cancel_planned, _cancel_queued)


async def pause(ops: Operations, caller: Caller, req: TaskRef) -> Changed:
    return await _by_id(ops, caller, req, "pause", _pause_planned, _pause_queued)


async def resume(ops: Operations, caller: Caller, req: TaskRef) -> Changed:
    return await _by_id(ops, caller, req, "resume", _resume_planned, _resume_queued)


@dataclass(frozen=True)
class Counted:
    """How many tasks of an id are queued, and whether a planned row has that id: what a face
    asks about before `cancel_all`. `text` is the question, or why there is nothing to do."""

    server: ServerServices
    count: int
    planned: bool
    text: str


async def count(ops: Operations, caller: Caller, req: TaskRef) -> Counted:
    ops.require(caller, Rank.MODERATOR, "/cancel_all")
    target = ops.server(req.server)
    n = await target.pack.count(req.id)
    planned = await _planned(ops, target, req.id) is not None
    if n == 0 and not planned:
        text = _("No task `{id}` on {server}.", id=req.id, server=target.name)
    elif planned:
        text = _(
            "Cancel all {n} task(s) `{id}` and its planned schedule on {server}?",
            n=n,
            id=req.id,
            server=target.name,
        )
    else:
        text = _("Cancel all {n} task(s) `{id}` on {server}?", n=n, id=req.id, server=target.name)
    return Counted(target, n, planned, text)


async def cancel_all(ops: Operations, caller: Caller, req: TaskRef) -> Changed:
    ops.require(caller, Rank.MODERATOR, "/cancel_all")
    target = ops.server(req.server)
    removed = await target.pack.cancel_all(req.id)
    row = await _planned(ops, target, req.id)
    if row is not None:
        await ops.scheduler().cancel(row.id)
        text = _(
            "Cancelled {n} task(s) `{id}` and its planned schedule on {server}.",
            n=removed,
            id=req.id,
            server=target.name,
        )
    else:
        text = _(
            "Cancelled {n} task(s) `{id}` on {server}.", n=removed, id=req.id, server=target.name
        )
    await ops.audit(caller, target, "cancel_all", {"id": req.id}, text)
    return Changed(target, text, removed > 0 or row is not None, removed)


def size(ops: Operations, caller: Caller, req: ServerRef) -> Counted:
    """The question before `clear`."""
    ops.require(caller, Rank.ADMIN, "/clear")
    target = ops.server(req.server)
    text = _("Remove every scheduled task on {server}? This cannot be undone.", server=target.name)
    return Counted(target, 0, False, text)


async def clear(ops: Operations, caller: Caller, req: ServerRef) -> Changed:
    """Every task of a server's queue removed: admins only (it is everyone's queue)."""
    ops.require(caller, Rank.ADMIN, "/clear")
    target = ops.server(req.server)
    removed = await target.pack.clear()
    text = _("Removed {n} task(s) from {server}.", n=removed, server=target.name)
    await ops.audit(caller, target, "clear", {}, text)
    return Changed(target, text, True, removed)


class PlanChange(BaseModel):
    """Cancel, pause or resume one wall-clock row by its number (the dashboard's lists show it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    number: int = Field(ge=1, le=2**63 - 1)
    verb: Literal["cancel", "pause", "resume"]
    server: str | None = None


# whole sentences, not a verb spliced in: other languages do not put it first
_PLAN_SAID = {
    "cancel": N_("Cancelled planned `{id}` on {server}."),
    "pause": N_("Paused planned `{id}` on {server}."),
    "resume": N_("Resumed planned `{id}` on {server}."),
}


async def change_planned(ops: Operations, caller: Caller, req: PlanChange) -> Changed:
    ops.require(caller, Rank.MODERATOR, f"/{req.verb}")
    target = ops.server(req.server)
    scheduler = ops.scheduler()
    row = await scheduler.get(req.number)
    if row is None or row.server != target.name:
        raise errors.NotFound(
            _("There is no planned schedule #{id} on {server}.", id=req.number, server=target.name)
        )
    changes = {"cancel": scheduler.cancel, "pause": scheduler.pause, "resume": scheduler.resume}
    changed = await changes[req.verb](row.id)  # the scheduler's sentence when it cannot
    text = _(_PLAN_SAID[req.verb], id=changed.task_id, server=target.name)
    await ops.audit(caller, target, req.verb, {"planned": changed.task_id}, text)
    return Changed(target, text, True)
