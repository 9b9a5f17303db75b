"""A program started on a repeat from the dashboard: the Repeat form of a program's page (a
server or a group, an interval or a cron, the first start, the time zone and the DST policy, as
/schedule's form has them) and a repeat's Stop, asked first on its own page; through the
`program repeat` and `program stop-repeat` operations of the registry, as every face. The
programs list (web.programs) shows the repeats, from `program repeats`.

A refusal brings the program's page back with the form as it was typed and its field named.
"""

from __future__ import annotations

__all__ = ["REPEAT_FIELDS", "blueprint", "repeat_request"]

from collections.abc import Mapping
from typing import Any

from quart import Blueprint, g, redirect, render_template, request

from bot import errors
from bot.i18n import _
from web.actions import run_operation
from web.auth import action, page, write_limit
from web.context import WebError
from web.flashes import flash
from web.inputs import refuse_unknown
from web.picker import choices
from web.programs import render_program

blueprint = Blueprint("program_repeats", __name__)

# what the Repeat form sends besides its token, in the form's order
REPEAT_FIELDS = ("server", "repeat", "when", "timezone", "dst_repeated", "dst_skipped")


def repeat_request(name: str, form: Mapping[str, str]) -> dict[str, object]:
    """The form as `program repeat`'s options: blank ones left to the operation's defaults (the
    selects always send a choice; "" is the default), the rest as typed, for the operation to
    read and refuse, naming the field. A field the form does not have, or a server the picker
    does not offer, is refused, named."""
    refuse_unknown(form, ("csrf_token", *REPEAT_FIELDS))
    server = form.get("server", "").strip()
    if server and server not in {c.name for c in choices()}:
        # the operation's refusal of an unknown server names no field: the picker's does
        raise errors.ValidationError(
            _("There is no server or group called {name}.", name=repr(server[:40])),
            field="server",
        )
    data: dict[str, object] = {"name": name, "repeat": form.get("repeat", "").strip()}
    for key in REPEAT_FIELDS:
        if key != "repeat" and (text := form.get(key, "").strip()):
            data[key] = text
    return data


async def _repeat_facts(number: int) -> dict[str, Any]:
    """The active repeat `number` as `program repeats` lists it; 404 when there is none."""
    listed = (await run_operation("program repeats", {})).facts["repeats"]
    found = next((r for r in listed if r["repeat"] == number), None)
    if found is None:
        raise WebError(404, _("There is no program repeat #{n}.", n=number))
    return dict(found)


@blueprint.post("/programs/repeat/<name>")
@write_limit
@action()
async def repeat(name: str) -> Any:
    form = {key: str(value) for key, value in (await request.form).items()}
    try:
        made = await run_operation("program repeat", repeat_request(name, form))
    except errors.ValidationError as exc:
        status = 404 if isinstance(exc, errors.NotFound) else 400
        return await render_program(name, repeat_form=form, repeat_error=exc, status=status)
    await flash(made.text, "ok")
    return redirect("/programs", 303)


@blueprint.get("/programs/repeats/<int:number>/stop")
@page()
async def stop_confirm(number: int) -> Any:
    """The question before stopping a repeat."""
    shown = await _repeat_facts(number)
    return await render_template("program_repeat_stop.html", user=g.user, repeat=shown)


@blueprint.post("/programs/repeats/<int:number>/stop")
@write_limit
@action()
async def stop(number: int) -> Any:
    if (await request.form).get("confirm") != "yes":
        raise WebError(400, _("Confirm on the confirmation page first."))
    try:
        done = await run_operation("program stop-repeat", {"repeat": number})
    except errors.NotFound as exc:
        raise WebError(404, str(exc)) from None
    except errors.ValidationError as exc:  # stopped already: the operation's sentence
        await flash(str(exc), "error")
    else:
        await flash(done.text, "ok")
    return redirect("/programs", 303)
