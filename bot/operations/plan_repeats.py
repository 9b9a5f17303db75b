"""The program repeats of a plan file (`repeats:`): the active repeats that start on this server
alone (`/program repeat` with this server), each as `/program repeat`'s options. A repeat on a
group is the group's, not one server's, and is not written (as bot.operations.groups leaves the
plan file out).

An import matches them by program, as the pack's tasks by id: the server's repeats of a program
are left when the file has the same ones, else stopped and the file's made (from the import on:
the first occurrence after it). Each entry is checked before anything is written: its repeat,
zone and DST policy as /program repeat reads them, and its program (saved, or in the same file)
on this server. An import undone removes the repeats it made and starts the ones it stopped.
"""

from __future__ import annotations

__all__ = ["RepeatStep", "check", "held", "make", "steps", "store", "unmake"]

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from bot import errors
from bot.calendar.plan_file import ProgramEntry, RepeatEntry
from bot.i18n import _
from bot.operations.plan_steps import Step, grouped, refused_as
from bot.programs.model import steps_json
from bot.store.program_repeats import ProgramRepeat, RepeatStore
from bot.store.programs import Program, ProgramStore
from bot.store.schedules import Creator
from bot.times.dst import checked_policy
from bot.times.runs import Spec, next_boundary
from bot.times.when import build_spec, parse_repeat

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller

RepeatStep = Step[RepeatEntry, ProgramRepeat]


def store(ops: Operations) -> RepeatStore:
    return RepeatStore(ops.services.db)


def _next(spec: Spec, now: datetime) -> datetime | None:
    return spec.first_due if spec.first_due > now else next_boundary(spec, now)


def entry_of(repeat: ProgramRepeat, now: datetime) -> RepeatEntry:
    """As /program repeat's options; an interval's `when` is its next start, in its zone, so
    an import keeps its grid (a cron's times are its own)."""
    spec = repeat.spec
    when: str | None = None
    grid = _next(spec, now) if spec.kind == "every" else None
    if grid is not None:
        local = grid.astimezone(ZoneInfo(spec.timezone))
        when = local.strftime("%Y-%m-%d %H:%M:%S" if local.second else "%Y-%m-%d %H:%M")
    return RepeatEntry(
        program=repeat.program,
        when=when,
        repeat=repeat.repeat,
        timezone=spec.timezone,
        dst_repeated=spec.dst_repeated,
        dst_skipped=spec.dst_skipped,
    )


async def held(ops: Operations, server: str) -> list[tuple[RepeatEntry, ProgramRepeat]]:
    """The server's own active repeats, by program then number, as entries and as stored."""
    found = await store(ops).repeats(("active",))
    mine = [r for r in found if r.target == server and r.servers == (server,)]
    now = ops.now()
    return [(entry_of(r, now), r) for r in sorted(mine, key=lambda r: (r.program, r.id))]


def _as_kept(entry: RepeatEntry) -> RepeatEntry:
    """As an export would write it again: a DST policy that is the default kept as none."""
    if entry.dst_repeated is None and entry.dst_skipped is None:
        return entry
    try:
        form = parse_repeat(entry.repeat)
        cron = form[1] if form[0] == "cron" else None
        kept = checked_policy(form[0], cron, entry.dst_repeated, entry.dst_skipped)
    except errors.ValidationError:
        return entry  # refused by the check
    return entry.model_copy(update={"dst_repeated": kept[0], "dst_skipped": kept[1]})


def steps(
    entries: Sequence[RepeatEntry], have: Sequence[tuple[RepeatEntry, ProgramRepeat]]
) -> list[RepeatStep]:
    by_program: dict[str, list[tuple[RepeatEntry, ProgramRepeat]]] = {}
    for entry, repeat in have:
        by_program.setdefault(entry.program, []).append((entry, repeat))
    return grouped("repeats", entries, by_program, lambda e: e.program, same=_as_kept)


def _spec(ops: Operations, entry: RepeatEntry) -> Spec:
    scheduler = ops.scheduler()
    return build_spec(
        entry.when,
        entry.repeat,
        entry.timezone,
        None,
        now=scheduler.clock.now(),
        default_timezone=scheduler.default_timezone,
        dst_repeated=entry.dst_repeated,
        dst_skipped=entry.dst_skipped,
    )


async def check(
    ops: Operations, server: str, repeats: Sequence[RepeatStep], programs: Sequence[ProgramEntry]
) -> None:
    """Each repeat to make, as /program repeat checks it, its program's steps the file's when
    the file has the program."""
    in_file = {p.name: p for p in programs}
    saved = ProgramStore(ops.services.db)
    for step in repeats:
        if step.verdict == "leave":
            continue
        with refused_as(step.label):
            _spec(ops, step.entry)
            name = step.entry.program
            program: Program | None
            if name in in_file:
                steps = steps_json(in_file[name].steps)
                program = Program(0, name, 0, steps, Creator(0, ""), ops.now())
            else:
                program = await saved.latest(name)
            if program is None:
                raise errors.NotFound(
                    _(
                        "There is no program `{name}`: save it with /program save first.",
                        name=name,
                    )
                )
            ops.program_runner().check(program, server)


async def make(ops: Operations, caller: Caller, server: str, entry: RepeatEntry) -> ProgramRepeat:
    by = Creator(caller.user_id, caller.name)
    made = await store(ops).add(
        entry.program, server, [server], entry.repeat, _spec(ops, entry), by, ops.now()
    )
    if ops.repeats is not None:
        ops.repeats.wake()
    return made


async def unmake(ops: Operations, made: ProgramRepeat) -> None:
    """The repeat an import made, gone again; stopped if an occurrence came since."""
    if not await store(ops).drop(made.id):
        await store(ops).stop(made.id)
