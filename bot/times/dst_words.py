"""A repeating row's DST policy and its next clock changes, in the reader's language: what a
preview and every face's view of a planned row say (bot.operations.reads.planned_facts)."""

from __future__ import annotations

__all__ = ["MONTHS_AHEAD", "dst_facts", "moment_text", "policy_text"]

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.i18n import N_, _
from bot.times import dst
from bot.times.when import Spec, human

MONTHS_AHEAD = 12  # how far ahead the clock changes are listed
_AHEAD = timedelta(days=365)
_BEFORE = timedelta(hours=3)

_REPEATED = {
    "first": N_("runs once, in the first pass"),
    "second": N_("runs once, in the second pass"),
    "both": N_("runs in both passes"),
}
_SKIPPED = {
    "shift": N_("runs once, when the clock jumps"),
    "skip": N_("does not run"),
}


def policy_text(spec: Spec) -> str:
    """`clock goes back: ...; clock goes forward: ...`, `(default)` when the row set none."""
    repeated, skipped = spec.dst_policy
    back = _("a time in the hour the clock repeats {what}", what=_(_REPEATED[repeated]))
    if spec.kind == "every":
        forward = _("an interval counts real time: no run falls in the hour the clock skips")
    else:
        forward = _("a time in the hour the clock skips {what}", what=_(_SKIPPED[skipped]))
    text = f"{back}; {forward}"
    return text if spec.dst_chosen else _("{policy} (the default)", policy=text)


def _local(instant: datetime, tz: ZoneInfo) -> str:
    return instant.astimezone(tz).strftime("%H:%M %Z")


def _effect(item: dst.Affected, tz: ZoneInfo, interval: bool) -> str:
    wall = f"{item.wall:%H:%M}"
    if interval:
        assert item.at is not None
        if item.runs:
            return _("the run at {time} runs", time=_local(item.at, tz))
        return _("the run at {time} is left out", time=_local(item.at, tz))
    if not item.runs:
        return _("{wall} does not run", wall=wall)
    if len(item.runs) == 2:
        return _(
            "{wall} runs twice, at {first} and {second}",
            wall=wall,
            first=_local(item.runs[0], tz),
            second=_local(item.runs[1], tz),
        )
    return _("{wall} runs once, at {time}", wall=wall, time=_local(item.runs[0], tz))


def moment_text(spec: Spec, moment: dst.Moment) -> str:
    """One clock change: its local date, which way the clock goes, and the row's runs it
    touches under the policy."""
    tz = ZoneInfo(spec.timezone)
    change = moment.transition
    said = {
        "date": moment.local_date.isoformat(),
        "start": f"{change.wall_from:%H:%M}",
        "end": f"{change.wall_to:%H:%M}",
    }
    if change.forward:
        head = _("{date}: the clock goes forward from {start} to {end}", **said)
    else:
        head = _("{date}: the clock goes back from {start} to {end}", **said)
    effects = [_effect(item, tz, spec.kind == "every") for item in moment.affected]
    if moment.more:
        effects.append(_("and {n} more", n=moment.more))
    if not effects:
        effects.append(
            _("no run of this row falls in the hour it skips")
            if change.forward
            else _("no run of this row falls in the hour it repeats")
        )
    if spec.kind == "every" and spec.every is not None:
        shift = int(change.delta.total_seconds())
        if shift % spec.every:  # the interval's runs land elsewhere on the clock from then on
            effects.append(
                _("from then on the clock shows its runs {shift} later", shift=human(shift))
                if change.forward
                else _("from then on the clock shows its runs {shift} earlier", shift=human(shift))
            )
    return f"{head}: {'; '.join(effects)}."


def dst_facts(spec: Spec, start: datetime) -> list[tuple[str, str]]:
    """(name, text) pairs: the policy and the clock changes in the 12 months from `start`, for
    a repeating row in a zone whose clock changes (or that set a policy); none otherwise."""
    if spec.kind == "at":
        return []
    tz = ZoneInfo(spec.timezone)
    repeated, skipped = spec.dst_policy
    found = dst.moments(
        tz,
        start - _BEFORE,  # a change just before the next run (03:00 after a skip) touches it
        start + _AHEAD,
        repeated,
        skipped,
        cron=spec.cron if spec.kind == "cron" else None,
        anchor=spec.anchor,
        every=spec.every,
    )
    if not found and not spec.dst_chosen:
        return []
    facts = [(_("when the clock changes"), policy_text(spec))]
    facts += [(_("clock change"), moment_text(spec, moment)) for moment in found]
    return facts
