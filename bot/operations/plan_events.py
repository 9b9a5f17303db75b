"""The Discord events of a plan file: written from the event rows, imported through
/event create's operation (bot.operations.discord_events), so with its checks and where the
bot is connected to Discord (the dashboard, Discord itself; not a shell).

An event has no id of its own in a file: it is matched by its name among the server's planned
events (bot.operations.plan_steps). The same entry is left; a different one is cancelled and
made anew.
"""

from __future__ import annotations

__all__ = ["EventStep", "entry_of", "planned", "request", "steps"]

from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from bot.calendar.plan_file import CONDITION_KEYS, EventEntry, condition_options
from bot.operations import discord_events
from bot.operations.plan_steps import Step, grouped, refused_as
from bot.store.guild_events import EventRow, GuildEventStore
from bot.times.when import human

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices

EventStep = Step[EventEntry, EventRow]


def _local(when: datetime, zone: str) -> str:
    local = when.astimezone(ZoneInfo(zone))
    return local.strftime("%Y-%m-%d %H:%M:%S" if local.second else "%Y-%m-%d %H:%M")


def _offsets(values: tuple[int, ...]) -> str:
    return ",".join(human(v) for v in values) or "none"


def entry_of(row: EventRow) -> EventEntry:
    conditions: dict[str, Any] = {
        k: v for k, v in (row.conditions or {}).items() if k in CONDITION_KEYS
    }
    return EventEntry(
        name=row.name,
        start=_local(row.start, row.timezone),
        end=_local(row.end, row.timezone),
        timezone=row.timezone,
        location=row.location,
        description=row.description,
        start_run=row.start_run,
        end_run=row.end_run,
        repeat=row.repeat,
        announce=_offsets(row.announce),
        reminders=_offsets(row.reminders) if row.reminders else None,
        **conditions,
    )


async def planned(ops: Operations, server: str) -> list[EventRow]:
    """The server's events still to come (the ones a file holds)."""
    return await GuildEventStore(ops.services.db).in_states(("scheduled",), server)


def request(target: ServerServices, entry: EventEntry) -> discord_events.EventRequest:
    conditions: dict[str, Any] = condition_options(entry)
    return discord_events.EventRequest(
        name=entry.name,
        start=entry.start,
        end=entry.end,
        description=entry.description,
        server=target.name,
        start_run=entry.start_run,
        end_run=entry.end_run,
        announce=entry.announce,
        reminders=entry.reminders,
        repeat=entry.repeat,
        timezone=entry.timezone,
        **conditions,
    )


def _same(entry: EventEntry) -> EventEntry:
    # the location is the server's address, written for the reader: an import never sets it
    return entry.model_copy(update={"location": None})


async def steps(
    ops: Operations, caller: Caller, target: ServerServices, entries: list[EventEntry]
) -> list[EventStep]:
    """What each event entry would do, every one to add or change checked as /event create
    checks it; a refused one raises, naming it."""
    have: dict[str, list[tuple[EventEntry, EventRow]]] = {}
    for row in await planned(ops, target.name):
        have.setdefault(row.name.lower(), []).append((entry_of(row), row))
    found = grouped("events", entries, have, lambda e: e.name, str.lower, _same)
    for step in found:
        if step.verdict != "leave":
            with refused_as(step.label):
                discord_events.check(ops, caller, request(target, step.entry))
    return found
