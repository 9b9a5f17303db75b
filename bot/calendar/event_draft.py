"""The `/event` draft: what `/event create` and `/event edit` say, checked before anything is
made on either side, and the pieces an event is made of (its task ids, default commands, the
body Discord is sent).

Times are read by :mod:`bot.times.when` (the grammar of `/schedule when:`), so an event and a
planned task accept exactly the same `start`, `repeat`, `timezone` and offsets. Every refusal is a
:class:`~bot.errors.ValidationError` with one sentence naming the problem.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_ANNOUNCE",
    "DEFAULT_LENGTH",
    "MAX_DESCRIPTION",
    "MAX_LOCATION",
    "MAX_NAME",
    "Draft",
    "check_description",
    "check_name",
    "check_offsets",
    "default_end_run",
    "default_start_run",
    "discord_payload",
    "dropped_note",
    "next_start",
    "read_draft",
    "read_end",
    "task_id",
    "whole_second",
]

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bot.errors import ValidationError, naming
from bot.i18n import _
from bot.minecraft.handover import tellraw_all
from bot.times.when import (
    Spec,
    human,
    next_boundary,
    parse_announce,
    parse_duration,
    parse_repeat,
    parse_timezone,
    parse_when,
)

MAX_NAME = 100  # Discord's limits on a guild scheduled event
MAX_DESCRIPTION = 1000
MAX_LOCATION = 100
DEFAULT_ANNOUNCE = "10m,1m"
DEFAULT_LENGTH = timedelta(hours=1)  # Discord needs an end for an external event
_SLUG = re.compile(r"[^A-Za-z0-9_.+-]+")


@dataclass(frozen=True, slots=True)
class Draft:
    """The draft of an event, as it will be made once `/event create` goes ahead: every time
    resolved to UTC, every offset in seconds."""

    name: str
    description: str | None
    start: datetime
    end: datetime
    announce: tuple[int, ...]
    reminders: tuple[int, ...]
    repeat: str | None
    timezone: str
    # default announcement offsets left out because the start is sooner (said in the reply)
    dropped: tuple[int, ...] = ()


def whole_second(when: datetime) -> datetime:
    """Rounded up to a whole second: the tasks are planned to the second, so the Discord event
    and its tasks name the same instant ("in 5s" typed at 12:00:00.4 starts at 12:00:06)."""
    return when if not when.microsecond else when.replace(microsecond=0) + timedelta(seconds=1)


def check_name(name: str) -> str:
    text = name.strip()
    if not text:
        raise ValidationError(_("The event name is empty: give it 1 to 100 characters."))
    if len(text) > MAX_NAME:
        raise ValidationError(
            _(
                "The event name is {n} characters long; Discord allows at most {limit}.",
                n=len(text),
                limit=MAX_NAME,
            )
        )
    return text


def check_description(description: str | None) -> str | None:
    if description is None or not description.strip():
        return None
    if len(description) > MAX_DESCRIPTION:
        raise ValidationError(
            _(
                "The description is {n} characters long; Discord allows at most {limit}.",
                n=len(description),
                limit=MAX_DESCRIPTION,
            )
        )
    return description


def read_end(text: str | None, start: datetime, now: datetime, tz_name: str) -> datetime:
    """`end` as a time (`22:00`, `in 3h`, a Discord timestamp) or a length after the start
    (`90m`, `2h`); start + 1 h when not given."""
    if text is None or not text.strip():
        return start + DEFAULT_LENGTH
    try:
        end = start + timedelta(seconds=parse_duration(text, _("The event's length")))
    except ValidationError:
        end = parse_when(text, now, parse_timezone(tz_name))
    if end <= start:
        raise ValidationError(
            _(
                "The end ({end}) is not after the start ({start}): give a later end, or a length "
                "such as 2h.",
                end=_show(end, tz_name),
                start=_show(start, tz_name),
            )
        )
    return end


def check_offsets(offsets: tuple[int, ...], what: str, start: datetime, now: datetime) -> None:
    until = int((start - now).total_seconds())
    for offset in offsets:
        if offset <= until:
            continue
        if what == "reminder":
            text = _(
                "The reminder offset {offset} is longer than the time until the start "
                "({left}): it could not be sent that early.",
                offset=human(offset),
                left=human(until),
            )
        else:
            text = _(
                "The announce offset {offset} is longer than the time until the start "
                "({left}): it could not be sent that early.",
                offset=human(offset),
                left=human(until),
            )
        raise ValidationError(text)


def _offsets(text: str | None, what: str) -> tuple[int, ...]:
    if text is None or not text.strip() or text.strip().lower() == "none":
        return ()
    try:
        return parse_announce(text)
    except ValidationError as e:  # its sentences say `announce`; name the option used
        raise ValidationError(str(e).replace("`announce`", f"`{what}`")) from None


def _show(when: datetime, tz_name: str) -> str:
    return f"{when.astimezone(parse_timezone(tz_name)):%Y-%m-%d %H:%M:%S} {tz_name}"


def read_draft(
    *,
    name: str,
    start: str,
    end: str | None,
    description: str | None,
    announce: str | None,
    reminders: str | None,
    repeat: str | None,
    timezone: str | None,
    default_timezone: str,
    now: datetime,
) -> Draft:
    """The draft of everything `/event create` says about the event, checked; raises with a
    sentence naming the option at fault as its `field`."""
    with naming("name"):
        title = check_name(name)
    with naming("description"):
        text = check_description(description)
    with naming("timezone"):
        tz = parse_timezone(timezone, default_timezone)
    with naming("start"):
        begin = whole_second(parse_when(start, now, tz))
    with naming("end"):
        finish = whole_second(read_end(end, begin, now, tz.key))
    with naming("announce"):
        counts = _offsets(DEFAULT_ANNOUNCE if announce is None else announce, "announce")
    with naming("reminders"):
        reminds = _offsets(reminders, "reminders")
    with naming("announce"):
        counts, dropped = _defaults_left_out(counts, announce, begin, now)
        check_offsets(counts, "announce", begin, now)
    with naming("reminders"):
        check_offsets(reminds, "reminder", begin, now)
    with naming("repeat"):
        rule = _repeat_rule(repeat, begin, finish)
    return Draft(title, text, begin, finish, counts, reminds, rule, tz.key, dropped)


def _defaults_left_out(
    counts: tuple[int, ...], announce: str | None, begin: datetime, now: datetime
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The announce offsets kept, and the default ones left out (those before now)."""
    if announce is not None:
        return counts, ()
    # a default nobody asked for is not a reason to refuse: the offsets that fall before now
    # are left out (the reply says so); an offset the moderator gave is still checked
    until = int((begin - now).total_seconds())
    return tuple(o for o in counts if o <= until), tuple(o for o in counts if o > until)


