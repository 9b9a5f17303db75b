"""Making tasks: a game-time task in the pack's queue, or a wall-clock row the bot hands over at
its time. One request covers both, as `/schedule` does; the options of the two kinds may not mix.
"""

from __future__ import annotations

__all__ = [
    "CHOICE_NAMES",
    "DYNAMIC_PREFIX",
    "FIELD_HELP",
    "MAX_ID",
    "MAX_INT",
    "PREFIXES",
    "PREVIEW_RUNS",
    "UNITS",
    "DynamicRequest",
    "Preview",
    "ScheduleFields",
    "ScheduleRequest",
    "Scheduled",
    "check",
    "preview",
    "schedule",
    "schedule_dynamic",
    "wall_spec",
]

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.i18n import _, ngettext
from bot.i18n.formats import stamp
from bot.minecraft.conditions import Conditions, parse_conditions
from bot.minecraft.handover import pause_when_empty_seconds, players_online
from bot.minecraft.pack_input import MAX_ID, MAX_INT, check_id, check_player
from bot.minecraft.task_fields import (
    UNITS,
    AfterWait,
    Command,
    IfNot,
    MaxWait,
    Period,
    Player,
    Require,
    Retries,
    TaskId,
    Ticks,
    TimeText,
    Unit,
    ZoneName,
)
from bot.operations.ranks import Rank
from bot.operations.registry import CHOICE_NAMES_KEY
from bot.store.schedules import Creator, OnDoubt
from bot.times.dst import DstRepeated, DstSkipped
from bot.times.dst_words import dst_facts
from bot.times.when import next_runs

if TYPE_CHECKING:
    from bot.minecraft.pack_tasks import Task
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices
    from bot.store.schedules import Schedule
    from bot.times.when import Spec

DYNAMIC_PREFIX = "discord-"
# the start of the ids the bot makes up, by face: a moderator can tell where a task came from
PREFIXES = {"discord": DYNAMIC_PREFIX, "console": DYNAMIC_PREFIX, "web": "web-", "api": "web-"}
PREVIEW_RUNS = 5  # the next runs a preview shows


# each option of a task in a moderator's words: the descriptions of /schedule's slash options
# (cogs/schedule.py) and of every face derived from a request with these fields (/dryrun, the
# API's schema)
FIELD_HELP: Final[dict[str, str]] = {
    "run": "The Minecraft command to run (without the leading /).",
    "time": "How long to wait, in `unit`s (leave out when you give `at`).",
    "unit": "The unit of `time`, needed with it (game_day = 24000 ticks).",
    "id": "A name for the task, to cancel or pause it later (default: a generated one).",
    "retry": "How many times to retry when the command fails.",
    "retry_delay": "Ticks between retries.",
    "every": "Repeat every this many ticks.",
    "at": "Run at this absolute game tick instead of after `time`.",
    "as_player": "Run as this player (waits while they are offline).",
    "when": "Wall-clock time: 20:00, fri 20:00, tomorrow 18:30, 2026-12-05 20:00, in 90m.",
    "repeat": "Repeat on the wall clock: 30m, 1d, or cron such as `0 20 * * fri`.",
    "timezone": "IANA time zone for `when`/`repeat`, e.g. Europe/Berlin (default: the bot's).",
    "announce": "Countdown told to players before each run, e.g. 5m,1m,10s.",
    "require": "Run only if: players>=N, players<N, empty or online:<player> (commas: all).",
    "if_not": "When `require` is not met: skip this run (default) or wait for it.",
    "max_wait": "With if_not wait: how long to wait at most, e.g. 10m.",
    "after_wait": "With if_not wait: run or skip (default) when the wait is over.",
    "on_doubt": "If a crash leaves it unknown whether it ran: skip (default) or run again.",
    "dst_repeated": "The hour the clocks repeat: run in its first pass, the second or both.",
    "dst_skipped": "With a cron repeat, in the hour the clocks skip: shift to the jump or skip.",
    "server": "Which Minecraft server, or a group of them (all: every server).",
}


# the words a person picks from for an option whose values are not words to show: "second" is
# also a unit of time, which a catalog translates once (the slash choices' names, by value)
CHOICE_NAMES: Final[dict[str, dict[str, str]]] = {
    "dst_repeated": {"first": "first pass", "second": "second pass", "both": "both passes"},
    "dst_skipped": {"shift": "shift to the jump", "skip": "skip"},
}


