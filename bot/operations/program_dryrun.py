"""`program dryrun`: a `program start` tried without effect, on the newest version of the
program. The same refusals as the start (no such program, a time that cannot be read,
a first step already passed, a step's command the server's checker refuses: "Step N: ..."),
then for each step what its one-shot row would hand the pack: the command as the pack runs it
(built by ``PackClient.task_request``, the request a hand-over sends) and its player; when it is
due (start + offset, shown in the start's zone, with a note when it falls in the hour the clock
repeats or skips, or when the clock changes between the start and the step: an offset counts
real time); its `after` step, limit and failure policy; and its conditions against the players
online now (:func:`bot.operations.dryrun.conditions_now`). The server is only read (`list`,
for a step with conditions or a player); nothing is stored, no run is made, no audit entry.
"""

from __future__ import annotations

__all__ = [
    "PROGRAM_DRYRUN",
    "ProgramDryRunRequest",
    "ProgramTried",
    "StepTried",
    "dst_notes",
    "try_program",
]

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any
from zoneinfo import ZoneInfo

from pydantic import Field

from bot import errors
from bot.errors import naming
from bot.i18n import N_, _, ngettext
from bot.i18n.formats import stamp
from bot.minecraft.conditions import conditions_from, describe, pack_cond
from bot.minecraft.task_fields import TimeText
from bot.operations.dryrun import (
    CONDITIONS_TITLE,
    DRY_RUNS,
    THEN_SAID,
    ConditionsNow,
    WouldRun,
    conditions_now,
    online_line,
    planned_lines,
    runs_now,
    term_lines,
    unreached,
)
from bot.operations.programs import ProgramStartRequest, on_server, target_servers
from bot.operations.ranks import Rank
from bot.operations.registry import CHOICE_NAMES_KEY, OperationSpec, Outcome
from bot.operations.schedule import CHOICE_NAMES, FIELD_HELP
from bot.operations.sections import Section
from bot.programs.model import Step, check_name, limit_seconds, steps_of_json
from bot.times import dst
from bot.times.dst import DstRepeated, DstSkipped
from bot.times.dst_words import dst_facts, moment_text
from bot.times.runs import Spec, next_runs
from bot.times.when import build_spec, human, parse_timezone, parse_when, repeat_text

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.programs.runner import ProgramRunner
    from bot.services import ServerServices
    from bot.store.programs import Program

_SPAN = timedelta(hours=3)  # wider than any clock change: one near a step is found

# what a step with `after` does when that step failed or did not succeed within its limit
_ON_FAILURE = {
    "continue": N_("then it runs anyway"),
    "skip": N_("then it is skipped"),
    "stop": N_("then it and every remaining step are cancelled"),
}


def _about(name: str) -> Any:
    extra: Any = {CHOICE_NAMES_KEY: CHOICE_NAMES[name]}  # the words /schedule offers
    return Field(description=FIELD_HELP[name], json_schema_extra=extra)


class ProgramDryRunRequest(ProgramStartRequest):
    """`program dryrun`: `program start`'s options, tried without effect; with `repeat` (and
    its DST policy), `program repeat`'s too: its next starts with the clock changes ahead."""

    repeat: Annotated[TimeText | None, Field(description=FIELD_HELP["repeat"])] = None
    dst_repeated: Annotated[DstRepeated | None, _about("dst_repeated")] = None
    dst_skipped: Annotated[DstSkipped | None, _about("dst_skipped")] = None


@dataclass(frozen=True)
class StepTried:
    """One step as its row would be: the command the pack would run, when it is due (UTC; a
    step with `after` at the earliest), the clock-change notes and its conditions now."""

    number: int
    step: Step
    would: WouldRun
    due: datetime
    dst: tuple[str, ...] = ()
    conditions: ConditionsNow | None = None


@dataclass(frozen=True)
class ProgramTried:
    """What `program start` would do: the version, the server, the start (UTC) and the zone
    its times are shown in; `ahead`: seconds a start "now" is moved ahead for a step before
    it; each step; notes for the moderator."""

    program: Program
    server: ServerServices
    start: datetime
    zone: ZoneInfo
    ahead: int
    steps: tuple[StepTried, ...]
    notes: tuple[str, ...] = ()


