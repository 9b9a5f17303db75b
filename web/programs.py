"""The programs pages: the saved programs and their runs, the step editor (a new program, or a
new version of one), a program's start form, and a run's page with its steps and its cancel,
pause and resume buttons; all through the `/program` operations of the registry, as every face.
The list shows the programs started on a repeat too (their form and Stop: web.program_repeats).

The editor works without JavaScript: one row of fields a step; "Add a step" and each row's
"Remove" are submit buttons that bring the page back with one row more or less, saving nothing.
Save turns the rows into the steps' YAML (bot.programs.model) for `program save`; its refusal
names the step and the field, and the page comes back with the rows as they were typed.
"""

from __future__ import annotations

__all__ = ["STEP_FIELDS", "blueprint", "render_program", "rows_yaml"]

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from pydantic import ValidationError as PydanticError
from quart import Blueprint, g, redirect, render_template, request

from bot import errors
from bot.i18n import _
from bot.i18n.words import run_outcome
from bot.operations.programs import STATE_NAMES
from bot.programs.model import MAX_PROGRAM_NAME, MAX_STEPS, Step, steps_yaml
from web.actions import run_operation
from web.auth import action, page, write_limit
from web.context import WebError
from web.flashes import flash
from web.picker import choices
from web.zones import reader_zone, zone_groups

blueprint = Blueprint("programs", __name__)

# a step's fields as the editor has them (bot.programs.model.Step), in the order of a row
STEP_FIELDS = (
    "run",
    "at",
    "after",
    "limit",
    "on_failure",
    "require",
    "if_not",
    "max_wait",
    "as_player",
)
_TEXTS = ("run", "at", "after", "limit", "require", "max_wait", "as_player")
# the form's own fields besides each row's `<field>-<row>`
_FORM = ("csrf_token", "name", "fixed", "rows", "add", "remove", "save")
_ROW_FIELD = re.compile(r"([a-z_]+)-([0-9]{1,3})")
START_FIELDS = ("csrf_token", "server", "when", "timezone")
VERBS = ("cancel", "pause", "resume")

Row = dict[str, str]


async def _listed() -> dict[str, Any]:
    return dict((await run_operation("program list", {})).facts)


async def _program(name: str) -> dict[str, Any]:
    """The newest version of the program `name` (its steps as saved); 404 when there is none."""
    found = next((p for p in (await _listed())["programs"] if p["name"] == name), None)
    if found is None:
        raise WebError(404, _("There is no program `{name}`.", name=name))
    return dict(found)


def _state(state: str) -> str:
    return _(STATE_NAMES[state]) if state in STATE_NAMES else state


def _blank(row: Row) -> bool:
    return not any(row.get(key, "").strip() for key in _TEXTS) and row.get(
        "on_failure", "continue"
    ) in ("", "continue")


def _row_of_step(step: Mapping[str, object]) -> Row:
    """A saved step as the editor's row (every field a text)."""
    row = {key: "" if step.get(key) is None else str(step[key]) for key in STEP_FIELDS}
    row["on_failure"] = row["on_failure"] or "continue"
    return row


def _saved_rows(program: Mapping[str, Any]) -> list[Row]:
    """A saved program's steps as the editor's rows, `at` shown even when it is the default."""
    return [_row_of_step({"at": "0", **step}) for step in program["steps"]] or [_row_of_step({})]


def read_rows(form: Mapping[str, str]) -> list[Row]:
    """The editor's rows as typed; a field the form does not have is refused, named."""
    for key in form:
        found = _ROW_FIELD.fullmatch(key)
        if key not in _FORM and (found is None or found.group(1) not in STEP_FIELDS):
            raise errors.ValidationError(
                _("The form has no field {name}.", name=repr(key[:40])), field=key[:40]
            )
    try:
        count = int(form.get("rows") or "1")
    except ValueError:
        count = 1
    count = max(1, min(count, MAX_STEPS))
    return [{key: form.get(f"{key}-{n}", "") for key in STEP_FIELDS} for n in range(1, count + 1)]


