"""`/dryrun`: a `/schedule` request tried without effect. Every check `/schedule` makes
(:func:`bot.operations.schedule.check`, so a bad request is refused in the same words), then
what it would do: the command the game would run (built by the code that builds a real task's
request, ``PackClient.task_request``), with its player, and a wall-clock row's announcements;
the next runs (a wall-clock row's with its DST notes, as the preview says them; a game-time
task's game ticks, with an estimate in wall time); and its conditions against the server as it
is now. The server is only read (`time query gametime`, `list`); nothing is sent that changes
it, nothing is stored, and no audit entry is made.

The parts (:class:`WouldRun`, :class:`ConditionsNow`, :func:`conditions_now`, the sections) do
not depend on where the request came from, so a step of a longer plan can be tried the same
way.
"""

from __future__ import annotations

__all__ = [
    "DRYRUN",
    "DRY_RUNS",
    "ConditionsNow",
    "DryRunRequest",
    "Tried",
    "WouldRun",
    "conditions_now",
    "dry_run",
    "facts",
    "sections",
]

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from bot import errors
from bot.i18n import N_, _, ngettext
from bot.i18n.formats import stamp
from bot.minecraft.conditions import Conditions, describe, held
from bot.minecraft.handover import listed_players
from bot.minecraft.pack_base import NOMINAL_TPS
from bot.minecraft.pack_input import MAX_INT, TaskRequest
from bot.operations import groups, schedule
from bot.operations.ranks import Rank
from bot.operations.registry import OperationSpec, Outcome
from bot.operations.sections import Section
from bot.times.dst_words import dst_facts
from bot.times.when import human, next_runs
from bot.wallclock.staging import announcement

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices

DRY_RUNS = 10  # the next runs a dry run lists

Then = Literal["run", "skip", "wait"]


class DryRunRequest(schedule.ScheduleRequest):
    """`/dryrun`: `/schedule`'s request, tried without effect."""


@dataclass(frozen=True)
class WouldRun:
    """One command the game would run: as the pack runs it, as the player `executor` (None:
    the server); `before`: an announcement this many seconds before each run (0: the task)."""

    command: str
    executor: str | None = None
    before: int = 0


@dataclass(frozen=True)
class ConditionsNow:
    """The conditions against the server as it is now. `reached` False: it could not be asked
    (`error` says why). Else the players online, each `require` term with whether it holds,
    and what a run due now would do (`then`: run, skip, or wait for them); `player_online`:
    whether the player the task runs as is online (None: it runs as no player)."""

    reached: bool
    error: str = ""
    players: tuple[str, ...] = ()
    terms: tuple[tuple[str, bool], ...] = ()
    then: Then | None = None
    player_online: bool | None = None


@dataclass(frozen=True)
class Tried:
    """What a request would do on `server`: the commands; a wall-clock row's next `runs` (UTC,
    `timezone` the one its times are read in) and DST notes; a game-time task's `ticks` (read
    at `game_time`; None when the server could not be asked) and their wall-time estimates
    (`runs`); the conditions now; notes for the moderator."""

    server: ServerServices
    wallclock: bool
    commands: tuple[WouldRun, ...]
    runs: tuple[datetime, ...] = ()
    timezone: str | None = None
    dst: tuple[tuple[str, str], ...] = ()
    game_time: int | None = None
    ticks: tuple[int, ...] = ()
    conditions: ConditionsNow | None = None
    notes: tuple[str, ...] = ()


async def conditions_now(
    target: ServerServices, cond: Conditions | None, player: str | None
) -> ConditionsNow | None:
    """The conditions and the task's player against the players online now (one `list`);
    None when there is neither to ask about. A server that cannot be asked is said, not
    raised."""
    if cond is None and player is None:
        return None
    try:
        online = await listed_players(target.pack)
    except errors.BotError as exc:
        return ConditionsNow(False, error=str(exc.text))
    names = {n.lower() for n in online}  # names are not case-sensitive
    terms = tuple(held(cond, online)) if cond is not None else ()
    then: Then | None = None
    if cond is not None:
        then = "run" if all(ok for _term, ok in terms) else "wait" if cond.wait else "skip"
    return ConditionsNow(
        True,
        players=tuple(online),
        terms=terms,
        then=then,
        player_online=player.lower() in names if player is not None else None,
    )


async def dry_run(ops: Operations, caller: Caller, req: schedule.ScheduleRequest) -> Tried:
    """What `/schedule` would do with `req`, after every check it makes; nothing sent that
    changes the server, nothing stored."""
    target = schedule.check(ops, caller, req)
    task_id = req.id or schedule.generated_id(caller)
    cond = req.conditions()
    if req.wallclock:
        return await _wall(ops, target, req, task_id, cond)
    return await _game(ops, target, req, task_id, cond)


