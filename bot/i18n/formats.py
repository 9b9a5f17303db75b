"""Numbers, dates, durations and relative times in the current locale, by Babel (CLDR data).

"in 5 minutes" / "5分钟后", "1,234,567", "2026年1月2日 03:04:05": written by hand these would be
wrong in some language; CLDR has them right for every locale a catalog may be added for.
"""

from __future__ import annotations

__all__ = [
    "clock",
    "decimal",
    "duration",
    "moment",
    "number",
    "relative",
    "stamp",
    "stamp_with_distance",
    "stamps_in_zone",
    "ticks_duration",
    "zone_name",
]

import re
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Literal
from zoneinfo import ZoneInfo

from babel.dates import (
    format_skeleton,
    format_time,
    format_timedelta,
    get_datetime_format,
)
from babel.numbers import format_decimal

from bot.i18n import _, current_locale

# Discord's timestamp styles (https://discord.com/developers/docs/reference#message-formatting)
TimestampStyle = Literal["f", "F", "d", "D", "t", "T", "R"]

TICKS_PER_SECOND = 20  # at full speed; a lagging server is slower, so this is the shortest time


def _locale(locale: str | None) -> str:
    return locale or current_locale()


def number(value: int, *, locale: str | None = None) -> str:
    """An integer with the locale's grouping: 1234567 -> "1,234,567"."""
    return format_decimal(value, locale=_locale(locale))


def decimal(value: float, digits: int = 1, *, locale: str | None = None) -> str:
    """A number with exactly ``digits`` decimals: 19.96 -> "20.0"."""
    pattern = "#,##0." + "0" * digits if digits else "#,##0"
    return format_decimal(value, format=pattern, locale=_locale(locale))


def duration(value: timedelta | float, *, locale: str | None = None) -> str:
    """A length of time, rounded to its largest unit: 3725 s -> "1 hour" / "1小时"."""
    delta = value if isinstance(value, timedelta) else timedelta(seconds=value)
    return format_timedelta(delta, locale=_locale(locale))


def ticks_duration(ticks: int, *, locale: str | None = None) -> str:
    """How long ``ticks`` game ticks last at 20 ticks per second."""
    return duration(ticks / TICKS_PER_SECOND, locale=locale)


def relative(when: datetime, *, now: datetime | None = None, locale: str | None = None) -> str:
    """``when`` seen from ``now``: "in 5 minutes" / "5分钟后", "5 minutes ago" / "5分钟前"."""
    base = now or datetime.now(UTC if when.tzinfo is not None else None)
    return format_timedelta(when - base, add_direction=True, locale=_locale(locale))


def stamp(when: datetime, style: TimestampStyle = "F") -> str:
    """The one way a time is written in a Discord message: Discord's timestamp markup, which
    each reader's client shows in their own zone and language (``F``: "Friday, December 4,
    2026 20:00"; ``f`` without the weekday; ``R``: "in 3 days"). The console and the tests'
    plain renderer read it back as :func:`moment`; the dashboard as its reader's zone."""
    # discord.utils.format_dt, written here so the core does not load discord.py for a string
    return f"<t:{int(when.timestamp())}:{style}>"


def stamp_with_distance(when: datetime) -> str:
    """A time to wait for or just past, with how far away it is: ``<t:N:F> (<t:N:R>)``."""
    return f"{stamp(when)} ({stamp(when, 'R')})"


def zone_name(when: datetime) -> str:
    """The zone an aware ``when`` is shown in: its abbreviation ("CET", "EST"), or the IANA name
    where the zone has only a numeric one ("+03" says less than "Europe/Istanbul")."""
    short = when.tzname() or ""
    if short[:1] in ("+", "-", "") and isinstance(when.tzinfo, ZoneInfo):
        return when.tzinfo.key
    return short or "UTC"


def clock(when: datetime, *, zone: tzinfo | None = None, locale: str | None = None) -> str:
    """The one way a time is written outside Discord, on every face (the console, the
    dashboard's pages and tables, the audit log): the day with its weekday and the time to the
    minute in ``zone`` (None: ``when``'s own, or the system's for a naive one), the zone named,
    each part as the locale writes it: "Sun, Dec 6, 2026, 4:24 AM UTC", "2026年12月6日周日
    04:24 UTC"."""
    aware = when if when.tzinfo is not None else when.astimezone()
    shown = aware.astimezone(zone) if zone is not None else aware
    loc = _locale(locale)
    day = format_skeleton("yMMMEd", shown, tzinfo=shown.tzinfo, locale=loc)
    time = format_time(shown, "short", tzinfo=shown.tzinfo, locale=loc)
    glued = str(get_datetime_format("medium", locale=loc)).replace("{1}", day).replace("{0}", time)
    return f"{glued} {zone_name(shown)}"


def moment(
    when: datetime,
    *,
    zone: tzinfo | None = None,
    now: datetime | None = None,
    locale: str | None = None,
) -> str:
    """A time to wait for or just past, outside Discord: :func:`clock` in ``zone`` (None: the
    system's), then how far away it is: "Fri, Dec 4, 2026, 8:00 PM CET (in 3 days)", in the
    locale's words and brackets."""
    aware = when if when.tzinfo is not None else when.astimezone()
    loc = _locale(locale)
    return _(
        "{time} ({relative})",
        time=clock(aware.astimezone(zone), locale=loc),
        relative=relative(aware, now=now, locale=loc),
    )


# One stamp, or two of the same instant side by side as the bot writes them ("<t:N:F>
# (<t:N:R>)"): either reads as one moment, whose relative part is said once.
_STAMPS = re.compile(r"<t:(-?\d{1,12})(?::[tTdDfFR])?>(?:\s*\(<t:\1(?::[tTdDfFR])?>\))?")


def stamps_in_zone(text: str, *, zone: tzinfo | None = None, now: datetime | None = None) -> str:
    """``text`` with the shared markup's instants (Discord's ``<t:N:F>``) in the one time
    format of a face that shows one zone, :func:`moment`: in ``zone`` (None: the system's),
    the zone named."""

    def one(match: re.Match[str]) -> str:
        return moment(datetime.fromtimestamp(int(match[1]), UTC), zone=zone, now=now)

    return _STAMPS.sub(one, text)
