"""The pages on a group of servers (`all`, or one of DOOM_SERVER_GROUPS), under /groups/<group>:
the server pages' reads and forms through bot.operations.groups, as `server: <group>` in
Discord: each server of the group is asked at once and answers for itself. A page says the
group's head line ("lobbies: done on 2 of 3 servers."), then each server's part; a server that
is down or refused is named with why, in the line Discord's reply has for it. A write's outcome
is Discord's reply, flashed on the group's list."""

from __future__ import annotations

__all__ = ["blueprint"]

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from quart import Blueprint, g, redirect, render_template, request

from bot import errors
from bot.i18n import N_, _
from bot.i18n.words import run_outcome
from bot.operations import groups, queue, reads, runs
from bot.operations.facts import planned_row, run_row, task_row
from bot.operations.ranks import Rank
from web.actions import UNITS, caller, check_task_id
from web.auth import action, page, write_limit
from web.context import WebError, operations, state
from web.flashes import flash
from web.inputs import check_list, page_number
from web.picker import group_label, group_servers
from web.schedule_form import form_context, preview, preview_rows, read_form, submit
from web.servers import MAX_PAGE, server_status

if TYPE_CHECKING:
    from bot.operations.schedule import Preview

blueprint = Blueprint("groups", __name__)

T = TypeVar("T")
VERBS: dict[str, Callable[..., Awaitable[groups.GroupOutcome[Any]]]] = {
    "cancel": groups.cancel,
    "pause": groups.pause,
    "resume": groups.resume,
    "run_now": groups.run_now,
    "cancel_all": groups.cancel_all,
}


def _parts(fanned: groups.GroupOutcome[T]) -> list[tuple[groups.ServerOutcome[T], str]]:
    """Each server's outcome with its line (what the page says of one it could not read)."""
    return list(zip(fanned.outcomes, fanned.lines, strict=True))


def _task_id(task_id: str) -> str:
    try:
        check_task_id(task_id)
    except errors.ValidationError as exc:
        raise WebError(400, str(exc), "task_id") from None
    return task_id


def _back(group: str, which: str = "queue") -> Any:
    return redirect(f"/groups/{group}/{which if which in reads.LISTS else 'queue'}", 303)


async def _said(fanned: groups.GroupOutcome[Any]) -> None:
    """A write's outcome, flashed as Discord replies it: an error when no server did it."""
    await flash(fanned.text, "ok" if any(o.ok for o in fanned.outcomes) else "error")


# -- reads ------------------------------------------------------------------------------------


@blueprint.get("/groups/<group>")
@page()
async def status(group: str) -> Any:
    """Each server's state (as the servers page) and game time (as /time server:<group>)."""
    members = group_servers(group)
    statuses = await asyncio.gather(*(server_status(s) for s in members))
    # after the status, whose TPS sample the clock's measurement then reuses
    fanned = await groups.game_time(operations(), caller(g.user), queue.ServerRef(server=group))
    clocks = {o.server: o.value for o in fanned.outcomes if o.value is not None}
    unread = [line for o, line in _parts(fanned) if o.value is None]
    return await render_template(
        "servers.html",
        statuses=statuses,
        clocks=clocks,
        user=g.user,
        group=group,
        heading=group_label(group),
        head=fanned.head,
        unread=unread,
        lists=reads.LISTS,
    )


@blueprint.get("/groups/<group>/<which>")
@page()
async def tasks(group: str, which: str) -> Any:
    return await render_group_list(group, which)


async def render_group_list(
    group: str,
    which: str,
    *,
    error: errors.BotError | None = None,
    form: dict[str, str] | None = None,
    shown: Preview | None = None,
    refused: str | None = None,
    status: int = 200,
) -> Any:
    """The same page of a list on each server of the group (as /list server:<group>, paged);
    on the queue, the schedule form for the group, with its error or preview when it has one."""
    check_list(which)
    group_servers(group)
    number = page_number(MAX_PAGE)
    request_ = reads.ListRequest(which=which, page=number - 1, server=group)  # type: ignore[arg-type]
    fanned = await groups.page(operations(), caller(g.user), request_)
    parts = []
    for outcome, line in _parts(fanned):
        found = outcome.value
        rows: list[dict[str, Any]] = []
        if found is not None:
            rows = [task_row(t, found.server) for t in found.tasks]
            rows += [planned_row(row) for row, _upcoming in found.planned]
        parts.append({"outcome": outcome, "line": line, "rows": rows, "page": found})
    pages = max((p.pages for o in fanned.outcomes if (p := o.value) is not None), default=1)
    caret = error.caret() if isinstance(error, errors.CommandParseError) else None
    field = error.field if isinstance(error, errors.ValidationError) else None
    if isinstance(error, errors.CommandParseError | errors.CommandRefused):
        field = "run"
    extra = await form_context(None, group) if which == "queue" else {}
    body = await render_template(
        "group_tasks.html",
        group=group,
        label=group_label(group),
        which=which,
        lists=reads.LISTS,
        head=fanned.head,
        parts=parts,
        number=min(number, pages),
        pages=pages,
        user=g.user,
        scheduler=state().services.scheduler,
        form=form or {},
        error=str(error) if error is not None else None,
        caret=caret,
        error_field=field,
        refused=refused,
        preview=shown,
        previewed=preview_rows(shown) if shown is not None else [],
        units=UNITS,
        **extra,
    )
    return body, status


