"""The JSON API on a group of servers (`all`, or one of DOOM_SERVER_GROUPS), under
/api/groups/<group>/: the server routes' operations through bot.operations.groups, so each
server of the group is asked (at once) and answers for itself; `outcomes` has one entry a
server, `ok` false with the reason for one that is down or refused, and one down stops none
of the others."""

from __future__ import annotations

__all__ = ["blueprint"]

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from quart import Blueprint, g
from quart_schema import tag, validate_querystring, validate_request

from bot import errors
from bot.i18n import N_, _
from bot.operations import groups, queue, reads, runs
from bot.operations import schedule as schedule_ops
from bot.operations.facts import planned_row, run_row, task_row
from bot.operations.ranks import Rank
from web.actions import DynamicFields, ScheduleRequest, caller, check_task_id
from web.auth import action, page, write_limit
from web.context import WebError, operations
from web.inputs import check_list, refusal
from web.servers import server_status

blueprint = Blueprint("api_groups", __name__, url_prefix="/api/groups")

T = TypeVar("T")


class ClearGroup(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"confirm": True}]})

    confirm: bool


class GroupListQuery(BaseModel):
    """A page of each server's list (`?page=1`, 10 a page, as /list server:<group>)."""

    page: int = Field(default=1, ge=1, le=2**31 - 1)


class GroupHistoryQuery(BaseModel):
    page: int = Field(default=1, ge=1, le=runs.MAX_PAGE)


def _group(name: str) -> str:
    """The group's name; 404 when it is none."""
    if operations().group(name) is None:
        raise WebError(404, _("{name} is not a server group.", name=repr(name)))
    return name


