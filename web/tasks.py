"""Pages and forms about tasks: one task, and schedule (web/schedule_form.py reads the form),
cancel, pause, resume, run now, cancel every task of an id and clear (each with a confirm step),
and the planned (wall-clock) schedules' cancel/pause/resume."""

from __future__ import annotations

__all__ = ["blueprint"]

import logging
from typing import Any

from quart import Blueprint, g, redirect, render_template, request

from bot import errors
from bot.i18n import N_, _
from bot.operations.facts import task_row
from bot.operations.ranks import Rank
from bot.operations.reads import task_on_doubt
from web import actions
from web.actions import server_named
from web.auth import action, page, write_limit
from web.context import WebError
from web.flashes import flash
from web.schedule_form import preview, read_form, submit
from web.servers import first_task, render_list

log = logging.getLogger(__name__)

blueprint = Blueprint("tasks", __name__)


def _back(name: str, which: str = "queue") -> Any:
    return redirect(f"/servers/{name}/{which}", 303)


@blueprint.get("/servers/<name>/tasks/<task_id>")
@page()
async def show(name: str, task_id: str) -> Any:
    server = server_named(name)
    try:
        task = await first_task(server, task_id)
    except errors.BotError as exc:
        raise WebError(400, str(exc)) from None
    if task is None:
        raise WebError(404, _("No task `{id}` on {server}.", id=task_id, server=server.name))
    row = {**task_row(task, server), "on_doubt": await task_on_doubt(server, task)}
    return await render_template("task.html", server=server, task=row, user=g.user)


# the form posts to the queue page's own address, so a refused form (shown with its error and
# caret) is at an address that opens again; /schedule is kept for scripts and opens the queue
@blueprint.post("/servers/<name>/queue")
@blueprint.post("/servers/<name>/schedule")
@write_limit
@action()
async def schedule(name: str) -> Any:
    """The schedule form: a task or planned row, a new unique id, a group; or the preview."""
    server = server_named(name)
    form = dict(await request.form)
    form.pop("csrf_token", None)
    try:
        asked = read_form(form, server.name)
        if asked.preview:  # of this server's row (a group's rows would have the same times)
            shown = await preview(g.user, asked, server)
            return await render_list(server, "queue", form=form, preview=shown)
        sent = await submit(g.user, asked, server)
    except errors.BotError as exc:  # a typo (with its caret), a refusal, a bad field
        return await render_list(server, "queue", error=exc, form=form, status=400)
    if not sent.done:  # a group's servers all refused: the form stays, with their reasons
        return await render_list(server, "queue", refused=sent.text, form=form, status=400)
    await flash(sent.text, "ok")
    return redirect(sent.back, 303)


@blueprint.get("/servers/<name>/schedule")
@page()
async def schedule_page(name: str) -> Any:
    return _back(server_named(name).name)


@blueprint.post("/servers/<name>/tasks/<task_id>/<verb>")
@write_limit
@action()
async def change(name: str, task_id: str, verb: str) -> Any:
    server = server_named(name)
    form = await request.form
    which = form.get("list", "queue")
    verbs = {
        "cancel": actions.cancel,
        "pause": actions.pause,
        "resume": actions.resume,
        "run_now": actions.run_now,
        "cancel_all": actions.cancel_all,
    }
    if verb not in verbs:
        raise WebError(404, _("{verb} is not something a task can do.", verb=repr(verb)))
    if verb == "cancel_all" and form.get("confirm") != "yes":
        raise WebError(400, _("Confirm on the confirmation page first."))
    try:
        await flash(await verbs[verb](g.user, server, task_id), "ok")
    except errors.BotError as exc:
        await flash(str(exc), "error")
    return _back(name, which if which in ("queue", "offline", "paused", "planned") else "queue")


@blueprint.get("/servers/<name>/tasks/<task_id>/cancel_all")
@page()
async def cancel_all_confirm(name: str, task_id: str) -> Any:
    """The question before cancelling every task of an id (and its planned row)."""
    server = server_named(name)
    try:
        counted = await actions.count(g.user, server, task_id)
    except errors.ValidationError as exc:
        raise WebError(400, str(exc)) from None
    return await render_template(
        "cancel_all.html",
        base=f"/servers/{server.name}",
        task_id=task_id,
        question=counted.text,
        anything=bool(counted.count or counted.planned),
        user=g.user,
    )


@blueprint.get("/servers/<name>/clear")
@page(Rank.ADMIN, N_("clear the queue"))
async def clear_confirm(name: str) -> Any:
    server = server_named(name)
    sizes = [(await server.pack.list_tasks(w, limit=1))[1] for w in ("queue", "offline", "paused")]
    return await render_template(
        "clear.html",
        base=f"/servers/{server.name}",
        name=server.name,
        count=sum(sizes),
        user=g.user,
    )


@blueprint.post("/servers/<name>/clear")
@write_limit
@action(Rank.ADMIN, N_("clear the queue"))
async def clear(name: str) -> Any:
    server = server_named(name)
    if (await request.form).get("confirm") != "yes":
        raise WebError(400, _("Confirm the clear on the confirmation page first."))
    await flash(await actions.clear(g.user, server), "ok")
    return _back(name)


@blueprint.post("/servers/<name>/planned/<plan_id>/<verb>")
@write_limit
@action()
async def planned(name: str, plan_id: str, verb: str) -> Any:
    server = server_named(name)
    try:
        await flash(await actions.change_planned(g.user, server, plan_id, verb), "ok")
    except errors.BotError as exc:  # e.g. already paused: the scheduler's sentence
        await flash(str(exc), "error")
    return _back(name, "planned")
