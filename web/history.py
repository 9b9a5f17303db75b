"""The run history of one task id: a page (a table, newest first) and its rows as the API
answers them. The runs come from the application layer (bot.operations.runs.history)."""

from __future__ import annotations

__all__ = ["blueprint"]

from typing import Any

from quart import Blueprint, g, render_template

from bot import errors
from bot.i18n.words import run_outcome
from bot.operations import runs
from bot.operations.facts import run_row
from web import actions
from web.actions import server_named
from web.auth import page
from web.context import WebError
from web.inputs import page_number

blueprint = Blueprint("history", __name__)


async def history_of(name: str, task_id: str, number: int) -> runs.History:
    server = server_named(name)
    try:
        return await actions.history(g.user, server, task_id, number)
    except errors.ValidationError as exc:  # not an id a task can have
        raise WebError(400, str(exc)) from None


@blueprint.get("/servers/<name>/history/<task_id>")
@page()
async def history(name: str, task_id: str) -> Any:
    number = page_number(runs.MAX_PAGE)
    found = await history_of(name, task_id, number)
    rows = [{**run_row(e), "said": run_outcome(e.outcome)} for e in found.entries]
    return await render_template("history.html", found=found, rows=rows, user=g.user)