def _json(
    fanned: groups.GroupOutcome[T], fields: Callable[[T], dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The group's answer: its sentence, and each server's outcome with `fields` of its value."""
    outcomes = []
    for o in fanned.outcomes:
        found: dict[str, Any] = {"server": o.server, "ok": o.ok, "outcome": o.text}
        if fields is not None and o.value is not None:
            found.update(fields(o.value))
        outcomes.append(found)
    return {"group": fanned.group, "outcome": fanned.text, "outcomes": outcomes}


# -- writes -----------------------------------------------------------------------------------


@blueprint.post("/<group>/tasks")
@tag(["groups"])
@write_limit
@action()
@validate_request(ScheduleRequest)
async def schedule(group: str, data: ScheduleRequest) -> Any:
    """Schedule on every server of a group, as /schedule with `server` naming the group.

    Each server gets its own task or planned row, checked there; `outcomes` says per server
    what was done or why not (one down stops no other). 404 for a name that is no group.
    """
    request = schedule_ops.ScheduleRequest(server=_group(group), **data.model_dump())
    try:
        fanned = await groups.schedule(operations(), caller(g.user), request)
    except errors.BotError as exc:
        return refusal(exc, "run")
    return _json(fanned)


@blueprint.post("/<group>/tasks/dynamic")
@tag(["groups"])
@write_limit
@action()
@validate_request(DynamicFields)
async def schedule_dynamic(group: str, data: DynamicFields) -> Any:
    """A command after some game time under a new unique id on each server of the group.

    As /schedule_dynamic: each server makes up its own id (`prefix` then its number), which
    its entry of `outcomes` names as `id`.
    """
    fields = data.model_dump(exclude={"server"})
    request = schedule_ops.DynamicRequest(server=_group(group), **fields)
    try:
        fanned = await groups.schedule_dynamic(operations(), caller(g.user), request)
    except errors.BotError as exc:
        return refusal(exc, "run")
    return _json(fanned, lambda made: {"id": made.task_id})


@blueprint.post("/<group>/tasks/<task_id>/<verb>")
@tag(["groups"])
@write_limit
@action()
async def change(group: str, task_id: str, verb: str) -> Any:
    """`cancel`, `pause`, `resume`, `run_now` or `cancel_all` a task id on each server.

    On each server of the group a planned row of that id first, else the pack's task; `done`
    per server is false when it had none, `ok` false when it could not be asked (named).
    """
    verbs: dict[str, Callable[..., Awaitable[groups.GroupOutcome[Any]]]] = {
        "cancel": groups.cancel,
        "pause": groups.pause,
        "resume": groups.resume,
        "cancel_all": groups.cancel_all,
        "run_now": groups.run_now,
    }
    if verb not in verbs:
        raise WebError(404, _("{verb} is not something a task can do.", verb=repr(verb)))
    try:
        check_task_id(task_id)
        request = queue.TaskRef(id=task_id, server=_group(group))
        fanned = await verbs[verb](operations(), caller(g.user), request)
    except errors.BotError as exc:
        return refusal(exc, "task_id")
    return _json(fanned, lambda made: {"done": made.done})


@blueprint.post("/<group>/clear")
@tag(["groups"])
@write_limit
@action(Rank.ADMIN, N_("clear the queue"))
@validate_request(ClearGroup)
async def clear(group: str, data: ClearGroup) -> Any:
    """Remove every task on each server of the group (admins).

    The body must say `{"confirm": true}`; `removed` per server counts what went.
    """
    if not data.confirm:
        raise WebError(400, _("Send {body} to clear the queue.", body='{"confirm": true}'))
    request = queue.ServerRef(server=_group(group))
    try:
        fanned = await groups.clear(operations(), caller(g.user), request)
    except errors.BotError as exc:
        return refusal(exc)
    return _json(fanned, lambda made: {"removed": made.count})


# -- reads ------------------------------------------------------------------------------------


@blueprint.get("/<group>")
@tag(["groups"])
@page()
async def status(group: str) -> Any:
    """Each server's RCON state, pack version and damage, TPS and list sizes, as /status.

    As `GET /api/servers`, for the servers of the group only: one that cannot be reached is
    listed with `ok: false`, its `rcon` saying why.
    """
    members = operations().group(_group(group)) or []
    found = await asyncio.gather(*(server_status(s) for s in members))
    return {"group": group, "servers": [s.as_json() for s in found]}


@blueprint.get("/<group>/time")
@tag(["groups"])
@page()
async def game_time(group: str) -> Any:
    """Each server's game time (ticks and days) and measured TPS, as /time.

    A server that cannot be reached has `ok: false` and why instead of the numbers.
    """
    request = queue.ServerRef(server=_group(group))
    fanned = await groups.game_time(operations(), caller(g.user), request)
    return _json(fanned, lambda c: {"game_time": c.ticks, "day": c.day, "tps": c.tps})


@blueprint.get("/<group>/tasks/<task_id>")
@tag(["groups"])
@page()
async def show(group: str, task_id: str) -> Any:
    """Each server's task of this id, as /show.

    Per server its planned row (`planned`), else its first task of that id in the pack's
    lists (`task`); both null when it has none.
    """
    try:
        check_task_id(task_id)
        request = queue.TaskRef(id=task_id, server=_group(group))
        fanned = await groups.show(operations(), caller(g.user), request)
    except errors.BotError as exc:
        return refusal(exc, "task_id")
    return _json(
        fanned,
        lambda s: {
            "task": task_row(s.task, s.server) if s.task is not None else None,
            "planned": planned_row(s.planned) if s.planned is not None else None,
        },
    )


@blueprint.get("/<group>/history/<task_id>")
@tag(["groups"])
@page()
@validate_querystring(GroupHistoryQuery)
async def history(group: str, task_id: str, query_args: GroupHistoryQuery) -> Any:
    """Each server's runs of a task id, newest first: a group schedule's outcome on each.

    The same page (`?page=`, 10 runs) of each server's history, as `GET /api/servers/<name>/
    history/<task_id>` answers it.
    """
    try:
        check_task_id(task_id)
        request = runs.HistoryRequest(id=task_id, server=_group(group), page=query_args.page)
        fanned = await groups.history(operations(), caller(g.user), request)
    except errors.BotError as exc:
        return refusal(exc, "task_id")
    return _json(
        fanned,
        lambda h: {
            "page": h.page,
            "pages": h.pages,
            "total": h.total,
            "runs": [run_row(e) for e in h.entries],
        },
    )


@blueprint.get("/<group>/lists/<which>")
@tag(["groups"])
@page()
@validate_querystring(GroupListQuery)
async def lists(group: str, which: str, query_args: GroupListQuery) -> Any:
    """The same page of queue, offline, paused or planned on each server of the group.

    `?page=` from 1, 10 tasks a page (as /list), each server's page clamped to its last.
    """
    check_list(which)
    request = reads.ListRequest(which=which, page=query_args.page - 1, server=_group(group))  # type: ignore[arg-type]
    try:
        fanned = await groups.page(operations(), caller(g.user), request)
    except errors.BotError as exc:
        return refusal(exc)
    return _json(
        fanned,
        lambda p: {
            "page": p.page + 1,
            "pages": p.pages,
            "total": p.total,
            "tasks": [task_row(t, p.server) for t in p.tasks]
            + [planned_row(r) for r, _u in p.planned],
        },
    )
