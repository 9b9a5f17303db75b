"""A repeating row's DST policy (bot.times.dst) over the 2026 and 2027 clock changes of
Europe/Berlin and America/New_York: its runs are exactly the ones the policy names.

The expected instants come from the laws, not from zoneinfo or the code: the EU changes at
01:00 UTC on the last Sundays of March and October (CET +1, CEST +2), the US at 02:00 local on
the second Sunday of March and the first of November (EST -5, EDT -4). A wall time is read
against both offsets; the readings that land where that offset is in force are its instants
(none: it is in the skipped hour; two: the repeated one). One test checks these rules against
zoneinfo, so the model and the zone data are known to agree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from cronsim import CronSim
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.errors import ValidationError
from bot.times import dst
from bot.times.dst_words import dst_facts
from bot.times.when import Spec, boundaries, build_spec, latest_boundary, next_boundary

H = timedelta(hours=1)


def _sundays(year: int, month: int) -> list[date]:
    first = date(year, month, 1)
    days = [first + timedelta(days=i) for i in range(31)]
    return [d for d in days if d.month == month and d.weekday() == 6]


@dataclass(frozen=True)
class Law:
    """A zone's DST law: standard and summer offsets and the UTC instants summer time starts
    and ends in a year."""

    name: str
    std: timedelta
    summer: timedelta
    start: Callable[[int], datetime]
    end: Callable[[int], datetime]

    def offset(self, instant: datetime) -> timedelta:
        y = instant.year
        return self.summer if self.start(y) <= instant < self.end(y) else self.std

    def changes(self, year: int) -> list[datetime]:
        return [self.start(year), self.end(year)]

    def instants(self, wall: datetime, repeated: str, skipped: str) -> list[datetime]:
        """Where the law puts a naive wall time under the policy."""
        readings = sorted(
            u
            for off in {self.std, self.summer}
            if self.offset(u := (wall - off).replace(tzinfo=UTC)) == off
        )
        if not readings:  # skipped: the clock jumps at the start of summer time
            return [] if skipped == "skip" else [self.start(wall.year)]
        if len(readings) == 2 and repeated != "both":
            return [readings[0] if repeated == "first" else readings[1]]
        return readings


def _eu(month: int) -> Callable[[int], datetime]:
    return lambda y: datetime.combine(_sundays(y, month)[-1], time(1), UTC)


BERLIN = Law("Europe/Berlin", H, 2 * H, _eu(3), _eu(10))
NEW_YORK = Law(
    "America/New_York",
    -5 * H,
    -4 * H,
    lambda y: datetime.combine(_sundays(y, 3)[1], time(7), UTC),  # 02:00 EST
    lambda y: datetime.combine(_sundays(y, 11)[0], time(6), UTC),  # 02:00 EDT
)
LAWS = {law.name: law for law in (BERLIN, NEW_YORK)}
CHANGES = [(law, at) for law in (BERLIN, NEW_YORK) for y in (2026, 2027) for at in law.changes(y)]


@pytest.mark.parametrize(("law", "at"), CHANGES, ids=[f"{c[0].name}-{c[1]:%Y-%m}" for c in CHANGES])
def test_the_laws_agree_with_zoneinfo(law: Law, at: datetime) -> None:
    zone = ZoneInfo(law.name)
    second = timedelta(seconds=1)
    assert at.astimezone(zone).utcoffset() == law.offset(at)
    assert (at - second).astimezone(zone).utcoffset() == law.offset(at - second)
    assert law.offset(at) != law.offset(at - second)
    assert [t.at for t in dst.transitions(zone, at - 30 * H, at + 30 * H)] == [at]


def expected(law: Law, walls: list[datetime], repeated: str, skipped: str) -> list[datetime]:
    return sorted({u for w in walls for u in law.instants(w, repeated, skipped)})


def _walls(minutes: list[int], hours: list[int], around: datetime) -> list[datetime]:
    day = around.date()
    days = [day + timedelta(days=k) for k in range(-2, 3)]
    return [datetime.combine(d, time(h, m)) for d in days for h in hours for m in minutes]


def _chain(spec: Spec, start: datetime, end: datetime) -> list[datetime]:
    found: list[datetime] = []
    current = start - timedelta(microseconds=1)
    while (nxt := next_boundary(spec, current)) is not None and nxt <= end:
        assert nxt > current
        found.append(nxt)
        current = nxt
    return found


POLICIES = st.tuples(st.sampled_from(dst.REPEATED), st.sampled_from(dst.SKIPPED))
MINUTES = st.one_of(
    st.lists(st.integers(0, 59), min_size=1, max_size=3, unique=True).map(sorted),
    st.sampled_from([15, 20, 30]).map(lambda k: list(range(0, 60, k))),
)
HOURS = st.one_of(
    st.lists(st.integers(0, 4), min_size=1, max_size=3, unique=True).map(sorted),
    st.just(list(range(24))),
)


def _field(values: list[int], full: int) -> str:
    return "*" if len(values) == full else ",".join(str(v) for v in values)


@pytest.mark.slow  # ~5 s: 150 rows, each followed across a clock change
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    change=st.sampled_from(CHANGES),
    minutes=MINUTES,
    hours=HOURS,
    policy=POLICIES,
    probe=st.integers(-20 * 3600, 20 * 3600),
)
def test_a_cron_runs_exactly_where_its_policy_says(
    change: tuple[Law, datetime],
    minutes: list[int],
    hours: list[int],
    policy: tuple[str, str],
    probe: int,
) -> None:
    law, at = change
    repeated, skipped = policy
    cron = f"{_field(minutes, 60)} {_field(hours, 24)} * * *"
    lo, hi = at - 20 * H, at + 20 * H
    spec = build_spec(
        None,
        cron,
        law.name,
        None,
        now=lo - 30 * H,
        dst_repeated=repeated,
        dst_skipped=skipped,
    )
    want = [
        u for u in expected(law, _walls(minutes, hours, at), repeated, skipped) if lo <= u <= hi
    ]
    assert _chain(spec, lo, hi) == want
    assert boundaries(spec, lo, hi) == len(want)
    # from any moment in the window: the next run after it and the last one at or before it
    point = at + timedelta(seconds=probe)
    later = [u for u in want if u > point]
    if later:
        assert next_boundary(spec, point) == later[0]
    earlier = [u for u in want if u <= point]
    if earlier:
        assert latest_boundary(spec, point) == earlier[-1]


EVERY = st.sampled_from([300, 900, 1200, 1800, 2700, 3600, 5400, 7200, 86400])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    change=st.sampled_from(CHANGES),
    every=EVERY,
    phase=st.integers(0, 86399),
    repeated=st.sampled_from(dst.REPEATED),
    probe=st.integers(-20 * 3600, 20 * 3600),
)
def test_an_interval_keeps_the_passes_its_policy_says(
    change: tuple[Law, datetime], every: int, phase: int, repeated: str, probe: int
) -> None:
    law, at = change
    lo, hi = at - 20 * H, at + 20 * H
    anchor = lo - timedelta(days=2) + timedelta(seconds=phase)
    spec = Spec(
        "every",
        anchor,
        law.name,
        every=every,
        anchor=anchor,
        dst_repeated=repeated,  # type: ignore[arg-type]
    )
    grid = [anchor + timedelta(seconds=k * every) for k in range(0, 10 * 86400 // every)]
    back = law.summer - law.std  # the repeated hour: [at - back, at) first, [at, at + back) second
    forward = at == law.start(at.year)

    def kept(u: datetime) -> bool:
        if forward or repeated == "both":
            return True
        if at - back <= u < at:
            return repeated == "first"
        if at <= u < at + back:
            return repeated == "second"
        return True

    want = [u for u in grid if lo <= u <= hi and kept(u)]
    assert _chain(spec, lo, hi) == want
    assert boundaries(spec, lo, hi) == len(want)
    point = at + timedelta(seconds=probe)
    later = [u for u in want if u > point]
    if later:
        assert next_boundary(spec, point) == later[0]
    earlier = [u for u in want if u <= point]
    if earlier:
        assert latest_boundary(spec, point) == earlier[-1]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    change=st.sampled_from(CHANGES),
    minutes=MINUTES,
    hours=HOURS,
    step=st.integers(0, 40 * 60),
)
def test_with_no_policy_a_cron_runs_where_cronsim_puts_it(
    change: tuple[Law, datetime], minutes: list[int], hours: list[int], step: int
) -> None:
    """The default is cronsim's behaviour: its runs from a run (or a moment outside the
    repeated hour's second pass, where cronsim reads the wall time without its pass)."""
    law, at = change
    zone = ZoneInfo(law.name)
    cron = f"{_field(minutes, 60)} {_field(hours, 24)} * * *"
    spec = build_spec(None, cron, law.name, None, now=at - 40 * H)
    assert spec.dst_repeated is None and spec.dst_skipped is None
    point = at - 20 * H + timedelta(minutes=step)
    if dst._pass(point, zone) is not None:
        point = at + 2 * H  # past the second pass
    theirs = next(CronSim(cron, point.astimezone(zone))).astimezone(UTC)
    assert next_boundary(spec, point) == theirs
    # and the default named: first and shift at a fixed time (no field starting with `*`),
    # both and skip otherwise
    fixed = len(hours) < 24
    assert spec.dst_policy == (("first", "shift") if fixed else ("both", "skip"))


