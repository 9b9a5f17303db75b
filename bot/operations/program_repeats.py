"""`/program repeat`, `/program repeats` and `/program stop-repeat`: a saved program started on a
`repeat:` (an interval or a cron, from `when` if given, read as /schedule reads them, with its
DST policy) on a server or each server of a group, the repeats listed, and one stopped
(bot.programs.repeats starts each occurrence once). Declared once in the registry, moderators',
changes audited.
"""

from __future__ import annotations

__all__ = [
    "PROGRAM_REPEAT_OPERATIONS",
    "ProgramRepeatRef",
    "ProgramRepeatRequest",
    "ProgramRepeatsRequest",
]

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.i18n import N_, _
from bot.i18n.formats import stamp
from bot.minecraft.task_fields import TimeText, ZoneName
from bot.operations.programs import check_on, target_servers
from bot.operations.ranks import Rank
from bot.operations.registry import CHOICE_NAMES_KEY, OperationSpec, Outcome
from bot.operations.schedule import CHOICE_NAMES, FIELD_HELP
from bot.programs.model import ProgramName, check_name
from bot.store.program_repeats import ProgramRepeat
from bot.store.schedules import Creator
from bot.times.dst import DstRepeated, DstSkipped
from bot.times.runs import next_boundary, next_runs
from bot.times.when import build_spec, repeat_text

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller

UPCOMING = 3  # the next occurrences an answer names


def _dst(name: str) -> Any:
    extra: Any = {CHOICE_NAMES_KEY: CHOICE_NAMES[name]}  # the words /schedule offers
    return Field(description=FIELD_HELP[name], json_schema_extra=extra)


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProgramRepeatRequest(_Request):
    name: Annotated[ProgramName, Field(description=N_("The program to start"))]
    repeat: Annotated[TimeText, Field(description=FIELD_HELP["repeat"])]
    # the first start (an interval's grid counts from it); default: one interval from now, or
    # the cron's next time
    when: Annotated[TimeText | None, Field(description=FIELD_HELP["when"])] = None
    server: Annotated[
        str | None, Field(description=N_("The server it runs on, or a group (one run each)"))
    ] = None
    timezone: Annotated[ZoneName | None, Field(description=FIELD_HELP["timezone"])] = None
    dst_repeated: Annotated[DstRepeated | None, _dst("dst_repeated")] = None
    dst_skipped: Annotated[DstSkipped | None, _dst("dst_skipped")] = None


class ProgramRepeatsRequest(_Request):
    pass


class ProgramRepeatRef(_Request):
    repeat: Annotated[int, Field(ge=1, le=2**63 - 1, description=N_("The repeat's number"))]


def _next(repeat: ProgramRepeat, now: datetime) -> list[datetime]:
    spec = repeat.spec
    first = spec.first_due if spec.first_due > now else next_boundary(spec, now)
    return [] if first is None else next_runs(spec, UPCOMING, first)


def _facts(repeat: ProgramRepeat, now: datetime) -> dict[str, Any]:
    return {
        "repeat": repeat.id,
        "program": repeat.program,
        "target": repeat.target,
        "servers": list(repeat.servers),
        "every": repeat.repeat,
        "timezone": repeat.spec.timezone,
        "dst_repeated": repeat.spec.dst_repeated,
        "dst_skipped": repeat.spec.dst_skipped,
        "state": repeat.state,
        "next": [t.isoformat() for t in _next(repeat, now)],
    }


async def _found(ops: Operations, number: int) -> ProgramRepeat:
    repeat = await ops.program_repeats().store.get(number)
    if repeat is None:
        raise errors.NotFound(_("There is no program repeat #{n}.", n=number), field="repeat")
    return repeat


async def _repeat(ops: Operations, caller: Caller, req: ProgramRepeatRequest) -> Outcome:
    watcher = ops.program_repeats()
    program = await watcher.runner.store.latest(check_name(req.name))
    if program is None:
        raise errors.NotFound(
            _("There is no program `{name}`: save it with /program save first.", name=req.name),
            field="name",
        )
    servers = target_servers(ops, req.server)
    scheduler = ops.scheduler()
    now = ops.now()
    spec = build_spec(
        req.when,
        req.repeat,
        req.timezone,
        None,
        now=now,
        default_timezone=scheduler.default_timezone,
        dst_repeated=req.dst_repeated,
        dst_skipped=req.dst_skipped,
    )
    for server in servers:  # every server first: one that refuses makes no repeat
        check_on(watcher.runner, program, server, len(servers) > 1)
    target = req.server or servers[0]
    made = await watcher.store.add(
        program.name, target, servers, req.repeat, spec, Creator(caller.user_id, caller.name), now
    )
    watcher.wake()
    text = _(
        "Program `{name}` repeats {how} on {servers} as repeat #{repeat}; the next starts: "
        "{upcoming}.",
        name=program.name,
        how=repeat_text(spec),
        servers=", ".join(servers),
        repeat=made.id,
        upcoming=", ".join(stamp(t) for t in _next(made, now)),
    )
    return Outcome(text, _facts(made, now))


async def _list(ops: Operations, caller: Caller, req: ProgramRepeatsRequest) -> Outcome:
    repeats = await ops.program_repeats().store.repeats(("active",), limit=100)
    now = ops.now()
    lines = [
        _(
            "Repeat #{repeat}: `{name}` {how} on {target}, next {next}",
            repeat=r.id,
            name=r.program,
            how=repeat_text(r.spec),
            target=r.target,
            next=", ".join(stamp(t) for t in _next(r, now)[:1]),
        )
        for r in repeats
    ] or [_("No program repeats.")]
    return Outcome("\n".join(lines), {"repeats": [_facts(r, now) for r in repeats]})


async def _stop(ops: Operations, caller: Caller, req: ProgramRepeatRef) -> Outcome:
    repeat = await _found(ops, req.repeat)
    stopped = await ops.program_repeats().store.stop(repeat.id)
    if stopped is None:
        raise errors.ValidationError(
            _("Repeat #{repeat} is stopped already.", repeat=repeat.id), field="repeat"
        )
    text = _(
        "Repeat #{repeat} stopped: `{name}` starts no more; runs started before go on.",
        repeat=stopped.id,
        name=stopped.program,
    )
    return Outcome(text, _facts(stopped, ops.now()))


PROGRAM_REPEAT_OPERATIONS: tuple[OperationSpec[Any], ...] = (
    OperationSpec(
        name="program repeat",
        summary=N_("Start a program on a repeat (interval or cron) on a server or a group."),
        request=ProgramRepeatRequest,
        rank=Rank.MODERATOR,
        handler=_repeat,
        changes=True,
    ),
    OperationSpec(
        name="program repeats",
        summary=N_("The programs started on a repeat, with their next starts."),
        request=ProgramRepeatsRequest,
        rank=Rank.MODERATOR,
        handler=_list,
    ),
    OperationSpec(
        name="program stop-repeat",
        summary=N_("Stop a program's repeat: no more starts (runs started go on)."),
        request=ProgramRepeatRef,
        rank=Rank.MODERATOR,
        handler=_stop,
        changes=True,
    ),
)
