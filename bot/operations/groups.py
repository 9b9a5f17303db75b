"""One request for a group of servers (`all`, or a group of DOOM_SERVER_GROUPS): each server
gets its own task, row or change, through the one-server operation and all its checks, at the
same time; a server that is down or refuses says so in its line and stops none of the others.

Every operation here is its one-server operation run on each server of the group (`_fan`, the
one loop), with an outcome per server. A write says "done on N of M servers", then a line per
server, and leaves one audit entry for the group with those lines (each server's own change is
audited by its operation; a server that was down has no entry of its own). A read gives each
server's outcome for the face to show as a section.

Left out, on purpose: `change_planned` (a row's number names one row of one server), the plan
file (one server's document; an import is all or nothing, which cannot be promised across
servers some of which may be down), setup and selftest (installing is done server by server),
the calendar (its feed already covers every server) and Discord events (each is bound to one
server).
"""

from __future__ import annotations

__all__ = [
    "GroupChanged",
    "GroupOutcome",
    "GroupScheduled",
    "ServerOutcome",
    "cancel",
    "cancel_all",
    "clear",
    "count",
    "game_time",
    "history",
    "line",
    "members",
    "page",
    "pause",
    "read",
    "resume",
    "run_now",
    "schedule",
    "schedule_dynamic",
    "show",
    "size",
]

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from pydantic import BaseModel

from bot import errors
from bot.i18n import _
from bot.i18n.formats import decimal, number
from bot.operations import queue, reads, runs
from bot.operations import schedule as schedule_ops
from bot.operations.ranks import Rank

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices

T = TypeVar("T")
R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class ServerOutcome(Generic[T]):
    """What became of the request on one server: done (`ok`) or why not, as a sentence;
    `value` is the one-server operation's outcome when there is one."""

    server: str
    ok: bool
    text: str
    value: T | None = None


@dataclass(frozen=True)
class GroupOutcome(Generic[T]):
    """`head` says what was done where; `text` is it with a line a server (`lines`)."""

    group: str
    outcomes: tuple[ServerOutcome[T], ...]
    head: str
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join([self.head, *self.lines])


GroupScheduled = GroupOutcome[schedule_ops.Scheduled]
GroupChanged = GroupOutcome[queue.Changed]


def members(ops: Operations, name: str | None) -> list[ServerServices]:
    """The servers of the group `name`; ValidationError when it is not a group."""
    found = ops.group(name)
    if found is None:
        raise errors.ValidationError(
            _("{name} is not a server group.", name=repr(name)), field="server"
        )
    return found


async def _fan(
    targets: list[ServerServices],
    one: Callable[[str], Awaitable[T]],
    said: Callable[[T], str],
    done: Callable[[T], bool],
) -> tuple[ServerOutcome[T], ...]:
    """`one` on every server at once; a server's refusal or silence is its outcome only (a
    rank refusal is everyone's, so it is raised)."""

    async def each(target: ServerServices) -> ServerOutcome[T]:
        try:
            value = await one(target.name)
        except errors.NotAllowed:
            raise
        except errors.BotError as exc:  # refused there, or the server is unreachable
            return ServerOutcome(target.name, False, str(exc))
        return ServerOutcome(target.name, done(value), said(value), value)

    return tuple(await asyncio.gather(*(each(t) for t in targets)))


def line(outcome: ServerOutcome[T], *, read: bool = False) -> str:
    """`- **main**: Cancelled `x`.`, or why it was not done (read: why it could not be read)."""
    if outcome.value is not None:
        return f"- **{outcome.server}**: {outcome.text}"
    why = (
        _("unavailable: {error}", error=outcome.text)
        if read
        else _("not done: {why}", why=outcome.text)
    )
    return f"- **{outcome.server}**: {why}"


def _lines(outcomes: tuple[ServerOutcome[T], ...], *, read: bool = False) -> tuple[str, ...]:
    return tuple(line(o, read=read) for o in outcomes)


