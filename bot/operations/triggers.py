"""`/trigger`: add, list, test, pause, resume and remove triggers (bot.triggers), declared once
in the registry so every face has them. Moderators use them all, except that a `log` trigger
(a pattern over the server's log) is added, changed and removed by admins only: what a log says
is partly written by others, so an admin decides what may start from it.

`trigger test` is the dry run: whether a sample log line (or a player's name, or the count
online now) would fire it and what its program would run, as whom; nothing is sent but `list`,
nothing stored or audited.
"""

from __future__ import annotations

__all__ = ["TRIGGER_OPERATIONS", "TriggerAddRequest", "TriggerRef", "TriggerTestRequest"]

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.i18n import N_, _
from bot.i18n.formats import stamp
from bot.minecraft.handover import listed_players
from bot.operations.discord_events import EventRef
from bot.operations.discord_events import find as find_event
from bot.operations.ranks import Rank
from bot.operations.registry import OperationSpec, Outcome
from bot.programs.model import ProgramName, check_name
from bot.store.schedules import Creator
from bot.store.triggers import Trigger, TriggerSpec, TriggerStore
from bot.triggers.model import (
    MAX_PATTERN,
    MAX_PER_DAY,
    MAX_PLAYERS,
    check_trigger,
    compile_pattern,
    joined_player,
)

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.triggers.watcher import TriggerWatcher

KIND_NAMES = {
    "started": N_("the server started"),
    "players": N_("the players online crossed a count"),
    "join": N_("a player joined"),
    "log": N_("a log line matched a pattern"),
    "interest": N_("enough members are interested in a Discord event"),
}
_Name = Annotated[str, Field(min_length=1, max_length=64, description=N_("The trigger's name"))]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TriggerAddRequest(_Request):
    name: _Name
    kind: Annotated[
        Literal["started", "players", "join", "log", "interest"],
        Field(description=N_("What starts it: started, players, join, log or interest")),
    ]
    program: Annotated[ProgramName, Field(description=N_("The program it starts"))]
    server: Annotated[str | None, Field(description=N_("The server it watches"))] = None
    players: Annotated[
        int | None,
        Field(ge=1, le=MAX_PLAYERS, description=N_("players: the count to cross")),
    ] = None
    direction: Annotated[
        Literal["up", "down"] | None,
        Field(description=N_("players: up (rises to it) or down (falls below it)")),
    ] = None
    player: Annotated[
        str | None,
        Field(max_length=16, description=N_("join: only this player (default: anyone)")),
    ] = None
    pattern: Annotated[
        str | None,
        Field(
            max_length=MAX_PATTERN,
            description=N_("log: the line's text, * for any text, {player} for a name"),
        ),
    ] = None
    event: Annotated[
        str | None,
        Field(max_length=100, description=N_("interest: the /event, by number or name")),
    ] = None
    interested: Annotated[
        int | None,
        Field(
            ge=0, le=MAX_PLAYERS, description=N_("interest: the members interested it needs (0)")
        ),
    ] = None
    deadline: Annotated[
        str | None,
        Field(max_length=40, description=N_("interest: how long before the start (default 1h)")),
    ] = None
    if_not: Annotated[
        Literal["postpone", "cancel"] | None,
        Field(description=N_("interest: too few by the deadline: postpone or cancel the event")),
    ] = None
    postpone: Annotated[
        str | None,
        Field(max_length=40, description=N_("interest: how far to postpone (default 1d)")),
    ] = None
    cooldown: Annotated[
        str | None,
        Field(max_length=40, description=N_("No second firing sooner than this (default 10m)")),
    ] = None
    per_day: Annotated[
        int | None,
        Field(ge=1, le=MAX_PER_DAY, description=N_("At most this many firings a day (default 24)")),
    ] = None


class TriggerRef(_Request):
    name: _Name


class TriggerListRequest(_Request):
    server: Annotated[str | None, Field(description=N_("Only this server's triggers"))] = None


