"""The built-in operations, declared once in the registry (bot.operations.registry): each one's
name, summary, request, rank and handler, the handler answering with an :class:`Outcome` (the
sentence, the read's sections as text, the facts as data). Each is listed in
``GET /api/operations``; in Discord a cog answers them with buttons and embeds, and the API has
resource routes for them (``face_code``).

A `server` naming a group (`all`, or one of DOOM_SERVER_GROUPS) runs the operation on each of
its servers (bot.operations.groups), as every face does.
"""

from __future__ import annotations

__all__ = ["BUILTIN"]

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from bot.i18n import N_, _
from bot.i18n.formats import stamp
from bot.operations import admin, calendar, groups, queue, reads, runs, status
from bot.operations import discord_events as events
from bot.operations import plan as plan_ops
from bot.operations import schedule as schedule_ops
from bot.operations.facts import planned_row, run_row, task_row
from bot.operations.ranks import Rank
from bot.operations.registry import File, OperationSpec, Outcome
from bot.operations.sections import (
    clock_section,
    history_section,
    page_section,
    planned_section,
    plugins_section,
    status_section,
    task_section,
)

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.store.guild_events import EventRow

R = TypeVar("R", bound=BaseModel)
T = TypeVar("T")


def _group(fanned: groups.GroupOutcome[Any]) -> Outcome:
    """A group's outcome: the head and a line a server; each server's outcome as a fact."""
    servers = [{"server": o.server, "ok": o.ok, "outcome": o.text} for o in fanned.outcomes]
    return Outcome(fanned.text, {"group": fanned.group, "servers": servers})


def _each(
    one: Callable[[Operations, Caller, R], Awaitable[Outcome]],
    many: Callable[[Operations, Caller, R], Awaitable[groups.GroupOutcome[Any]]],
) -> Callable[[Operations, Caller, R], Awaitable[Outcome]]:
    """The handler: `many` when the request's `server` names a group, else `one`."""

    async def handler(ops: Operations, caller: Caller, req: R) -> Outcome:
        if ops.group(getattr(req, "server", None)) is not None:
            return _group(await many(ops, caller, req))
        return await one(ops, caller, req)

    return handler


# -- writes ------------------------------------------------------------------------------------


async def _schedule(ops: Operations, caller: Caller, req: schedule_ops.ScheduleRequest) -> Outcome:
    made = await schedule_ops.schedule(ops, caller, req)
    facts = {
        "server": made.server.name,
        "id": made.task_id,
        "task": task_row(made.task, made.server) if made.task is not None else None,
        "planned": planned_row(made.planned) if made.planned is not None else None,
        "next_runs": [t.isoformat() for t in made.upcoming],
    }
    return Outcome(made.text, facts)


async def _dynamic(ops: Operations, caller: Caller, req: schedule_ops.DynamicRequest) -> Outcome:
    made = await schedule_ops.schedule_dynamic(ops, caller, req)
    return Outcome(made.text, {"server": made.server.name, "id": made.task_id})


def _changed(
    change: Callable[[Operations, Caller, queue.TaskRef], Awaitable[queue.Changed]],
) -> Callable[[Operations, Caller, queue.TaskRef], Awaitable[Outcome]]:
    async def one(ops: Operations, caller: Caller, req: queue.TaskRef) -> Outcome:
        done = await change(ops, caller, req)
        facts = {"server": done.server.name, "id": req.id, "done": done.done, "count": done.count}
        return Outcome(done.text, facts)

    return one


async def _run_now(ops: Operations, caller: Caller, req: queue.TaskRef) -> Outcome:
    done = await runs.run_now(ops, caller, req)
    facts = {"server": done.server.name, "id": req.id, "done": done.done, "where": done.where}
    return Outcome(done.text, facts)


async def _clear(ops: Operations, caller: Caller, req: queue.ServerRef) -> Outcome:
    done = await queue.clear(ops, caller, req)
    return Outcome(done.text, {"server": done.server.name, "count": done.count})