async def _newest(runner: ProgramRunner, name: str) -> Program:
    program = await runner.store.latest(check_name(name))
    if program is None:
        raise errors.NotFound(
            _("There is no program `{name}`: save it with /program save first.", name=name),
            field="name",
        )
    return program


def _start(
    ops: Operations, req: ProgramStartRequest, earliest: int
) -> tuple[datetime, ZoneInfo, int]:
    """The start `program start` would take, the zone to show it in, and how far a start now
    moves ahead; refused as it refuses a first step already passed."""
    now = ops.now()
    scheduler = ops.scheduler()
    with naming("timezone"):
        zone = parse_timezone(req.timezone, scheduler.default_timezone)
    if req.when is None:
        return now + timedelta(seconds=max(0, -earliest)), zone, max(0, -earliest)
    with naming("when"):
        start = parse_when(req.when, now, zone)
    first = start + timedelta(seconds=earliest)
    if first < now:
        raise errors.ValidationError(
            _(
                "Its first step is {ahead} before the start, at {first}, which has passed: "
                "start it at {soonest} or later.",
                ahead=human(-earliest),
                first=stamp(first),
                soonest=stamp(now + timedelta(seconds=-earliest)),
            ),
            field="when",
        )
    return start, zone, 0


def _naive(instant: datetime, zone: ZoneInfo) -> datetime:
    return instant.astimezone(zone).replace(tzinfo=None)


def dst_notes(start: datetime, due: datetime, zone: ZoneInfo) -> list[str]:
    """What the clock changes do to a step due at `due` of a start at `start` (UTC): a step in
    the hour the clock repeats (which pass, by its zone's name), or whose offset counted on the
    start's clock lands in the hour it skips, said as the preview says a row's; a change
    between the start and the step, where the clock shows the step, not where the offset
    counted on the clock would put it."""
    spec = Spec("at", due, zone.key, at=due)
    counted = _naive(start, zone) + (due - start)  # the offset counted on the start's clock
    shown = _naive(due, zone)
    low, high = sorted((start, due))
    notes = []
    for change in dst.transitions(zone, low - _SPAN, high + _SPAN):
        repeated = not change.forward and change.at - change.delta <= due < change.at + change.delta
        skipped = change.forward and change.wall_from <= counted < change.wall_to
        if repeated or skipped:
            wall = counted if skipped else shown
            hour = dst.Moment(change, change.wall_from.date(), (dst.Affected(wall, (due,)),))
            notes.append(moment_text(spec, hour))
        elif low < change.at <= high:
            said = {
                "date": change.wall_from.date().isoformat(),
                "start": f"{change.wall_from:%H:%M}",
                "end": f"{change.wall_to:%H:%M}",
                "shown": f"{shown:%H:%M}",
                "counted": f"{counted:%H:%M}",
            }
            notes.append(
                _(
                    "{date}: the clock goes forward from {start} to {end} between the start and "
                    "this step; its offset is real time, so the clock shows it at {shown}, not "
                    "{counted}.",
                    **said,
                )
                if change.forward
                else _(
                    "{date}: the clock goes back from {start} to {end} between the start and "
                    "this step; its offset is real time, so the clock shows it at {shown}, not "
                    "{counted}.",
                    **said,
                )
            )
    return notes


async def _step(
    target: ServerServices,
    program: Program,
    start: datetime,
    zone: ZoneInfo,
    number: int,
    step: Step,
) -> StepTried:
    stored = step.conditions() or None  # what its row keeps, and its hand-over reads back
    # a step's row is handed over as a task due now (bot.minecraft.handover), with its cond
    request = target.pack.task_request(
        step.run,
        0,
        "tick",
        f"{program.name}.0.{number}",
        as_player=step.as_player,
        cond=pack_cond(stored),
    )
    due = start + timedelta(seconds=step.offset)
    now = await conditions_now(target, conditions_from(stored), step.as_player)
    return StepTried(
        number,
        step,
        WouldRun(request.run, request.player),
        due,
        tuple(dst_notes(start, due, zone)),
        now,
    )