class TriggerTestRequest(_Request):
    name: _Name
    line: Annotated[
        str | None,
        Field(max_length=1000, description=N_("A log line's text to try (log and join)")),
    ] = None


def _watcher(ops: Operations) -> TriggerWatcher:
    return ops.trigger_watcher()


def _store(ops: Operations) -> TriggerStore:
    return _watcher(ops).store


def _facts(t: Trigger) -> dict[str, Any]:
    spec = t.spec
    return {
        "name": spec.name,
        "kind": spec.kind,
        "server": spec.server,
        "program": spec.program,
        "players": spec.players,
        "direction": spec.direction,
        "player": spec.player,
        "pattern": spec.pattern,
        "event": spec.event,
        "interested": spec.interested,
        "deadline_seconds": spec.deadline,
        "if_not": spec.if_not,
        "postpone_seconds": spec.postpone,
        "cooldown_seconds": spec.cooldown,
        "per_day": spec.per_day,
        "enabled": t.enabled,
        "last_fired": t.last_fired.isoformat() if t.last_fired is not None else None,
        "fired_today": t.day_count,
    }


def _what(spec: TriggerSpec) -> str:
    if spec.kind == "players":
        word = _("rises to") if spec.direction == "up" else _("falls below")
        return _("when the players online {word} {n}", word=word, n=spec.players)
    if spec.kind == "join":
        if spec.player is not None:
            return _("when {player} joins", player=spec.player)
        return _("when a player joins")
    if spec.kind == "log":
        return _("when a log line matches `{pattern}`", pattern=spec.pattern)
    if spec.kind == "interest" and not spec.interested:
        return _("at the start of event #{event}", event=spec.event)
    if spec.kind == "interest":
        return _(
            "at the start of event #{event} once {n} members are interested ({deadline} before "
            "it at the latest, else it is {then})",
            event=spec.event,
            n=spec.interested,
            deadline=_seconds(spec.deadline or 0),
            then=_("postponed") if spec.if_not == "postpone" else _("cancelled"),
        )
    return _("when the server has started")


async def _found(ops: Operations, name: str) -> Trigger:
    trigger = await _store(ops).get(name, ops.now())
    if trigger is None:
        raise errors.NotFound(_("There is no trigger `{name}`.", name=name), field="name")
    return trigger


def _admin_for_log(ops: Operations, caller: Caller, kind: str, verb: str) -> None:
    if kind == "log":
        ops.require(caller, Rank.ADMIN, f"/trigger {verb} (kind log)")


async def _add(ops: Operations, caller: Caller, req: TriggerAddRequest) -> Outcome:
    _admin_for_log(ops, caller, req.kind, "add")
    if ops.group(req.server) is not None:
        raise errors.ValidationError(
            _("A trigger watches one server: name it with `server`."), field="server"
        )
    server = ops.server(req.server)
    event_id = None
    if req.kind == "interest":
        event_id = await _event_of(ops, caller, req)
        if event_id is not None and req.server is None:
            server = ops.services.servers.get(event_id[1]) or server
    spec = check_trigger(
        name=req.name,
        kind=req.kind,
        program=check_name(req.program),
        server=server.name,
        cooldown=req.cooldown,
        per_day=req.per_day,
        players=req.players,
        direction=req.direction,
        player=req.player,
        pattern=req.pattern,
        # another kind's `event` is refused by the check, unresolved
        event=event_id[0] if event_id is not None else None if req.event is None else 0,
        interested=req.interested,
        deadline=req.deadline,
        if_not=req.if_not,
        postpone=req.postpone,
    )
    watcher = _watcher(ops)
    program = await watcher.runner.store.latest(spec.program)
    if program is None:
        raise errors.NotFound(
            _("There is no program `{name}`: save it with /program save first.", name=req.program),
            field="program",
        )
    try:  # the commands it may start, checked now as a start would (and again at each start)
        watcher.runner.check(program, server.name)
    except errors.ValidationError as exc:
        raise errors.ValidationError(
            _("Program `{name}`: {problem}", name=program.name, problem=exc.text),
            field="program",
        ) from None
    if spec.kind == "log" and server.event_kind not in ("log", "sftp"):
        raise errors.ValidationError(
            _(
                "The bot does not read {server}'s log (its events come over RCON): a log "
                "trigger needs the log, on this machine or over SFTP.",
                server=server.name,
            ),
            field="kind",
        )
    added = await watcher.store.add(spec, Creator(caller.user_id, caller.name), ops.now())
    if added is None:
        raise errors.ValidationError(
            _(
                "A trigger named `{name}` exists: remove it first, or pick another name.",
                name=spec.name,
            ),
            field="name",
        )
    watcher.changed()
    text = _(
        "Trigger `{name}` starts program `{program}` on {server} {what}; cool-down {cooldown}, "
        "at most {per_day} a day. Each firing is alerted.",
        name=spec.name,
        program=spec.program,
        server=spec.server,
        what=_what(spec),
        cooldown=_seconds(spec.cooldown),
        per_day=spec.per_day,
    )
    return Outcome(text, _facts(added))