async def _each(
    ops: Operations,
    caller: Caller,
    req: R,
    rank: Rank,
    what: str,
    one: Callable[[Operations, Caller, R], Awaitable[T]],
    said: Callable[[T], str],
    done: Callable[[T], bool],
) -> tuple[str, tuple[ServerOutcome[T], ...]]:
    """The group `req.server` names, and `one` run on each of its servers with the request's
    server set to that one, once the caller's rank allows `what`."""
    ops.require(caller, rank, what)
    group = str(getattr(req, "server", ""))

    def on(name: str) -> Awaitable[T]:
        return one(ops, caller, req.model_copy(update={"server": name}))

    return group, await _fan(members(ops, group), on, said, done)


async def _write(
    ops: Operations,
    caller: Caller,
    req: R,
    rank: Rank,
    what: str,
    action: str,
    one: Callable[[Operations, Caller, R], Awaitable[T]],
    said: Callable[[T], str],
    done: Callable[[T], bool] = lambda _value: True,
) -> GroupOutcome[T]:
    """A change on each server of the group `req.server`, said and audited for the group."""
    group, found = await _each(ops, caller, req, rank, what, one, said, done)
    done_on = sum(o.ok for o in found)
    head = _(
        "{group}: done on {done} of {total} servers.", group=group, done=done_on, total=len(found)
    )
    made = GroupOutcome(group, found, head, _lines(found))
    request: Mapping[str, object] = {**req.model_dump(exclude={"server"}), "group": group}
    await ops.audit(caller, None, action, request, made.text)
    return made


async def read(
    ops: Operations,
    caller: Caller,
    req: R,
    what: str,
    one: Callable[[Operations, Caller, R], Awaitable[T]],
    said: Callable[[T], str],
) -> GroupOutcome[T]:
    """An operation that changes nothing (`what`, as the faces call it: /time, /dryrun) on each
    server of the group `req.server`: a section a server, `said` its line."""
    group, found = await _each(ops, caller, req, Rank.MODERATOR, what, one, said, _always)
    head = _(
        "{group}: read on {done} of {total} servers.",
        group=group,
        done=sum(o.ok for o in found),
        total=len(found),
    )
    return GroupOutcome(group, found, head, _lines(found, read=True))


def _always(_value: object) -> bool:
    return True


def _text(value: schedule_ops.Scheduled | queue.Changed | runs.RanNow) -> str:
    return value.text


def _done(value: queue.Changed | runs.RanNow) -> bool:
    return value.done


# -- writes -----------------------------------------------------------------------------------


async def schedule(
    ops: Operations, caller: Caller, req: schedule_ops.ScheduleRequest
) -> GroupScheduled:
    """/schedule with `server` naming a group."""
    return await _write(
        ops, caller, req, Rank.MODERATOR, "/schedule", "schedule", schedule_ops.schedule, _text
    )


async def schedule_dynamic(
    ops: Operations, caller: Caller, req: schedule_ops.DynamicRequest
) -> GroupScheduled:
    """/schedule_dynamic on each server of a group: each makes up its own id."""
    return await _write(
        ops,
        caller,
        req,
        Rank.MODERATOR,
        "/schedule_dynamic",
        "schedule_dynamic",
        schedule_ops.schedule_dynamic,
        _text,
    )


async def cancel(ops: Operations, caller: Caller, req: queue.TaskRef) -> GroupChanged:
    return await _write(
        ops, caller, req, Rank.MODERATOR, "/cancel", "cancel", queue.cancel, _text, _done
    )


async def pause(ops: Operations, caller: Caller, req: queue.TaskRef) -> GroupChanged:
    return await _write(
        ops, caller, req, Rank.MODERATOR, "/pause", "pause", queue.pause, _text, _done
    )


async def resume(ops: Operations, caller: Caller, req: queue.TaskRef) -> GroupChanged:
    return await _write(
        ops, caller, req, Rank.MODERATOR, "/resume", "resume", queue.resume, _text, _done
    )


