"""`when`, `repeat`, `timezone` and `announce` as the moderators type them, into a :class:`Spec`.

Cron expressions are cronsim's; what a repeating row does when the clocks change is its DST
policy (bot.times.dst), by default what Debian cron does (a fixed time in the spring-forward gap
runs once right after the jump, one in the repeated autumn hour runs once, in its first pass);
time zones are zoneinfo with tzdata, so Windows hosts and slim containers have the IANA database
too.

The natural forms of `when` are a small grammar (`HH:MM`, `YYYY-MM-DD HH:MM`, `fri 20:00`,
`today|tomorrow HH:MM`, `in 2h 30m`, a Discord timestamp `<t:N:F>`), not dateparser: the forms are
few and exactly specified, dateparser guesses (`fri 20:00` may come back as last Friday, a typo as
a date in another locale) where a moderator needs a refusal that names the problem, and it would
add a large dependency (regex, locale data) and ~0.5 s of import time for six patterns.

Every function raises :class:`bot.errors.ValidationError` with a sentence; nothing is stored on a
refusal because nothing is stored until a Spec exists.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_TIMEZONE",
    "MAX_ANNOUNCE",
    "MAX_DELAY",
    "MIN_EVERY",
    "Kind",
    "Missed",
    "Spec",
    "boundaries",
    "build_spec",
    "latest_boundary",
    "local_valid",
    "next_boundary",
    "next_runs",
    "parse_announce",
    "parse_duration",
    "parse_repeat",
    "parse_timezone",
    "parse_when",
    "repeat_text",
]

import re
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

from bot.errors import ValidationError, naming
from bot.i18n import Text, _, lazy
from bot.times import dst
from bot.times.runs import (
    Kind,
    Missed,
    Spec,
    boundaries,
    latest_boundary,
    next_boundary,
    next_runs,
)

DEFAULT_TIMEZONE = "UTC"
MAX_DELAY = timedelta(days=3653)  # "a delay beyond 10 years" is refused (SpacetimeDB: DelayTooLong)
MIN_EVERY = 1  # seconds
MAX_ANNOUNCE = 10  # countdown messages per run

_UNITS = {
    "s": 1,
    "sec": 1,
    "secs": 1,
    "second": 1,
    "seconds": 1,
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
    "w": 604800,
    "week": 604800,
    "weeks": 604800,
}
_PART = re.compile(r"(\d+)\s*([a-z]+)")
_DAYS = {
    "mon": 0,
    "monday": 0,
    "tue": 1,
    "tues": 1,
    "tuesday": 1,
    "wed": 2,
    "wednesday": 2,
    "thu": 3,
    "thur": 3,
    "thurs": 3,
    "thursday": 3,
    "fri": 4,
    "friday": 4,
    "sat": 5,
    "saturday": 5,
    "sun": 6,
    "sunday": 6,
}
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?$")
_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_DISCORD = re.compile(r"^<t:(-?\d{1,12})(?::[tTdDfFR])?>$")
_EPOCH_MAX = 253402300799  # 9999-12-31T23:59:59Z


def parse_timezone(name: str | None, default: str = DEFAULT_TIMEZONE) -> ZoneInfo:
    text = (name if name is not None else default).strip()
    if not text:
        raise ValidationError(
            lazy("The time zone is empty: give an IANA name such as Europe/Berlin.")
        )
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValidationError(
            lazy(
                "{text} is not a time zone I know: give an IANA name such as Europe/Berlin, "
                "America/New_York or UTC.",
                text=repr(text),
            )
        ) from None


_DURATION = lazy("The duration")  # a Lazy is read only at str(): one default is safe


def parse_duration(text: str, what: Text = _DURATION) -> int:
    """`90m`, `2h 30m`, `1d`, `5s` (also `2h30m`, `1 hour`) as whole seconds, at least 1."""
    cleaned = text.strip().lower().replace(",", " ")
    if not cleaned:
        raise ValidationError(lazy("{what} is empty: write it like 90m, 2h 30m or 1d.", what=what))
    pos = 0
    total = 0
    seen: set[int] = set()
    for m in _PART.finditer(cleaned):
        if cleaned[pos : m.start()].strip():
            break
        unit = _UNITS.get(m.group(2))
        if unit is None:
            raise ValidationError(
                lazy(
                    "{what} {text} has an unknown unit {unit}: use s, m, h, d or w.",
                    what=what,
                    text=repr(text.strip()),
                    unit=repr(m.group(2)),
                )
            )
        if unit in seen:
            raise ValidationError(
                lazy(
                    "{what} {text} gives the unit {unit} twice.",
                    what=what,
                    text=repr(text.strip()),
                    unit=repr(m.group(2)),
                )
            )
        seen.add(unit)
        total += int(m.group(1)) * unit
        pos = m.end()
    if pos == 0 or cleaned[pos:].strip():
        raise ValidationError(
            lazy(
                "{what} {text} is not a duration: write it like 90m, 2h 30m or 1d.",
                what=what,
                text=repr(text.strip()),
            )
        )
    if total < 1:
        raise ValidationError(
            lazy(
                "{what} {text} is zero: it must be at least 1 second.",
                what=what,
                text=repr(text.strip()),
            )
        )
    if total > MAX_DELAY.total_seconds():
        raise ValidationError(
            lazy("{what} {text} is longer than 10 years.", what=what, text=repr(text.strip()))
        )
    return total


def local_valid(naive: datetime, tz: ZoneInfo) -> datetime:
    """The instant (UTC) of a local wall time; a time in a DST gap becomes the first valid
    minute after it (02:30 on a spring-forward night runs at 03:00), an ambiguous one its
    first occurrence."""
    probe = naive
    for _minute in range(24 * 60):  # gaps are at most a few hours; bounded either way
        aware = probe.replace(tzinfo=tz, fold=0)
        if aware.astimezone(UTC).astimezone(tz).replace(tzinfo=None) == probe:
            return aware.astimezone(UTC)
        probe = (probe + timedelta(minutes=1)).replace(second=0, microsecond=0)
    raise ValidationError(
        lazy("{time} does not exist in {zone}.", time=f"{naive:%Y-%m-%d %H:%M}", zone=tz.key)
    )


def _clock(text: str, whole: str) -> time:
    m = _CLOCK.match(text)
    if not m:
        raise ValidationError(
            lazy(
                "{text} is not a time I can read: write 20:00, 2026-12-05 20:00, fri 20:00, "
                "tomorrow 18:30, in 90m or paste a Discord timestamp.",
                text=repr(whole),
            )
        )
    hour, minute, second = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    if hour > 23 or minute > 59 or second > 59:
        raise ValidationError(
            lazy("{text} is not a time of day (hours 0-23, minutes 0-59).", text=repr(text))
        )
    return time(hour, minute, second)


def parse_when(text: str, now: datetime, tz: ZoneInfo) -> datetime:
    """The instant (UTC) `text` names, read in `tz`; refused when in the past or too far."""
    whole = text.strip()
    low = " ".join(whole.lower().split())
    if not low:
        raise ValidationError(lazy("`when` is empty: write 20:00, fri 20:00, in 90m, ..."))
    local_now = now.astimezone(tz)
    due: datetime
    if low.startswith("in ") or low == "in":
        due = now + timedelta(seconds=parse_duration(low[3:], lazy("The delay after `in`")))
    elif (m := _DISCORD.match(whole)) is not None:
        seconds = int(m.group(1))
        if not 0 <= seconds <= _EPOCH_MAX:
            raise ValidationError(
                lazy("The Discord timestamp {text} is out of range.", text=repr(whole))
            )
        due = datetime.fromtimestamp(seconds, UTC)
    else:
        words = low.replace("t", " ", 1).split() if _iso_t(low) else low.split()
        if len(words) == 1 and _CLOCK.match(words[0]):
            clock = _clock(words[0], whole)
            due = local_valid(datetime.combine(local_now.date(), clock), tz)
            if due <= now:  # a bare time of day is the next one: today or tomorrow
                due = local_valid(datetime.combine(local_now.date() + timedelta(1), clock), tz)
        elif len(words) == 2:
            head, clock = words[0], _clock(words[1], whole)
            day: date
            if head == "today":
                day = local_now.date()
            elif head == "tomorrow":
                day = local_now.date() + timedelta(days=1)
            elif head in _DAYS:
                ahead = (_DAYS[head] - local_now.weekday()) % 7
                day = local_now.date() + timedelta(days=ahead)
                if ahead == 0 and local_valid(datetime.combine(day, clock), tz) <= now:
                    day += timedelta(days=7)  # "fri 20:00" on Friday at 21:00: next week's
            elif (d := _DATE.match(head)) is not None:
                try:
                    day = date(int(d.group(1)), int(d.group(2)), int(d.group(3)))
                except ValueError:
                    raise ValidationError(
                        lazy("{date} is not a date that exists.", date=head)
                    ) from None
            else:
                raise ValidationError(
                    lazy(
                        "{word} in {text} is not a day: use today, tomorrow, a weekday "
                        "(mon ... sun) or a date YYYY-MM-DD.",
                        word=repr(words[0]),
                        text=repr(whole),
                    )
                )
            due = local_valid(datetime.combine(day, clock), tz)
        else:
            _clock("", whole)  # raises the sentence listing the forms
            raise AssertionError
    if due <= now:
        raise ValidationError(
            lazy(
                "{text} is in the past ({time} {zone}): give a time from now on.",
                text=repr(whole),
                time=f"{due.astimezone(tz):%Y-%m-%d %H:%M:%S}",
                zone=tz.key,
            )
        )
    if due - now > MAX_DELAY:
        raise ValidationError(
            lazy("{text} is more than 10 years away: that is too long to wait.", text=repr(whole))
        )
    return due


def _iso_t(low: str) -> bool:
    """`2026-12-05t20:00` (ISO with a T) reads as `2026-12-05 20:00`."""
    return bool(re.match(r"^\d{4}-\d{1,2}-\d{1,2}t\d", low))


def parse_repeat(text: str) -> tuple[Literal["every"], int] | tuple[Literal["cron"], str]:
    """`30m`/`1d`/`2h 30m` (a fixed interval) or a 5-field cron expression `0 20 * * fri`."""
    cleaned = " ".join(text.split())
    if not cleaned:
        raise ValidationError(lazy("`repeat` is empty: write 30m, 1d or a cron expression."))
    fields = cleaned.split(" ")
    if len(fields) == 5 or any(c in cleaned for c in "*/"):
        if len(fields) != 5:
            # cronsim also reads a sixth, seconds field (`* * * * * *`: every second); ours
            # is cron's five, so anything else is refused rather than guessed at
            raise ValidationError(
                lazy(
                    "`repeat` {text} has {count} fields: a cron expression has five, minute "
                    "hour day-of-month month day-of-week (no seconds), e.g. `0 20 * * fri`.",
                    text=repr(cleaned),
                    count=len(fields),
                )
            )
        expr = cleaned.lower()
        try:
            CronSim(expr, datetime(2026, 1, 1, tzinfo=UTC))
        except CronSimError as e:
            raise ValidationError(
                lazy(
                    "`repeat` {text} is not a valid cron expression ({error}): five fields, "
                    "minute hour day-of-month month day-of-week, e.g. `0 20 * * fri`.",
                    text=repr(cleaned),
                    error=e,
                )
            ) from None
        return "cron", expr
    if cleaned.startswith("@"):
        raise ValidationError(
            lazy(
                "`repeat` {text}: write the five fields instead of a @ nickname "
                "(`0 0 * * *` for @daily).",
                text=repr(cleaned),
            )
        )
    return "every", parse_duration(cleaned, lazy("The interval `repeat`"))


def parse_announce(text: str | None) -> tuple[int, ...]:
    """`5m,1m,10s`: offsets before each run, longest first, each at least 1 second."""
    if text is None:
        return ()
    parts = [p.strip() for p in text.split(",")]
    if not any(parts):
        raise ValidationError(lazy("`announce` is empty: write it like 5m,1m,10s."))
    if any(not p for p in parts):
        raise ValidationError(
            lazy("`announce` {text} has an empty item between commas.", text=repr(text))
        )
    offsets = [parse_duration(p, lazy("The announce offset")) for p in parts]
    if len(set(offsets)) != len(offsets):
        raise ValidationError(
            lazy("`announce` {text} gives the same offset twice.", text=repr(text))
        )
    if len(offsets) > MAX_ANNOUNCE:
        raise ValidationError(lazy("`announce` takes at most {n} offsets.", n=MAX_ANNOUNCE))
    return tuple(sorted(offsets, reverse=True))


def build_spec(
    when: str | None,
    repeat: str | None,
    timezone: str | None,
    announce: str | None,
    *,
    now: datetime,
    default_timezone: str = DEFAULT_TIMEZONE,
    missed: Missed | None = None,
    dst_repeated: str | None = None,
    dst_skipped: str | None = None,
) -> Spec:
    """Everything a wall-clock /schedule says about time, checked; the Spec to store. A refusal
    names its input as `field` (when, repeat, timezone, announce, dst_repeated, dst_skipped)."""
    if when is None and repeat is None:
        raise ValidationError(
            lazy("Give `when` (a wall-clock time) or `repeat` (an interval or cron)."),
            field="when",
        )
    with naming("timezone"):
        tz = parse_timezone(timezone, default_timezone)
    with naming("announce"):
        offsets = parse_announce(announce)
    with naming("when"):
        start = parse_when(when, now, tz) if when is not None else None
    with naming("repeat"):
        spec = _repeating(repeat, start, tz, now, missed)
    repeated, skipped = dst.checked_policy(spec.kind, spec.cron, dst_repeated, dst_skipped)
    if repeated is not None or skipped is not None:
        spec = replace(spec, dst_repeated=repeated, dst_skipped=skipped)
        # the first run under the policy: the one before it may be left out by it
        spec = replace(spec, first_due=_first_under_policy(spec, start, now))
    with naming("announce"):
        _check_offsets(offsets, spec, now)
    return replace(spec, announce=offsets)


def _first_under_policy(spec: Spec, start: datetime | None, now: datetime) -> datetime:
    if spec.kind == "every":
        assert spec.anchor is not None  # the grid stays anchored; the policy may skip its first
        after = spec.anchor - timedelta(microseconds=1)
    else:
        after = start - timedelta(microseconds=1) if start is not None else now
    first = next_boundary(spec, after)
    if first is None or first - now > MAX_DELAY:
        raise ValidationError(
            lazy(
                "The cron expression {text} never fires in the next 10 years.",
                text=repr(spec.cron),
            ),
            field="repeat",
        )
    return first


def _repeating(
    repeat: str | None, start: datetime | None, tz: ZoneInfo, now: datetime, missed: Missed | None
) -> Spec:
    """The Spec of `repeat` from `start` (a one-shot at `start` without one)."""
    spec: Spec
    if repeat is None:
        assert start is not None
        spec = Spec("at", start, tz.key, at=start, missed=missed or "once")
    else:
        form = parse_repeat(repeat)
        if form[0] == "every":
            every = form[1]
            anchor = start if start is not None else now + timedelta(seconds=every)
            spec = Spec(
                "every", anchor, tz.key, every=every, anchor=anchor, missed=missed or "skip"
            )
        else:
            probe = Spec("cron", now, tz.key, cron=form[1])
            after = start - timedelta(microseconds=1) if start is not None else now
            first = next_boundary(probe, after)
            if first is None or first - now > MAX_DELAY:
                raise ValidationError(
                    lazy(
                        "The cron expression {text} never fires in the next 10 years.",
                        text=repr(form[1]),
                    )
                )
            spec = Spec("cron", first, tz.key, cron=form[1], missed=missed or "skip")
    return spec


def _check_offsets(offsets: tuple[int, ...], spec: Spec, now: datetime) -> None:
    delay = (spec.first_due - now).total_seconds()
    for offset in offsets:
        if offset > delay:
            raise ValidationError(
                lazy(
                    "The announce offset {offset} is longer than the delay to the first "
                    "run ({delay}): nothing could be announced that early.",
                    offset=_human(offset),
                    delay=_human(int(delay)),
                )
            )
        if spec.every is not None and offset >= spec.every:
            raise ValidationError(
                lazy(
                    "The announce offset {offset} is not shorter than the interval ({every}).",
                    offset=_human(offset),
                    every=_human(spec.every),
                )
            )


def repeat_text(spec: Spec) -> str:
    """How the spec repeats, in words (the reader's language)."""
    if spec.kind == "every" and spec.every is not None:
        return _("every {interval}", interval=_human(spec.every))
    if spec.kind == "cron":
        return _("cron `{cron}` ({zone})", cron=spec.cron, zone=spec.timezone)
    return _("once")


def _human(seconds: int) -> str:
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size:
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
    return " ".join(parts) or "0s"


human = _human