async def _event_of(
    ops: Operations, caller: Caller, req: TriggerAddRequest
) -> tuple[int, str] | None:
    """The /event an interest trigger watches, as (its number, its server)."""
    if req.event is None:
        return None
    # (without Discord, /event's own refusal says why there are no events to watch)
    row = await find_event(ops, caller, EventRef(event=req.event))
    return row.id, row.server


def _seconds(seconds: int) -> str:
    from bot.times.when import human

    return human(seconds)


async def _list(ops: Operations, caller: Caller, req: TriggerListRequest) -> Outcome:
    store = _store(ops)
    found = await store.all(ops.now())
    if req.server is not None:
        name = ops.server(req.server).name
        found = [t for t in found if t.spec.server == name]
    lines = []
    for t in found:
        state = _("on") if t.enabled else _("paused")
        last = stamp(t.last_fired) if t.last_fired is not None else _("never")
        lines.append(
            _(
                "`{name}` ({state}): `{program}` on {server} {what}; last fired {last}, "
                "{n} of {per_day} today",
                name=t.name,
                state=state,
                program=t.spec.program,
                server=t.spec.server,
                what=_what(t.spec),
                last=last,
                n=t.day_count,
                per_day=t.spec.per_day,
            )
        )
    text = "\n".join(lines) or _("No trigger is set: add one with /trigger add.")
    return Outcome(text, {"triggers": [_facts(t) for t in found]})


def _toggle(enabled: bool) -> Any:
    async def handler(ops: Operations, caller: Caller, req: TriggerRef) -> Outcome:
        trigger = await _found(ops, req.name)
        _admin_for_log(ops, caller, trigger.spec.kind, "resume" if enabled else "pause")
        changed = await _store(ops).set_enabled(req.name, enabled)
        if changed is None:
            said = _("on") if enabled else _("paused")
            raise errors.ValidationError(
                _("Trigger `{name}` is {state} already.", name=req.name, state=said),
                field="name",
            )
        _watcher(ops).changed()
        if enabled:
            return Outcome(_("Trigger `{name}` is on again.", name=req.name), _facts(changed))
        return Outcome(
            _("Trigger `{name}` is paused: it fires nothing until resumed.", name=req.name),
            _facts(changed),
        )

    return handler


async def _remove(ops: Operations, caller: Caller, req: TriggerRef) -> Outcome:
    trigger = await _found(ops, req.name)
    _admin_for_log(ops, caller, trigger.spec.kind, "remove")
    if not await _store(ops).remove(req.name):
        raise errors.NotFound(_("There is no trigger `{name}`.", name=req.name), field="name")
    _watcher(ops).changed()
    return Outcome(
        _("Trigger `{name}` removed; the runs it started go on.", name=req.name),
        {"name": req.name},
    )


