"""The audit log: who changed what, from where (Discord, the console, the web pages, the API),
filterable by user, server and action, paged backwards. Each outcome is said in the reader's
language where the catalogs know it, with Discord's markup shown as Discord shows it."""

from __future__ import annotations

__all__ = ["action_name", "action_names", "blueprint", "face_name", "mutation_json", "query"]

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup
from quart import Blueprint, g, render_template, request

from bot.i18n import N_, _, pgettext
from bot.i18n.retranslate import retranslate
from bot.operations.caller import FACE_NAMES
from web.auth import page
from web.context import state
from web.inputs import whole_number
from web.markup import discord_html
from web.zones import time_text

if TYPE_CHECKING:
    from bot.store.audit import Mutation

log = logging.getLogger(__name__)

blueprint = Blueprint("audit", __name__)
PAGE = 50


def action_names() -> dict[str, str]:
    """Every audit action ("schedule", "event create") and its name in the reader's language."""
    return {
        "schedule": pgettext("audit action", "schedule"),
        "schedule_dynamic": pgettext("audit action", "schedule_dynamic"),
        "cancel": pgettext("audit action", "cancel"),
        "cancel_all": pgettext("audit action", "cancel_all"),
        "pause": pgettext("audit action", "pause"),
        "resume": pgettext("audit action", "resume"),
        "clear": pgettext("audit action", "clear"),
        "setup": pgettext("audit action", "setup"),
        "selftest": pgettext("audit action", "selftest"),
        "reload": pgettext("audit action", "reload"),
        "event create": pgettext("audit action", "event create"),
        "event edit": pgettext("audit action", "event edit"),
        "event cancel": pgettext("audit action", "event cancel"),
    }


def action_name(action: str) -> str:
    return action_names().get(action, action)


def face_name(face: str) -> str:
    """Where a change came from, in the reader's language; a dash when it was not recorded."""
    return _(FACE_NAMES[face]) if face in FACE_NAMES else "–"  # noqa: RUF001


def mutation_json(m: Mutation) -> dict[str, Any]:
    return {
        "id": m.id,
        "time": m.time.isoformat(),
        "user_id": m.user_id,
        "user_name": m.user_name,
        "server": m.server,
        "action": m.action,
        "face": m.face or None,
        "request": m.request,
        "outcome": m.outcome,
    }


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One entry as the page shows it."""

    entry: Mutation
    who: str  # the name Discord shows now, else the one recorded, else the id
    face: str
    action: str
    when: str
    outcome: Markup


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


async def audit_rows(entries: list[Mutation]) -> list[AuditRow]:
    names = await state().names.names(g.user.guild_id, (m.user_id for m in entries))
    return [
        AuditRow(
            m,
            names.get(m.user_id) or m.user_name or str(m.user_id),
            face_name(m.face),
            action_name(m.action),
            time_text(m.time),
            discord_html(retranslate(m.outcome)),
        )
        for m in entries
    ]


@blueprint.get("/audit")
@page()
async def audit_log() -> Any:
    entries, filters = await query()
    older = entries[-1].id if len(entries) == PAGE else None
    return await render_template(
        "audit.html",
        rows=await audit_rows(entries),
        filters=filters,
        older=older,
        user=g.user,
        servers=sorted(state().services.servers),
        actions=action_names(),
    )