@blueprint.get("/groups/<group>/tasks/<task_id>")
@page()
async def show(group: str, task_id: str) -> Any:
    """Each server's task (or planned row) of this id, as /show server:<group>."""
    group_servers(group)
    request_ = queue.TaskRef(id=_task_id(task_id), server=group)
    fanned = await groups.show(operations(), caller(g.user), request_)
    parts = []
    for outcome, line in _parts(fanned):
        found = outcome.value
        task = planned = None
        if found is not None and found.task is not None:
            task = task_row(found.task, found.server)
        if found is not None and found.planned is not None:
            planned = planned_row(found.planned)
        parts.append({"outcome": outcome, "line": line, "task": task, "planned": planned})
    return await render_template(
        "group_task.html",
        group=group,
        label=group_label(group),
        task_id=task_id,
        head=fanned.head,
        parts=parts,
        user=g.user,
    )


@blueprint.get("/groups/<group>/history/<task_id>")
@page()
async def history(group: str, task_id: str) -> Any:
    """Each server's runs of this id, the same page of each, as /history server:<group>."""
    group_servers(group)
    number = page_number(runs.MAX_PAGE)
    request_ = runs.HistoryRequest(id=_task_id(task_id), server=group, page=number)
    fanned = await groups.history(operations(), caller(g.user), request_)
    parts = []
    for outcome, line in _parts(fanned):
        found = outcome.value
        rows = (
            []
            if found is None
            else [{**run_row(e), "said": run_outcome(e.outcome)} for e in found.entries]
        )
        parts.append({"outcome": outcome, "line": line, "rows": rows, "found": found})
    pages = max((h.pages for o in fanned.outcomes if (h := o.value) is not None), default=1)
    return await render_template(
        "group_history.html",
        group=group,
        label=group_label(group),
        task_id=task_id,
        head=fanned.head,
        parts=parts,
        number=min(number, pages),
        pages=pages,
        user=g.user,
    )


# -- writes -----------------------------------------------------------------------------------


@blueprint.post("/groups/<group>/queue")
@write_limit
@action()
async def schedule(group: str) -> Any:
    """The group's schedule form: a task or planned row on each server, a new unique id on
    each, or the preview (of the first server's row: each server's would have the same times)."""
    group_servers(group)
    form = dict(await request.form)
    form.pop("csrf_token", None)
    try:
        asked = read_form(form, None, group)
        if asked.preview:
            shown = await preview(g.user, asked, None)
            return await render_group_list(group, "queue", form=form, shown=shown)
        sent = await submit(g.user, asked, None)
    except errors.BotError as exc:  # a bad field, a target that is no group
        return await render_group_list(group, "queue", error=exc, form=form, status=400)
    if not sent.done:  # every server refused (a typo, the deny-list) or is down: form kept
        return await render_group_list(group, "queue", refused=sent.text, form=form, status=400)
    await flash(sent.text, "ok")
    return redirect(sent.back, 303)


@blueprint.post("/groups/<group>/tasks/<task_id>/<verb>")
@write_limit
@action()
async def change(group: str, task_id: str, verb: str) -> Any:
    """Cancel, pause, resume, run now or cancel every task of an id on each server."""
    group_servers(group)
    form = await request.form
    if verb not in VERBS:
        raise WebError(404, _("{verb} is not something a task can do.", verb=repr(verb)))
    if verb == "cancel_all" and form.get("confirm") != "yes":
        raise WebError(400, _("Confirm on the confirmation page first."))
    request_ = queue.TaskRef(id=_task_id(task_id), server=group)
    await _said(await VERBS[verb](operations(), caller(g.user), request_))
    return _back(group, form.get("list", "queue"))


@blueprint.get("/groups/<group>/tasks/<task_id>/cancel_all")
@page()
async def cancel_all_confirm(group: str, task_id: str) -> Any:
    """The question before cancelling every task of an id on each server: how many each has."""
    group_servers(group)
    request_ = queue.TaskRef(id=_task_id(task_id), server=group)
    counted = await groups.count(operations(), caller(g.user), request_)
    anything = any(
        c.value is not None and (c.value.count or c.value.planned) for c in counted.outcomes
    )
    return await render_template(
        "cancel_all.html",
        base=f"/groups/{group}",
        task_id=task_id,
        question=counted.text,
        anything=anything,
        user=g.user,
    )


@blueprint.get("/groups/<group>/clear")
@page(Rank.ADMIN, N_("clear the queue"))
async def clear_confirm(group: str) -> Any:
    group_servers(group)
    asked = groups.size(operations(), caller(g.user), queue.ServerRef(server=group))
    return await render_template(
        "clear.html",
        base=f"/groups/{group}",
        name=group_label(group),
        question=asked.text,
        user=g.user,
    )


@blueprint.post("/groups/<group>/clear")
@write_limit
@action(Rank.ADMIN, N_("clear the queue"))
async def clear(group: str) -> Any:
    group_servers(group)
    if (await request.form).get("confirm") != "yes":
        raise WebError(400, _("Confirm the clear on the confirmation page first."))
    await _said(await groups.clear(operations(), caller(g.user), queue.ServerRef(server=group)))
    return _back(group)
