"""`/program`: save, start, list, show, cancel, pause and resume programs (bot.programs),
declared once in the registry, so the console, Discord and the API have them without code of
their own. Moderators use them all, as /schedule; each change is audited by the registry.

`program save` takes the steps as YAML text in one option (bot.programs.model: a list of
mappings with run, at, after, limit, require, if_not, max_wait, as_player, on_failure). `program
start` starts the newest version on a server now, or at `when` (read as /schedule reads it);
started now with steps before the start (`at: -10m`), the start is moved that far ahead so the
earliest step is due now, and the answer says so. On a group it starts one run per server, each
server checked first (one that refuses starts none). Repeats: bot.operations.program_repeats.
"""

from __future__ import annotations

__all__ = [
    "PROGRAM_OPERATIONS",
    "ProgramListRequest",
    "ProgramRunRef",
    "ProgramSaveRequest",
    "ProgramStartRequest",
    "check_on",
    "on_server",
    "target_servers",
]

import json
from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.errors import naming
from bot.i18n import N_, _
from bot.i18n.formats import stamp
from bot.minecraft.task_fields import TimeText, ZoneName
from bot.operations.ranks import Rank
from bot.operations.registry import OperationSpec, Outcome
from bot.programs.model import (
    MAX_PROGRAM_TEXT,
    ProgramName,
    check_name,
    parse_steps,
    steps_json,
    steps_of_json,
)
from bot.programs.runner import ProgramRunner, StepView
from bot.store.programs import Program, ProgramRun
from bot.store.schedules import Creator
from bot.times.when import human, parse_timezone, parse_when

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller

# each step's and run's state as a person reads it (translated where it is said)
STATE_NAMES = {
    "waiting": N_("waiting"),
    "planned": N_("planned"),
    "ran": N_("ran"),
    "failed": N_("failed"),
    "skipped": N_("skipped"),
    "cancelled": N_("cancelled"),
    "running": N_("running"),
    "paused": N_("paused"),
    "done": N_("done"),
    "stopped": N_("stopped by a failed step"),
}


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProgramSaveRequest(_Request):
    name: Annotated[ProgramName, Field(description=N_("The program's name, a word"))]
    steps: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_PROGRAM_TEXT,
            description=N_("The steps in YAML: - run: <command>, at: <offset>, ..."),
        ),
    ]


class ProgramStartRequest(_Request):
    name: Annotated[ProgramName, Field(description=N_("The program to start"))]
    server: Annotated[str | None, Field(description=N_("The server it runs on"))] = None
    when: Annotated[
        TimeText | None, Field(description=N_("When it starts (default: now), e.g. fri 20:00"))
    ] = None
    timezone: Annotated[ZoneName | None, Field(description=N_("The time zone of `when`"))] = None


class ProgramListRequest(_Request):
    server: Annotated[str | None, Field(description=N_("Only this server's runs"))] = None


class ProgramRunRef(_Request):
    run: Annotated[int, Field(ge=1, le=2**63 - 1, description=N_("The run's number"))]


def _runner(ops: Operations) -> ProgramRunner:
    return ops.program_runner()


def _creator(caller: Caller) -> Creator:
    return Creator(caller.user_id, caller.name)


def _run_facts(run: ProgramRun) -> dict[str, Any]:
    return {
        "run": run.id,
        "program": run.program,
        "version": run.version,
        "server": run.server,
        "start": run.start.isoformat(),
        "state": run.state,
    }


def _step_facts(view: StepView) -> dict[str, Any]:
    return {
        "step": view.number,
        "run": view.step.run,
        "at": view.step.at,
        "after": view.step.after,
        "state": view.state,
        "due": view.due.isoformat() if view.due is not None else None,
        "outcome": view.outcome,
    }


async def _found(ops: Operations, number: int) -> ProgramRun:
    run = await _runner(ops).store.run(number)
    if run is None:
        raise errors.NotFound(_("There is no program run #{n}.", n=number))
    return run


