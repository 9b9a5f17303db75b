"""The plan outside the bot: `export` writes a server's planned rows, game-time tasks and
Discord events as a plan file (bot.calendar.plan_file); `import_plan` reads one and adds or
changes what differs, through the same operations and checks as /schedule.

An import checks every entry before it changes anything: one wrong entry (a command the command
check refuses, a time in the past, an unknown time zone) refuses the whole file, naming it.
"""

from __future__ import annotations

__all__ = ["ExportRequest", "Exported", "ImportRequest", "Imported", "export", "import_plan"]

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.calendar.plan_file import PlanDocument, PlannedEntry, TaskEntry, dump, load
from bot.i18n import _
from bot.minecraft.pack_tasks import TASK_LISTS
from bot.operations import plan_events, queue
from bot.operations import schedule as schedule_ops
from bot.operations.ranks import Rank
from bot.wallclock.when import build_spec, human

if TYPE_CHECKING:
    from bot.minecraft.pack_tasks import Task
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices
    from bot.store.schedules import Schedule

MAX_FILE = 1_000_000  # characters of a plan file
MAX_TASKS = 10_000  # game-time tasks of one list in a file, at most
PAGE = 100  # the most tasks the pack lists in one call
Verdict = Literal["add", "change", "leave"]


class ExportRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str | None = None


class ImportRequest(BaseModel):
    """The plan file's text; `server` (default: the file's) is where it goes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    document: str = Field(min_length=1, max_length=MAX_FILE)
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
    return PlannedEntry(id=row.task_id, run=row.command, when=when, repeat=repeat,
                        timezone=row.timezone, announce=announce, retry=row.retry,
                        retry_delay=row.retry_delay, as_player=row.as_player,
                        paused=row.state == "paused")  # fmt: skip


async def _every_task(target: ServerServices, which: str) -> list[Task]:
    """A list of the pack's, page by page (the pack answers at most PAGE a call)."""
    found: list[Task] = []
    while len(found) < MAX_TASKS:
        page, total = await target.pack.list_tasks(which, offset=len(found), limit=PAGE)
        found += page
        if not page or len(found) >= total:
            break
    return found


async def _tasks(target: ServerServices) -> list[TaskEntry]:
    now = await target.pack.get_time()
    found: list[TaskEntry] = []
    for which in TASK_LISTS:
        if which == "offline":
            continue  # waiting for a player the file cannot name
        for t in await _every_task(target, which):
            paused = which == "paused"
            left = t.remaining if paused and t.remaining is not None else max(0, t.due - now)
            entry = TaskEntry(id=t.id, run=t.run, time=left, every=t.interval, retry=t.retry,
                              retry_delay=t.retry_delay, paused=paused)  # fmt: skip
            found.append(entry)
    return found


async def _document(ops: Operations, target: ServerServices) -> PlanDocument:
    rows: list[Schedule] = []
    scheduler = ops.services.scheduler
    if scheduler is not None:
        rows = sorted(await scheduler.store.in_states(target.name, ("active", "paused")),
                      key=lambda r: r.id)  # fmt: skip
    events = await plan_events.planned(ops, target.name)
    bound = {t for e in events for t in e.tasks}
    return PlanDocument(
        version=1, server=target.name, tasks=await _tasks(target),
        events=[plan_events.entry_of(e) for e in events],
        planned=[planned_entry(r) for r in rows if r.id not in bound],
    )  # fmt: skip


async def export(ops: Operations, caller: Caller, req: ExportRequest) -> Exported:
    ops.require(caller, Rank.MODERATOR, "/plan export")
    doc = await _document(ops, ops.server(req.server))
    return Exported(doc, dump(doc))


def _request(
    target: ServerServices, entry: PlannedEntry | TaskEntry
) -> schedule_ops.ScheduleRequest:
    if isinstance(entry, PlannedEntry):
        return schedule_ops.ScheduleRequest(
            server=target.name, run=entry.run, id=entry.id, when=entry.when, repeat=entry.repeat,
            timezone=entry.timezone, announce=entry.announce, retry=entry.retry,
            retry_delay=entry.retry_delay, as_player=entry.as_player,
        )  # fmt: skip
    return schedule_ops.ScheduleRequest(
        server=target.name, run=entry.run, id=entry.id, time=entry.time, every=entry.every,
        retry=entry.retry, retry_delay=entry.retry_delay,
    )  # fmt: skip


