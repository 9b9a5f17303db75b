"""The JSON API under /api/: the pages' reads and actions, for admins' scripts.

Authenticate with the session cookie (writes then need the `X-CSRF-Token` header) or with
`Authorization: Bearer <token>` from `GET /api/token` (same login, same roles, no cookie, so
no CSRF token). Documented with OpenAPI by quart-schema at /api/openapi.json.
"""

from __future__ import annotations

__all__ = ["blueprint"]

import asyncio
import logging
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from quart import Blueprint, g
from quart_schema import tag, validate_querystring, validate_request

from bot import errors
from bot.i18n import N_, _
from bot.operations import runs
from bot.operations.facts import planned_row, run_row, task_row
from bot.operations.ranks import Rank
from bot.operations.reads import task_on_doubt
from web import actions
from web.actions import DynamicFields, ScheduleRequest, server_named
from web.audit import mutation_json, query
from web.auth import action, api_token, csrf_token, page, write_limit
from web.context import WebError
from web.events import recent
from web.inputs import MAX_ID, check_list, refusal
from web.servers import (
    MAX_PAGE,
    first_task,
    list_page,
    server_status,
)

log = logging.getLogger(__name__)

blueprint = Blueprint("api", __name__, url_prefix="/api")


class ClearRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"confirm": True}]})

    confirm: bool


class ListQuery(BaseModel):
    """A list's query string (documented, so scripts and the API tests see its bounds)."""

    page: int = Field(default=1, ge=1, le=MAX_PAGE)
    id: str = Field(default="", max_length=64)


def _optional(value: object) -> object:
    return None if value == "" else value


Id = Annotated[int | None, BeforeValidator(_optional), Field(ge=0, le=MAX_ID)]


class AuditQuery(BaseModel):
    """The audit log's filters: `?user=` (a Discord user id), `?server=`, `?action=`, and
    `?before=` (the id of the oldest row of the previous page)."""

    user: Id = None
    server: str = ""
    action: str = ""
    before: Id = None


@blueprint.get("/me")
@tag(["session"])
@page()
async def me() -> Any:
    """Who you are logged in as, your rank, and the CSRF token for cookie-based writes.

    `rank` is `none`, `moderator` or `admin`, decided from your Discord roles now (or the
    rank a `python -m bot login` link or `token new` token was made with). A script
    that writes with the session cookie sends the token as `X-CSRF-Token`; one with a bearer
    token needs none.
    """
    user = g.user
    return {
        "id": user.id,
        "name": user.name,
        "rank": user.rank.name.lower(),
        "csrf_token": await csrf_token(),
    }


@blueprint.get("/token")
@tag(["session"])
@page()
async def token() -> Any:
    """A bearer token for scripts; it ends with the session (logout).

    Send it as `Authorization: Bearer <token>`. It carries your rank as it is when used, so
    a role taken away in Discord takes the token's rights away too.
    """
    return {"token": api_token(g.user)}


@blueprint.get("/servers")
@tag(["servers"])
@page()
async def servers() -> Any:
    """Every server's RCON state, pack version and damage, TPS, list sizes, event source.

    A server that cannot be reached is listed with `reachable: false` and why; the others are
    answered all the same. Moderators and admins.
    """
    from web.context import state

    found = await asyncio.gather(*(server_status(s) for s in state().services.servers.values()))
    return {"servers": [s.as_json() for s in found]}


@blueprint.get("/servers/<name>/lists/<which>")
@tag(["tasks"])
@page()
@validate_querystring(ListQuery)
async def tasks(name: str, which: str, query_args: ListQuery) -> Any:
    """One page (`?page=1`, 20 a page) of queue, offline, paused or planned; `?id=` finds the
    tasks with exactly that id."""
    server = server_named(name)
    check_list(which)
    number, search = query_args.page, query_args.id.strip()
    try:
        rows, total = await list_page(server, which, number, search)
    except errors.ValidationError as exc:  # not an id the pack can hold
        return refusal(exc, "id")
    return {"server": name, "list": which, "page": number, "total": total, "tasks": rows}


@blueprint.get("/servers/<name>/tasks/<task_id>")
@tag(["tasks"])
@page()
async def show(name: str, task_id: str) -> Any:
    """One task (queue, then offline, then paused).

    The first task with this id, looked up in that order; 404 when none has it. Its command,
    due tick, retries and context are as the pack holds them; `on_doubt` is the bot's record's
    (skip or run: what it does when a crash leaves it unknown whether the task ran).
    """
    server = server_named(name)
    try:
        task = await first_task(server, task_id)
    except errors.BotError as exc:
        return refusal(exc, "task_id")
    if task is None:
        raise WebError(404, _("No task `{id}` on {server}.", id=task_id, server=server.name))
    return {**task_row(task, server), "on_doubt": await task_on_doubt(server, task)}


