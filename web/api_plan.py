"""The JSON API for the plan outside the bot: the calendar feed's address (`/calendar` in
Discord), through the same operations (bot.operations.calendar)."""

from __future__ import annotations

__all__ = ["blueprint"]

from typing import Any

from quart import Blueprint, g
from quart_schema import tag, validate_request

from bot import errors
from bot.operations import calendar as calendar_ops
from web.actions import caller
from web.auth import action, write_limit
from web.context import state
from web.inputs import refusal

blueprint = Blueprint("api_plan", __name__, url_prefix="/api")


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
        link = await calendar_ops.calendar(state().bot.ops, caller(g.user), data)
    except errors.BotError as exc:
        return refusal(exc, "server")
    feed = link.feed
    return {
        "scope": link.scope, "url": link.url, "outcome": link.text,
        "created_at": feed.created_at.isoformat(), "created_by": feed.created_by_name,
    }  # fmt: skip