async def try_program(ops: Operations, caller: Caller, req: ProgramStartRequest) -> ProgramTried:
    """What `program start` would do with `req` on one server, after every check it makes;
    nothing sent that changes the server, nothing stored."""
    runner = ops.program_runner()
    program = await _newest(runner, req.name)
    target = ops.server(req.server)
    steps = steps_of_json(program.steps)
    start, zone, ahead = _start(ops, req, min(step.offset for step in steps))
    runner.check(program, target.name)  # as ProgramRunner.start_program checks before storing
    tried = [
        await _step(target, program, start, zone, number, step)
        for number, step in enumerate(steps, 1)
    ]
    notes = [
        _(
            "{player} is not online on {server} now: a run waits until they are back.",
            player=t.step.as_player,
            server=target.name,
        )
        for t in tried
        if t.conditions is not None and t.conditions.player_online is False
    ]
    return ProgramTried(program, target, start, zone, ahead, tuple(tried), tuple(notes))


# -- what a face shows ----------------------------------------------------------------------


def _clock(when: datetime, zone: ZoneInfo) -> str:
    return when.astimezone(zone).strftime("%H:%M %Z")


def _command(would: WouldRun) -> str:
    if would.executor is not None:
        return _(
            "`{command}`, as the player {player}", command=would.command, player=would.executor
        )
    return _("`{command}`, as the server", command=would.command)


def _step_lines(tried: StepTried, zone: ZoneInfo) -> list[str]:
    step = tried.step
    said = {
        "n": tried.number,
        "what": _command(tried.would),
        "at": step.at,
        "due": stamp(tried.due),
        "clock": _clock(tried.due, zone),
    }
    if step.after is None:
        line = _("{n}. {what}, at {at}: {due} ({clock})", **said)
    else:
        line = _(
            "{n}. {what}, at {at} once step {after} succeeded: {due} at the earliest ({clock}); "
            "it waits for step {after} at most {limit}, {then}",
            **said,
            after=step.after,
            limit=human(limit_seconds(step.limit)),
            then=_(_ON_FAILURE[step.on_failure]),
        )
    return [line, *tried.dst]


def _conditions(tried: ProgramTried) -> Section | None:
    asked = [t for t in tried.steps if t.conditions is not None]
    if not asked:
        return None
    first = asked[0].conditions  # one look at the server serves every step
    assert first is not None
    away = unreached(tried.server.name, first)
    if away is not None:
        return away
    lines = [online_line(first)]
    good = True
    for t in asked:
        now, cond = t.conditions, pack_cond(t.step.conditions() or None)
        assert now is not None
        good = good and runs_now(now)
        if cond is None:  # only its player, said in the notes when away
            continue
        lines.append(_("Step {n}: {conditions}", n=t.number, conditions=describe(cond)))
        lines += term_lines(now)
        if now.then is not None:
            lines.append(_(THEN_SAID[now.then]))
    return Section(_(CONDITIONS_TITLE), tuple(lines), tone="ok" if good else "warn")


def sections(tried: ProgramTried) -> tuple[Section, ...]:
    """The steps (one section: a program has up to 30, a message 10 embeds), then the
    conditions now of the steps that have them."""
    lines = [line for t in tried.steps for line in _step_lines(t, tried.zone)]
    steps = Section(_("The steps, in {zone}", zone=tried.zone.key), tuple(lines), tone="planned")
    found = [steps, _conditions(tried)]
    return tuple(s for s in found if s is not None)


def _conditions_facts(now: ConditionsNow | None) -> dict[str, Any] | None:
    if now is None:
        return None
    return {
        "reached": now.reached,
        "error": now.error or None,
        "players": list(now.players),
        "terms": [{"term": term, "holds": holds} for term, holds in now.terms],
        "then": now.then,
        "player_online": now.player_online,
    }


