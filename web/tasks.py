"""Pages and forms about tasks: one task, and schedule, cancel, pause, resume, clear (with a
confirm step), and the planned (wall-clock) schedules' cancel/pause/resume."""

from __future__ import annotations

__all__ = ["blueprint"]

import logging
from typing import Any

from quart import Blueprint, flash, g, redirect, render_template, request

from bot import errors
from bot.i18n import N_, _
from bot.operations.ranks import Rank
from web import actions
from web.actions import ScheduleRequest, server_named
from web.auth import action, page, write_limit
from web.context import WebError
from web.servers import first_task, render_list, task_row

log = logging.getLogger(__name__)

blueprint = Blueprint("tasks", __name__)


def _back(name: str, which: str = "queue") -> Any:
    return redirect(f"/servers/{name}/{which}", 303)


def schedule_request(form: dict[str, str]) -> ScheduleRequest:
    """The form's fields as a request; a field that is not a number is named."""
    numbers: dict[str, int] = {}
    for key, default in (("time", None), ("retry", "0")):
        text = (form.get(key) or default or "").strip()
        try:
            numbers[key] = int(text)
        except ValueError:
            raise errors.ValidationError(
                _("`{field}` must be a whole number, not {text}.", field=key, text=repr(text))
            ) from None
    return ScheduleRequest.checked(
        {
            "run": form.get("run", "").strip().removeprefix("/"),
            "time": numbers["time"],
            "unit": form.get("unit", "tick"),
            "id": form.get("id", "").strip() or None,
            "retry": numbers["retry"],
            **_conditions(form),
        }
    )


def _conditions(form: dict[str, str]) -> dict[str, str]:
    """The condition fields: `if_not` and `after_wait` only count with a `require`, and
    `after_wait` only with a wait (the selects always send their first choice)."""
    require = (form.get("require") or "").strip()
    if not require:
        return {}
    found = {"require": require}
    if form.get("if_not") == "wait":
        found["if_not"] = "wait"
        found["max_wait"] = (form.get("max_wait") or "").strip()
        found["after_wait"] = form.get("after_wait") or "skip"
    elif (form.get("max_wait") or "").strip():
        found["max_wait"] = form["max_wait"].strip()  # refused, naming it
    return found


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
    return await render_template(
        "task.html", server=server, task=task_row(task, server), user=g.user
    )


# the form posts to the queue page's own address, so a refused form (shown with its error and
# caret) is at an address that opens again; /schedule is kept for scripts and opens the queue
@blueprint.post("/servers/<name>/queue")
@blueprint.post("/servers/<name>/schedule")
@write_limit
@action()
async def schedule(name: str) -> Any:
    server = server_named(name)
    form = dict(await request.form)
    form.pop("csrf_token", None)
    try:
        outcome = (await actions.schedule(g.user, server, schedule_request(form))).text
    except errors.BotError as exc:  # a typo (with its caret), a refusal, a bad field
        return await render_list(server, "queue", error=exc, form=form, status=400)
    await flash(outcome, "ok")
    return _back(name)


@blueprint.get("/servers/<name>/schedule")
@page()
async def schedule_page(name: str) -> Any:
    return _back(server_named(name).name)


@blueprint.post("/servers/<name>/tasks/<task_id>/<verb>")
@write_limit
@action()
async def change(name: str, task_id: str, verb: str) -> Any:
    server = server_named(name)
    which = (await request.form).get("list", "queue")
    verbs = {"cancel": actions.cancel, "pause": actions.pause, "resume": actions.resume,
             "run_now": actions.run_now}  # fmt: skip
    if verb not in verbs:
        raise WebError(404, _("{verb} is not something a task can do.", verb=repr(verb)))
    try:
        await flash(await verbs[verb](g.user, server, task_id), "ok")
    except errors.BotError as exc:
        await flash(str(exc), "error")
    return _back(name, which if which in ("queue", "offline", "paused", "planned") else "queue")


@blueprint.get("/servers/<name>/clear")
@page(Rank.ADMIN, N_("clear the queue"))
async def clear_confirm(name: str) -> Any:
    server = server_named(name)
    sizes = [(await server.pack.list_tasks(w, limit=1))[1] for w in ("queue", "offline", "paused")]
    return await render_template("clear.html", server=server, count=sum(sizes), user=g.user)


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
