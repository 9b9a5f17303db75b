"""The Discord events pages: the bot's planned and running Discord scheduled events with a form
that makes one (every option of `/event create`), and one event's page with its edit form and
its cancel button; through bot.operations.discord_events as every face."""

from __future__ import annotations

__all__ = ["EVENT_FIELDS", "blueprint"]

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from quart import Blueprint, g, redirect, render_template, request

from bot import errors
from bot.i18n.words import event_state
from bot.operations import discord_events
from bot.operations.requests import validated
from bot.times.when import human
from web.actions import caller
from web.auth import action, page, write_limit
from web.context import WebError, operations, state
from web.flashes import flash
from web.inputs import refuse_unknown
from web.schedule_form import condition_fields
from web.zones import reader_zone, zone_groups

if TYPE_CHECKING:
    from bot.store.guild_events import EventRow

blueprint = Blueprint("discord_events", __name__)

# what the create form sends: /event create's options
EVENT_FIELDS = (
    "name",
    "start",
    "end",
    "description",
    "server",
    "start_run",
    "end_run",
    "announce",
    "reminders",
    "repeat",
    "timezone",
    "require",
    "if_not",
    "max_wait",
    "after_wait",
)
EDIT_FIELDS = ("name", "start", "end", "description")
# the texts a blank field leaves to /event create's default (the selects always send a choice)
_TEXTS = ("end", "description", "start_run", "end_run", "announce", "reminders", "repeat")


async def _find(event: str) -> EventRow:
    """The event of a page's address; 404 with the sentence when there is none."""
    try:
        return await discord_events.find(
            operations(), caller(g.user), discord_events.EventRef(event=event)
        )
    except errors.ValidationError as exc:
        raise WebError(404, str(exc)) from None


def create_request(form: Mapping[str, str]) -> discord_events.EventRequest:
    """The create form as /event create's request; a refusal names its field."""
    refuse_unknown(form, EVENT_FIELDS)
    data: dict[str, object] = {"name": form.get("name", ""), "start": form.get("start", "")}
    for key in _TEXTS:
        if text := (form.get(key) or "").strip():
            data[key] = text
    for key in ("server", "timezone"):
        if choice := (form.get(key) or "").strip():
            data[key] = choice
    return validated(discord_events.EventRequest, {**data, **condition_fields(form)})


def edit_request(event: str, form: Mapping[str, str], row: EventRow) -> discord_events.EventEdit:
    """The edit form as /event edit's request: only what differs from the event changes."""
    refuse_unknown(form, EDIT_FIELDS)
    data: dict[str, object] = {"event": event}
    for key in ("start", "end"):
        if text := (form.get(key) or "").strip():
            data[key] = text
    if (name := form.get("name", "")) != row.name:
        data["name"] = name
    if (description := form.get("description", "")) != (row.description or ""):
        data["description"] = description
    return validated(discord_events.EventEdit, data)


def event_view(row: EventRow) -> dict[str, Any]:
    """An event as the pages show it (times in UTC; the page shows them in the reader's zone)."""
    return {
        "id": row.id,
        "name": row.name,
        "description": row.description or "",
        "server": row.server,
        "location": row.location,
        "state": event_state(row.state),
        "start": row.start.isoformat(),
        "end": row.end.isoformat(),
        "repeat": row.repeat,
        "occurrence": row.occurrence,
        "interested": row.interested,
        "timezone": row.timezone,
        "start_run": row.start_run,
        "end_run": row.end_run,
        "announce": ", ".join(human(o) for o in row.announce),
        "reminders": ", ".join(human(o) for o in row.reminders),
    }


async def _render_list(
    *,
    form: Mapping[str, str] | None = None,
    error: errors.BotError | None = None,
    status: int = 200,
) -> Any:
    try:
        found = await discord_events.listed(
            operations(), caller(g.user), discord_events.EventList()
        )
        rows, note, unavailable = [event_view(r) for r in found.rows], found.note, None
    except errors.ValidationError as exc:  # the Events cog is not loaded
        rows, note, unavailable = [], None, str(exc)
    body = await render_template(
        "discord_events.html",
        user=g.user,
        rows=rows,
        note=note,
        unavailable=unavailable,
        form=form or {},
        error=str(error) if error is not None else None,
        error_field=getattr(error, "field", None),
        servers=sorted(state().services.servers),
        zones=zone_groups(),
        reader_zone=reader_zone().key,
    )
    return body, status


@blueprint.get("/discord-events")
@page()
async def listed() -> Any:
    return await _render_list()


@blueprint.post("/discord-events")
@write_limit
@action()
async def create() -> Any:
    form = dict(await request.form)
    form.pop("csrf_token", None)
    try:
        made = await discord_events.create(operations(), caller(g.user), create_request(form))
    except errors.BotError as exc:  # a bad time, Discord's limits, a refused command
        return await _render_list(form=form, error=exc, status=400)
    await flash(made.text, "ok")
    return redirect(f"/discord-events/{made.row.id}", 303)


async def _render_event(
    event: str,
    *,
    form: Mapping[str, str] | None = None,
    error: errors.BotError | None = None,
    status: int = 200,
) -> Any:
    row = await _find(event)
    shown = event_view(row)
    body = await render_template(
        "discord_event.html",
        user=g.user,
        event=shown,
        live=row.state in ("scheduled", "active"),
        form=form or {"name": row.name, "description": row.description or ""},
        error=str(error) if error is not None else None,
        error_field=getattr(error, "field", None),
    )
    return body, status


@blueprint.get("/discord-events/<event>")
@page()
async def show(event: str) -> Any:
    return await _render_event(event)


@blueprint.post("/discord-events/<event>/edit")
@write_limit
@action()
async def edit(event: str) -> Any:
    form = dict(await request.form)
    form.pop("csrf_token", None)
    row = await _find(event)
    try:
        changed = await discord_events.edit(
            operations(), caller(g.user), edit_request(event, form, row)
        )
    except errors.BotError as exc:
        return await _render_event(event, form=form, error=exc, status=400)
    await flash(changed.text, "ok")
    return redirect(f"/discord-events/{changed.row.id}", 303)


@blueprint.post("/discord-events/<event>/cancel")
@write_limit
@action()
async def cancel(event: str) -> Any:
    try:
        done = await discord_events.cancel(
            operations(), caller(g.user), discord_events.EventRef(event=event)
        )
    except errors.BotError as exc:  # already over or cancelled: the binding's sentence
        await flash(str(exc), "error")
        return redirect("/discord-events", 303)
    await flash(done.text, "ok")
    return redirect("/discord-events", 303)