async def run_now(ops: Operations, caller: Caller, req: queue.TaskRef) -> GroupOutcome[runs.RanNow]:
    return await _write(
        ops, caller, req, Rank.MODERATOR, "/run_now", "run_now", runs.run_now, _text, _done
    )


async def cancel_all(ops: Operations, caller: Caller, req: queue.TaskRef) -> GroupChanged:
    return await _write(
        ops,
        caller,
        req,
        Rank.MODERATOR,
        "/cancel_all",
        "cancel_all",
        queue.cancel_all,
        _text,
        _done,
    )


async def clear(ops: Operations, caller: Caller, req: queue.ServerRef) -> GroupChanged:
    """Every task of each server's queue removed: admins only, as /clear."""
    return await _write(ops, caller, req, Rank.ADMIN, "/clear", "clear", queue.clear, _text)


# -- the questions before a write (Discord's Confirm) -----------------------------------------


def _counted(value: queue.Counted) -> str:
    if value.planned:
        return _("{n} task(s) and its planned schedule", n=value.count)
    return _("{n} task(s)", n=value.count)


async def count(ops: Operations, caller: Caller, req: queue.TaskRef) -> GroupOutcome[queue.Counted]:
    """The question before `cancel_all` on a group: how many there are on each server."""
    found = await read(ops, caller, req, "/cancel_all", queue.count, _counted)
    head = _("Cancel every task `{id}` on {group}?", id=req.id, group=found.group)
    return GroupOutcome(found.group, found.outcomes, head, found.lines)


def size(ops: Operations, caller: Caller, req: queue.ServerRef) -> GroupOutcome[None]:
    """The question before `clear` on a group."""
    ops.require(caller, Rank.ADMIN, "/clear")
    targets = members(ops, req.server)
    names = ", ".join(t.name for t in targets)
    text = _("Remove every scheduled task on {servers}? This cannot be undone.", servers=names)
    outcomes = tuple(ServerOutcome[None](t.name, True, "") for t in targets)
    return GroupOutcome(str(req.server), outcomes, text, ())


# -- reads ------------------------------------------------------------------------------------


def _clock(value: reads.Clock) -> str:
    return _(
        "{n} ticks (day {day}), {tps} TPS",
        n=number(value.ticks),
        day=number(value.day),
        tps=decimal(value.tps),
    )


async def game_time(
    ops: Operations, caller: Caller, req: queue.ServerRef
) -> GroupOutcome[reads.Clock]:
    return await read(ops, caller, req, "/time", reads.game_time, _clock)


def _listed(value: reads.Page) -> str:
    return _(
        "{n} in {list}, page {page} of {pages}",
        n=value.total,
        list=value.which,
        page=value.page + 1,
        pages=value.pages,
    )


async def page(ops: Operations, caller: Caller, req: reads.ListRequest) -> GroupOutcome[reads.Page]:
    """The same page of one list on each server of a group."""
    return await read(ops, caller, req, "/list", reads.page, _listed)


def _shown(value: reads.Shown, task_id: str) -> str:
    if value.planned is not None:
        return _("planned `{id}`: {run}", id=value.planned.task_id, run=value.planned.command)
    if value.task is not None:
        return _(
            "`{id}` in {list}: {run}", id=value.task.id, list=value.task.list, run=value.task.run
        )
    return _("No task `{id}` on {server}.", id=task_id, server=value.server.name)


async def show(ops: Operations, caller: Caller, req: queue.TaskRef) -> GroupOutcome[reads.Shown]:
    return await read(ops, caller, req, "/show", reads.show, lambda v: _shown(v, req.id))


def _runs(value: runs.History) -> str:
    return value.text


async def history(
    ops: Operations, caller: Caller, req: runs.HistoryRequest
) -> GroupOutcome[runs.History]:
    """Each server's runs of a task id (a group schedule's outcome on each server)."""
    return await read(ops, caller, req, "/history", runs.history, _runs)