def test_a_fixed_time_in_the_second_pass_is_not_run_before_now() -> None:
    """cronsim reads a moment in the repeated hour's second pass as its first pass, and would
    answer 02:45 CEST (before 02:40 CET) for `45 2 * * *`; the next run is the next day's."""
    spec = build_spec(
        None, "45 2 * * *", "Europe/Berlin", None, now=datetime(2026, 10, 1, tzinfo=UTC)
    )
    second_pass = datetime(2026, 10, 25, 1, 40, tzinfo=UTC)  # 02:40 CET
    assert next_boundary(spec, second_pass) == datetime(2026, 10, 26, 1, 45, tzinfo=UTC)


NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("when", "repeat", "options", "field", "words"),
    [
        (None, "0 3 * * *", {"dst_repeated": "twice"}, "dst_repeated", "first, second or both"),
        (None, "0 3 * * *", {"dst_skipped": "later"}, "dst_skipped", "shift or skip"),
        ("fri 20:00", None, {"dst_repeated": "both"}, "dst_repeated", "give `repeat` too"),
        ("fri 20:00", None, {"dst_skipped": "skip"}, "dst_skipped", "give `repeat` too"),
        (None, "30m", {"dst_skipped": "skip"}, "dst_skipped", "an interval counts real time"),
    ],
)
def test_a_policy_the_row_cannot_use_is_refused_in_words(
    when: str | None, repeat: str | None, options: dict[str, str], field: str, words: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        build_spec(when, repeat, "Europe/Berlin", None, now=NOW, **options)
    assert caught.value.field == field and words in str(caught.value)


def test_a_policy_that_is_the_default_is_kept_as_none() -> None:
    fixed = build_spec(
        None,
        "30 2 * * *",
        "Europe/Berlin",
        None,
        now=NOW,
        dst_repeated="first",
        dst_skipped="shift",
    )
    assert (fixed.dst_repeated, fixed.dst_skipped) == (None, None)
    hourly = build_spec(
        None, "30 * * * *", "Europe/Berlin", None, now=NOW, dst_repeated="first", dst_skipped="skip"
    )
    assert (hourly.dst_repeated, hourly.dst_skipped) == ("first", None)
    every = build_spec(None, "30m", "Europe/Berlin", None, now=NOW, dst_repeated="both")
    assert every.dst_repeated is None


def test_the_first_run_is_the_first_the_policy_keeps() -> None:
    # created the evening before the autumn change: 02:30 comes twice; "second" keeps CET's
    now = datetime(2026, 10, 24, 20, 0, tzinfo=UTC)
    spec = build_spec(None, "30 2 * * *", "Europe/Berlin", None, now=now, dst_repeated="second")
    assert spec.first_due == datetime(2026, 10, 25, 1, 30, tzinfo=UTC)
    skipping = build_spec(
        None,
        "30 2 * * *",
        "Europe/Berlin",
        None,
        now=datetime(2026, 3, 28, 20, 0, tzinfo=UTC),
        dst_skipped="skip",
    )
    assert skipping.first_due == datetime(2026, 3, 30, 0, 30, tzinfo=UTC)


def test_the_next_twelve_months_of_clock_changes_with_the_runs_each_touches() -> None:
    start = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
    spec = build_spec(
        None,
        "30 2 * * *",
        "Europe/Berlin",
        None,
        now=start,
        dst_repeated="both",
        dst_skipped="skip",
    )
    facts = dst_facts(spec, start)
    assert facts[0] == (
        "when the clock changes",
        "a time in the hour the clock repeats runs in both passes; a time in the hour the clock "
        "skips does not run",
    )
    assert facts[1:] == [
        (
            "clock change",
            "2027-03-28: the clock goes forward from 02:00 to 03:00: 02:30 does not run.",
        ),
        (
            "clock change",
            "2027-10-31: the clock goes back from 03:00 to 02:00: 02:30 runs twice, at 02:30 CEST "
            "and 02:30 CET.",
        ),
    ]
    plain = build_spec(None, "30 2 * * *", "America/New_York", None, now=start)
    said = [text for _name, text in dst_facts(plain, start)]
    assert said[0].endswith("(the default)")
    assert said[1:] == [
        "2027-03-14: the clock goes forward from 02:00 to 03:00: 02:30 runs once, at 03:00 EDT.",
        "2027-11-07: the clock goes back from 02:00 to 01:00: no run of this row falls in the "
        "hour it repeats.",
    ]
    # UTC never changes its clock: nothing to say for a row with no policy
    assert dst_facts(build_spec(None, "30 2 * * *", "UTC", None, now=start), start) == []
