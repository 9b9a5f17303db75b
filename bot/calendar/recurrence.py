"""A planned row's repeats as an RRULE, when one says exactly what the scheduler does.

An interval (`every 2h`) is a grid of fixed seconds, so its RRULE starts in UTC (a DAILY rule
read in a zone would keep the wall time across a DST change; the scheduler does not). A cron
expression maps to a DAILY, WEEKLY or MONTHLY rule read in the row's zone, unless it restricts
both the day of the month and the weekday (cron runs on either, an RRULE on both) or uses
cronsim's extensions (`L`, `5#2`); those are given as their runs (:func:`occurrences`). The
rule is checked against cronsim over the next :data:`CHECKED` and a day either side of every
DST change of the zone in the next year: RFC 5545 moves a time in the spring-forward gap by the
gap's length (02:30 to 03:30) where cron runs it right after the jump (03:00), and gives a time
in the repeated autumn hour once where cron may run it twice. Those differences become the
rule's EXDATEs and single events of their own, so a client shows the runs cron makes.
"""

from __future__ import annotations

__all__ = ["HORIZON", "MAX_OCCURRENCES", "Repeat", "occurrences", "repeat_of"]

import functools
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from cronsim import CronSim, CronSimError
from dateutil.rrule import rrulestr

from bot.store.schedules import Schedule
from bot.times.when import next_boundary

HORIZON = timedelta(days=60)  # how far ahead a repeat that no RRULE says is written out
CHECKED = timedelta(days=8)  # the rule is compared with cron this far ahead (a week's pattern)
MAX_OCCURRENCES = 500  # at most this many written out (a cron every minute is 86,400)
_CHECKED = 5000  # occurrences compared per window, at most
_DAYS = ("SU", "MO", "TU", "WE", "TH", "FR", "SA", "SU")  # cron's weekday numbers, 0 and 7 Sunday


@dataclass(frozen=True, slots=True)
class Repeat:
    """An RRULE (its text) and its DTSTART (aware: in the row's zone for a cron, UTC for an
    interval); around a DST change, the rule's times cron does not run (`exdates`, UTC) and the
    runs the rule does not give (`extra`, UTC)."""

    rule: str
    start: datetime
    exdates: tuple[datetime, ...] = ()
    extra: tuple[datetime, ...] = ()


def _interval_rule(seconds: int) -> str:
    for freq, size in (("WEEKLY", 604800), ("DAILY", 86400), ("HOURLY", 3600), ("MINUTELY", 60)):
        if seconds % size == 0:
            count = seconds // size
            return f"FREQ={freq}" + (f";INTERVAL={count}" if count > 1 else "")
    return f"FREQ=SECONDLY;INTERVAL={seconds}"


def _join(values: set[int]) -> str:
    return ",".join(str(v) for v in sorted(values))


def _cron_rule(expr: str) -> str | None:
    """The RRULE of a cron expression read in its zone, None when none can say it."""
    try:
        cron = CronSim(expr, datetime(2026, 1, 1, tzinfo=UTC))
    except CronSimError:
        return None
    _seconds, _minute, _hour, day, month, weekday = cron.parts
    fields = (cron.minutes, cron.hours, cron.days, cron.months, cron.weekdays)
    if any(not all(isinstance(v, int) and v >= 0 for v in f) for f in fields):
        return None  # L, 5L, 5#2: cronsim's extensions
    by_day = day != "*"
    by_weekday = weekday != "*"
    if by_day and by_weekday:
        return None  # cron: either matches; an RRULE: both must
    parts = []
    if by_weekday:
        numbers = sorted(d for d in cron.weekdays if isinstance(d, int))  # all are, checked above
        days = dict.fromkeys(_DAYS[d] for d in numbers)
        parts += ["FREQ=WEEKLY", "BYDAY=" + ",".join(days)]
    elif by_day:
        parts += ["FREQ=MONTHLY", f"BYMONTHDAY={_join(cron.days)}"]
    else:
        parts.append("FREQ=DAILY")
    if month != "*":
        parts.append(f"BYMONTH={_join(cron.months)}")
    parts += [f"BYHOUR={_join(cron.hours)}", f"BYMINUTE={_join(cron.minutes)}", "BYSECOND=0"]
    return ";".join(parts)


def _rule_times(rule: str, start: datetime, low: datetime, high: datetime) -> list[datetime]:
    """The rule's occurrences (UTC) in [low, high], read as RFC 5545 does: wall times in the
    start's zone, a time in a gap or an overlap at the offset before it (fold 0)."""
    tz = start.tzinfo
    naive = rrulestr(rule, dtstart=start.replace(tzinfo=None))
    found: list[datetime] = []
    # a day's margin: the window is in UTC, the rule's times are local
    for local in naive.xafter(low.astimezone(tz).replace(tzinfo=None) - timedelta(days=1)):
        when = local.replace(tzinfo=tz).astimezone(UTC)
        if when > high or len(found) >= _CHECKED:
            break
        if when >= low:
            found.append(when)
    return found