def _step_of_row(row: Row) -> dict[str, object]:
    """The step a row says: its blank fields left to the step's defaults; `if_not` only with a
    `require` (its select always sends a choice), `on_failure` when it is not the default."""
    step: dict[str, object] = {}
    for key in _TEXTS:
        if text := row.get(key, "").strip():
            step[key] = int(text) if key == "after" and text.isdigit() else text
    if "require" in step and (choice := row.get("if_not", "").strip()):
        step["if_not"] = choice
    if (failure := row.get("on_failure", "").strip()) and failure != "continue":
        step["on_failure"] = failure
    return step


def rows_yaml(rows: list[Row]) -> tuple[str, list[dict[str, object]]]:
    """The rows as the steps' YAML text for `program save` (trailing blank rows left out), and
    the steps it holds."""
    kept = list(rows)
    while kept and _blank(kept[-1]):
        kept.pop()
    steps = [_step_of_row(row) for row in kept]
    text = steps_yaml(steps)
    return text, steps


def _fault(steps: list[dict[str, object]]) -> tuple[int, str | None] | None:
    """The step and field the refusal is about, to mark them on the page (the refusal's own
    words say them): the first step that does not stand on its own, or names a later step."""
    for number, item in enumerate(steps, 1):
        try:
            step = Step.model_validate(item)
        except PydanticError as exc:
            loc = exc.errors()[0]["loc"]
            return number, str(loc[0]) if loc else None
        except errors.ValidationError as exc:
            return number, exc.field
        if step.after is not None and step.after >= number:
            return number, "after"
    return None


async def _render_editor(
    *,
    name: str,
    fixed: bool,
    rows: list[Row],
    version: int | None = None,
    error: str | None = None,
    error_field: str | None = None,
    fault: tuple[int, str | None] | None = None,
    start_form: Mapping[str, str] | None = None,
    start_error: errors.BotError | None = None,
    repeat_form: Mapping[str, str] | None = None,
    repeat_error: errors.BotError | None = None,
    status: int = 200,
) -> Any:
    body = await render_template(
        "program_editor.html",
        user=g.user,
        name=name,
        fixed=fixed,
        version=version,
        rows=rows,
        max_steps=MAX_STEPS,
        max_name=MAX_PROGRAM_NAME,
        error=error,
        error_field=error_field,
        fault_step=fault[0] if fault else None,
        fault_field=fault[1] if fault else None,
        servers=[c for c in choices() if not c.group],
        zones=zone_groups(),
        reader_zone=reader_zone().key,
        start_form=start_form or {},
        start_error=str(start_error) if start_error is not None else None,
        start_field=getattr(start_error, "field", None),
        # the repeat form (web.program_repeats) may start it on a group too
        targets=choices(),
        repeat_form=repeat_form or {},
        repeat_error=str(repeat_error) if repeat_error is not None else None,
        repeat_field=getattr(repeat_error, "field", None),
    )
    return body, status


async def render_program(name: str, **shown: Any) -> Any:
    """The saved program's page, its start or repeat form as `shown` says (typed, refused)."""
    found = await _program(name)
    rows = _saved_rows(found)
    return await _render_editor(name=name, fixed=True, rows=rows, version=found["version"], **shown)


# -- the list -----------------------------------------------------------------------------------


@blueprint.get("/programs")
@page()
async def listed() -> Any:
    facts = await _listed()
    programs = [
        {"name": p["name"], "version": p["version"], "steps": len(p["steps"])}
        for p in facts["programs"]
    ]
    runs = [{**r, "state_text": _state(r["state"])} for r in facts["runs"]]
    repeats = (await run_operation("program repeats", {})).facts["repeats"]
    return await render_template(
        "programs.html", user=g.user, programs=programs, runs=runs, repeats=repeats
    )


# -- the editor ---------------------------------------------------------------------------------


@blueprint.get("/programs/new")
@page()
async def new() -> Any:
    return await _render_editor(name="", fixed=False, rows=[_row_of_step({})])


@blueprint.get("/programs/edit/<name>")
@page()
async def edit(name: str) -> Any:
    found = await _program(name)
    rows = _saved_rows(found)
    return await _render_editor(name=name, fixed=True, rows=rows, version=found["version"])