# -- the questions before a change that cannot be undone (the console and Discord ask) -------


async def _ask_clear(ops: Operations, caller: Caller, req: queue.ServerRef) -> str | None:
    if ops.group(req.server) is not None:
        return groups.size(ops, caller, req).text
    return queue.size(ops, caller, req).text


async def _ask_cancel_all(ops: Operations, caller: Caller, req: queue.TaskRef) -> str | None:
    """How many would go; nothing to ask when there are none (the handler says so)."""
    if ops.group(req.server) is not None:
        return (await groups.count(ops, caller, req)).text
    found = await queue.count(ops, caller, req)
    return found.text if found.count or found.planned else None


async def _ask_import(ops: Operations, caller: Caller, req: plan_ops.ImportRequest) -> str | None:
    """What the import would change (a dry run); nothing to ask for a dry run itself."""
    if req.dry_run:
        return None
    tried = await plan_ops.import_plan(ops, caller, req.model_copy(update={"dry_run": True}))
    return tried.text


# -- reads -------------------------------------------------------------------------------------


async def _list(ops: Operations, caller: Caller, req: reads.ListRequest) -> Outcome:
    page = await reads.page(ops, caller, req)
    facts = {
        "server": page.server.name,
        "list": page.which,
        "page": page.page,
        "pages": page.pages,
        "total": page.total,
        "tasks": [task_row(t, page.server) for t in page.tasks],
        "planned": [planned_row(row) for row, _upcoming in page.planned],
    }
    return Outcome("", facts, sections=(page_section(page),))


async def _show(ops: Operations, caller: Caller, req: queue.TaskRef) -> Outcome:
    shown = await reads.show(ops, caller, req)
    facts = {
        "server": shown.server.name,
        "task": task_row(shown.task, shown.server) if shown.task is not None else None,
        "planned": planned_row(shown.planned) if shown.planned is not None else None,
        "next_runs": [t.isoformat() for t in shown.upcoming],
        "on_doubt": shown.on_doubt,
    }
    if shown.planned is not None:
        title = _("Planned `{id}`", id=req.id)
        section = planned_section(shown.planned, shown.upcoming, shown.runs, title=title)
    elif shown.task is not None:
        section = task_section(shown.task, shown.server, shown.on_doubt, shown.task.run)
    else:
        said = _("No task `{id}` on {server}.", id=req.id, server=shown.server.name)
        return Outcome(said, facts)
    return Outcome("", facts, sections=(section,))


async def _time(ops: Operations, caller: Caller, req: queue.ServerRef) -> Outcome:
    clock = await reads.game_time(ops, caller, req)
    facts = {"server": clock.server.name, "ticks": clock.ticks, "day": clock.day, "tps": clock.tps}
    return Outcome("", facts, sections=(clock_section(clock),))


async def _history(ops: Operations, caller: Caller, req: runs.HistoryRequest) -> Outcome:
    found = await runs.history(ops, caller, req)
    facts = {
        "server": found.server.name,
        "id": found.task_id,
        "page": found.page,
        "pages": found.pages,
        "total": found.total,
        "runs": [run_row(e) for e in found.entries],
    }
    return Outcome("", facts, sections=(history_section(found),))


async def _status(ops: Operations, caller: Caller, req: queue.ServerRef) -> Outcome:
    found = await status.status(ops, caller, req)
    facts = {
        "servers": [
            {
                "server": s.server.name,
                "ok": s.ok,
                "error": s.error,
                "pack_version": s.version,
                "pack_damage": s.damage,
                "software": s.software,
                "tps": s.tps,
                "sizes": dict(s.sizes),
                "event_source": s.events,
            }
            for s in found
        ]
    }
    facts["plugins"] = [{"name": p.name, "state": p.state, "why": p.why} for p in ops.plugins]
    sections = [status_section(s) for s in found]
    plugins = plugins_section(ops.plugins)
    return Outcome("", facts, sections=(*sections, *([plugins] if plugins else [])))


# -- the rest ----------------------------------------------------------------------------------


