"""What a repeating wall-clock row does when the clocks change: its DST policy and its runs
under it.

Two moments a year a zone's wall clock is not one-to-one with real time. When the clock goes
back, an hour happens twice (its first and second pass); `dst_repeated` says whether the row's
times in that hour run in the first pass, the second, or both. When it goes forward, an hour
never happens; `dst_skipped` says whether the row's times in it run once when the clock jumps
(`shift`: 02:30 runs at 03:00) or not at all (`skip`).

Unset (None), a row does what cronsim (Debian cron) does, which is the default: a cron at a
fixed time (neither its minute nor its hour field starts with `*`) runs once, in the first pass,
and a time in the skipped hour runs when the clock jumps; any other cron runs at every real
moment its fields match (both passes; nothing in the skipped hour). An interval counts real
time, so the clock's jump puts none of its runs in a skipped hour; in the repeated hour its runs
fall in both passes unless `dst_repeated` keeps one.
"""

from __future__ import annotations

__all__ = [
    "REPEATED",
    "SKIPPED",
    "Affected",
    "DstRepeated",
    "DstSkipped",
    "Moment",
    "Transition",
    "checked_policy",
    "cron_next",
    "cron_previous",
    "default_policy",
    "every_count",
    "every_next",
    "every_previous",
    "fixed_time",
    "moments",
    "transitions",
    "wall_instants",
]

import functools
import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal, cast, get_args
from zoneinfo import ZoneInfo

from cronsim import CronSim, CronSimError

from bot.errors import ValidationError
from bot.i18n import lazy

DstRepeated = Literal["first", "second", "both"]
DstSkipped = Literal["shift", "skip"]
REPEATED: tuple[str, ...] = get_args(DstRepeated)
SKIPPED: tuple[str, ...] = get_args(DstSkipped)

# wider than any zone's clock change (2 h at most), so a window this wide around an instant
# holds every wall time whose real moment may fall on either side of it
_SPAN = timedelta(hours=3)
_STEP = timedelta(hours=6)  # no zone changes its clock twice within this
_TINY = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class Transition:
    """One clock change: at `at` (UTC) the offset goes from `before` to `after`."""

    at: datetime
    before: timedelta
    after: timedelta

    @property
    def forward(self) -> bool:
        return self.after > self.before

    @property
    def delta(self) -> timedelta:
        return abs(self.after - self.before)

    @property
    def wall_from(self) -> datetime:
        """The wall time the clock shows just before the change (naive)."""
        return (self.at + self.before).replace(tzinfo=None)

    @property
    def wall_to(self) -> datetime:
        """The wall time it shows at the change (naive)."""
        return (self.at + self.after).replace(tzinfo=None)


@dataclass(frozen=True, slots=True)
class Affected:
    """One of a row's times in a repeated or skipped hour: a cron's wall time (naive) and the
    instants (UTC) it runs at under the policy (none: it does not run); for an interval, the
    grid's instant `at` (UTC), in `runs` when the policy keeps it."""

    wall: datetime
    runs: tuple[datetime, ...]
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Moment:
    """A clock change and what it does to one row: its times in the repeated or skipped hour."""

    transition: Transition
    local_date: date
    affected: tuple[Affected, ...]
    more: int = 0  # affected times left out of `affected`


def _offset(tz: ZoneInfo, instant: datetime) -> timedelta:
    found = instant.astimezone(tz).utcoffset()
    assert found is not None
    return found


def _change(tz: ZoneInfo, lo: datetime, hi: datetime) -> datetime:
    """The first instant in (lo, hi] whose offset is hi's, lo's offset being another; zones
    change their clocks on whole seconds, so the search is over whole seconds."""
    target = _offset(tz, hi)
    low, high = math.floor(lo.timestamp()), math.ceil(hi.timestamp())
    while high - low > 1:
        mid = (low + high) // 2
        if _offset(tz, datetime.fromtimestamp(mid, UTC)) == target:
            high = mid
        else:
            low = mid
    return datetime.fromtimestamp(high, UTC)


