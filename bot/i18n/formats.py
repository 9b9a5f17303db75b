"""Numbers, dates, durations and relative times in the current locale, by Babel (CLDR data).

"in 5 minutes" / "5分钟后", "1,234,567", "2026年1月2日 03:04:05": written by hand these would be
wrong in some language; CLDR has them right for every locale a catalog may be added for.
"""

from __future__ import annotations

__all__ = ["datetime_text", "decimal", "duration", "number", "relative", "ticks_duration"]

from datetime import UTC, datetime, timedelta

from babel.dates import format_datetime, format_timedelta
from babel.numbers import format_decimal

from bot.i18n import current_locale

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
