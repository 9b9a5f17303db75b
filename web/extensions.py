"""The bot's plugins (bot.plugins: installed distributions, with their state, operations and
pages) and extensions (cogs: which are loaded, which failed, which bring pages; reload for
admins)."""

from __future__ import annotations

__all__ = ["blueprint", "extension_rows", "plugin_rows"]

import logging
from typing import Any

from quart import Blueprint, g, redirect, render_template, request

from bot import errors
from bot.i18n import N_
from bot.operations import registry as ops_registry
from bot.operations.ranks import Rank
from bot.plugins import RELOAD
from web import actions
from web.auth import action, page, write_limit
from web.context import operations, state
from web.flashes import flash

log = logging.getLogger(__name__)

blueprint = Blueprint("extensions", __name__)


def extension_rows() -> list[dict[str, Any]]:
    bot = state().bot
    if bot is None:
        return []  # no Discord bot in this process: no cogs
    names = sorted({*state().settings.extensions, *bot.extensions})
    pages = {}
    for cog in bot.cogs.values():
        blueprint_ = getattr(cog, "web_blueprint", None)
        if blueprint_ is not None:
            pages[type(cog).__module__] = f"/x/{blueprint_.name}/"
    return [
        {
            "name": n,
            "loaded": n in bot.extensions,
            "error": str(bot.failed_extensions[n]) if n in bot.failed_extensions else None,
            "page": pages.get(n),
        }
        for n in names
    ]


def plugin_rows() -> list[dict[str, Any]]:
    """Each installed plugin as the host loaded it (or why not), with what it brings."""
    return [
        {
            "name": p.name,
            "version": p.version,
            "state": p.state,
            "why": p.why,
            "operations": [f"/{n}" for n in p.operations],
            "page": p.pages or None,
        }
        for p in operations().plugins
    ]


@blueprint.get("/extensions")
@page()
async def index() -> Any:
    return await render_template(
        "extensions.html", rows=extension_rows(), installed=plugin_rows(), user=g.user
    )


@blueprint.post("/extensions/plugins/reload")
@write_limit
@action(Rank.ADMIN, N_("reload plugins"))
async def reload_plugin() -> Any:
    name = (await request.form).get("plugin", "")
    try:
        done = await ops_registry.run(
            operations(), actions.caller(g.user), RELOAD.name, {"name": name}
        )
    except errors.BotError as exc:
        await flash(str(exc), "error")
    else:
        await flash(done.text, "ok")
    return redirect("/extensions", 303)


@blueprint.post("/extensions/reload")
@write_limit
@action(Rank.ADMIN, N_("reload extensions"))
async def reload() -> Any:
    name = (await request.form).get("extension", "")
    await flash(await actions.reload_extension(g.user, name), "ok")
    return redirect("/extensions", 303)
