"""Numbers, dates, durations and relative times in the current locale, by Babel (CLDR data).

"in 5 minutes" / "5分钟后", "1,234,567", "2026年1月2日 03:04:05": written by hand these would be
wrong in some language; CLDR has them right for every locale a catalog may be added for.
"""

from __future__ import annotations

__all__ = [
    "datetime_text",
    "decimal",
    "duration",
    "moment",
    "number",
    "relative",
    "stamp",
    "stamp_with_distance",
    "ticks_duration",
    "zone_name",
]

from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

from babel.dates import format_datetime, format_skeleton, format_timedelta
from babel.numbers import format_decimal
from discord.utils import TimestampStyle, format_dt

from bot.i18n import _, current_locale

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


def datetime_text(when: datetime, *, locale: str | None = None, format: str = "medium") -> str:
    """A date and time in the locale's medium (or short) format, in ``when``'s own zone:
    "Jan 2, 2026, 3:04:05 AM"."""
    return format_datetime(when, format, tzinfo=when.tzinfo, locale=_locale(locale))


def stamp(when: datetime, style: TimestampStyle = "F") -> str:
    """The one way a time is written in a Discord message: Discord's timestamp markup, which
    each reader's client shows in their own zone and language (``F``: "Friday, December 4,
    2026 20:00"; ``f`` without the weekday; ``R``: "in 3 days"). The console and the tests'
    plain renderer read it back as :func:`moment`; the dashboard as its reader's zone."""
    return format_dt(when, style)


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


def moment(
    when: datetime,
    *,
    zone: tzinfo | None = None,
    now: datetime | None = None,
    locale: str | None = None,
) -> str:
    """The one way a time reads outside Discord: the date and time in ``zone`` (None: the
    system's) with the zone named, then how far away it is: "Fri, Dec 4, 2026 20:00 CET (in 3
    days)", in the locale's words and brackets."""
    aware = when if when.tzinfo is not None else when.astimezone()
    shown = aware.astimezone(zone)
    loc = _locale(locale)
    day = format_skeleton("yMMMEd", shown, tzinfo=shown.tzinfo, locale=loc)
    clock = format_skeleton("Hm", shown, tzinfo=shown.tzinfo, locale=loc)
    return _(
        "{time} ({relative})",
        time=f"{day} {clock} {zone_name(shown)}",
        relative=relative(aware, now=now, locale=loc),
    )