async def _save(ops: Operations, caller: Caller, req: ProgramSaveRequest) -> Outcome:
    name = check_name(req.name)
    steps = parse_steps(req.steps)
    saved = await _runner(ops).store.save(name, steps_json(steps), _creator(caller), ops.now())
    text = _(
        "Program `{name}` saved as version {version} with {n} steps; runs started before keep "
        "their version.",
        name=saved.name,
        version=saved.version,
        n=len(steps),
    )
    return Outcome(text, {"name": saved.name, "version": saved.version, "steps": len(steps)})


async def _start(ops: Operations, caller: Caller, req: ProgramStartRequest) -> Outcome:
    runner = _runner(ops)
    program = await runner.store.latest(check_name(req.name))
    if program is None:
        raise errors.NotFound(
            _("There is no program `{name}`: save it with /program save first.", name=req.name),
            field="name",
        )
    servers = target_servers(ops, req.server)
    steps = steps_of_json(program.steps)
    earliest = min(step.offset for step in steps)
    now = ops.now()
    note = ""
    if req.when is None:
        start = now + timedelta(seconds=max(0, -earliest))
        if earliest < 0:
            note = _(
                " Its first step is {ahead} before the start, so the start is in {ahead}.",
                ahead=human(-earliest),
            )
    else:
        scheduler = ops.scheduler()
        with naming("timezone"):
            zone = parse_timezone(req.timezone, scheduler.default_timezone)
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
    for server in servers:  # every server first: one that refuses starts none
        check_on(runner, program, server, len(servers) > 1)
    runs = [await runner.start_program(program, s, start, _creator(caller)) for s in servers]
    text = "\n".join(
        _(
            "Program `{name}` (version {version}) started on {server} as run #{run}: it starts "
            "at {start}.",
            name=program.name,
            version=program.version,
            server=run.server,
            run=run.id,
            start=stamp(start),
        )
        for run in runs
    )
    if ops.group(req.server) is None:
        return Outcome(text + note, _run_facts(runs[0]))
    return Outcome(text + note, {"group": req.server, "runs": [_run_facts(r) for r in runs]})


def target_servers(ops: Operations, name: str | None) -> list[str]:
    """The server `name` names (the only one when None), or each server of the group."""
    group = ops.group(name)
    if group is None:
        return [ops.server(name).name]
    if not group:
        raise errors.ValidationError(
            _("The group {name} has no server configured.", name=repr(name)), field="server"
        )
    return [s.name for s in group]


def check_on(runner: ProgramRunner, program: Program, server: str, say_server: bool) -> None:
    """The program's steps checked on `server`; a refusal names the server when there are
    several."""
    try:
        runner.check(program, server)
    except errors.ValidationError as exc:
        if not say_server:
            raise
        raise on_server(server, exc) from None


def on_server(server: str, exc: errors.ValidationError) -> errors.ValidationError:
    """A refusal on one server of a group, the server named, its field kept."""
    return errors.ValidationError(
        _("On {server}: {problem}", server=server, problem=exc.text), field=exc.field
    )


async def _list(ops: Operations, caller: Caller, req: ProgramListRequest) -> Outcome:
    runner = _runner(ops)
    saved = await runner.store.programs()
    servers = [ops.server(req.server).name] if req.server else None
    runs = await runner.store.runs(servers=servers, limit=25)
    lines = [_("`{name}` version {version}", name=p.name, version=p.version) for p in saved] or [
        _("No program is saved.")
    ]
    lines += [
        _(
            "Run #{run}: `{name}` v{version} on {server} from {start}: {state}",
            run=r.id,
            name=r.program,
            version=r.version,
            server=r.server,
            start=stamp(r.start),
            state=_(STATE_NAMES[r.state]),
        )
        for r in runs
    ]
    facts = {
        # each newest version's steps as saved: the dashboard's step editor starts from them
        "programs": [
            {"name": p.name, "version": p.version, "steps": json.loads(p.steps)} for p in saved
        ],
        "runs": [_run_facts(r) for r in runs],
    }
    return Outcome("\n".join(lines), facts)


