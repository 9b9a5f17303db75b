"""The JSON API for Discord scheduled events and their in-game tasks (`/event` in Discord):
list, create, edit, cancel, through the same operations (bot.operations.discord_events)."""

from __future__ import annotations

__all__ = ["blueprint"]

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from quart import Blueprint, g
from quart_schema import tag, validate_querystring, validate_request

from bot import errors
from bot.operations import discord_events
from bot.store.guild_events import EventRow
from web.actions import caller
from web.auth import action, page, write_limit
from web.context import operations
from web.inputs import refusal

blueprint = Blueprint("api_events", __name__, url_prefix="/api")


class EventListQuery(BaseModel):
    server: str | None = Field(default=None, max_length=64)


class EventChanges(BaseModel):
    """What `/event edit` changes; what is left out stays."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    start: str | None = Field(default=None, min_length=1, max_length=100)
    end: str | None = Field(default=None, min_length=1, max_length=100)
    description: str | None = None


def event_json(row: EventRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "server": row.server,
        "state": row.state,
        "start": row.start.isoformat(),
        "end": row.end.isoformat(),
        "location": row.location,
        "interested": row.interested,
        "repeat": row.repeat,
        "timezone": row.timezone,
        "discord_id": row.discord_id,
    }


@blueprint.get("/discord-events")
@tag(["discord events"])
@page()
@validate_querystring(EventListQuery)
async def listed(query_args: EventListQuery) -> Any:
    """The planned and running Discord events (of `?server=`), with the interested counts.

    Only events the bot made (with their in-game start and end tasks); an event made by hand
    in Discord is not listed.
    """
    try:
        found = await discord_events.listed(
            operations(), caller(g.user), discord_events.EventList(server=query_args.server)
        )
    except errors.BotError as exc:
        return refusal(exc)
    return {"events": [event_json(r) for r in found.rows], "note": found.note}


@blueprint.post("/discord-events")
@tag(["discord events"])
@write_limit
@action()
@validate_request(discord_events.EventRequest)
async def create(data: discord_events.EventRequest) -> Any:
    """Make a Discord scheduled event and its in-game start and end tasks, as `/event create`
    (times as /schedule `when`; `end` a time or a length; `announce` an in-game countdown)."""
    try:
        made = await discord_events.create(operations(), caller(g.user), data)
    except errors.BotError as exc:
        return refusal(exc)
    return {"outcome": made.text, "event": event_json(made.row)}, 201


@blueprint.post("/discord-events/<event>/edit")
@tag(["discord events"])
@write_limit
@action()
@validate_request(EventChanges)
async def edit(event: str, data: EventChanges) -> Any:
    """Change an event (its number or name); its tasks move with it, as `/event edit`.

    Only the fields given change. A bad field is a 400 naming it, and then neither the event
    nor its tasks change.
    """
    request = discord_events.EventEdit(event=event, **data.model_dump())
    try:
        changed = await discord_events.edit(operations(), caller(g.user), request)
    except errors.BotError as exc:
        return refusal(exc)
    return {"outcome": changed.text, "event": event_json(changed.row)}


@blueprint.post("/discord-events/<event>/cancel")
@tag(["discord events"])
@write_limit
@action()
async def cancel(event: str) -> Any:
    """Cancel an event in Discord and its tasks, as `/event cancel`.

    The Discord event is cancelled and its start and end tasks are taken off the server, so
    nothing of it runs in game.
    """
    try:
        cancelled = await discord_events.cancel(
            operations(), caller(g.user), discord_events.EventRef(event=event)
        )
    except errors.BotError as exc:
        return refusal(exc)
    return {"outcome": cancelled.text, "event": event_json(cancelled.row)}