def _about(name: str) -> Any:
    names = CHOICE_NAMES.get(name)
    extra = {CHOICE_NAMES_KEY: names} if names else None
    return Field(description=FIELD_HELP[name], json_schema_extra=extra)  # type: ignore[arg-type]


class ConditionFields(BaseModel):
    """The conditions checked when a task is due (bot.minecraft.conditions): /schedule's, for
    both kinds, and /event's for its start task."""

    require: Annotated[Require | None, _about("require")] = None
    if_not: Annotated[IfNot | None, _about("if_not")] = None
    max_wait: Annotated[MaxWait | None, _about("max_wait")] = None
    after_wait: Annotated[AfterWait | None, _about("after_wait")] = None

    def condition_options(self) -> dict[str, str]:
        """The condition options given, by name (what a wall-clock row stores)."""
        given = {
            "require": self.require,
            "if_not": self.if_not,
            "max_wait": self.max_wait,
            "after_wait": self.after_wait,
        }
        return {k: v for k, v in given.items() if v is not None}

    def conditions(self) -> Conditions | None:
        """The conditions, or ValidationError naming the option at fault."""
        return parse_conditions(self.require, self.if_not, self.max_wait, self.after_wait)


class ScheduleFields(ConditionFields):
    """What a task is: a command after some game time (`time`+`unit`, or at the tick `at`,
    optionally repeating `every` ticks), or at a wall-clock time (`when`, `repeat`, `timezone`,
    `announce`). A face whose server comes from elsewhere (the API's path) takes these."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run: Annotated[Command, _about("run")]
    time: Annotated[Ticks | None, _about("time")] = None
    # no default: a bare `time:5` was 5 ticks (a quarter second) to a moderator who meant
    # seconds; `check` asks for the unit with the choices instead
    unit: Annotated[Unit | None, _about("unit")] = None
    id: Annotated[TaskId | None, _about("id")] = None
    retry: Annotated[Retries, _about("retry")] = 0
    retry_delay: Annotated[Period, _about("retry_delay")] = 1
    every: Annotated[Period | None, _about("every")] = None
    at: int | None = Field(default=None, ge=0, le=2**63 - 1, description=FIELD_HELP["at"])
    as_player: Annotated[Player | None, _about("as_player")] = None
    when: Annotated[TimeText | None, _about("when")] = None
    repeat: Annotated[TimeText | None, _about("repeat")] = None
    timezone: Annotated[ZoneName | None, _about("timezone")] = None
    announce: Annotated[TimeText | None, _about("announce")] = None
    # what the crash guard does when a crash leaves it unknown whether the task ran
    # (bot.background.doubt); None: skip, the default
    on_doubt: Annotated[OnDoubt | None, _about("on_doubt")] = None
    # what a repeating wall-clock row does when the clocks change (bot.times.dst): in the hour
    # they repeat, and in the hour they skip; None: the default
    dst_repeated: Annotated[DstRepeated | None, _about("dst_repeated")] = None
    dst_skipped: Annotated[DstSkipped | None, _about("dst_skipped")] = None

    def doubt_option(self) -> dict[str, str]:
        """`on_doubt` when it is not the default (what the audit entry and the row keep)."""
        return {"on_doubt": "run"} if self.on_doubt == "run" else {}

    def wall(self) -> dict[str, str | None]:
        return {
            "when": self.when,
            "repeat": self.repeat,
            "timezone": self.timezone,
            "announce": self.announce,
        }

    def dst_options(self) -> dict[str, str]:
        """The DST policy options given (what a wall-clock row stores; None: the default)."""
        return {
            k: v
            for k, v in (("dst_repeated", self.dst_repeated), ("dst_skipped", self.dst_skipped))
            if v is not None
        }

    @property
    def wallclock(self) -> bool:
        return any(v is not None for v in self.wall().values()) or bool(self.dst_options())


class ScheduleRequest(ScheduleFields):
    """`/schedule` on a server (default: the only one)."""

    server: Annotated[str | None, _about("server")] = None


class DynamicRequest(BaseModel):
    """`/schedule_dynamic`: a command after some game time under a new unique id."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run: Command
    time: Ticks
    unit: Unit
    prefix: str = Field(default=DYNAMIC_PREFIX, min_length=1, max_length=32)
    server: str | None = None


@dataclass(frozen=True)
class Scheduled:
    """What was made: `task` for a game-time task (as the pack shows it, None if it ran
    already), `planned` and its next runs for a wall-clock row; `text` is the sentence."""

    server: ServerServices
    task_id: str
    text: str
    task: Task | None = None
    planned: Schedule | None = None
    upcoming: tuple[datetime, ...] = ()


