"""The plan outside the bot: `export` writes a server's planned rows, the game-time tasks the
bot made and its Discord events, and the bot's programs, as a plan file (bot.calendar.plan_file);
`import_plan` reads one and adds or changes what differs, through the same operations and checks
as /schedule (a program: as /program save's, bot.operations.plan_programs).

An import checks every entry before it changes anything: one wrong entry (a command the command
check refuses, a time in the past, an unknown time zone, a player who is not online) refuses the
whole file, naming it. A write that fails part-way (the server goes down, Discord refuses) undoes
what the import had done (bot.operations.plan_write) and names the entry that failed.
"""

from __future__ import annotations

__all__ = ["ExportRequest", "Exported", "ImportRequest", "Imported", "export", "import_plan"]

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.calendar.plan_file import (
    CONDITION_KEYS,
    PlanDocument,
    PlannedEntry,
    TaskEntry,
    dump,
    load,
)
from bot.i18n import _
from bot.minecraft.conditions import options_of, parse_conditions
from bot.minecraft.handover import online_players
from bot.minecraft.pack_client import handed_over
from bot.operations import plan_events, plan_programs, plan_repeats, plan_write
from bot.operations import schedule as schedule_ops
from bot.operations.plan_steps import Step, Verdict, grouped, label, refused_as
from bot.operations.ranks import Rank
from bot.store.ledger import LIVE
from bot.times.dst import checked_policy
from bot.times.when import build_spec, human, parse_repeat

if TYPE_CHECKING:
    from bot.calendar.plan_file import ProgramEntry, RepeatEntry
    from bot.minecraft.pack_tasks import Task
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices
    from bot.store.ledger_rows import Entry
    from bot.store.program_repeats import ProgramRepeat
    from bot.store.programs import Program
    from bot.store.schedules import Schedule

MAX_FILE = 1_000_000  # characters of a plan file
MAX_TASKS = 10_000  # game-time tasks of one list in a file, at most
PAGE = 100  # the most tasks the pack lists in one call
LAST_TICK = 2**31 - 1  # the pack's game time is an Int: no task is due after it
FILE_LISTS = ("queue", "paused")  # a task waiting for its player (offline) waits on one server


class ExportRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str | None = None


class ImportRequest(BaseModel):
    """The plan file's text; `server` (default: the file's) is where it goes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # a person gives the file (Discord's attachment, the console's `file:` path)
    document: str = Field(
        min_length=1, max_length=MAX_FILE, json_schema_extra={"x-file-option": "file"}
    )
    server: str | None = None
    dry_run: bool = False


@dataclass(frozen=True)
class Exported:
    document: PlanDocument
    text: str  # the YAML

    @property
    def yaml(self) -> str:
        return self.text


@dataclass(frozen=True)
class Imported:
    """What the import adds, changes and leaves (by entry), and whether it did it."""

    server: str
    done: bool
    steps: list[tuple[Verdict, str]] = field(default_factory=list)
    text: str = ""


def _local(when: datetime, zone: str) -> str:
    local = when.astimezone(ZoneInfo(zone))
    return local.strftime("%Y-%m-%d %H:%M:%S" if local.second else "%Y-%m-%d %H:%M")


def planned_entry(row: Schedule) -> PlannedEntry:
    when: str | None = None
    repeat: str | None = None
    if row.kind == "at" and row.at is not None:
        when = _local(row.at, row.timezone)
    elif row.kind == "every" and row.every is not None:
        grid = row.next_due or row.anchor
        when = _local(grid, row.timezone) if grid is not None else None
        repeat = human(row.every)
    else:
        repeat = row.cron
    announce = ",".join(human(s) for s in row.announce) or None
    conditions: dict[str, Any] = {
        k: v for k, v in (row.conditions or {}).items() if k in CONDITION_KEYS
    }
    return PlannedEntry(
        id=row.task_id,
        run=row.command,
        when=when,
        repeat=repeat,
        timezone=row.timezone,
        announce=announce,
        dst_repeated=row.dst_repeated,
        dst_skipped=row.dst_skipped,
        retry=row.retry,
        retry_delay=row.retry_delay,
        as_player=row.as_player,
        on_doubt=row.on_doubt,
        paused=row.state == "paused",
        **conditions,
    )


async def _every_task(target: ServerServices, which: str) -> list[Task]:
    """A list of the pack's, page by page (the pack answers at most PAGE a call)."""
    found: list[Task] = []
    while len(found) < MAX_TASKS:
        page, total = await target.pack.list_tasks(which, offset=len(found), limit=PAGE)
        found += page
        if not page or len(found) >= total:
            break
    return found


async def _recorded(target: ServerServices) -> dict[str, Entry]:
    """The bot's record of each task it made, by the task's bot key: what the pack does not
    keep (the player's name, where the pack has the UUID; the policy after a crash)."""
    if target.guard is None:
        return {}
    entries = await target.guard.ledger.entries(LIVE)
    return {e.bkey: e for e in entries if e.bkey is not None}