def transitions(tz: ZoneInfo, start: datetime, end: datetime) -> list[Transition]:
    """The clock changes of `tz` in (start, end], in order."""
    years = range(start.year, end.year + 1)
    return [t for y in years for t in _year(tz.key, y) if start < t.at <= end]


@functools.lru_cache(maxsize=256)
def _year(zone: str, year: int) -> tuple[Transition, ...]:
    """A zone's clock changes in (1 January, next 1 January], UTC: a year's are found once,
    not again for every row and page that lists them."""
    tz = ZoneInfo(zone)
    lo = datetime(year, 1, 1, tzinfo=UTC)
    end = datetime(year + 1, 1, 1, tzinfo=UTC)
    found: list[Transition] = []
    before = _offset(tz, lo)
    while lo < end:
        hi = min(lo + _STEP, end)
        after = _offset(tz, hi)
        if after != before:
            found.append(Transition(_change(tz, lo, hi), before, after))
        lo, before = hi, after
    return tuple(found)


def _around(tz: ZoneInfo, instant: datetime) -> tuple[timedelta, timedelta, timedelta]:
    """The offsets in force _SPAN either side of `instant` (lowest, at it, highest): a zone
    changes its clock at most once in that window, so these are all it uses there."""
    found = [_offset(tz, instant + k * _SPAN) for k in (-1, 0, 1)]
    return min(found), found[1], max(found)


def _naive(instant: datetime, tz: ZoneInfo) -> datetime:
    return instant.astimezone(tz).replace(tzinfo=None)


def fixed_time(cron: str) -> bool:
    """Neither the minute nor the hour field starts with `*`: cronsim's test for a job at a fixed
    time, which it runs once in the repeated hour and shifts out of the skipped one."""
    fields = cron.split()
    return not fields[0].startswith("*") and not fields[1].startswith("*")


def default_policy(cron: str | None) -> tuple[DstRepeated, DstSkipped]:
    """What a row does with no policy set (cronsim's behaviour); an interval: `cron` None."""
    if cron is not None and fixed_time(cron):
        return "first", "shift"
    return "both", "skip"


def wall_instants(
    wall: datetime, tz: ZoneInfo, repeated: DstRepeated, skipped: DstSkipped
) -> list[datetime]:
    """The instants (UTC, in order) a naive wall time runs at under the policy."""
    first = wall.replace(tzinfo=tz, fold=0).astimezone(UTC)
    second = wall.replace(tzinfo=tz, fold=1).astimezone(UTC)
    real = [u for u in sorted({first, second}) if _naive(u, tz) == wall]
    if not real:  # in the skipped hour: the clock jumps past it at the change
        if skipped == "skip":
            return []
        lo, hi = min(first, second), max(first, second)
        return [_change(tz, lo, hi)]
    if len(real) == 1 or repeated == "both":
        return real
    return [real[0]] if repeated == "first" else [real[1]]


def cron_next(
    cron: str, tz: ZoneInfo, after: datetime, repeated: DstRepeated, skipped: DstSkipped
) -> datetime | None:
    """The first run strictly after `after` of a cron read in `tz` under the policy.

    Wall times are walked in order; a wall time w runs no earlier than w minus the highest
    offset in force and no later than w minus the lowest, so the walk starts where a wall time
    may first run after `after` and stops once none can run before the best found."""
    low, here, _high = _around(tz, after)
    start = _naive(after, tz) - (here - low)
    best: datetime | None = None
    try:
        for wall in CronSim(cron, start):
            for instant in wall_instants(wall, tz, repeated, skipped):
                if instant > after and (best is None or instant < best):
                    best = instant
            if best is not None:
                _low, at_best, high = _around(tz, best)
                if wall >= _naive(best, tz) + (high - at_best):
                    return best
    except CronSimError:
        return None
    return best


