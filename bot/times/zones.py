"""The time zones a picker offers: UTC and the canonical zones of tzdata's zone.tab (one per
place, each country's own among them), not every name tzdata knows ("Factory", "localtime",
old aliases such as "US/Eastern" or "Etc/GMT+5", whose sign is the reverse of what it says).
Any IANA name is still accepted where a zone is typed or set."""

from __future__ import annotations

__all__ = ["canonical_zones", "zone_groups"]

import functools
from importlib import resources


@functools.cache
def canonical_zones() -> tuple[str, ...]:
    """ "UTC", then every zone of zone.tab, sorted."""
    table = resources.files("tzdata").joinpath("zoneinfo", "zone.tab").read_text("utf-8")
    names = {row.split("\t")[2] for row in table.splitlines() if row and not row.startswith("#")}
    return ("UTC", *sorted(names))


@functools.cache
def zone_groups() -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """canonical_zones() by region, each as (IANA name, place as read): ("America",
    (("America/New_York", "New York"), ...))."""
    regions: dict[str, list[tuple[str, str]]] = {}
    for name in canonical_zones():
        region, _, place = name.partition("/")
        shown = place.replace("_", " ").replace("/", " / ") or name
        regions.setdefault(region, []).append((name, shown))
    return tuple((region, tuple(zones)) for region, zones in regions.items())