async def _wall(
    ops: Operations,
    target: ServerServices,
    req: schedule.ScheduleRequest,
    task_id: str,
    cond: Conditions | None,
) -> Tried:
    spec = await schedule.wall_spec(ops, target, req, task_id)
    # a run is handed over as a task due now (bot.minecraft.handover)
    request = target.pack.task_request(
        req.run,
        0,
        "tick",
        task_id,
        retry=req.retry,
        retry_delay=req.retry_delay,
        as_player=req.as_player,
        cond=cond.pack_fields() if cond else None,
    )
    said = [
        WouldRun(announcement(target.config, task_id, offset), before=offset)
        for offset in spec.announce
    ]
    now = await conditions_now(target, cond, req.as_player)
    notes = []
    if now is not None and now.player_online is False:
        notes.append(
            _(
                "{player} is not online on {server} now: a run waits until they are back.",
                player=req.as_player,
                server=target.name,
            )
        )
    return Tried(
        target,
        True,
        (_task(request), *said),
        runs=tuple(next_runs(spec, DRY_RUNS)),
        timezone=spec.timezone,
        dst=tuple(dst_facts(spec, spec.first_due)),
        conditions=now,
        notes=tuple(notes),
    )


async def _game(
    ops: Operations,
    target: ServerServices,
    req: schedule.ScheduleRequest,
    task_id: str,
    cond: Conditions | None,
) -> Tried:
    request = target.pack.task_request(
        req.run,
        req.time or 0,
        req.unit or "tick",
        task_id,
        retry=req.retry,
        retry_delay=req.retry_delay,
        interval=req.every,
        at_tick=req.at,
        as_player=req.as_player,
        cond=cond.pack_fields() if cond else None,
    )
    try:
        game_time = await target.pack.game_time()  # vanilla's `time query`: a read
    except errors.BotError as exc:
        unreachable = ConditionsNow(False, error=str(exc.text))
        now = unreachable if cond is not None or req.as_player else None
        return Tried(target, False, (_task(request),), conditions=now, notes=(_away(target, exc),))
    ticks = request.due_ticks(game_time, DRY_RUNS if req.every is not None else 1)
    if ticks[0] > MAX_INT:
        raise errors.ValidationError(
            _("It would be due after game time {last}, the last the pack counts to.", last=MAX_INT),
            field="time",
        )
    start = ops.now()
    estimates = tuple(start + timedelta(seconds=(t - game_time) / NOMINAL_TPS) for t in ticks)
    now = await conditions_now(target, cond, req.as_player)
    notes = []
    if now is not None and now.player_online is False:
        notes.append(
            _(
                "{player} is not online on {server} now: /schedule would refuse this task, "
                "which runs as a player who is there when it is made.",
                player=req.as_player,
                server=target.name,
            )
        )
    paused = await schedule.paused_note(target)
    if paused is not None:
        notes.append(paused)
    return Tried(
        target,
        False,
        (_task(request),),
        runs=estimates,
        game_time=game_time,
        ticks=tuple(ticks),
        conditions=now,
        notes=tuple(notes),
    )


def _task(request: TaskRequest) -> WouldRun:
    # the player the submit runs as is the task's executor: the pack runs it `execute as` them
    return WouldRun(request.run, request.player)


def _away(target: ServerServices, exc: errors.BotError) -> str:
    return _(
        "{server} could not be reached, so its game time and the conditions as they stand now "
        "are not known: {error}",
        server=target.name,
        error=exc.text,
    )


# -- what a face shows ----------------------------------------------------------------------


def _command_line(would: WouldRun) -> str:
    if would.before:
        return _(
            "{wait} before each run, to everyone online: `{command}`",
            wait=human(would.before),
            command=would.command,
        )
    if would.executor is not None:
        return _(
            "`{command}`, as the player {player}", command=would.command, player=would.executor
        )
    return _("`{command}`, as the server", command=would.command)