async def _setup(ops: Operations, caller: Caller, req: queue.ServerRef) -> Outcome:
    done = await admin.setup(ops, caller, req)
    return Outcome(done.text, {"server": done.server.name, "ok": done.report.ok})


async def _selftest(ops: Operations, caller: Caller, req: queue.ServerRef) -> Outcome:
    done = await admin.selftest(ops, caller, req)
    lines = done.result.lines()
    return Outcome("\n".join(lines), {"server": done.server.name, "ok": done.result.ok})


async def _calendar(ops: Operations, caller: Caller, req: calendar.CalendarRequest) -> Outcome:
    link = await calendar.calendar(ops, caller, req)
    return Outcome(link.text, {"scope": link.scope, "url": link.url})


async def _export(ops: Operations, caller: Caller, req: plan_ops.ExportRequest) -> Outcome:
    made = await plan_ops.export(ops, caller, req)
    server = made.document.server
    name = f"plan-{server}.yaml"
    said = _("The plan file of {server}: {name}", server=server, name=name)
    return Outcome(
        said, {"server": server, "document": made.text}, (File(name, made.text.encode()),)
    )


async def _import(ops: Operations, caller: Caller, req: plan_ops.ImportRequest) -> Outcome:
    done = await plan_ops.import_plan(ops, caller, req)
    steps = [{"verdict": str(verdict), "entry": entry} for verdict, entry in done.steps]
    return Outcome(done.text, {"server": done.server, "done": done.done, "steps": steps})


def _event_facts(row: EventRow) -> dict[str, Any]:
    return {
        "event": row.id,
        "name": row.name,
        "server": row.server,
        "start": row.start.isoformat(),
        "end": row.end.isoformat() if row.end is not None else None,
        "state": row.state,
    }


async def _event_create(ops: Operations, caller: Caller, req: events.EventRequest) -> Outcome:
    made = await events.create(ops, caller, req)
    return Outcome(made.text, _event_facts(made.row))


async def _event_edit(ops: Operations, caller: Caller, req: events.EventEdit) -> Outcome:
    made = await events.edit(ops, caller, req)
    return Outcome(made.text, _event_facts(made.row))


async def _event_cancel(ops: Operations, caller: Caller, req: events.EventRef) -> Outcome:
    made = await events.cancel(ops, caller, req)
    return Outcome(made.text, _event_facts(made.row))


async def _event_list(ops: Operations, caller: Caller, req: events.EventList) -> Outcome:
    found = await events.listed(ops, caller, req)
    lines = [f"#{r.id} {r.name} ({r.server}, {stamp(r.start)})" for r in found.rows]
    said = "\n".join([*lines, *([found.note] if found.note else [])]) or _("No Discord events.")
    return Outcome(said, {"events": [_event_facts(r) for r in found.rows]})


async def _event_show(ops: Operations, caller: Caller, req: events.EventRef) -> Outcome:
    row = await events.find(ops, caller, req)
    return Outcome(f"#{row.id} {row.name} ({row.server}, {stamp(row.start)})", _event_facts(row))


def _spec(
    name: str,
    summary: str,
    request: type[R],
    rank: Rank,
    handler: Callable[[Operations, Caller, R], Awaitable[Outcome]],
    *,
    changes: bool = False,
    confirm: Callable[[Operations, Caller, R], Awaitable[str | None]] | None = None,
) -> OperationSpec[R]:
    # a built-in audits inside its operation (the entry names the server it changed)
    return OperationSpec(
        name,
        summary,
        request,
        rank,
        handler,
        changes=changes,
        audited=True,
        face_code=True,
        confirm=confirm,
    )


