"""The triggers pages: the list of triggers (what starts which program, when each last fired)
with their pause, resume and remove buttons, the form that adds one, and one trigger's page with
its test form (a log line to try) and the test's outcome; all through the `/trigger` operations
of the registry, as every face.

The add form works without JavaScript: it shows every kind's fields, each group saying the kind
it is for (the page's script shows only the chosen kind's). Blank fields are left to the
operation's defaults; a field filled for another kind is the operation's refusal, naming it,
and the form comes back as it was typed. The log kind is offered to admins only, as the
operation allows it to them only.
"""

from __future__ import annotations

__all__ = ["ADD_FIELDS", "KIND_LABELS", "add_request", "blueprint", "waits_for"]

from collections.abc import Mapping
from typing import Any

from quart import Blueprint, g, redirect, render_template, request

from bot import errors
from bot.i18n import N_, _
from bot.operations import registry as ops_registry
from bot.operations.triggers import KIND_NAMES
from bot.triggers.model import MAX_PATTERN, MAX_PER_DAY, MAX_PLAYERS
from web.actions import caller, run_operation
from web.auth import action, page, write_limit
from web.context import WebError, operations
from web.flashes import flash
from web.inputs import refuse_unknown
from web.picker import choices

blueprint = Blueprint("triggers", __name__)

# `trigger add`'s options as the form sends them, in the form's order
ADD_FIELDS = (
    "name",
    "kind",
    "program",
    "server",
    "players",
    "direction",
    "player",
    "pattern",
    "event",
    "interested",
    "deadline",
    "if_not",
    "postpone",
    "cooldown",
    "per_day",
)
KIND_LABELS = {
    "started": N_("Server start"),
    "players": N_("Players online"),
    "join": N_("Player joins"),
    "log": N_("Log line"),
    "interest": N_("Discord event interest"),
}
ADMIN_KINDS = ("log",)  # the operation lets admins only add (and change) these
TEST_FIELDS = ("csrf_token", "line")
VERBS = ("pause", "resume")


async def _listed() -> list[dict[str, Any]]:
    return [dict(t) for t in (await run_operation("trigger list", {})).facts["triggers"]]


async def _trigger(name: str) -> dict[str, Any]:
    """The trigger `name` as `trigger list` has it; 404 with the sentence when there is none."""
    found = next((t for t in await _listed() if t["name"] == name), None)
    if found is None:
        raise WebError(404, _("There is no trigger `{name}`.", name=name))
    return found


def waits_for(trigger: Mapping[str, Any]) -> str:
    """What a trigger waits for, from its facts (the operation's own sentences)."""
    kind = trigger["kind"]
    if kind == "players":
        word = _("rises to") if trigger["direction"] == "up" else _("falls below")
        return _("when the players online {word} {n}", word=word, n=trigger["players"])
    if kind == "join":
        if trigger["player"] is not None:
            return _("when {player} joins", player=trigger["player"])
        return _("when a player joins")
    if kind == "log":
        return _("when a log line matches `{pattern}`", pattern=trigger["pattern"])
    if kind == "started":
        return _("when the server has started")
    # the list's facts do not name an interest trigger's event: the kind's own words
    return _(KIND_NAMES.get(kind, kind))


def _view(trigger: Mapping[str, Any]) -> dict[str, Any]:
    kind = trigger["kind"]
    return {
        **trigger,
        "kind_text": _(KIND_LABELS[kind]) if kind in KIND_LABELS else kind,
        "waits_for": waits_for(trigger),
        "admins_only": kind in ADMIN_KINDS,
    }


def _kinds() -> list[tuple[str, str]]:
    """The kinds this user may add, with their labels: the log kind for admins only."""
    return [
        (kind, _(label))
        for kind, label in KIND_LABELS.items()
        if kind not in ADMIN_KINDS or g.user.is_admin
    ]


def add_request(form: Mapping[str, str]) -> dict[str, object]:
    """The add form as `trigger add`'s options: the blank ones left out (the operation's
    defaults), the numbers as typed (the operation reads and refuses them, naming them)."""
    refuse_unknown(form, ("csrf_token", *ADD_FIELDS))
    data: dict[str, object] = {}
    for key in ADD_FIELDS:
        text = form.get(key, "").strip()
        if text or key in ("name", "kind", "program"):
            data[key] = text
    return data


async def _program_names() -> list[str]:
    return [str(p["name"]) for p in (await run_operation("program list", {})).facts["programs"]]