class HistoryQuery(BaseModel):
    """A page of the history (`?page=1`, 10 runs a page; past the end: the last page)."""

    page: int = Field(default=1, ge=1, le=runs.MAX_PAGE)


@blueprint.get("/servers/<name>/history/<task_id>")
@tag(["history"])
@page()
@validate_querystring(HistoryQuery)
async def history(name: str, task_id: str, query_args: HistoryQuery) -> Any:
    """The runs of a task id, newest first: its wall-clock rows' runs and the game-time runs
    the bot knows of (due, handed over, ran, lateness, outcome, attempts, who ran it now)."""
    server = server_named(name)
    try:
        found = await actions.history(g.user, server, task_id, query_args.page)
    except errors.BotError as exc:
        return refusal(exc, "task_id")
    return {
        "server": name,
        "id": task_id,
        "page": found.page,
        "pages": found.pages,
        "total": found.total,
        "days": found.days,
        "runs": [run_row(e) for e in found.entries],
    }


@blueprint.post("/servers/<name>/tasks")
@tag(["tasks"])
@write_limit
@action()
@validate_request(ScheduleRequest)
async def schedule(name: str, data: ScheduleRequest) -> Any:
    """Schedule a command, with every option /schedule has: after game time (`time`, `unit`,
    or the tick `at`; `every`, `retry`, `retry_delay`, `as_player`), or at a wall-clock time
    (`when`, `repeat`, `timezone`, `announce`; repeating, `dst_repeated`: first, second or both,
    and with a cron `dst_skipped`: shift or skip), which answers the planned row. Either kind
    takes `on_doubt`: `run` runs it again when a crash leaves it unknown whether it ran, `skip`
    (the default) does not. Checked as /schedule checks it (a typo answers 400 with a caret)."""
    server = server_named(name)
    try:
        made = await actions.schedule(g.user, server, data)
    except errors.BotError as exc:
        return refusal(exc, "run")
    task = task_row(made.task, server) if made.task else None
    planned = planned_row(made.planned) if made.planned is not None else None
    return {"outcome": made.text, "task": task, "planned": planned}, 201


@blueprint.post("/servers/<name>/tasks/preview")
@tag(["tasks"])
@write_limit
@action()
@validate_request(ScheduleRequest)
async def preview(name: str, data: ScheduleRequest) -> Any:
    """The next runs (UTC, up to 5) a wall-clock request (`when`, `repeat`, `timezone`,
    `announce`, `dst_repeated`, `dst_skipped`) would have, every check of `POST .../tasks`
    made; nothing is saved. `dst`: a repeating one's DST policy and the clock changes of the
    next 12 months with the runs each touches, as [name, text] pairs."""
    server = server_named(name)
    try:
        shown = await actions.preview(g.user, server, data)
    except errors.BotError as exc:
        return refusal(exc, "run")
    return {
        "outcome": shown.text,
        "timezone": shown.timezone,
        "runs": [t.isoformat() for t in shown.runs],
        "dst": [list(fact) for fact in shown.dst],
    }


@blueprint.post("/servers/<name>/tasks/dynamic")
@tag(["tasks"])
@write_limit
@action()
@validate_request(DynamicFields)
async def schedule_dynamic(name: str, data: DynamicFields) -> Any:
    """A command after some game time under a new unique id (`prefix` then a number), as
    /schedule_dynamic; the answer names the id."""
    server = server_named(name)
    try:
        made = await actions.schedule_dynamic(g.user, server, data)
    except errors.BotError as exc:
        return refusal(exc, "run")
    return {"outcome": made.text, "id": made.task_id}, 201


@blueprint.get("/servers/<name>/time")
@tag(["servers"])
@page()
async def game_time(name: str) -> Any:
    """The server's game time (ticks and days) and measured TPS, as /time.

    The TPS is measured over about a second of the server's ticks, so the answer takes that
    long; 503 with the reason when the server cannot be reached.
    """
    server = server_named(name)
    try:
        clock = await actions.game_time(g.user, server)
    except errors.BotError as exc:
        return refusal(exc)
    return {"server": name, "game_time": clock.ticks, "day": clock.day, "tps": clock.tps}