@dataclass(frozen=True)
class Preview:
    """The first runs a wall-clock request would have (UTC; `timezone` is the zone its times
    are read in), nothing stored; `text` is the sentence. `dst`: for a repeating one, its DST
    policy and the clock changes of the next 12 months with the runs each touches, as
    (name, text) in the reader's language."""

    server: ServerServices
    timezone: str
    runs: tuple[datetime, ...]
    text: str
    dst: tuple[tuple[str, str], ...] = ()


def check(ops: Operations, caller: Caller, req: ScheduleRequest) -> ServerServices:
    """Everything that refuses a request before anything is sent or stored (the faces call it
    first where they must answer at once: a typo's caret is Discord's only reply)."""
    ops.require(caller, Rank.MODERATOR, "/schedule")
    if req.time is not None and req.unit is None and not req.wallclock:
        raise errors.ValidationError(
            _(
                "`time` needs a `unit`: one of {units} (game_day = 24000 ticks).",
                units=", ".join(UNITS),
            ),
            field="unit",
        )
    target = ops.server(req.server)
    if req.wallclock:
        game = [
            n
            for n, v in (("time", req.time), ("every", req.every), ("at", req.at))
            if v is not None
        ]
        if game or req.unit is not None:
            mixed = ", ".join(f"`{n}`" for n in (game or ["unit"]))
            wall = [n for n, v in req.wall().items() if v is not None] + [*req.dst_options()]
            given = ", ".join(f"`{n}`" for n in wall)
            raise errors.ValidationError(
                _(
                    "{given} set a wall-clock time and {mixed} a game time: use one or the "
                    "other, not both.",
                    given=given,
                    mixed=mixed,
                ),
                field=wall[0],
            )
        ops.scheduler()
    elif (req.time is None) == (req.at is None):
        raise errors.ValidationError(
            _("Give either `time` (a delay) or `at` (a game tick)."), field="time"
        )

    req.conditions()
    # what the pack would refuse of the id and the player, said before anything is sent
    if req.id is not None:
        with errors.naming("id"):
            check_id(req.id)
    if req.as_player is not None:
        with errors.naming("as_player"):
            check_player(req.as_player)
    target.checker.check(req.run)
    return target


async def schedule(ops: Operations, caller: Caller, req: ScheduleRequest) -> Scheduled:
    target = check(ops, caller, req)
    if req.wallclock:
        return await _plan(ops, caller, target, req)
    request = dict(
        run=req.run,
        time=req.time,
        unit=req.unit or "tick",
        id=req.id,
        retry=req.retry,
        retry_delay=req.retry_delay,
        every=req.every,
        at=req.at,
        as_player=req.as_player,
        **req.condition_options(),
        **req.doubt_option(),
    )
    cond = req.conditions()
    extras = (
        req.retry
        or req.every is not None
        or req.at is not None
        or req.as_player
        or cond is not None
        or req.doubt_option()
    )
    task: Task | None
    if req.id is None and not extras:
        task_id = await target.pack.schedule_dynamic(
            req.run, req.time or 0, req.unit or "tick", PREFIXES[caller.face]
        )
        outcome = _("Scheduled `{id}` on {server}.", id=task_id, server=target.name)
        await ops.audit(caller, target, "schedule", request, outcome)
        try:
            task = await target.pack.show(task_id)
        except errors.BotError:  # it is queued: a failed read-back only leaves the details out
            task = None
    else:
        # the pack's plain schedule needs an id; a generated one keeps the request unambiguous
        task_id = req.id or generated_id(caller)
        task = await target.pack.schedule(
            req.run,
            req.time or 0,
            req.unit or "tick",  # with `at`, no delay: the unit is not used
            task_id,
            retry=req.retry,
            retry_delay=req.retry_delay,
            interval=req.every,
            at_tick=req.at,
            as_player=req.as_player,
            cond=cond.pack_fields() if cond else None,
            on_doubt=req.on_doubt,
        )
        outcome = _("Scheduled `{id}` on {server}.", id=task_id, server=target.name)
        await ops.audit(caller, target, "schedule", request, outcome)
    note = await paused_note(target)
    text = f"{outcome}\n{note}" if note else outcome
    return Scheduled(target, task_id, text, task=task)


