"""API tokens on the dashboard (admins): the list with when each was last used, a new token
(its secret shown once, on the page that made it), revoking one; the same operations as
``python -m bot token`` (bot.operations.access)."""

from __future__ import annotations

__all__ = ["blueprint"]

from typing import Any

from quart import Blueprint, g, redirect, render_template, request

from bot import errors
from bot.i18n import N_
from bot.operations import access
from bot.operations.ranks import Rank
from bot.operations.requests import validated
from web.actions import caller
from web.auth import action, page, write_limit
from web.context import operations
from web.flashes import flash
from web.zones import time_text

blueprint = Blueprint("tokens", __name__)


async def _page(made: access.NewToken | None = None, error: str | None = None) -> Any:
    rows = [
        {
            "name": t.name,
            "rank": t.rank,
            "made": time_text(t.created_at),
            "used": time_text(t.last_used_at) if t.last_used_at else None,
        }
        for t in await access.tokens(operations(), caller(g.user))
    ]
    return await render_template("tokens.html", rows=rows, made=made, error=error, user=g.user)


@blueprint.get("/tokens")
@page(Rank.ADMIN)
async def index() -> Any:
    return await _page()


@blueprint.post("/tokens")
@write_limit
@action(Rank.ADMIN, N_("make API tokens"))
async def make() -> Any:
    form = await request.form
    fields = {"name": form.get("name", ""), "rank": form.get("rank", "moderator")}
    try:
        made = await access.new_token(
            operations(), caller(g.user), validated(access.AccessRequest, fields)
        )
    except errors.ValidationError as exc:
        return await _page(error=str(exc)), 400
    # the secret is on this page only: no redirect, so a reload does not make another token
    return await _page(made)


@blueprint.post("/tokens/revoke")
@write_limit
@action(Rank.ADMIN, N_("revoke API tokens"))
async def revoke() -> Any:
    name = (await request.form).get("name", "")
    try:
        await flash(await access.revoke(operations(), caller(g.user), name), "ok")
    except errors.NotFound as exc:
        await flash(str(exc), "error")
    return redirect("/tokens", 303)