def planned_lines(runs: Sequence[datetime], dst: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The next runs, one a line, then the clock changes ahead of them (name: what happens)."""
    return (*(stamp(t) for t in runs), *(f"{name}: {text}" for name, text in dst))


def _times(tried: Tried) -> Section:
    if tried.wallclock:
        title = ngettext(
            "The next run, in {zone}",
            "The next {n} runs, in {zone}",
            len(tried.runs),
            zone=tried.timezone,
        )
        return Section(title, planned_lines(tried.runs, tried.dst), tone="planned")
    title = _("When, in game time")
    if tried.game_time is None:
        return Section(title, (_("Not known: the server could not be asked."),), tone="warn")
    lines = [_("The game time is {now} now.", now=tried.game_time)]
    lines += [
        _("tick {tick}, about {when}", tick=tick, when=stamp(when))
        for tick, when in zip(tried.ticks, tried.runs, strict=True)
    ]
    footer = _(
        "The times are an estimate at {tps} ticks a second: a server that lags, or that pauses "
        "while empty, runs them later.",
        tps=int(NOMINAL_TPS),
    )
    return Section(title, tuple(lines), footer=footer)


THEN_SAID = {
    "run": N_("Due now, it would run."),
    "skip": N_("Due now, this run would be skipped."),
    "wait": N_("Due now, it would not run yet: it would wait for them."),
}
CONDITIONS_TITLE = N_("The conditions now")


def unreached(server: str, now: ConditionsNow) -> Section | None:
    """The conditions section when the server could not be asked (else None)."""
    if now.reached:
        return None
    said = _(
        "{server} could not be reached, so whether they hold now is not known: {error}",
        server=server,
        error=now.error,
    )
    return Section(_(CONDITIONS_TITLE), (said,), tone="warn")


def online_line(now: ConditionsNow) -> str:
    if not now.players:
        return _("Nobody is online.")
    return ngettext(
        "{n} player online: {names}",
        "{n} players online: {names}",
        len(now.players),
        names=", ".join(now.players),
    )


def term_lines(now: ConditionsNow) -> list[str]:
    """Each term of the conditions as it stands now."""
    return [
        _("`{term}`: holds", term=term) if holds else _("`{term}`: does not hold", term=term)
        for term, holds in now.terms
    ]


def runs_now(now: ConditionsNow) -> bool:
    """Due now, it would run (its conditions hold, its player is on)."""
    return now.then in (None, "run") and now.player_online is not False


def _conditions(tried: Tried, cond: Conditions | None) -> Section | None:
    now = tried.conditions
    if now is None:
        return None
    away = unreached(tried.server.name, now)
    if away is not None:
        return away
    lines = [online_line(now), *term_lines(now)]
    if cond is not None:
        lines.append(describe(cond.pack_fields()))
    if now.then is not None:
        lines.append(_(THEN_SAID[now.then]))
    return Section(_(CONDITIONS_TITLE), tuple(lines), tone="ok" if runs_now(now) else "warn")


def sections(tried: Tried, cond: Conditions | None) -> tuple[Section, ...]:
    """What a face shows of a dry run after its sentence and notes: the commands, the times,
    the conditions."""
    commands = Section(_("What the game would run"), tuple(map(_command_line, tried.commands)))
    found = [commands, _times(tried), _conditions(tried, cond)]
    return tuple(s for s in found if s is not None)


def facts(tried: Tried) -> dict[str, Any]:
    """A dry run as data (the JSON API's): instants in ISO 8601, ticks as numbers."""
    now = tried.conditions
    return {
        "server": tried.server.name,
        "kind": "wallclock" if tried.wallclock else "game",
        "commands": [
            {"command": c.command, "executor": c.executor} for c in tried.commands if not c.before
        ],
        "announcements": [
            {"command": c.command, "seconds_before": c.before} for c in tried.commands if c.before
        ],
        "next_runs": [t.isoformat() for t in tried.runs] if tried.wallclock else [],
        "timezone": tried.timezone,
        "dst": [list(pair) for pair in tried.dst],
        "game_time": tried.game_time,
        "due_ticks": list(tried.ticks),
        "estimated_runs": [] if tried.wallclock else [t.isoformat() for t in tried.runs],
        "conditions": None
        if now is None
        else {
            "reached": now.reached,
            "error": now.error or None,
            "players": list(now.players),
            "terms": [{"term": term, "holds": holds} for term, holds in now.terms],
            "then": now.then,
            "player_online": now.player_online,
        },
        "notes": list(tried.notes),
    }


def _said(tried: Tried) -> str:
    """The sentence, then the notes, a line each."""
    said = _(
        "A dry run of this /schedule on {server}: nothing was sent to the server, and nothing "
        "was saved.",
        server=tried.server.name,
    )
    return "\n".join([said, *tried.notes])


async def _handler(ops: Operations, caller: Caller, req: DryRunRequest) -> Outcome:
    cond = req.conditions()
    if ops.group(req.server) is not None:  # each server of the group, as /schedule does
        fanned = await groups.read(ops, caller, req, "/dryrun", dry_run, _said)
        servers = [
            {
                "server": o.server,
                "ok": o.ok,
                "outcome": o.text,
                "dry_run": facts(o.value) if o.value is not None else None,
            }
            for o in fanned.outcomes
        ]
        shown = [
            replace(section, author=o.server)
            for o in fanned.outcomes
            if o.value is not None
            for section in sections(o.value, cond)
        ]
        return Outcome(
            fanned.text, {"group": fanned.group, "servers": servers}, sections=tuple(shown)
        )
    tried = await dry_run(ops, caller, req)
    return Outcome(_said(tried), facts(tried), sections=sections(tried, cond))


DRYRUN = OperationSpec(
    name="dryrun",
    summary=N_("Try a /schedule without effect: its commands, next times and conditions now."),
    request=DryRunRequest,
    rank=Rank.MODERATOR,
    handler=_handler,
)
