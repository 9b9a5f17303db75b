"""A server's administration page (admins): install or update the pack (`setup`, followed by
the selftest when the pack is in place, as /setup does) and run the selftest, each showing its
report; through bot.operations.admin as every face."""

from __future__ import annotations

__all__ = ["blueprint"]

from typing import TYPE_CHECKING, Any

from quart import Blueprint, g, render_template

from bot import errors
from bot.i18n import N_
from bot.minecraft.selftest.result import check_name, status_word
from bot.operations.ranks import Rank
from web import actions
from web.actions import server_named
from web.auth import action, page, write_limit

if TYPE_CHECKING:
    from bot.minecraft.selftest import SelftestResult
    from bot.services import ServerServices

blueprint = Blueprint("admin", __name__)


def _checks(result: SelftestResult) -> list[dict[str, str]]:
    """The selftest's checks as the page lists them, in the reader's language."""
    return [
        {
            "status": c.status,
            "said": status_word(c.status),
            "name": check_name(c.name),
            "detail": str(c.detail),
        }
        for c in result.checks
    ]


async def _render(
    server: ServerServices,
    *,
    outcome: str | None = None,
    ok: bool = True,
    tested: Any = None,
    status: int = 200,
) -> Any:
    body = await render_template(
        "admin.html",
        server=server,
        user=g.user,
        outcome=outcome,
        ok=ok,
        verdict=tested.text if tested is not None else None,
        checks=_checks(tested.result) if tested is not None else [],
    )
    return body, status


@blueprint.get("/servers/<name>/admin")
@page(Rank.ADMIN, N_("administer a server"))
async def admin_page(name: str) -> Any:
    return await _render(server_named(name))


@blueprint.post("/servers/<name>/setup")
@write_limit
@action(Rank.ADMIN, N_("install the pack"))
async def setup(name: str) -> Any:
    server = server_named(name)
    try:
        done = await actions.setup(g.user, server)
        tested = await actions.selftest(g.user, server) if done.report.ok else None
    except errors.BotError as exc:  # no world_dir, the server unreachable
        return await _render(server, outcome=str(exc), ok=False, status=400)
    return await _render(server, outcome=done.text, ok=done.report.ok, tested=tested)


@blueprint.post("/servers/<name>/selftest")
@write_limit
@action(Rank.ADMIN, N_("run the selftest"))
async def selftest(name: str) -> Any:
    server = server_named(name)
    try:
        tested = await actions.selftest(g.user, server)
    except errors.BotError as exc:
        return await _render(server, outcome=str(exc), ok=False, status=400)
    return await _render(server, ok=tested.result.ok, tested=tested)