def _repeat_rule(repeat: str | None, begin: datetime, finish: datetime) -> str | None:
    if repeat is None or not repeat.strip():
        return None
    rule = " ".join(repeat.split())
    form = parse_repeat(rule)
    if form[0] == "every" and form[1] < (finish - begin).total_seconds():
        raise ValidationError(
            _(
                "The event lasts {length} but repeats every {every}: one occurrence would "
                "start before the last one ended.",
                length=human(int((finish - begin).total_seconds())),
                every=human(form[1]),
            )
        )
    return rule


def dropped_note(draft: Draft) -> str | None:
    """The sentence that says which default announcements were left out, if any."""
    if not draft.dropped:
        return None
    return _(
        "The default announcement {offsets} before the start was left out: the event "
        "starts sooner than that.",
        offsets=", ".join(human(o) for o in draft.dropped),
    )


def next_start(repeat: str, anchor: datetime, timezone: str, after: datetime) -> datetime | None:
    """The start of the occurrence after `after`, on the grid of `repeat` from `anchor`."""
    form = parse_repeat(repeat)
    if form[0] == "every":
        spec = Spec("every", anchor, timezone, every=form[1], anchor=anchor)
    else:
        spec = Spec("cron", anchor, timezone, cron=form[1])
    return next_boundary(spec, after)


def task_id(name: str, event_id: int, role: str, revision: int = 0) -> str:
    """The pack task id of an event's start or end: readable in the countdown ("Build_Battle.e3
    starts in 1 minute"), unique per event and per move (the new pair exists before the old one
    is cancelled, and the scheduler keeps ids unique among live rows)."""
    slug = _SLUG.sub("_", name).strip("_")[:40] or "event"
    moved = f"r{revision}" if revision else ""
    return f"{slug}.e{event_id}{moved}" + ("" if role == "start" else f".{role}")


def _tellraw(text: str) -> str:
    # the command itself is built on the Minecraft side (bot.minecraft.handover)
    head = _("[event]") + " "  # the tag players see before an event's message
    return tellraw_all([{"text": head, "color": "gold"}, {"text": text, "color": "white"}])


def default_start_run(name: str) -> str:
    """What runs at the start when the moderator gave no command: everyone online is told (in
    the current locale: the caller sets the server's)."""
    return _tellraw(_("{name} starts now!", name=name))


def default_end_run(name: str) -> str:
    return _tellraw(_("{name} is over. Thanks for playing!", name=name))


def discord_payload(
    name: str, description: str | None, start: datetime, end: datetime, location: str
) -> dict[str, Any]:
    """The body of POST /guilds/{id}/scheduled-events for this event, as discord.py sends it."""
    body: dict[str, Any] = {
        "name": name,
        "privacy_level": 2,  # GUILD_ONLY, the only level Discord allows
        "scheduled_start_time": start.isoformat(),
        "scheduled_end_time": end.isoformat(),
        "entity_type": 3,  # EXTERNAL: somewhere outside Discord (the Minecraft server)
        "entity_metadata": {"location": location},
    }
    if description:
        body["description"] = description
    return body
