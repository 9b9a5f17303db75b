"""The iCalendar (RFC 5545) document of a plan: its wall-clock rows and its Discord events.

Built with the `icalendar` library: every time is written in the zone it was planned in (a
TZID and its VTIMEZONE from zoneinfo), or in UTC for an interval's grid. A paused row is there,
TENTATIVE and marked in its title; a cancelled row or event is STATUS:CANCELLED, so a client that
had it takes it off; a row that only runs an event's start or end task is part of that event.
"""

from __future__ import annotations

__all__ = ["Plan", "build"]

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from icalendar import Calendar, Event, vDuration, vRecur

from bot.calendar.event_draft import next_start
from bot.calendar.recurrence import HORIZON, MAX_OCCURRENCES, occurrences, repeat_of
from bot.i18n import _
from bot.store.guild_events import EventRow
from bot.store.schedules import Schedule
from bot.times.when import repeat_text

PRODID = "-//doom.schedule//calendar feed//EN"
DOMAIN = "doom.schedule"
REFRESH = timedelta(minutes=15)  # what the feed asks clients to re-read it after


@dataclass(frozen=True, slots=True)
class Plan:
    """What a feed shows: the rows (active, paused, recently cancelled) and the events."""

    name: str  # the calendar's name: a server's, or every server's
    rows: Sequence[Schedule]
    events: Sequence[EventRow]


def _status(state: str) -> str:
    return {"paused": "TENTATIVE", "cancelled": "CANCELLED"}.get(state, "CONFIRMED")


def _title(row: Schedule) -> str:
    title = f"[{row.server}] {row.task_id}"
    return _("Paused: {title}", title=title) if row.state == "paused" else title


def _row_event(row: Schedule, now: datetime, start: datetime, uid: str) -> Event:
    event = Event()
    event.add("uid", uid)
    event.add("dtstamp", now.astimezone(UTC))
    event.add("dtstart", start)
    event.add("summary", _title(row))
    description = _(
        "Runs `{command}` on {server} ({repeat}); planned by {name}.",
        command=row.command,
        server=row.server,
        repeat=repeat_text(row.spec),
        name=row.created_by.name,
    )
    event.add("description", description.replace("`", ""))
    event.add("status", _status(row.state))
    return event


def _named(when: datetime, tz: ZoneInfo) -> datetime:
    """A run as the feed writes it: in its zone, or in UTC when the zone's clock shows that
    time twice (a local time with a TZID names the first; a run in the second would move)."""
    local = when.astimezone(tz)
    other = local.replace(fold=1 - local.fold).astimezone(UTC)
    return when.astimezone(UTC) if other != when else local


def _row_events(row: Schedule, now: datetime) -> list[Event]:
    uid = f"{row.id}.planned.{row.server}@{DOMAIN}"
    tz = ZoneInfo(row.timezone)
    if row.kind == "at":
        assert row.at is not None
        return [_row_event(row, now, row.at.astimezone(tz), uid)]
    repeat = repeat_of(row, now)
    if repeat is not None:
        event = _row_event(row, now, repeat.start, uid)
        event.add("rrule", vRecur.from_ical(repeat.rule))
        if repeat.exdates:  # in UTC: a time in a DST gap has no local name to exclude it by
            event.add("exdate", list(repeat.exdates))
        extra = [
            _row_event(row, now, _named(when, tz), f"{int(when.timestamp())}-{uid}")
            for when in repeat.extra
        ]
        return [event, *extra]
    # written out: one event per run, each its own uid (a client keeps them apart)
    return [
        _row_event(row, now, _named(when, tz), f"{int(when.timestamp())}-{uid}")
        for when in occurrences(row, now)
    ]


def _discord_event(row: EventRow, now: datetime, start: datetime | None = None) -> Event:
    """The event as Discord has it, or (`start`) a later occurrence Discord does not have yet."""
    tz = ZoneInfo(row.timezone)
    begin = start or row.start
    later = start is not None
    event = Event()
    uid = f"{row.id}.event.{row.server}@{DOMAIN}"
    event.add("uid", f"{int(begin.timestamp())}-{uid}" if later else uid)
    event.add("dtstamp", now.astimezone(UTC))
    event.add("dtstart", begin.astimezone(tz))
    event.add("dtend", (begin + (row.end - row.start)).astimezone(tz))
    event.add("summary", row.name)
    if row.description:
        event.add("description", row.description)
    event.add("location", row.location)
    status = "TENTATIVE" if later else "CANCELLED" if row.state == "cancelled" else "CONFIRMED"
    event.add("status", status)
    if row.discord_id is not None and not later:
        event.add("url", f"https://discord.com/events/{row.guild_id}/{row.discord_id}")
    return event


def _next_occurrences(row: EventRow, now: datetime) -> list[Event]:
    """A repeating event's occurrences after this one, to :data:`HORIZON`: Discord has each
    only once the one before it ended, so they are TENTATIVE here until then."""
    if row.repeat is None or row.state not in ("scheduled", "active"):
        return []
    found: list[Event] = []
    anchor = row.anchor or row.start
    start = next_start(row.repeat, anchor, row.timezone, row.start)
    while start is not None and start <= now + HORIZON and len(found) < MAX_OCCURRENCES:
        found.append(_discord_event(row, now, start))
        start = next_start(row.repeat, anchor, row.timezone, start)
    return found


def build(plan: Plan, now: datetime) -> bytes:
    """The feed as bytes (CRLF lines, folded), every zone it uses as a VTIMEZONE."""
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("name", plan.name)
    cal.add("x-wr-calname", plan.name)
    cal.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", vDuration(REFRESH))
    bound = {t for e in plan.events for t in e.tasks}  # an event's own tasks: the event says it
    for row in plan.rows:
        if row.id not in bound:
            for event in _row_events(row, now):
                cal.add_component(event)
    for found in plan.events:
        cal.add_component(_discord_event(found, now))
        for later in _next_occurrences(found, now):
            cal.add_component(later)
    # the zones' rules from a year back to ten years ahead (the longest a task may wait)
    cal.add_missing_timezones(
        (now - timedelta(days=366)).date(), (now + timedelta(days=3660)).date()
    )
    return cal.to_ical()