def cron_previous(
    cron: str, tz: ZoneInfo, at_or_before: datetime, repeated: DstRepeated, skipped: DstSkipped
) -> datetime | None:
    """The last run at or before `at_or_before` of a cron read in `tz` under the policy (the
    walk of :func:`cron_next`, backwards)."""
    _low, here, high = _around(tz, at_or_before)
    start = _naive(at_or_before, tz) + (high - here) + timedelta(seconds=1)
    best: datetime | None = None
    try:
        for wall in CronSim(cron, start.replace(microsecond=0), reverse=True):
            for instant in wall_instants(wall, tz, repeated, skipped):
                if instant <= at_or_before and (best is None or instant > best):
                    best = instant
            if best is not None:
                low, at_best, _high = _around(tz, best)
                if wall <= _naive(best, tz) - (at_best - low):
                    return best
    except CronSimError:
        return None
    return best


def _pass(instant: datetime, tz: ZoneInfo) -> tuple[int, Transition] | None:
    """Which pass of a repeated hour `instant` is in (0: first, 1: second) and that hour's
    clock change; None outside a repeated hour."""
    wall = _naive(instant, tz)
    first = wall.replace(tzinfo=tz, fold=0).astimezone(UTC)
    second = wall.replace(tzinfo=tz, fold=1).astimezone(UTC)
    if first == second:
        return None
    lo, hi = min(first, second), max(first, second)
    at = _change(tz, lo, hi)
    change = Transition(at, _offset(tz, lo), _offset(tz, hi))
    return (0 if instant == lo else 1), change


def _kept(instant: datetime, tz: ZoneInfo, repeated: DstRepeated) -> tuple[bool, Transition]:
    found = _pass(instant, tz)
    if found is None or repeated == "both":
        return True, Transition(instant, timedelta(0), timedelta(0))
    which, change = found
    return which == (0 if repeated == "first" else 1), change