def _label(kind: str, number: int, entry: PlannedEntry | TaskEntry) -> str:
    return f"{kind}[{number}] ({entry.id})"


def _check(ops: Operations, caller: Caller, req: schedule_ops.ScheduleRequest, label: str) -> None:
    """What /schedule refuses, and the wall-clock time read as the scheduler would read it."""
    with plan_events.refused_as(label):
        schedule_ops.check(ops, caller, req)
        if req.wallclock:
            scheduler = ops.scheduler()
            build_spec(req.when, req.repeat, req.timezone, req.announce, now=scheduler.clock.now(),
                       default_timezone=scheduler.default_timezone)  # fmt: skip


async def _verdicts(
    ops: Operations, target: ServerServices, doc: PlanDocument
) -> list[tuple[Verdict, str, PlannedEntry | TaskEntry]]:
    have = await _document(ops, target)
    planned = {p.id: p for p in have.planned}
    tasks = {t.id: t for t in have.tasks}
    found: list[tuple[Verdict, str, PlannedEntry | TaskEntry]] = []

    def judge(kind: str, number: int, entry: PlannedEntry | TaskEntry, old: object) -> None:
        verdict: Verdict = "add" if old is None else "leave" if old == entry else "change"
        found.append((verdict, _label(kind, number, entry), entry))

    for number, p in enumerate(doc.planned, start=1):
        judge("planned", number, p, planned.get(p.id))
    for number, t in enumerate(doc.tasks, start=1):
        judge("tasks", number, t, tasks.get(t.id))
    return found


async def _apply(ops: Operations, caller: Caller, target: ServerServices,
                 verdict: Verdict, entry: PlannedEntry | TaskEntry) -> None:  # fmt: skip
    ref = queue.TaskRef(id=entry.id, server=target.name)
    if verdict == "change":
        await queue.cancel_all(ops, caller, ref)
    await schedule_ops.schedule(ops, caller, _request(target, entry))
    if entry.paused:
        await queue.pause(ops, caller, ref)


def _unique(doc: PlanDocument) -> None:
    """Two entries of one list with the same id would make the first, then fail on the second."""
    lists: tuple[tuple[str, Sequence[PlannedEntry | TaskEntry]], ...] = (
        ("planned", doc.planned), ("tasks", doc.tasks))  # fmt: skip
    for kind, entries in lists:
        seen: dict[str, int] = {}
        for number, entry in enumerate(entries, start=1):
            if entry.id in seen:
                raise errors.ValidationError(
                    _("The plan file's entry {entry} is refused: {first} has the same id. "
                      "Nothing was changed.", entry=_label(kind, number, entry),
                      first=f"{kind}[{seen[entry.id]}]")
                )  # fmt: skip
            seen[entry.id] = number


async def import_plan(ops: Operations, caller: Caller, req: ImportRequest) -> Imported:
    ops.require(caller, Rank.MODERATOR, "/plan import")
    doc = load(req.document)
    target = ops.server(req.server or doc.server)
    if doc.events and (ops.guild_events is None or caller.guild_id is None):
        raise errors.ValidationError(
            _("The plan file's entry events[1] ({name}) is refused: Discord events are "
              "imported only where the bot is connected to Discord (/plan import, the "
              "dashboard). Nothing was changed.", name=doc.events[0].name)
        )  # fmt: skip
    _unique(doc)
    steps = await _verdicts(ops, target, doc)
    for verdict, label, entry in steps:
        if verdict != "leave":
            _check(ops, caller, _request(target, entry), label)
    events = await plan_events.steps(ops, caller, target, doc.events)
    shown = [(v, lb) for v, lb, _e in steps] + [(e.verdict, e.label) for e in events]
    said = {"add": _("add"), "change": _("change"), "leave": _("leave as it is")}
    lines = [f"{said[v]}: {label}" for v, label in shown]
    if req.dry_run:
        head = _("Importing into {server} would:", server=target.name)
        return Imported(target.name, False, shown, "\n".join([head, *lines]))
    for verdict, _said, entry in steps:
        if verdict != "leave":
            await _apply(ops, caller, target, verdict, entry)
    for step in events:
        if step.verdict != "leave":
            await plan_events.apply(ops, caller, target, step)
    head = _("Imported into {server}:", server=target.name)
    text = "\n".join([head, *lines])
    await ops.audit(caller, target, "plan import", {"entries": len(shown)}, text)
    return Imported(target.name, True, shown, text)