async def _show(ops: Operations, caller: Caller, req: ProgramRunRef) -> Outcome:
    run = await _found(ops, req.run)
    views = await _runner(ops).view(run)
    lines = [
        _(
            "Run #{run} of `{name}` (version {version}) on {server}, from {start}: {state}",
            run=run.id,
            name=run.program,
            version=run.version,
            server=run.server,
            start=stamp(run.start),
            state=_(STATE_NAMES[run.state]),
        )
    ]
    for view in views:
        due = _(" due {due}", due=stamp(view.due)) if view.due is not None else ""
        said = _(" ({outcome})", outcome=view.outcome) if view.outcome else ""
        lines.append(
            _(
                "{n}. `{command}` at {at}: {state}{due}{outcome}",
                n=view.number,
                command=view.step.run,
                at=view.step.at,
                state=_(STATE_NAMES[view.state]),
                due=due,
                outcome=said,
            )
        )
    facts = {**_run_facts(run), "steps": [_step_facts(v) for v in views]}
    return Outcome("\n".join(lines), facts)


# a change of a run, by its verb: the operation's summary, the state a refusal says it cannot
# be put in, and what it says when done
_CHANGES: dict[str, tuple[str, str, str]] = {
    "cancel": (
        N_("Cancel a program run's remaining steps."),
        N_("cancelled"),
        N_("Run #{run} cancelled: its remaining steps will not run."),
    ),
    "pause": (
        N_("Pause a program run's steps."),
        N_("paused"),
        N_("Run #{run} paused: its steps wait until it is resumed."),
    ),
    "resume": (
        N_("Resume a paused program run."),
        N_("resumed"),
        N_("Run #{run} resumed."),
    ),
}


def _change(verb: str) -> Any:
    _summary, done, said = _CHANGES[verb]

    async def handler(ops: Operations, caller: Caller, req: ProgramRunRef) -> Outcome:
        run = await _found(ops, req.run)
        changed = await getattr(_runner(ops), verb)(run)
        if changed is None:
            raise errors.ValidationError(
                _(
                    "Run #{run} is {state}: it cannot be {done}.",
                    run=run.id,
                    state=_(STATE_NAMES[run.state]),
                    done=_(done),
                ),
                field="run",
            )
        return Outcome(_(said, run=run.id), _run_facts(changed))

    return handler


# `program list` first: Discord shows its summary as the /program group's description
PROGRAM_OPERATIONS: tuple[OperationSpec[Any], ...] = (
    OperationSpec(
        name="program list",
        summary=N_("The saved programs and their runs."),
        request=ProgramListRequest,
        rank=Rank.MODERATOR,
        handler=_list,
    ),
    OperationSpec(
        name="program save",
        summary=N_("Save a program: a named list of steps, each a command at an offset."),
        request=ProgramSaveRequest,
        rank=Rank.MODERATOR,
        handler=_save,
        changes=True,
    ),
    OperationSpec(
        name="program start",
        summary=N_("Start a program on a server or a group, now or at a time."),
        request=ProgramStartRequest,
        rank=Rank.MODERATOR,
        handler=_start,
        changes=True,
    ),
    OperationSpec(
        name="program show",
        summary=N_("A program run: each step's state, due time and outcome."),
        request=ProgramRunRef,
        rank=Rank.MODERATOR,
        handler=_show,
    ),
    *(
        OperationSpec(
            name=f"program {verb}",
            summary=summary,
            request=ProgramRunRef,
            rank=Rank.MODERATOR,
            handler=_change(verb),
            changes=True,
        )
        for verb, (summary, _done, _said) in _CHANGES.items()
    ),
)
