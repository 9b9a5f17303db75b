"""The JSON API for the plan outside the bot: the calendar feed's address (`/calendar` in
Discord) and the plan file (`/plan export`, `/plan import`), through the same operations
(bot.operations.calendar, bot.operations.plan)."""

from __future__ import annotations

__all__ = ["blueprint"]

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from quart import Blueprint, Response, g
from quart_schema import tag, validate_request

from bot import errors
from bot.operations import calendar as calendar_ops
from bot.operations import plan
from web.actions import caller, server_named
from web.auth import action, page, write_limit
from web.context import operations
from web.inputs import refusal

blueprint = Blueprint("api_plan", __name__, url_prefix="/api")


class PlanImport(BaseModel):
    """A plan file's text (YAML, docs/plan-file.md); `dry_run` says what would change."""

    model_config = ConfigDict(extra="forbid")

    document: str = Field(min_length=1, max_length=plan.MAX_FILE)
    dry_run: bool = False


def imported_json(done: plan.Imported) -> dict[str, Any]:
    return {
        "server": done.server,
        "done": done.done,
        "outcome": done.text,
        "steps": [{"verdict": v, "entry": e} for v, e in done.steps],
    }


async def export_response(name: str) -> Response:
    """The plan file of a server, as a download."""
    server = server_named(name)
    made = await plan.export(operations(), caller(g.user), plan.ExportRequest(server=server.name))
    headers = {"Content-Disposition": f'attachment; filename="plan-{server.name}.yaml"'}
    return Response(made.text, content_type="application/yaml; charset=utf-8", headers=headers)


@blueprint.get("/servers/<name>/plan")
@tag(["plan"])
@page()
async def plan_export(name: str) -> Any:
    """The server's planned rows, game-time tasks and Discord events as a plan file (YAML), as
    `/plan export`."""
    return await export_response(name)


@blueprint.post("/servers/<name>/plan")
@tag(["plan"])
@write_limit
@action()
@validate_request(PlanImport)
async def plan_import(name: str, data: PlanImport) -> Any:
    """Import a plan file into the server, as `/plan import`: every entry is checked first (a
    wrong one refuses the whole file, 400, naming it); `dry_run` only says what each entry would
    do (add, change, leave)."""
    server = server_named(name)
    request = plan.ImportRequest(document=data.document, server=server.name, dry_run=data.dry_run)
    try:
        done = await plan.import_plan(operations(), caller(g.user), request)
    except errors.BotError as exc:
        return refusal(exc, "document")
    return imported_json(done)


@blueprint.post("/calendar")
@tag(["calendar"])
@write_limit
@action()
@validate_request(calendar_ops.CalendarRequest)
async def calendar(data: calendar_ops.CalendarRequest) -> Any:
    """The address of the calendar feed of `server` (none: every server), as `/calendar`. The
    address is answered only when it is made (the first time, or with `renew`, which stops the
    old one); else `url` is null and the feed's date and maker say who has it."""
    try:
        link = await calendar_ops.calendar(operations(), caller(g.user), data)
    except errors.BotError as exc:
        return refusal(exc, "server")
    feed = link.feed
    return {
        "scope": link.scope,
        "url": link.url,
        "outcome": link.text,
        "created_at": feed.created_at.isoformat(),
        "created_by": feed.created_by_name,
    }