async def _tasks(target: ServerServices, now: int) -> list[TaskEntry]:
    """The game-time tasks the bot made (a task made in game runs as its maker, whom a file
    cannot name; a wall-clock row's hand-over and a run-now copy are their rows' runs)."""
    recorded = await _recorded(target)
    found: list[TaskEntry] = []
    for which in FILE_LISTS:
        for t in await _every_task(target, which):
            if t.k is None or handed_over(t.k):
                continue
            paused = which == "paused"
            conditions: dict[str, Any] = options_of(t.cond)
            left = t.remaining if paused and t.remaining is not None else max(0, t.due - now)
            record = recorded.get(t.k)
            entry = TaskEntry(
                id=t.id,
                run=t.run,
                time=left,
                every=t.interval,
                retry=t.retry,
                retry_delay=t.retry_delay,
                as_player=record.as_player if record is not None else None,
                on_doubt="run" if record is not None and record.on_doubt == "run" else "skip",
                paused=paused,
                **conditions,
            )
            found.append(entry)
    return found


@dataclass(frozen=True)
class _Have:
    """What the server has: as a document, and the rows by id (an event's own included)."""

    doc: PlanDocument
    rows: dict[str, Schedule]
    bound: set[int]  # the rows of Discord events and of program runs' steps
    now: int  # game time
    programs: list[tuple[ProgramEntry, Program]]  # the bot's, newest versions
    repeats: list[tuple[RepeatEntry, ProgramRepeat]]  # this server's own program repeats


async def _current(ops: Operations, target: ServerServices) -> _Have:
    rows: list[Schedule] = []
    scheduler = ops.services.scheduler
    if scheduler is not None:
        rows = sorted(
            await scheduler.store.in_states(target.name, ("active", "paused")), key=lambda r: r.id
        )
    events = await plan_events.planned(ops, target.name)
    bound = {t for e in events for t in e.tasks} | await plan_programs.run_rows(
        ops, target.name, rows
    )
    now = await target.pack.get_time()
    tasks = await _tasks(target, now)
    programs = await plan_programs.saved(ops)
    repeats = await plan_repeats.held(ops, target.name)
    doc = PlanDocument(
        version=1,
        server=target.name,
        tasks=tasks,
        events=[plan_events.entry_of(e) for e in events],
        planned=[planned_entry(r) for r in rows if r.id not in bound],
        programs=[entry for entry, _program in programs],
        repeats=[entry for entry, _repeat in repeats],
    )
    return _Have(doc, {r.task_id: r for r in rows}, bound, now, programs, repeats)


async def export(ops: Operations, caller: Caller, req: ExportRequest) -> Exported:
    ops.require(caller, Rank.MODERATOR, "/plan export")
    doc = (await _current(ops, ops.server(req.server))).doc
    return Exported(doc, dump(doc))


def _as_kept(entry: TaskEntry) -> TaskEntry:
    """A task entry as an export would write it again: the pack keeps its conditions as a
    compound, so `players>1` comes back as `players>=2`."""
    try:
        cond = parse_conditions(entry.require, entry.if_not, entry.max_wait, entry.after_wait)
    except errors.ValidationError:
        return entry  # refused by the check, when it is to be made
    kept = options_of(cond.pack_fields() if cond is not None else None)
    return entry.model_copy(update={k: kept.get(k) for k in CONDITION_KEYS})


PlannedStep = Step[PlannedEntry, "Schedule"]
TaskStep = Step[TaskEntry, TaskEntry]


def _planned_as_kept(entry: PlannedEntry) -> PlannedEntry:
    """A planned entry as an export would write it again: a DST policy that is what the row
    does by default is kept as none (bot.times.dst.checked_policy)."""
    if entry.repeat is None or (entry.dst_repeated is None and entry.dst_skipped is None):
        return entry
    try:
        form = parse_repeat(entry.repeat)
        cron = form[1] if form[0] == "cron" else None
        kept = checked_policy(form[0], cron, entry.dst_repeated, entry.dst_skipped)
    except errors.ValidationError:
        return entry  # refused by the check, when it is to be made
    return entry.model_copy(update={"dst_repeated": kept[0], "dst_skipped": kept[1]})


def _steps(doc: PlanDocument, have: _Have) -> tuple[list[PlannedStep], list[TaskStep]]:
    rows = {p.id: [(p, have.rows[p.id])] for p in have.doc.planned}
    planned = grouped("planned", doc.planned, rows, lambda e: e.id, same=_planned_as_kept)
    tasks: dict[str, list[tuple[TaskEntry, TaskEntry]]] = {}
    for t in have.doc.tasks:
        tasks.setdefault(t.id, []).append((t, t))
    return planned, grouped("tasks", doc.tasks, tasks, lambda e: e.id, same=_as_kept)


