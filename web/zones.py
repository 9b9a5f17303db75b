"""The reader's time zone: every time on a page is shown in it, with the zone named.

The zone is the reader's own choice (the Time zone page, kept in a cookie) when it names a zone
this machine knows, else ``DOOM_WEB_TIMEZONE``, else ``DOOM_TIMEZONE``.
"""

from __future__ import annotations

__all__ = [
    "COOKIE",
    "known_zones",
    "reader_zone",
    "time_text",
    "zone_groups",
    "zone_label",
    "zone_named",
]

import functools
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from quart import has_request_context, request

from bot.i18n import formats
from bot.times.zones import zone_groups
from web.context import state

COOKIE = "doom_tz"
COOKIE_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie


@functools.cache
def known_zones() -> tuple[str, ...]:
    """Every IANA zone name tzdata has, sorted (the Time zone page's choices)."""
    return tuple(sorted(available_timezones()))


def zone_named(name: object) -> ZoneInfo | None:
    """The zone of this IANA name, or None for anything else (a cookie is the reader's text)."""
    text = str(name or "")
    if text not in known_zones():
        return None
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def default_zone() -> ZoneInfo:
    settings = state().settings
    return zone_named(settings.web_timezone) or zone_named(settings.timezone) or ZoneInfo("UTC")


def reader_zone() -> ZoneInfo:
    """The zone of this request's reader (see the module docstring)."""
    chosen = zone_named(request.cookies.get(COOKIE)) if has_request_context() else None
    return chosen or default_zone()


def zone_label(zone: ZoneInfo | None = None) -> str:
    """The zone as the header names it: "Europe/Berlin"."""
    return (zone or reader_zone()).key


def time_text(when: datetime, *, zone: ZoneInfo | None = None) -> str:
    """``when`` in the reader's zone (or `zone`: a stream's, read while the request was there),
    written as every face writes a time (bot.i18n.formats.clock): "Fri, Dec 11, 2026, 3:40 PM
    CET"."""
    aware = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    return formats.clock(aware, zone=zone or reader_zone())
