"""Pages about servers: every server's state at a glance, and one server's lists, paged and
searchable by id (queue, offline, paused, and the planned wall-clock schedules)."""

from __future__ import annotations

__all__ = [
    "MAX_PAGE",
    "PAGE_SIZE",
    "blueprint",
    "list_page",
    "render_list",
    "server_status",
]

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quart import Blueprint, g, render_template, request

from bot import errors
from bot.i18n import _
from bot.minecraft.pack_health import DAMAGE_ADVICE
from bot.minecraft.pack_tasks import TASK_LISTS
from bot.operations import status as status_ops
from bot.operations.facts import planned_row, task_row
from bot.operations.queue import ServerRef
from bot.operations.reads import LISTS
from web import actions
from web.actions import UNITS, server_named
from web.auth import page
from web.context import operations, state
from web.inputs import check_list, page_number
from web.picker import choices
from web.schedule_form import form_context, preview_rows

if TYPE_CHECKING:
    from bot.minecraft.pack_tasks import Task
    from bot.operations.reads import Clock
    from bot.operations.schedule import Preview
    from bot.services import ServerServices

log = logging.getLogger(__name__)

PAGE_SIZE = 20
MAX_PAGE = 1_000_000  # 20 million tasks: past any list, and an offset the pack's int holds
blueprint = Blueprint("servers", __name__)


@dataclass
class Status:
    """A server's state. The API's fields stay English words (scripts compare them); the page
    says them in the reader's language from ``ok``, ``error`` and ``pack_missing``."""

    name: str
    ok: bool
    version: str = ""
    pack_missing: bool = False
    error: str | None = None  # why RCON is unavailable, in the request's locale
    tps: float | None = None
    sizes: dict[str, int | None] | None = None
    event_source: str = "none"
    note: str | None = None
    damage: list[str] | None = None  # what the pack's state misses, in the request's locale
    # several processes on one database: which one does the server's background work (a
    # sentence in the request's locale) and its id; "" and None alone
    background: str = ""
    lease_holder: str | None = None

    @property
    def damage_text(self) -> str:
        """The pack's damage and what to do, as /status says it; "" when whole."""
        if not self.damage:
            return ""
        return _(
            "The pack is damaged: {problems}. {advice}",
            problems="; ".join(self.damage),
            advice=DAMAGE_ADVICE,
        )

    @property
    def rcon(self) -> str:
        return "connected" if self.ok else f"unavailable: {self.error}"

    def as_json(self) -> dict[str, Any]:
        version = "not installed" if self.pack_missing else self.version
        return {
            "name": self.name,
            "rcon": self.rcon,
            "ok": self.ok,
            "pack_version": version,
            "tps": self.tps,
            "queues": self.sizes or {},
            "event_source": self.event_source,
            "warning": self.note,
            "pack_damage": self.damage or [],
            "lease_holder": self.lease_holder,
        }


async def server_status(server: ServerServices) -> Status:
    """RCON state, pack version and state, TPS and list sizes (planned rows too), as /status
    shows them (bot.operations.status)."""
    request = ServerRef(server=server.name)
    [found] = await status_ops.status(operations(), actions.caller(g.user), request)
    # connected, but a later read failed: said as the warning
    later = found.sizes_error or found.damage_error
    return Status(
        server.name,
        found.ok,
        version=found.version,
        pack_missing=found.ok and not found.version,
        error=found.error,
        tps=found.tps,
        sizes=dict(found.sizes) or None,
        event_source=server.event_kind,
        note=server.checker_note or later,
        damage=found.damage,
        background=found.background,
        lease_holder=fleet.holder_of(server.name) if (fleet := state().services.fleet) else None,
    )


async def first_task(server: ServerServices, task_id: str) -> Task | None:
    """The first task with this id (queue, offline, paused), as /show finds it, but through
    `find`, which scans a long list once where `show` scans it twice."""
    for which in TASK_LISTS:
        tasks, _ = await server.pack.find(which, task_id, limit=1)
        if tasks:
            return tasks[0]
    return None


def page_args() -> tuple[int, str]:
    """`?page=` (1 to MAX_PAGE; a page past the end shows the last) and `?id=`."""
    return page_number(MAX_PAGE), request.args.get("id", "").strip()


async def list_page(
    server: ServerServices, which: str, number: int, search: str
) -> tuple[list[dict[str, Any]], int]:
    """One page of a list (or of the tasks with id `search`), as rows, and the total."""
    offset = (number - 1) * PAGE_SIZE
    if which == "planned":
        scheduler = state().services.scheduler
        if scheduler is None:
            return [], 0
        plans, total = await scheduler.planned(
            server.name, offset=offset, limit=PAGE_SIZE, search=search
        )
        return [planned_row(p) for p in plans], total
    if search:
        tasks, total = await server.pack.find(which, search, offset=offset, limit=PAGE_SIZE)
    else:
        tasks, total = await server.pack.list_tasks(which, offset=offset, limit=PAGE_SIZE)
    return [task_row(t, server) for t in tasks], total


@blueprint.get("/")
@blueprint.get("/servers")
@page()
async def index() -> Any:
    servers = list(state().services.servers.values())
    statuses = await asyncio.gather(*(server_status(s) for s in servers))
    # after the status, whose TPS sample the clock's measurement then reuses (no second wait)
    clocks = await asyncio.gather(
        *(_clock(s) if st.ok else _none() for s, st in zip(servers, statuses, strict=True))
    )
    # the groups, as Discord's autocomplete offers them: once there is more than one server
    found = [c for c in choices() if c.group] if len(servers) > 1 else []
    return await render_template(
        "servers.html",
        statuses=statuses,
        user=g.user,
        groups=found,
        clocks=dict(zip([s.name for s in servers], clocks, strict=True)),
    )


async def _clock(server: ServerServices) -> Clock | None:
    """The server's game time as /time says it; None when it cannot be read."""
    try:
        return await actions.game_time(g.user, server)
    except errors.BotError:
        return None


async def _none() -> None:
    return None


@blueprint.get("/servers/<name>/<which>")
@page()
async def tasks(name: str, which: str) -> Any:
    return await render_list(server_named(name), which)


async def render_list(
    server: ServerServices,
    which: str,
    *,
    error: errors.BotError | None = None,
    form: dict[str, str] | None = None,
    preview: Preview | None = None,
    refused: str | None = None,
    status: int = 200,
) -> Any:
    """A list page; after a refused schedule, with the error (and caret, and the field at
    fault), or a group's servers' reasons (`refused`), and the form kept; after a preview, the
    next runs with the form kept."""
    check_list(which)
    number, search = page_args()
    rows, total = await list_page(server, which, number, search)
    pages = max(1, -(-total // PAGE_SIZE))
    if number > pages:  # past the end: the last page, as /list shows it
        number = pages
        rows, total = await list_page(server, which, number, search)
    caret = error.caret() if isinstance(error, errors.CommandParseError) else None
    field = error.field if isinstance(error, errors.ValidationError) else None
    if isinstance(error, errors.CommandParseError | errors.CommandRefused):
        field = "run"
    extra = await form_context(server) if which == "queue" else {}
    body = await render_template(
        "tasks.html",
        server=server,
        which=which,
        lists=LISTS,
        rows=rows,
        total=total,
        number=number,
        pages=pages,
        search=search,
        user=g.user,
        units=UNITS,
        scheduler=state().services.scheduler,
        form=form or {},
        error=str(error) if error is not None else None,
        caret=caret,
        error_field=field,
        refused=refused,
        preview=preview,
        previewed=preview_rows(preview) if preview is not None else [],
        **extra,
    )
    return body, status