def _grid_after(anchor: datetime, every: int, after: datetime) -> datetime:
    if after < anchor:
        return anchor
    steps = int((after - anchor).total_seconds() // every) + 1
    return anchor + timedelta(seconds=steps * every)


def _grid_at_or_before(anchor: datetime, every: int, instant: datetime) -> datetime | None:
    if instant < anchor:
        return None
    steps = int((instant - anchor).total_seconds() // every)
    return anchor + timedelta(seconds=steps * every)


def every_next(
    anchor: datetime, every: int, tz: ZoneInfo, after: datetime, repeated: DstRepeated
) -> datetime:
    """The first run strictly after `after` of an interval: the grid anchor + k*every, less the
    runs in the pass of a repeated hour the policy leaves out."""
    candidate = _grid_after(anchor, every, after)
    for _hop in range(8):  # each hop clears one pass of one repeated hour
        kept, change = _kept(candidate, tz, repeated)
        if kept:
            return candidate
        # left out of the first pass: on from the change; of the second: from its end
        resume = change.at if repeated == "second" else change.at + change.delta
        candidate = _grid_after(anchor, every, resume - _TINY)
    return candidate


def every_previous(
    anchor: datetime, every: int, tz: ZoneInfo, at_or_before: datetime, repeated: DstRepeated
) -> datetime | None:
    """The last run at or before `at_or_before` of an interval under the policy."""
    candidate = _grid_at_or_before(anchor, every, at_or_before)
    for _hop in range(8):
        if candidate is None:
            return None
        kept, change = _kept(candidate, tz, repeated)
        if kept:
            return candidate
        # left out of the second pass: back before the change; of the first: before its start
        before = change.at if repeated == "first" else change.at - change.delta
        candidate = _grid_at_or_before(anchor, every, before - _TINY)
    return candidate


def _grid_count(anchor: datetime, every: int, lo: datetime, hi: datetime) -> int:
    """Grid points in [lo, hi)."""
    if hi <= lo:
        return 0
    first = _grid_after(anchor, every, lo - _TINY)
    last = _grid_at_or_before(anchor, every, hi - _TINY)
    if last is None or last < first:
        return 0
    return int((last - first).total_seconds() // every) + 1


def every_count(
    anchor: datetime,
    every: int,
    tz: ZoneInfo,
    start: datetime,
    end: datetime,
    repeated: DstRepeated,
) -> int:
    """How many runs of an interval fall in [start, end] under the policy."""
    total = _grid_count(anchor, every, start, end + _TINY)
    if repeated == "both":
        return total
    for change in transitions(tz, start - _SPAN, end + _SPAN):
        if change.forward:
            continue
        if repeated == "first":  # the second pass is left out
            lo, hi = change.at, change.at + change.delta
        else:
            lo, hi = change.at - change.delta, change.at
        total -= _grid_count(anchor, every, max(lo, start), min(hi, end + _TINY))
    return total


_SHOWN = 3  # affected wall times a moment lists; the rest are counted


def moments(
    tz: ZoneInfo,
    start: datetime,
    end: datetime,
    repeated: DstRepeated,
    skipped: DstSkipped,
    *,
    cron: str | None = None,
    anchor: datetime | None = None,
    every: int | None = None,
) -> list[Moment]:
    """The clock changes in (start, end] and, for each, the row's runs it touches: a cron's
    wall times in the repeated or skipped hour with the instants each runs at; an interval's
    runs in the repeated hour (its runs never fall in a skipped one)."""
    found = []
    for change in transitions(tz, start, end):
        lo, hi = sorted((change.wall_from, change.wall_to))
        affected: list[Affected] = []
        count = 0
        if cron is not None:
            try:
                for wall in CronSim(cron, lo - timedelta(seconds=1)):
                    if wall >= hi:
                        break
                    count += 1
                    if len(affected) < _SHOWN:
                        runs = tuple(wall_instants(wall, tz, repeated, skipped))
                        affected.append(Affected(wall, runs))
            except CronSimError:
                pass
        elif anchor is not None and every is not None and not change.forward:
            run = _grid_after(anchor, every, change.at - change.delta - _TINY)
            while run < change.at + change.delta:
                count += 1
                if len(affected) < _SHOWN:
                    kept, _change_of = _kept(run, tz, repeated)
                    affected.append(Affected(_naive(run, tz), (run,) if kept else (), run))
                run += timedelta(seconds=every)
        local = change.wall_from.date()
        found.append(Moment(change, local, tuple(affected), count - len(affected)))
    return found


def checked_policy(
    kind: str, cron: str | None, repeated: str | None, skipped: str | None
) -> tuple[DstRepeated | None, DstSkipped | None]:
    """The policy a new row keeps: None where it is the default (so a row that says what the
    default does reads and exports as one that says nothing); ValidationError, naming the
    option, for a value that is not one of the choices or one the row cannot use."""
    if repeated is not None and repeated not in REPEATED:
        raise ValidationError(
            lazy(
                "`dst_repeated` is one of first, second or both, not {value}.",
                value=repr(repeated),
            ),
            field="dst_repeated",
        )
    if skipped is not None and skipped not in SKIPPED:
        raise ValidationError(
            lazy("`dst_skipped` is one of shift or skip, not {value}.", value=repr(skipped)),
            field="dst_skipped",
        )
    given = "dst_repeated" if repeated is not None else "dst_skipped"
    if kind == "at" and (repeated is not None or skipped is not None):
        raise ValidationError(
            lazy(
                "`{option}` is for a repeating time: give `repeat` too. A single `when` runs "
                "once whatever the clocks do.",
                option=given,
            ),
            field=given,
        )
    if kind == "every" and skipped is not None:
        raise ValidationError(
            lazy(
                "`dst_skipped` is for a cron `repeat`: an interval counts real time, so none "
                "of its runs falls in the hour the clocks skip."
            ),
            field="dst_skipped",
        )
    default_repeated, default_skipped = default_policy(cron if kind == "cron" else None)
    return (
        cast("DstRepeated | None", None if repeated == default_repeated else repeated),
        cast("DstSkipped | None", None if skipped == default_skipped else skipped),
    )