def _cron_times(row: Schedule, low: datetime, high: datetime) -> list[datetime]:
    """The row's runs in [low, high] as the scheduler finds them (cronsim in its zone, from one
    iterator rather than one per run, unless the row has a DST policy of its own)."""
    assert row.cron is not None
    found: list[datetime] = []
    if row.spec.dst_chosen:  # a DST policy of its own: the runs as the scheduler finds them
        current = next_boundary(row.spec, low - timedelta(microseconds=1))
        while current is not None and current <= high and len(found) < _CHECKED:
            found.append(current)
            current = next_boundary(row.spec, current)
        return found
    start = (low - timedelta(microseconds=1)).astimezone(ZoneInfo(row.timezone))
    for when in CronSim(row.cron, start):
        utc = when.astimezone(UTC)
        if utc > high or len(found) >= _CHECKED:
            break
        found.append(utc)
    return found


def _changes(tz: ZoneInfo, start: datetime) -> list[datetime]:
    """The instants (to the hour) where the zone's offset changes in the next year."""
    return list(_changes_from(tz.key, start.replace(minute=0, second=0, microsecond=0)))


@functools.lru_cache(maxsize=64)
def _changes_from(zone: str, hour: datetime) -> tuple[datetime, ...]:
    # 8,784 hours looked at: once per zone and hour, not once per row of every feed
    tz = ZoneInfo(zone)
    found = []
    offset = hour.astimezone(tz).utcoffset()
    for step in range(1, 366 * 24):
        probe = hour + timedelta(hours=step)
        now_offset = probe.astimezone(tz).utcoffset()
        if now_offset != offset:
            found.append(probe)
            offset = now_offset
    return tuple(found)


def _first_cron(row: Schedule) -> datetime | None:
    """A stable DTSTART: the first run at or after the row was made (not its next due, which
    moves at every run and would make every client rewrite the event)."""
    return next_boundary(row.spec, row.created_at - timedelta(microseconds=1))


def repeat_of(row: Schedule, now: datetime) -> Repeat | None:
    """The row's repeats as one RRULE (with the DST corrections), or None (a one-shot, or a
    cron no RRULE says)."""
    if row.kind == "every" and row.every is not None and row.anchor is not None:
        if row.spec.dst_chosen:  # runs left out of a repeated hour: no RRULE says that
            return None
        return Repeat(_interval_rule(row.every), row.anchor.astimezone(UTC))
    if row.kind != "cron" or row.cron is None:
        return None
    rule = _cron_rule(row.cron)
    first = _first_cron(row)
    if rule is None or first is None:
        return None
    tz = ZoneInfo(row.timezone)
    start = first.astimezone(tz)
    # away from a DST change the rule and cron must agree (else no RRULE says the cron); a day
    # either side of one they may differ, and the differences are the corrections
    changes = _changes(tz, now)
    windows = [(now, now + CHECKED)]
    windows += [(t - timedelta(days=1), t + timedelta(days=1)) for t in changes]
    wrong: set[datetime] = set()
    extra: list[datetime] = []
    for low, high in windows:
        low = max(low, first)
        by_rule = Counter(_rule_times(rule, start, low, high))
        by_cron = Counter(_cron_times(row, low, high))
        # counted, not compared as sets: a gap's time the rule moves onto an existing one
        # would be that instant twice in a client
        differ = {t for t in by_rule.keys() | by_cron.keys() if by_rule[t] != by_cron[t]}
        if any(all(abs(t - c) > timedelta(days=1) for c in changes) for t in differ):
            return None
        # an EXDATE drops every instance at that instant: cron's runs there come back singly
        wrong |= {t for t in differ if by_rule[t]}
        extra += [t for t in sorted(differ - set(extra)) for _ in range(by_cron[t])]
    return Repeat(rule, start, tuple(sorted(wrong)), tuple(sorted(extra)))


def occurrences(row: Schedule, now: datetime) -> list[datetime]:
    """The row's runs (UTC) from now to :data:`HORIZON` ahead, at most
    :data:`MAX_OCCURRENCES`: how a repeat no RRULE says is written out."""
    found: list[datetime] = []
    current = row.next_due if row.next_due is not None and row.next_due >= now else None
    current = current or next_boundary(row.spec, now)
    while current is not None and current <= now + HORIZON and len(found) < MAX_OCCURRENCES:
        found.append(current)
        current = next_boundary(row.spec, current)
    return found