@blueprint.post("/programs/editor")
@write_limit
@action()
async def editor() -> Any:
    """Add a row, remove one, or save the rows as the program's next version."""
    form = {key: str(value) for key, value in (await request.form).items()}
    name = form.get("name", "").strip()
    fixed = form.get("fixed") == "1"
    try:
        rows = read_rows(form)
    except errors.ValidationError as exc:
        raise WebError(400, str(exc), exc.field) from None
    if "add" in form:
        if len(rows) >= MAX_STEPS:
            error = _("A program has at most {n} steps.", n=MAX_STEPS)
            return await _render_editor(name=name, fixed=fixed, rows=rows, error=error, status=400)
        return await _render_editor(name=name, fixed=fixed, rows=[*rows, _row_of_step({})])
    if "remove" in form:
        gone = form["remove"]
        kept = [row for n, row in enumerate(rows, 1) if str(n) != gone] or [_row_of_step({})]
        return await _render_editor(name=name, fixed=fixed, rows=kept)
    text, steps = rows_yaml(rows)
    try:
        saved = await run_operation("program save", {"name": name, "steps": text})
    except errors.ValidationError as exc:
        fault = _fault(steps) if exc.field == "steps" else None
        return await _render_editor(
            name=name,
            fixed=fixed,
            rows=rows,
            error=str(exc),
            error_field=exc.field,
            fault=fault,
            status=400,
        )
    await flash(saved.text, "ok")
    return redirect(f"/programs/edit/{quote(str(saved.facts['name']), safe='')}", 303)


# -- starting one -------------------------------------------------------------------------------


@blueprint.post("/programs/start/<name>")
@write_limit
@action()
async def start(name: str) -> Any:
    form = {key: str(value) for key, value in (await request.form).items()}
    data: dict[str, object] = {"name": name}
    if server := form.get("server", "").strip():
        data["server"] = server
    if when := form.get("when", "").strip():
        data["when"] = when
        if zone := form.get("timezone", "").strip():
            data["timezone"] = zone
    try:
        unknown = next((key for key in form if key not in START_FIELDS), None)
        if unknown is not None:
            raise errors.ValidationError(
                _("The form has no field {name}.", name=repr(unknown[:40])), field=unknown[:40]
            )
        started = await run_operation("program start", data)
    except errors.ValidationError as exc:
        status = 404 if isinstance(exc, errors.NotFound) else 400
        return await render_program(name, start_form=form, start_error=exc, status=status)
    await flash(started.text, "ok")
    if "run" not in started.facts:  # on a group: a run per server, all in the list
        return redirect("/programs", 303)
    return redirect(f"/programs/runs/{started.facts['run']}", 303)


# -- a run --------------------------------------------------------------------------------------


@blueprint.get("/programs/runs/<int:run>")
@page()
async def run_page(run: int) -> Any:
    try:
        shown = await run_operation("program show", {"run": run})
    except errors.ValidationError as exc:
        raise WebError(404 if isinstance(exc, errors.NotFound) else 400, str(exc)) from None
    facts = dict(shown.facts)
    steps = [
        {
            **step,
            "state_text": _state(step["state"]),
            "outcome_text": run_outcome(step["outcome"]) if step["outcome"] else "",
        }
        for step in facts["steps"]
    ]
    return await render_template(
        "program_run.html",
        user=g.user,
        run=facts,
        state_text=_state(facts["state"]),
        steps=steps,
    )


@blueprint.post("/programs/runs/<int:run>/<verb>")
@write_limit
@action()
async def change(run: int, verb: str) -> Any:
    if verb not in VERBS:
        raise WebError(404, _("There is no such page."))
    try:
        done = await run_operation(f"program {verb}", {"run": run})
    except errors.NotFound as exc:
        raise WebError(404, str(exc)) from None
    except errors.ValidationError as exc:  # already over: the operation's sentence
        await flash(str(exc), "error")
    else:
        await flash(done.text, "ok")
    return redirect(f"/programs/runs/{run}", 303)