async def _render_list(
    *,
    form: Mapping[str, str] | None = None,
    error: errors.BotError | None = None,
    status: int = 200,
) -> Any:
    # a rank refusal (the log kind, a moderator's) is about the kind chosen
    error_field = "kind" if isinstance(error, errors.NotAllowed) else getattr(error, "field", None)
    triggers = [_view(t) for t in await _listed()]
    body = await render_template(
        "triggers.html",
        user=g.user,
        triggers=triggers,
        kinds=_kinds(),
        programs=await _program_names(),
        servers=[c.name for c in choices() if not c.group],
        form=form or {},
        error=str(error) if error is not None else None,
        error_field=error_field,
        max_pattern=MAX_PATTERN,
        max_per_day=MAX_PER_DAY,
        max_players=MAX_PLAYERS,
    )
    return body, status


async def _render_trigger(
    name: str,
    *,
    line: str = "",
    tried: Mapping[str, Any] | None = None,
    error: errors.BotError | None = None,
    status: int = 200,
) -> Any:
    trigger = _view(await _trigger(name))
    steps = list(tried["steps"]) if tried is not None else []
    body = await render_template(
        "trigger.html",
        user=g.user,
        trigger=trigger,
        line=line,
        tried=tried,
        steps=steps,
        wants_line=trigger["kind"] in ("log", "join"),
        error=str(error) if error is not None else None,
        error_field=getattr(error, "field", None),
    )
    return body, status


# -- the list and the add form ------------------------------------------------------------------


@blueprint.get("/triggers")
@page()
async def listed() -> Any:
    return await _render_list()


@blueprint.post("/triggers")
@write_limit
@action()
async def add() -> Any:
    form = {key: str(value) for key, value in (await request.form).items()}
    shown = {key: value for key, value in form.items() if key != "csrf_token"}
    try:
        added = await ops_registry.run(
            operations(), caller(g.user), "trigger add", add_request(form)
        )
    except errors.NotAllowed as exc:  # a moderator's log trigger: the admins' kind
        return await _render_list(form=shown, error=exc, status=403)
    except errors.ValidationError as exc:
        return await _render_list(form=shown, error=exc, status=400)
    await flash(added.text, "ok")
    return redirect("/triggers", 303)


# -- pause, resume, remove ----------------------------------------------------------------------


@blueprint.post("/triggers/<name>/<verb>")
@write_limit
@action()
async def change(name: str, verb: str) -> Any:
    if verb not in VERBS:
        raise WebError(404, _("There is no such page."))
    try:
        done = await run_operation(f"trigger {verb}", {"name": name})
    except errors.NotFound as exc:
        raise WebError(404, str(exc)) from None
    except errors.ValidationError as exc:  # paused or on already: the operation's sentence
        await flash(str(exc), "error")
    else:
        await flash(done.text, "ok")
    return redirect("/triggers", 303)


@blueprint.get("/triggers/<name>/remove")
@page()
async def remove_confirm(name: str) -> Any:
    """The question before removing a trigger."""
    trigger = _view(await _trigger(name))
    return await render_template("trigger_remove.html", user=g.user, trigger=trigger)


@blueprint.post("/triggers/<name>/remove")
@write_limit
@action()
async def remove(name: str) -> Any:
    if (await request.form).get("confirm") != "yes":
        raise WebError(400, _("Confirm on the confirmation page first."))
    try:
        done = await run_operation("trigger remove", {"name": name})
    except errors.NotFound as exc:
        raise WebError(404, str(exc)) from None
    await flash(done.text, "ok")
    return redirect("/triggers", 303)


# -- one trigger and its test -------------------------------------------------------------------


@blueprint.get("/triggers/<name>")
@page()
async def show(name: str) -> Any:
    return await _render_trigger(name)


@blueprint.post("/triggers/<name>/test")
@write_limit
@action()
async def test(name: str) -> Any:
    """`trigger test`: whether the line would fire it, and what would run (nothing is sent)."""
    form = {key: str(value) for key, value in (await request.form).items()}
    line = form.get("line", "")
    data: dict[str, object] = {"name": name}
    if line.strip():
        data["line"] = line
    try:
        refuse_unknown(form, TEST_FIELDS)
        tried = await run_operation("trigger test", data)
    except errors.NotFound as exc:
        raise WebError(404, str(exc)) from None
    except errors.ValidationError as exc:
        return await _render_trigger(name, line=line, error=exc, status=400)
    return await _render_trigger(name, line=line, tried=tried.facts)