def _check(ops: Operations, caller: Caller, req: schedule_ops.ScheduleRequest, label: str) -> None:
    """What /schedule refuses, and the wall-clock time read as the scheduler would read it."""
    with refused_as(label):
        schedule_ops.check(ops, caller, req)
        if req.wallclock:
            scheduler = ops.scheduler()
            build_spec(
                req.when,
                req.repeat,
                req.timezone,
                req.announce,
                now=scheduler.clock.now(),
                default_timezone=scheduler.default_timezone,
                dst_repeated=req.dst_repeated,
                dst_skipped=req.dst_skipped,
            )


async def _check_all(
    ops: Operations,
    caller: Caller,
    target: ServerServices,
    have: _Have,
    planned: list[PlannedStep],
    tasks: list[TaskStep],
) -> None:
    """Every entry to add or change, as its write will check it, before anything is written."""
    for step in planned:
        if step.verdict == "leave":
            continue
        _check(ops, caller, plan_write.request(target, step.entry), step.label)
        row = have.rows.get(step.entry.id)
        if row is not None and row.id in have.bound:  # an event's own row: the event has it
            with refused_as(step.label):
                raise errors.ValidationError(
                    _(
                        "A planned schedule `{id}` already exists on {server}: cancel it first "
                        "or choose another id.",
                        id=step.entry.id,
                        server=target.name,
                    )
                )
    players: set[str] | None = None
    for task in (s for s in tasks if s.verdict != "leave"):
        _check(ops, caller, plan_write.request(target, task.entry), task.label)
        if have.now + task.entry.time > LAST_TICK:
            with refused_as(task.label):
                raise errors.ValidationError(
                    _(
                        "It would be due after game time {last}, the last the pack counts to.",
                        last=LAST_TICK,
                    )
                )
        player = task.entry.as_player
        if player is not None:
            players = await online_players(target.pack) if players is None else players
            if player.lower() not in players:
                with refused_as(task.label):
                    raise errors.ValidationError(
                        _(
                            "{player} is not online on {server}: a game-time task runs as a "
                            "player who is there when it is made.",
                            player=player,
                            server=target.name,
                        )
                    )


def _unique(doc: PlanDocument) -> None:
    """A planned row's id is unique on a server: two in a file would make the first, then
    fail on the second."""
    seen: dict[str, int] = {}
    for number, entry in enumerate(doc.planned, start=1):
        if entry.id in seen:
            raise errors.ValidationError(
                _(
                    "The plan file's entry {entry} is refused: {first} has the same id. "
                    "Nothing was changed.",
                    entry=label("planned", number, entry.id),
                    first=f"planned[{seen[entry.id]}]",
                )
            )
        seen[entry.id] = number


def _no_events_here(ops: Operations, caller: Caller, doc: PlanDocument) -> None:
    if doc.events and (ops.guild_events is None or caller.guild_id is None):
        raise errors.ValidationError(
            _(
                "The plan file's entry events[1] ({name}) is refused: Discord events are "
                "imported only where the bot is connected to Discord (/plan import, the "
                "dashboard). Nothing was changed.",
                name=doc.events[0].name,
            )
        )


async def import_plan(ops: Operations, caller: Caller, req: ImportRequest) -> Imported:
    ops.require(caller, Rank.MODERATOR, "/plan import")
    doc = load(req.document)
    target = ops.server(req.server or doc.server)
    _no_events_here(ops, caller, doc)
    _unique(doc)
    have = await _current(ops, target)
    planned, tasks = _steps(doc, have)
    await _check_all(ops, caller, target, have, planned, tasks)
    events = await plan_events.steps(ops, caller, target, doc.events)
    programs = plan_programs.steps(doc.programs, have.programs)
    repeats = plan_repeats.steps(doc.repeats, have.repeats)
    await plan_repeats.check(ops, target.name, repeats, doc.programs)
    every: Sequence[Step[Any, Any]] = [*planned, *tasks, *events, *programs, *repeats]
    shown = [(s.verdict, s.label) for s in every]
    said = {"add": _("add"), "change": _("change"), "leave": _("leave as it is")}
    lines = [f"{said[v]}: {label}" for v, label in shown[: len(planned) + len(tasks) + len(events)]]
    repeat_lines = [f"{said[r.verdict]}: {r.label}" for r in repeats]
    if req.dry_run:
        lines += [f"{said[p.verdict]}: {p.label}{plan_programs.note(p, None)}" for p in programs]
        head = _("Importing into {server} would:", server=target.name)
        return Imported(target.name, False, shown, "\n".join([head, *lines, *repeat_lines]))
    writer = plan_write.Writer(ops, caller, target)
    await writer.write(planned, tasks, events, programs, repeats)
    lines += [
        f"{said[p.verdict]}: {p.label}{plan_programs.note(p, writer.saved.get(p.entry.name))}"
        for p in programs
    ]
    lines += repeat_lines
    head = _("Imported into {server}:", server=target.name)
    text = "\n".join([head, *lines])
    await ops.audit(caller, target, "plan import", {"entries": len(shown)}, text)
    return Imported(target.name, True, shown, text)
