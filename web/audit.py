"""The audit log: who changed what, from Discord or the web, filterable by user, server and
action, paged backwards."""

from __future__ import annotations

__all__ = ["blueprint", "mutation_json", "query"]

import logging
from typing import TYPE_CHECKING, Any

from quart import Blueprint, g, render_template, request

from bot.i18n import N_
from web.auth import page
from web.context import state
from web.inputs import whole_number

if TYPE_CHECKING:
    from bot.store.audit import Mutation

log = logging.getLogger(__name__)

blueprint = Blueprint("audit", __name__)
PAGE = 50


def mutation_json(m: Mutation) -> dict[str, Any]:
    return {
        "id": m.id, "time": m.time.isoformat(), "user_id": m.user_id, "user_name": m.user_name,
        "server": m.server, "action": m.action, "request": m.request, "outcome": m.outcome,
    }  # fmt: skip


def _int_arg(name: str, what: str) -> int | None:
    """The whole number in ``?name=`` (a Discord or row id); ``what`` (marked with N_) names it
    in the refusal."""
    text = request.args.get(name, "").strip()
    return whole_number(text, name, what, low=0) if text else None


async def query() -> tuple[list[Mutation], dict[str, str]]:
    filters = {k: request.args.get(k, "").strip() for k in ("user", "server", "action", "before")}
    found = await state().services.audit.mutations(
        server=filters["server"] or None,
        user_id=_int_arg("user", N_("user filter (a Discord user id)")),
        action=filters["action"] or None,
        before_id=_int_arg("before", N_("page marker")),
        limit=PAGE,
    )
    return found, filters


@blueprint.get("/audit")
@page()
async def audit_log() -> Any:
    rows, filters = await query()
    older = rows[-1].id if len(rows) == PAGE else None
    return await render_template(
        "audit.html", rows=rows, filters=filters, older=older, user=g.user,
        servers=sorted(state().services.servers),
    )  # fmt: skip