async def _test(ops: Operations, caller: Caller, req: TriggerTestRequest) -> Outcome:
    trigger = await _found(ops, req.name)
    spec = trigger.spec
    lines = [_("Trigger `{name}` {what}:", name=spec.name, what=_what(spec))]
    facts: dict[str, Any] = {"name": spec.name, "kind": spec.kind, "program": spec.program}
    player: str | None = None
    fires: bool | None = None
    if spec.kind in ("log", "join"):
        if req.line is None:
            raise errors.ValidationError(
                _("Give `line`: a log line's text to try it on."), field="line"
            )
        if spec.kind == "log":
            fires, player = compile_pattern(spec.pattern or "").match(req.line)
        else:
            player = joined_player(req.line)
            fires = player is not None and (
                spec.player is None or spec.player.lower() == player.lower()
            )
        lines.append(_("This line would fire it.") if fires else _("This line would not fire it."))
    elif spec.kind == "interest" and ops.guild_events is not None:
        row = await ops.guild_events.store.get(spec.event or 0)
        if row is not None:
            facts["interested"] = row.interested
            lines.append(
                _(
                    "{n} of {needed} members are interested in {event} now.",
                    n=row.interested,
                    needed=spec.interested,
                    event=row.name,
                )
            )
    elif spec.kind == "players":
        count = len(await listed_players(ops.server(spec.server).pack))
        facts["online"] = count
        lines.append(_("{n} players are online now.", n=count))
    facts["fires"] = fires
    facts["player"] = player
    program = await _watcher(ops).runner.store.latest(spec.program)
    if program is None:
        lines.append(
            _("Its program `{name}` is not saved: a firing would be refused.", name=spec.program)
        )
        facts["steps"] = []
        facts["program_saved"] = False
        return Outcome("\n".join(lines), facts)
    steps = []
    checked = _watcher(ops).runner.check_each(program, spec.server, player)
    for number, (step, refused) in enumerate(checked, 1):
        executor = step.as_player or player
        problem = None if refused is None else str(refused.text)
        steps.append(
            {
                "step": number,
                "run": step.run,
                "at": step.at,
                "as_player": executor,
                "problem": problem,
            }
        )
        who = _(" as {player}", player=executor) if executor else ""
        said = _(": refused: {problem}", problem=problem) if problem else ""
        lines.append(
            _(
                "{n}. `{command}` at {at}{who}{said}",
                n=number,
                command=step.run,
                at=step.at,
                who=who,
                said=said,
            )
        )
    facts["steps"] = steps
    facts["program_saved"] = True
    lines.append(_("Nothing was sent or stored."))
    return Outcome("\n".join(lines), facts)


# `trigger list` first: Discord shows its summary as the /trigger group's description
TRIGGER_OPERATIONS: tuple[OperationSpec[Any], ...] = (
    OperationSpec(
        name="trigger list",
        summary=N_("The triggers: what starts which program, and when each last fired."),
        request=TriggerListRequest,
        rank=Rank.MODERATOR,
        handler=_list,
    ),
    OperationSpec(
        name="trigger add",
        summary=N_("Start a program on a server start, a join, a player count or a log line."),
        request=TriggerAddRequest,
        rank=Rank.MODERATOR,
        handler=_add,
        changes=True,
    ),
    OperationSpec(
        name="trigger test",
        summary=N_("Try a trigger without effect: would it fire, and what would run."),
        request=TriggerTestRequest,
        rank=Rank.MODERATOR,
        handler=_test,
    ),
    OperationSpec(
        name="trigger pause",
        summary=N_("Pause a trigger: it fires nothing until resumed."),
        request=TriggerRef,
        rank=Rank.MODERATOR,
        handler=_toggle(False),
        changes=True,
    ),
    OperationSpec(
        name="trigger resume",
        summary=N_("Resume a paused trigger."),
        request=TriggerRef,
        rank=Rank.MODERATOR,
        handler=_toggle(True),
        changes=True,
    ),
    OperationSpec(
        name="trigger remove",
        summary=N_("Remove a trigger; the runs it started go on."),
        request=TriggerRef,
        rank=Rank.MODERATOR,
        handler=_remove,
        changes=True,
    ),
)