async def preview(
    ops: Operations, caller: Caller, req: ScheduleRequest, count: int = PREVIEW_RUNS
) -> Preview:
    """The next runs of a wall-clock request, after every check `schedule` makes, with nothing
    stored: the step a face shows before its Schedule button."""
    target = check(ops, caller, req)
    if not req.wallclock:
        raise errors.ValidationError(
            _("Only a wall-clock time has runs to preview: give `when` or `repeat`."),
            field="when",
        )
    spec = await wall_spec(ops, target, req, req.id or generated_id(caller))
    runs = tuple(next_runs(spec, count))
    text = ngettext(
        "Nothing is saved yet: the next run, in {zone}.",
        "Nothing is saved yet: the next {n} runs, in {zone}.",
        len(runs),
        zone=spec.timezone,
    )
    return Preview(target, spec.timezone, runs, text, tuple(dst_facts(spec, spec.first_due)))


async def wall_spec(
    ops: Operations, target: ServerServices, req: ScheduleRequest, task_id: str
) -> Spec:
    """The Spec a wall-clock request's row would have (its runs, its DST policy), after every
    check the scheduler makes before it stores a row; nothing stored."""
    return await ops.scheduler().preview(
        server=target.name,
        command=req.run,
        task_id=task_id,
        when=req.when,
        repeat=req.repeat,
        timezone=req.timezone,
        announce=req.announce,
        retry=req.retry,
        retry_delay=req.retry_delay,
        as_player=req.as_player,
        conditions=req.condition_options(),
        dst_repeated=req.dst_repeated,
        dst_skipped=req.dst_skipped,
    )


async def _plan(
    ops: Operations, caller: Caller, target: ServerServices, req: ScheduleRequest
) -> Scheduled:
    """A wall-clock row in the bot's database, handed to the pack at its time."""
    scheduler = ops.scheduler()
    task_id = req.id or generated_id(caller)
    row = await scheduler.create(
        server=target.name,
        command=req.run,
        task_id=task_id,
        retry=req.retry,
        retry_delay=req.retry_delay,
        as_player=req.as_player,
        created_by=Creator(caller.user_id, caller.name),
        when=req.when,
        repeat=req.repeat,
        timezone=req.timezone,
        announce=req.announce,
        conditions=req.condition_options(),
        on_doubt=req.on_doubt or "skip",
        dst_repeated=req.dst_repeated,
        dst_skipped=req.dst_skipped,
    )
    assert row.next_due is not None
    outcome = _(
        "Planned `{id}` on {server} for {when} ({relative}).",
        id=task_id,
        server=target.name,
        when=stamp(row.next_due),
        relative=stamp(row.next_due, "R"),
    )
    request = {
        "run": req.run,
        "id": task_id,
        "retry": req.retry,
        "retry_delay": req.retry_delay,
        "as_player": req.as_player,
        **req.wall(),
        **req.dst_options(),
        **req.condition_options(),
        **req.doubt_option(),
    }
    await ops.audit(caller, target, "schedule", request, outcome)
    return Scheduled(target, task_id, outcome, planned=row, upcoming=tuple(scheduler.upcoming(row)))


async def schedule_dynamic(ops: Operations, caller: Caller, req: DynamicRequest) -> Scheduled:
    ops.require(caller, Rank.MODERATOR, "/schedule_dynamic")
    target = ops.server(req.server)
    target.checker.check(req.run)
    task_id = await target.pack.schedule_dynamic(req.run, req.time, req.unit, req.prefix)
    outcome = _("Scheduled `{id}` on {server}.", id=task_id, server=target.name)
    request = {"run": req.run, "time": req.time, "unit": req.unit, "prefix": req.prefix}
    await ops.audit(caller, target, "schedule_dynamic", request, outcome)
    return Scheduled(target, task_id, outcome)


def generated_id(caller: Caller) -> str:
    return f"{PREFIXES[caller.face]}{caller.ref:x}"


async def paused_note(target: ServerServices) -> str | None:
    """Why a game-time task may not run on time: nobody online on a server that pauses when
    empty (its game time stands still); None when it ticks or we cannot tell."""
    pause = pause_when_empty_seconds(target.config)
    if pause <= 0:
        return None
    try:
        online = await players_online(target.pack)
    except errors.BotError:
        return None
    if online:
        return None
    return _(
        "Note: nobody is online on {server} and it pauses when empty "
        "(pause-when-empty-seconds={pause}), so game time stands still and this task "
        "waits until a player joins. For a wall-clock time that runs anyway, use `when`.",
        server=target.name,
        pause=pause,
    )
