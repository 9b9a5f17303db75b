"""The event feed: recent pack events, and new ones live over server-sent events."""

from __future__ import annotations

__all__ = ["blueprint", "event_json"]

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from quart import Blueprint, g, make_response, render_template, request

from bot.aio import cancel_and_wait
from bot.events.kinds import shown_details, title_of
from bot.i18n import N_
from bot.i18n.retranslate import retranslate
from web.auth import page
from web.context import state
from web.inputs import whole_number
from web.markup import discord_text
from web.zones import reader_zone

if TYPE_CHECKING:
    from bot.events.event import Event

log = logging.getLogger(__name__)

blueprint = Blueprint("events", __name__)
HEARTBEAT = 15.0  # seconds between SSE comments, so proxies keep the stream open
CLIENT_QUEUE = 256  # a slow tab loses its oldest events, never holds the bus up
PAGE = 100  # events a page lists


def event_json(event: Event, zone: ZoneInfo | None = None) -> dict[str, Any]:
    """An event for the page and the API: `details` as the source gave them (values in the
    reader's language where they are texts), `title` and `shown` as the alert channel says them.
    The bot's own alerts carry Discord's timestamps: shown as times in the reader's zone (`zone`
    for a stream, which outlives its request)."""
    return {
        "server": event.server,
        "seq": event.seq,
        "type": event.type,
        "task_id": event.task_id,
        # the bot's own alerts have no game time (-1)
        "game_time": event.game_time if event.game_time >= 0 else None,
        "details": {k: discord_text(v, zone) for k, v in event.details.items()},
        "title": title_of(event),
        "shown": [[name, discord_text(value, zone)] for name, value in shown_details(event)],
    }


async def recent(before: int | None = None) -> tuple[list[dict[str, Any]], int | None]:
    """A page of the kept events, newest first (those of before the last restart too), and
    the marker of the next older page (None on the last)."""
    found = await state().services.event_log.recent(limit=PAGE, before=before)
    older = found[-1].id if len(found) == PAGE else None
    return [event_json(_said_again(s.event)) for s in found], older


def _said_again(event: Event) -> Event:
    """A kept event's texts (kept in English) in the reader's language where the catalogs
    know them."""
    details = {k: retranslate(str(v)) for k, v in event.details.items()}
    return replace(event, details=MappingProxyType(details))


@blueprint.get("/events")
@page()
async def feed() -> Any:
    text = request.args.get("before", "").strip()
    before = whole_number(text, "before", N_("page marker"), low=0) if text else None
    events, older = await recent(before)
    return await render_template(
        "events.html", events=events, older=older, first=before is None, user=g.user
    )


@blueprint.get("/events/stream")
@page()
async def stream() -> Any:
    services = state().services
    zone = reader_zone()

    async def body() -> AsyncIterator[bytes]:
        queue: asyncio.Queue[Event] = asyncio.Queue(CLIENT_QUEUE)
        async with contextlib.AsyncExitStack() as stack:
            for name, server in services.servers.items():
                if server.events is None:
                    continue
                sub = await stack.enter_async_context(
                    services.bus.subscribe(name, server.events, maxsize=CLIENT_QUEUE)
                )
                stack.push_async_callback(
                    cancel_and_wait, asyncio.create_task(_forward(sub, queue))
                )
            yield b"retry: 3000\n\n"
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), HEARTBEAT)
                except TimeoutError:
                    yield b": keep-alive\n\n"
                    continue
                data = json.dumps(event_json(event, zone), ensure_ascii=False)
                yield f"event: pack\ndata: {data}\n\n".encode()

    response = await make_response(
        body(), {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    response.timeout = None  # type: ignore[union-attr]
    return response


async def _forward(sub: AsyncIterable[Event], queue: asyncio.Queue[Event]) -> None:
    async for event in sub:
        if queue.full():
            queue.get_nowait()
        queue.put_nowait(event)
