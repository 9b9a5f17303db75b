"""The reader's own settings: the time zone pages show times in (a cookie of their browser,
so it follows the browser, not the session)."""

from __future__ import annotations

__all__ = ["blueprint"]

import logging
from typing import Any

from quart import Blueprint, g, redirect, render_template, request

from bot.i18n import _
from web.auth import action, page, write_limit
from web.flashes import flash
from web.zones import COOKIE, COOKIE_AGE, default_zone, reader_zone, zone_groups, zone_named

log = logging.getLogger(__name__)

blueprint = Blueprint("preferences", __name__)


@blueprint.get("/timezone")
@page()
async def timezone() -> Any:
    return await render_template(
        "timezone.html",
        user=g.user,
        zones=zone_groups(),
        chosen=reader_zone().key,
        default=default_zone().key,
    )


@blueprint.post("/timezone")
@write_limit
@action()
async def choose_timezone() -> Any:
    wanted = str((await request.form).get("zone", "")).strip()
    back = redirect("/timezone", 303)
    if wanted == "":  # "the dashboard's default"
        back.delete_cookie(COOKIE)
        await flash(
            _("Times are shown in the dashboard's default zone, {zone}.", zone=default_zone().key),
            "ok",
        )
        return back
    zone = zone_named(wanted)
    if zone is None:
        await flash(
            _(
                "{zone} is not a time zone this dashboard knows: pick one from the list.",
                zone=repr(wanted[:64]),
            ),
            "error",
        )
        return back
    back.set_cookie(
        COOKIE,
        zone.key,
        max_age=COOKIE_AGE,
        samesite="Lax",
        httponly=True,
        secure=request.scheme == "https",
    )
    await flash(_("Times are now shown in {zone}.", zone=zone.key), "ok")
    return back