M, A = Rank.MODERATOR, Rank.ADMIN
TaskRef, ServerRef = queue.TaskRef, queue.ServerRef
BUILTIN: tuple[OperationSpec[Any], ...] = (
    _spec(
        "schedule",
        N_("Run a command after some game time."),
        schedule_ops.ScheduleRequest,
        M,
        _each(_schedule, groups.schedule),
        changes=True,
    ),
    _spec(
        "schedule_dynamic",
        N_("Run a command after some game time, under a new unique id."),
        schedule_ops.DynamicRequest,
        M,
        _each(_dynamic, groups.schedule_dynamic),
        changes=True,
    ),
    _spec(
        "cancel",
        N_("Cancel the next task with this id."),
        TaskRef,
        M,
        _each(_changed(queue.cancel), groups.cancel),
        changes=True,
    ),
    _spec(
        "cancel_all",
        N_("Cancel every task with this id (asks first)."),
        TaskRef,
        M,
        _each(_changed(queue.cancel_all), groups.cancel_all),
        changes=True,
        confirm=_ask_cancel_all,
    ),
    _spec(
        "pause",
        N_("Pause a task: its remaining delay is kept."),
        TaskRef,
        M,
        _each(_changed(queue.pause), groups.pause),
        changes=True,
    ),
    _spec(
        "resume",
        N_("Resume a paused task."),
        TaskRef,
        M,
        _each(_changed(queue.resume), groups.resume),
        changes=True,
    ),
    _spec(
        "run_now",
        N_("Run a task once, now; its schedule stays as it is."),
        TaskRef,
        M,
        _each(_run_now, groups.run_now),
        changes=True,
    ),
    _spec(
        "clear",
        N_("Remove every task from a server (asks first)."),
        ServerRef,
        A,
        _each(_clear, groups.clear),
        changes=True,
        confirm=_ask_clear,
    ),
    _spec(
        "list",
        N_("List the tasks waiting in one list."),
        reads.ListRequest,
        M,
        _each(_list, groups.page),
    ),
    _spec("show", N_("Show one task."), TaskRef, M, _each(_show, groups.show)),
    _spec(
        "time",
        N_("The server's game time and measured ticks per second."),
        ServerRef,
        M,
        _each(_time, groups.game_time),
    ),
    _spec(
        "history",
        N_("What became of a task's runs: when, how late, by whom; paged."),
        runs.HistoryRequest,
        M,
        _each(_history, groups.history),
    ),
    _spec(
        "status",
        N_("RCON, pack version, event source, TPS and queue sizes."),
        ServerRef,
        M,
        _status,
    ),
    _spec(
        "setup",
        N_("Install (or update) the data pack and verify its version."),
        ServerRef,
        A,
        _setup,
        changes=True,
    ),
    _spec(
        "selftest",
        N_("Prove the pack works on the server: live checks, one line each (about 5 s)."),
        ServerRef,
        A,
        _selftest,
        changes=True,
    ),
    _spec(
        "calendar",
        N_("The address of the plan's calendar feed (iCalendar), for your calendar app."),
        calendar.CalendarRequest,
        M,
        _calendar,
        changes=True,
    ),
    _spec(
        "plan export",
        N_("A server's planned tasks, game-time tasks and events as YAML."),
        plan_ops.ExportRequest,
        M,
        _export,
    ),
    _spec(
        "plan import",
        N_("Read a plan file: shows what changes, then asks to do it."),
        plan_ops.ImportRequest,
        M,
        _import,
        changes=True,
        confirm=_ask_import,
    ),
    _spec(
        "event create",
        N_("A Discord event plus its in-game start/end tasks."),
        events.EventRequest,
        M,
        _event_create,
        changes=True,
    ),
    _spec(
        "event edit",
        N_("Change an event; its tasks move with it."),
        events.EventEdit,
        M,
        _event_edit,
        changes=True,
    ),
    _spec(
        "event cancel",
        N_("Cancel an event in Discord and its tasks."),
        events.EventRef,
        M,
        _event_cancel,
        changes=True,
    ),
    _spec(
        "event list",
        N_("Planned and running events, with interested counts."),
        events.EventList,
        M,
        _event_list,
    ),
    _spec(
        "event show",
        N_("One event: times, interested, tasks and outcomes."),
        events.EventRef,
        M,
        _event_show,
    ),
)
