"""The calendar feed: its page (the address of a server's or every server's feed, made or
renewed by bot.operations.calendar) and the feed itself at its secret address, with no login
(a calendar app cannot log in: the secret is the key)."""

from __future__ import annotations

__all__ = ["blueprint"]

from typing import Any

from quart import Blueprint, Response, g, render_template, request

from bot.i18n import _
from bot.operations import calendar as calendar_ops
from web.actions import caller
from web.auth import action, page, write_limit
from web.context import WebError, operations, state

blueprint = Blueprint("calendar", __name__)


async def _render(
    link: calendar_ops.CalendarLink | None = None, form: dict[str, str] | None = None
) -> Any:
    return await render_template(
        "calendar.html",
        user=g.user,
        servers=sorted(state().services.servers),
        link=link,
        form=form or {},
    )


@blueprint.get("/calendar")
@page()
async def calendar_page() -> Any:
    return await _render()


@blueprint.post("/calendar")
@write_limit
@action()
async def make_address() -> Any:
    form = await request.form
    request_ = calendar_ops.CalendarRequest(
        server=form.get("server") or None, renew=form.get("renew") == "yes"
    )
    # the address is shown in this answer only (not flashed: the session cookie would keep it)
    link = await calendar_ops.calendar(operations(), caller(g.user), request_)
    return await _render(link, dict(form))


@blueprint.get("/calendar/<secret>.ics")
async def feed(secret: str) -> Any:
    body = await calendar_ops.feed(operations(), secret)
    if body is None:
        raise WebError(
            404, _("There is no calendar feed at this address (it may have been renewed).")
        )
    headers = {
        "Cache-Control": "private, max-age=300",
        "Content-Disposition": 'inline; filename="doom-schedule.ics"',
    }
    return Response(body, content_type="text/calendar; charset=utf-8", headers=headers)