@blueprint.post("/servers/<name>/tasks/<task_id>/<verb>")
@tag(["tasks"])
@write_limit
@action()
async def change(name: str, task_id: str, verb: str) -> Any:
    """`cancel`, `pause`, `resume` or `run_now` (once, now; its schedule stays) the first task
    with this id (a planned row of that id first), or `cancel_all` of them."""
    server = server_named(name)
    verbs = {
        "cancel": actions.cancel,
        "pause": actions.pause,
        "resume": actions.resume,
        "cancel_all": actions.cancel_all,
        "run_now": actions.run_now,
    }
    if verb not in verbs:
        raise WebError(404, _("{verb} is not something a task can do.", verb=repr(verb)))
    try:
        return {"outcome": await verbs[verb](g.user, server, task_id)}
    except errors.BotError as exc:
        return refusal(exc, "task_id")


@blueprint.post("/servers/<name>/planned/<plan_id>/<verb>")
@tag(["planned"])
@write_limit
@action()
async def change_planned(name: str, plan_id: str, verb: str) -> Any:
    """`cancel`, `pause` or `resume` a wall-clock schedule by its number (`id` in the list).

    A row that is already in the asked state is a 400 that says so; nothing changes. Each
    change is in the audit log.
    """
    server = server_named(name)
    try:
        return {"outcome": await actions.change_planned(g.user, server, plan_id, verb)}
    except errors.BotError as exc:
        return refusal(exc)


@blueprint.post("/servers/<name>/clear")
@tag(["tasks"])
@write_limit
@action(Rank.ADMIN, N_("clear the queue"))
@validate_request(ClearRequest)
async def clear(name: str, data: ClearRequest) -> Any:
    """Remove every task (admins); the body must say `{"confirm": true}`.

    Clears the queue, the offline list and the paused list of the pack at once; wall-clock
    schedules stay. Without the confirmation it is a 400 and nothing is removed.
    """
    server = server_named(name)
    if not data.confirm:
        raise WebError(400, _("Send {body} to clear the queue.", body='{"confirm": true}'))
    return {"outcome": await actions.clear(g.user, server)}


def _selftest_json(result: Any) -> dict[str, Any]:
    checks = [{"name": c.name, "status": c.status, "detail": str(c.detail)} for c in result.checks]
    return {"ok": result.ok, "verdict": result.lines()[-1], "checks": checks}


@blueprint.post("/servers/<name>/setup")
@tag(["admin"])
@write_limit
@action(Rank.ADMIN, N_("install the pack"))
async def setup(name: str) -> Any:
    """Install (or update) the data pack and verify its version (admins), as /setup; when the
    pack is in place the selftest follows and is in the answer."""
    server = server_named(name)
    try:
        done = await actions.setup(g.user, server)
        tested = await actions.selftest(g.user, server) if done.report.ok else None
    except errors.BotError as exc:
        return refusal(exc)
    found = _selftest_json(tested.result) if tested is not None else None
    return {"outcome": done.text, "ok": done.report.ok, "selftest": found}


@blueprint.post("/servers/<name>/selftest")
@tag(["admin"])
@write_limit
@action(Rank.ADMIN, N_("run the selftest"))
async def selftest(name: str) -> Any:
    """Prove the pack works on the server (admins), as /selftest: one entry per check.

    It schedules, runs and removes its own test tasks and leaves the server's tasks as they
    were. Each entry says pass, warn or fail, and what to do about a failure.
    """
    server = server_named(name)
    try:
        tested = await actions.selftest(g.user, server)
    except errors.BotError as exc:
        return refusal(exc)
    return {"outcome": tested.text, **_selftest_json(tested.result)}


@blueprint.get("/audit")
@tag(["audit"])
@page()
@validate_querystring(AuditQuery)
async def audit(query_args: AuditQuery) -> Any:
    """The audit log, newest first; `?user=`, `?server=`, `?action=`, `?before=<id>`.

    Every change made from Discord, the console, the dashboard or this API: who, from which
    face, on which server, the request and the outcome. Page with `before`, the last `id`.
    """
    rows, _ = await query()
    return {"mutations": [mutation_json(m) for m in rows]}


@blueprint.get("/events")
@tag(["events"])
@page()
async def events() -> Any:
    """The most recent events, newest first, kept across restarts (live: GET /events/stream,
    SSE); `details` are the fields as the source gave them (a run's key `k` included).

    What the servers said: tasks run, retried, given up, parked for an offline player and
    restored, restored after a crash. The same events the alert channel gets.
    """
    found, _older = await recent()
    return {"events": found}
