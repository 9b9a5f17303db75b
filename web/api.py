"""The JSON API under /api/: the pages' reads and actions, for admins' scripts.

Authenticate with the session cookie (writes then need the `X-CSRF-Token` header) or with
`Authorization: Bearer <token>` from `GET /api/token` (same login, same roles, no cookie, so
no CSRF token). Documented with OpenAPI by quart-schema at /api/openapi.json.
"""

from __future__ import annotations

__all__ = ["blueprint"]

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from quart import Blueprint, g
from quart_schema import tag, validate_request

from bot import errors
from bot.i18n import N_, _
from bot.slash.permissions import Rank
from web import actions
from web.actions import ScheduleRequest, server_named
from web.audit import mutation_json, query
from web.auth import action, api_token, csrf_token, page, write_limit
from web.context import WebError
from web.events import recent
from web.servers import LISTS, first_task, list_page, page_args, server_status, task_row

log = logging.getLogger(__name__)

blueprint = Blueprint("api", __name__, url_prefix="/api")


@dataclass
class ClearRequest:
    confirm: bool


def _refusal(exc: errors.BotError) -> tuple[dict[str, Any], int]:
    body: dict[str, Any] = {"error": str(exc)}
    if isinstance(exc, errors.CommandParseError):
        body.update(caret=exc.caret(), column=exc.column)
    return body, 400


@blueprint.get("/me")
@tag(["session"])
@page()
async def me() -> Any:
    """Who you are logged in as, your rank, and the CSRF token for cookie-based writes."""
    user = g.user
    return {"id": user.id, "name": user.name, "rank": user.rank.name.lower(),
            "csrf_token": csrf_token()}  # fmt: skip


@blueprint.get("/token")
@tag(["session"])
@page()
async def token() -> Any:
    """A bearer token for scripts; it ends with the session (logout)."""
    return {"token": api_token(g.user)}


@blueprint.get("/servers")
@tag(["servers"])
@page()
async def servers() -> Any:
    """Every server's RCON state, pack version and damage, TPS, list sizes, event source."""
    from web.context import state

    found = await asyncio.gather(*(server_status(s) for s in state().services.servers.values()))
    return {"servers": [s.as_json() for s in found]}


@blueprint.get("/servers/<name>/lists/<which>")
@tag(["tasks"])
@page()
async def tasks(name: str, which: str) -> Any:
    """One page (`?page=1`, 20 a page) of queue, offline, paused or planned; `?id=` finds the
    tasks with exactly that id."""
    server = server_named(name)
    if which not in LISTS:
        raise WebError(404, _("{list} is not a list: queue, offline, paused or planned.",
                              list=repr(which)))  # fmt: skip
    number, search = page_args()
    rows, total = await list_page(server, which, number, search)
    return {"server": name, "list": which, "page": number, "total": total, "tasks": rows}


@blueprint.get("/servers/<name>/tasks/<task_id>")
@tag(["tasks"])
@page()
async def show(name: str, task_id: str) -> Any:
    """One task (queue, then offline, then paused)."""
    server = server_named(name)
    try:
        task = await first_task(server, task_id)
    except errors.BotError as exc:
        return _refusal(exc)
    if task is None:
        raise WebError(404, _("No task `{id}` on {server}.", id=task_id, server=server.name))
    return task_row(task, server)


@blueprint.post("/servers/<name>/tasks")
@tag(["tasks"])
@validate_request(ScheduleRequest)
@write_limit
@action()
async def schedule(name: str, data: ScheduleRequest) -> Any:
    """Schedule a command: checked as /schedule checks it (a typo answers 400 with a caret)."""
    server = server_named(name)
    try:
        outcome, task = await actions.schedule(g.user, server, data)
    except errors.BotError as exc:
        return _refusal(exc)
    return {"outcome": outcome, "task": task_row(task, server) if task else None}, 201


@blueprint.post("/servers/<name>/tasks/<task_id>/<verb>")
@tag(["tasks"])
@write_limit
@action()
async def change(name: str, task_id: str, verb: str) -> Any:
    """`cancel`, `pause` or `resume` the first task with this id."""
    server = server_named(name)
    verbs = {"cancel": actions.cancel, "pause": actions.pause, "resume": actions.resume}
    if verb not in verbs:
        raise WebError(404, _("{verb} is not something a task can do.", verb=repr(verb)))
    try:
        return {"outcome": await verbs[verb](g.user, server, task_id)}
    except errors.BotError as exc:
        return _refusal(exc)


@blueprint.post("/servers/<name>/planned/<plan_id>/<verb>")
@tag(["planned"])
@write_limit
@action()
async def change_planned(name: str, plan_id: str, verb: str) -> Any:
    """`cancel`, `pause` or `resume` a wall-clock schedule by its number (`id` in the list)."""
    server = server_named(name)
    try:
        return {"outcome": await actions.change_planned(g.user, server, plan_id, verb)}
    except errors.BotError as exc:
        return _refusal(exc)


@blueprint.post("/servers/<name>/clear")
@tag(["tasks"])
@validate_request(ClearRequest)
@write_limit
@action(Rank.ADMIN, N_("clear the queue"))
async def clear(name: str, data: ClearRequest) -> Any:
    """Remove every task (admins); the body must say `{"confirm": true}`."""
    server = server_named(name)
    if not data.confirm:
        raise WebError(400, _("Send {body} to clear the queue.", body='{"confirm": true}'))
    return {"outcome": await actions.clear(g.user, server)}


@blueprint.get("/audit")
@tag(["audit"])
@page()
async def audit() -> Any:
    """The audit log, newest first; `?user=`, `?server=`, `?action=`, `?before=<id>`."""
    rows, _ = await query()
    return {"mutations": [mutation_json(m) for m in rows]}


@blueprint.get("/events")
@tag(["events"])
@page()
async def events() -> Any:
    """The most recent pack events, newest first (live: GET /events/stream, SSE)."""
    return {"events": recent()}
