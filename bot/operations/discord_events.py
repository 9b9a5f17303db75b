"""Discord scheduled events and their in-game tasks, as one: create, edit, cancel, list.

The binding (:class:`bot.discord.guildevents.binding.GuildEvents`) belongs to the Discord events
cog (cogs/discord_events.py), which hands it to :attr:`Operations.guild_events` while it is loaded;
without it every operation here says the events are not available. Called "Discord events"
everywhere, so they are never taken for the server's own events (bot/events/: what the pack
reports).
"""

from __future__ import annotations

__all__ = [
    "EventChange",
    "EventEdit",
    "EventList",
    "EventRef",
    "EventRequest",
    "Listed",
    "cancel",
    "create",
    "edit",
    "listed",
]

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.calendar.event_draft import Draft, dropped_note, read_draft
from bot.i18n import _
from bot.i18n.formats import stamp
from bot.minecraft.task_fields import Command, TimeText, ZoneName
from bot.operations.ranks import Rank
from bot.operations.schedule import ConditionFields
from bot.store.guild_events import LIVE_STATES

if TYPE_CHECKING:
    from bot.discord.guildevents.binding import GuildEvents
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.store.guild_events import EventRow


class EventRequest(ConditionFields):  # its start task's conditions, as /schedule's
    """`/event create`: the Discord event and the tasks at its start and end."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # the name's and the description's lengths are checked with Discord's own limits, said in
    # a sentence (bot.calendar.event_draft)
    name: str
    start: str = Field(min_length=1, max_length=100)
    end: str | None = Field(default=None, min_length=1, max_length=100)
    description: str | None = None
    server: str | None = None
    start_run: Command | None = None
    end_run: Command | None = None
    announce: TimeText | None = None
    reminders: TimeText | None = None
    repeat: TimeText | None = None
    timezone: ZoneName | None = None


class EventRef(BaseModel):
    """One event by its number or its name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    event: str  # a number or a name; an unknown one is said by the lookup


class EventEdit(EventRef):
    name: str | None = None
    start: str | None = Field(default=None, min_length=1, max_length=100)
    end: str | None = Field(default=None, min_length=1, max_length=100)
    description: str | None = None


class EventList(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str | None = None


@dataclass(frozen=True)
class EventChange:
    row: EventRow
    text: str


@dataclass(frozen=True)
class Listed:
    rows: list[EventRow] = field(default_factory=list)
    note: str | None = None  # why the interested counts are the last known ones


def _binding(ops: Operations) -> GuildEvents:
    found = ops.guild_events
    if found is None and ops.services.settings.discord_token is None:
        raise errors.ValidationError(
            _(
                "Discord is not configured here (no DOOM_DISCORD_TOKEN), so there are no "
                "Discord events to make, change or list; schedule tasks instead."
            )
        )
    if found is None:
        raise errors.ValidationError(
            _(
                "Discord events are not available: the bot's cogs.discord_events extension is "
                "not loaded (an admin can load it on the dashboard's extensions page)."
            )
        )
    return found


def check(ops: Operations, caller: Caller, req: EventRequest) -> Draft:
    """The draft of a new event: everything that refuses it is checked before anything is made."""
    ops.require(caller, Rank.MODERATOR, "/event create")
    binding = _binding(ops)
    target = ops.server(req.server)
    binding.guild(caller.guild_id)
    req.conditions()
    # the default start and end commands are the bot's own; the given ones are checked here,
    # so a refused one stops the request before anything is made
    given = [c.strip() for c in (req.start_run, req.end_run) if c is not None and c.strip()]
    binding.check_commands(target, *given)
    return read_draft(
        name=req.name,
        start=req.start,
        end=req.end,
        description=req.description,
        announce=req.announce,
        reminders=req.reminders,
        repeat=req.repeat,
        timezone=req.timezone,
        default_timezone=binding.default_timezone,
        now=binding.clock.now(),
    )


async def create(ops: Operations, caller: Caller, req: EventRequest) -> EventChange:
    draft = check(ops, caller, req)
    binding = _binding(ops)
    target = ops.server(req.server)
    row = await binding.create(
        binding.guild(caller.guild_id),
        target,
        draft,
        start_run=req.start_run,
        end_run=req.end_run,
        by_id=caller.user_id,
        by_name=caller.name,
        conditions=req.condition_options() or None,
    )
    link = f"https://discord.com/events/{row.guild_id}/{row.discord_id}"
    text = _(
        "Event #{id} **{name}** made: Discord event {start} to {end} at {location}; its "
        "start and end tasks are planned on {server}. {link}",
        id=row.id,
        name=row.name,
        start=stamp(row.start),
        end=stamp(row.end),
        location=row.location,
        server=row.server,
        link=link,
    )
    if (note := dropped_note(draft)) is not None:
        text = f"{text}\n{note}"
    request = {
        "name": req.name,
        "start": req.start,
        "end": req.end,
        "server": target.name,
        "start_run": req.start_run,
        "end_run": req.end_run,
        "repeat": req.repeat,
    }
    await ops.audit(caller, target, "event create", request, text)
    return EventChange(row, text)


async def find(ops: Operations, caller: Caller, req: EventRef) -> EventRow:
    ops.require(caller, Rank.MODERATOR, "/event")
    return await _binding(ops).find(req.event)


async def edit(ops: Operations, caller: Caller, req: EventEdit) -> EventChange:
    ops.require(caller, Rank.MODERATOR, "/event edit")
    binding = _binding(ops)
    row = await binding.find(req.event)
    row, notes = await binding.edit(
        row, name=req.name, description=req.description, start=req.start, end=req.end
    )
    text = _(
        "Event #{id} **{name}** now runs {start} to {end}.",
        id=row.id,
        name=row.name,
        start=stamp(row.start),
        end=stamp(row.end),
    )
    if notes:
        text += " " + _(
            "Some old tasks could not be cancelled: {notes}", notes="; ".join(str(n) for n in notes)
        )
    request = {"event": req.event, "name": req.name, "start": req.start, "end": req.end}
    await ops.audit(caller, ops.services.servers.get(row.server), "event edit", request, text)
    return EventChange(row, text)


async def cancel(ops: Operations, caller: Caller, req: EventRef) -> EventChange:
    ops.require(caller, Rank.MODERATOR, "/event cancel")
    binding = _binding(ops)
    row = await binding.find(req.event)
    row = await binding.cancel(row, by_name=caller.name)
    text = _(
        "Event #{id} **{name}** cancelled: the Discord event and its tasks.",
        id=row.id,
        name=row.name,
    )
    await ops.audit(
        caller, ops.services.servers.get(row.server), "event cancel", {"event": req.event}, text
    )
    return EventChange(row, text)


async def listed(ops: Operations, caller: Caller, req: EventList) -> Listed:
    """The planned and running events (of one server), with the interested counts Discord
    keeps (read once for the guild)."""
    ops.require(caller, Rank.MODERATOR, "/event list")
    binding = _binding(ops)
    name = ops.server(req.server).name if req.server else None
    guild = binding.bot.get_guild(caller.guild_id) if caller.guild_id is not None else None
    note = await binding.refresh_counts(guild)
    return Listed(await binding.store.in_states(LIVE_STATES, name), note)
