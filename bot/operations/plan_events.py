"""The Discord events of a plan file: written from the event rows, imported through
/event create's operation (bot.operations.discord_events), so with its checks and where the
bot is connected to Discord (the dashboard, Discord itself; not a shell).

An event has no id of its own in a file: it is matched by its name among the server's planned
events. The same entry is left; a different one is cancelled and made anew.
"""

from __future__ import annotations

__all__ = ["EventStep", "apply", "entry_of", "steps"]

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal
from zoneinfo import ZoneInfo

from bot import errors
from bot.calendar.plan_file import EventEntry
from bot.i18n import _
from bot.operations import discord_events
from bot.store.guild_events import EventRow, GuildEventStore
from bot.wallclock.when import human

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices

Verdict = Literal["add", "change", "leave"]


@dataclass(frozen=True, slots=True)
class EventStep:
    verdict: Verdict
    label: str
    entry: EventEntry
    old: EventRow | None


@contextlib.contextmanager
def refused_as(label: str) -> Iterator[None]:
    """A check's refusal of a plan file's entry, as the import says it: the entry named, and
    that nothing was changed (a rank refusal stays as it is)."""
    try:
        yield
    except errors.NotAllowed:
        raise
    except errors.BotError as exc:
        raise errors.ValidationError(
            _("The plan file's entry {entry} is refused: {why} Nothing was changed.",
              entry=label, why=exc)
        ) from None  # fmt: skip


def _local(when: datetime, zone: str) -> str:
    local = when.astimezone(ZoneInfo(zone))
    return local.strftime("%Y-%m-%d %H:%M:%S" if local.second else "%Y-%m-%d %H:%M")


def _offsets(values: tuple[int, ...]) -> str:
    return ",".join(human(v) for v in values) or "none"


def entry_of(row: EventRow) -> EventEntry:
    return EventEntry(
        name=row.name, start=_local(row.start, row.timezone), end=_local(row.end, row.timezone),
        timezone=row.timezone, location=row.location, description=row.description,
        start_run=row.start_run, end_run=row.end_run, repeat=row.repeat,
        announce=_offsets(row.announce), reminders=_offsets(row.reminders) if row.reminders
        else None,
    )  # fmt: skip


async def planned(ops: Operations, server: str) -> list[EventRow]:
    """The server's events still to come (the ones a file holds)."""
    return await GuildEventStore(ops.services.db).in_states(("scheduled",), server)


def _request(target: ServerServices, entry: EventEntry) -> discord_events.EventRequest:
    return discord_events.EventRequest(
        name=entry.name, start=entry.start, end=entry.end, description=entry.description,
        server=target.name, start_run=entry.start_run, end_run=entry.end_run,
        announce=entry.announce, reminders=entry.reminders, repeat=entry.repeat,
        timezone=entry.timezone,
    )  # fmt: skip


async def steps(
    ops: Operations, caller: Caller, target: ServerServices, entries: list[EventEntry]
) -> list[EventStep]:
    """What each event entry would do, every one to add or change checked as /event create
    checks it; a refused one raises, naming it."""
    have = {r.name.lower(): r for r in await planned(ops, target.name)}
    found: list[EventStep] = []
    for number, entry in enumerate(entries, start=1):
        label = f"events[{number}] ({entry.name})"
        old = have.get(entry.name.lower())
        verdict: Verdict = "add" if old is None else "leave" if entry_of(old) == entry else "change"
        if verdict != "leave":
            with refused_as(label):
                discord_events.check(ops, caller, _request(target, entry))
        found.append(EventStep(verdict, label, entry, old))
    return found


async def apply(ops: Operations, caller: Caller, target: ServerServices, step: EventStep) -> None:
    if step.old is not None:
        await discord_events.cancel(ops, caller, discord_events.EventRef(event=str(step.old.id)))
    await discord_events.create(ops, caller, _request(target, step.entry))
