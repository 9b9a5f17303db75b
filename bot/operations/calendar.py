"""The calendar feed: `/calendar` gives (or renews) the secret address of a server's (or every
server's) iCalendar feed, which the dashboard serves (:func:`feed`) with no login.

Only the secret's hash is stored (bot.store.calendar_feeds), so an address is shown once, when
it is made; a renewal makes a new one and the old one answers 404 from then on.
"""

from __future__ import annotations

__all__ = ["MAX_SECRET", "CalendarLink", "CalendarRequest", "calendar", "feed"]

import asyncio
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.calendar.feed import Plan, build
from bot.i18n import _
from bot.i18n.formats import stamp
from bot.operations.ranks import Rank
from bot.store.calendar_feeds import ALL, Feed, FeedStore
from bot.store.guild_events import GuildEventStore

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.store.guild_events import EventRow
    from bot.store.schedules import Schedule

MAX_SECRET = 64  # longer than any secret we make: not worth hashing
CANCELLED_SHOWN = 50  # the newest cancelled rows of a server stay in the feed, marked cancelled
PAST_EVENTS = timedelta(days=30)  # events that ended longer ago leave the feed


class CalendarRequest(BaseModel):
    """`/calendar`: the feed of one server (by name), or of every server (no name)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str | None = Field(default=None, min_length=1, max_length=100)
    renew: bool = False


@dataclass(frozen=True)
class CalendarLink:
    """The feed; `url` only when its address was made now (the secret is not kept)."""

    scope: str
    feed: Feed
    text: str
    url: str | None = None


def _scope_name(scope: str) -> str:
    return _("every server") if scope == ALL else scope


async def calendar(ops: Operations, caller: Caller, req: CalendarRequest) -> CalendarLink:
    ops.require(caller, Rank.MODERATOR, "/calendar")
    scope = ops.server(req.server).name if req.server else ALL
    if ops.web_url is None:
        raise errors.ValidationError(
            _(
                "The calendar feed is served by the web dashboard, which is not enabled: an "
                "admin sets DOOM_WEB_PORT (and DOOM_WEB_URL for the public address) and restarts "
                "the bot."
            )
        )
    store = FeedStore(ops.services.db)
    found = await store.get(scope)
    if found is not None and not req.renew:
        text = _(
            "The calendar feed of {scope} was made {when} by {name}; its address was shown "
            "then and is not kept. Use `renew` to make a new address: the old one stops "
            "working.",
            scope=_scope_name(scope),
            when=stamp(found.created_at),
            name=found.created_by_name,
        )
        return CalendarLink(scope, found, text)
    secret = secrets.token_urlsafe(32)
    made = await store.put(scope, secret, caller.user_id, caller.name, ops.now())
    url = f"{ops.web_url}/calendar/{secret}.ics"
    if found is None:
        said = _(
            "The calendar feed of {scope}: subscribe to this address in your calendar "
            "(keep it secret: anyone with it sees the plan):\n{url}",
            scope=_scope_name(scope),
            url=url,
        )
    else:
        said = _(
            "A new address for the calendar feed of {scope}; the old one no longer works:\n{url}",
            scope=_scope_name(scope),
            url=url,
        )
    outcome = _("Calendar feed of {scope}: address made.", scope=_scope_name(scope))
    target = ops.services.servers.get(scope)
    await ops.audit(caller, target, "calendar", {"server": req.server, "renew": req.renew}, outcome)
    return CalendarLink(scope, made, said, url)


async def _rows(ops: Operations, server: str) -> list[Schedule]:
    scheduler = ops.services.scheduler
    if scheduler is None:
        return []
    store = scheduler.store
    live = await store.in_states(server, ("active", "paused"))
    return live + await store.in_states(server, ("cancelled",), CANCELLED_SHOWN)


async def _events(ops: Operations, servers: list[str]) -> list[EventRow]:
    rows = await GuildEventStore(ops.services.db).in_states(
        ("scheduled", "active", "completed", "cancelled")
    )
    since = ops.now() - PAST_EVENTS
    return [r for r in rows if r.server in servers and r.end >= since]


async def feed(ops: Operations, secret: str) -> bytes | None:
    """The feed whose address has this secret, None when there is none (or no longer)."""
    if not secret or len(secret) > MAX_SECRET:
        return None
    scope = await FeedStore(ops.services.db).scope_of(secret)
    if scope is None or (scope != ALL and scope not in ops.services.servers):
        return None
    servers = sorted(ops.services.servers) if scope == ALL else [scope]
    rows = [row for name in servers for row in await _rows(ops, name)]
    name = _("doom.schedule: {scope}", scope=_scope_name(scope))
    plan = Plan(name, rows, await _events(ops, servers))
    return await asyncio.to_thread(build, plan, ops.now())  # ~0.1 s of CPU: not in the loop
