"""The plan file on the dashboard: download a server's, or upload one, see what it would add,
change or leave (the dry run), then confirm; through bot.operations.plan as every face."""

from __future__ import annotations

__all__ = ["blueprint"]

from typing import Any

from quart import Blueprint, g, render_template, request

from bot import errors
from bot.i18n import _
from bot.operations import plan
from web.actions import caller, server_named
from web.api_plan import export_response
from web.auth import action, page, write_limit
from web.context import WebError, operations

blueprint = Blueprint("plan", __name__)


async def _render(
    name: str,
    *,
    shown: plan.Imported | None = None,
    document: str = "",
    error: str | None = None,
    status: int = 200,
) -> Any:
    body = await render_template(
        "plan.html",
        server=server_named(name),
        user=g.user,
        shown=shown,
        document=document,
        error=error,
    )
    return body, status


@blueprint.get("/servers/<name>/plan")
@page()
async def plan_page(name: str) -> Any:
    return await _render(name)


async def _document() -> str:
    """The uploaded file's text (the first step), or the text the dry run showed (the confirm)."""
    form = await request.form
    if form.get("document"):
        return str(form["document"])
    upload = (await request.files).get("file")
    if upload is None or not upload.filename:
        raise errors.ValidationError(_("Choose a plan file to upload."))
    raw = upload.read()
    if len(raw) > plan.MAX_FILE:
        raise WebError(413, _("The plan file is too large."))
    return bytes(raw).decode("utf-8", errors="replace")


@blueprint.get("/servers/<name>/plan/download")
@page()
async def plan_download(name: str) -> Any:
    """The plan file as a download (/plan export), from the page's link."""
    return await export_response(name)


@blueprint.post("/servers/<name>/plan")
@write_limit
@action()
async def plan_upload(name: str) -> Any:
    server = server_named(name)
    confirm = (await request.form).get("confirm") == "yes"
    try:
        document = await _document()
        req = plan.ImportRequest(document=document, server=server.name, dry_run=not confirm)
        shown = await plan.import_plan(operations(), caller(g.user), req)
    except errors.ValidationError as exc:
        return await _render(name, error=str(exc), status=400)
    return await _render(name, shown=shown, document=document)