def facts(tried: ProgramTried) -> dict[str, Any]:
    """A program's dry run as data (the JSON API's): instants in ISO 8601 in the start's zone
    (the offset tells a repeated hour's two passes apart), offsets and limits in seconds."""
    zone = tried.zone
    return {
        "program": tried.program.name,
        "version": tried.program.version,
        "server": tried.server.name,
        "start": tried.start.astimezone(zone).isoformat(),
        "timezone": zone.key,
        "moved_ahead": tried.ahead,
        "steps": [
            {
                "step": t.number,
                "command": t.would.command,
                "executor": t.would.executor,
                "at": t.step.at,
                "offset": t.step.offset,
                "due": t.due.astimezone(zone).isoformat(),
                "after": t.step.after,
                "limit": limit_seconds(t.step.limit) if t.step.after is not None else None,
                "on_failure": t.step.on_failure if t.step.after is not None else None,
                "dst": list(t.dst),
                "conditions": _conditions_facts(t.conditions),
            }
            for t in tried.steps
        ],
        "notes": list(tried.notes),
    }


def _said(tried: ProgramTried) -> str:
    said = _(
        "A dry run of program `{name}` (version {version}) on {server}: it would start at "
        "{start}. Nothing was sent to the server, and nothing was saved.",
        name=tried.program.name,
        version=tried.program.version,
        server=tried.server.name,
        start=stamp(tried.start),
    )
    if tried.ahead:
        said += _(
            " Its first step is {ahead} before the start, so the start is in {ahead}.",
            ahead=human(tried.ahead),
        )
    return "\n".join([said, *tried.notes])


def _repeats(ops: Operations, req: ProgramDryRunRequest) -> tuple[dict[str, Any], Section] | None:
    """A repeat's next DRY_RUNS starts and its clock changes ahead, as `program repeat` would
    start it (None: no `repeat`)."""
    if req.repeat is None:
        return None
    spec = build_spec(
        req.when,
        req.repeat,
        req.timezone,
        None,
        now=ops.now(),
        default_timezone=ops.scheduler().default_timezone,
        dst_repeated=req.dst_repeated,
        dst_skipped=req.dst_skipped,
    )
    starts = next_runs(spec, DRY_RUNS)
    changes = dst_facts(spec, spec.first_due)
    title = ngettext(
        "Repeated {how}: the next start, in {zone}",
        "Repeated {how}: the next {n} starts, in {zone}",
        len(starts),
        how=repeat_text(spec),
        zone=spec.timezone,
    )
    said = {
        "every": req.repeat,
        "timezone": spec.timezone,
        "starts": [t.isoformat() for t in starts],
        "dst": [{"name": name, "text": text} for name, text in changes],
    }
    return said, Section(title, planned_lines(starts, changes), tone="planned")


async def _handler(ops: Operations, caller: Caller, req: ProgramDryRunRequest) -> Outcome:
    outcome = await _tried(ops, caller, req)
    repeats = _repeats(ops, req)
    if repeats is None:
        return outcome
    said, section = repeats
    return replace(
        outcome,
        facts={**outcome.facts, "repeat": said},
        sections=(section, *outcome.sections)[:10],
    )


async def _tried(ops: Operations, caller: Caller, req: ProgramDryRunRequest) -> Outcome:
    servers = target_servers(ops, req.server)
    if ops.group(req.server) is None:
        tried = await try_program(ops, caller, req)
        return Outcome(_said(tried), facts(tried), sections=sections(tried))
    # a start on a group is one run a member, every one checked first: tried so, each named
    each: list[ProgramTried] = []
    for server in servers:
        try:
            each.append(await try_program(ops, caller, req.model_copy(update={"server": server})))
        except errors.ValidationError as exc:
            raise on_server(server, exc) from None
    text = "\n\n".join(_said(t) for t in each)
    # the steps of each server, named (a message holds 10 sections; the conditions now are
    # in the facts)
    shown = tuple(replace(sections(t)[0], author=t.server.name) for t in each)[:10]
    return Outcome(text, {"group": req.server, "runs": [facts(t) for t in each]}, sections=shown)


PROGRAM_DRYRUN = OperationSpec(
    name="program dryrun",
    summary=N_("Try a program start without effect: each step's command, time and conditions."),
    request=ProgramDryRunRequest,
    rank=Rank.MODERATOR,
    handler=_handler,
)
