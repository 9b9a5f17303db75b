"""A wall-clock row's time as the scheduler computes with it: the :class:`Spec` (its kind,
first run, zone, interval or cron, and DST policy) and its runs, each under the row's DST policy
(bot.times.dst). bot.times.when reads the moderators' words into a Spec."""

from __future__ import annotations

__all__ = [
    "Kind",
    "Missed",
    "Spec",
    "boundaries",
    "latest_boundary",
    "next_boundary",
    "next_runs",
]

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from bot.times import dst

Kind = Literal["at", "every", "cron"]
Missed = Literal["skip", "once"]


@dataclass(frozen=True, slots=True)
class Spec:
    """When a schedule runs: its kind, the first due instant (UTC) and how it repeats."""

    kind: Kind
    first_due: datetime  # UTC
    timezone: str
    at: datetime | None = None  # kind "at": the instant (UTC)
    every: int | None = None  # kind "every": seconds between runs
    anchor: datetime | None = None  # kind "every": the boundaries are anchor + k*every
    cron: str | None = None  # kind "cron": 5 fields, read in `timezone`
    announce: tuple[int, ...] = ()  # seconds before each run, longest first
    missed: Missed = "once"
    # what a repeating row does when the clocks change (bot.times.dst); None: the default
    dst_repeated: dst.DstRepeated | None = None
    dst_skipped: dst.DstSkipped | None = None

    @property
    def dst_policy(self) -> tuple[dst.DstRepeated, dst.DstSkipped]:
        """The policy in force: the row's, or the default for its kind where it has none."""
        repeated, skipped = dst.default_policy(self.cron if self.kind == "cron" else None)
        return self.dst_repeated or repeated, self.dst_skipped or skipped

    @property
    def dst_chosen(self) -> bool:
        return self.dst_repeated is not None or self.dst_skipped is not None


def next_boundary(spec: Spec, after: datetime) -> datetime | None:
    """The first run strictly after `after`: anchored on the grid for `every` (never on when it
    ran, so no drift), the cron's wall times in the schedule's zone for `cron`, each under the
    row's DST policy (bot.times.dst); None for a one-shot."""
    if spec.kind == "every":
        assert spec.every is not None and spec.anchor is not None
        if spec.dst_chosen:
            zone = ZoneInfo(spec.timezone)
            return dst.every_next(spec.anchor, spec.every, zone, after, spec.dst_policy[0])
        if after < spec.anchor:
            return spec.anchor
        steps = int((after - spec.anchor).total_seconds() // spec.every) + 1
        return spec.anchor + timedelta(seconds=steps * spec.every)
    if spec.kind == "cron":
        assert spec.cron is not None
        return dst.cron_next(spec.cron, ZoneInfo(spec.timezone), after, *spec.dst_policy)
    return None


def next_runs(spec: Spec, count: int, first: datetime | None = None) -> list[datetime]:
    """The first `count` runs of `spec` from `first` (default: its first due), one for a
    one-shot: the next runs a preview and the planned list show."""
    start = spec.first_due if first is None else first
    found = [start]
    while len(found) < count and spec.kind != "at":
        following = next_boundary(spec, found[-1])
        if following is None:
            break
        found.append(following)
    return found[:count]


def latest_boundary(spec: Spec, at_or_before: datetime) -> datetime | None:
    """The last run at or before `at_or_before` (None for a one-shot or none yet)."""
    if spec.kind == "every":
        assert spec.every is not None and spec.anchor is not None
        if spec.dst_chosen:
            zone = ZoneInfo(spec.timezone)
            return dst.every_previous(
                spec.anchor, spec.every, zone, at_or_before, spec.dst_policy[0]
            )
        if at_or_before < spec.anchor:
            return None
        steps = int((at_or_before - spec.anchor).total_seconds() // spec.every)
        return spec.anchor + timedelta(seconds=steps * spec.every)
    if spec.kind == "cron":
        assert spec.cron is not None
        zone = ZoneInfo(spec.timezone)
        return dst.cron_previous(spec.cron, zone, at_or_before, *spec.dst_policy)
    return None


def boundaries(spec: Spec, start: datetime, end: datetime, limit: int = 1_000_000) -> int:
    """How many runs fall in [start, end] (counted for the 'skipped N' alert), bounded."""
    if spec.kind == "every":
        assert spec.every is not None and spec.anchor is not None
        if end < start:
            return 0
        if spec.dst_chosen:
            zone = ZoneInfo(spec.timezone)
            return dst.every_count(spec.anchor, spec.every, zone, start, end, spec.dst_policy[0])
        first = start if start >= spec.anchor else spec.anchor
        offset = (first - spec.anchor).total_seconds()
        k0 = -(-int(offset) // spec.every) if offset > 0 else 0
        k1 = int((end - spec.anchor).total_seconds() // spec.every)
        return max(0, k1 - k0 + 1)
    count = 0
    current: datetime | None = start - timedelta(microseconds=1)
    while count < limit:
        current = next_boundary(spec, current) if current is not None else None
        if current is None or current > end:
            break
        count += 1
    return count
