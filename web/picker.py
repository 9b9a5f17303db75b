"""The pages' server picker: every configured server, then the server groups (`all`, then
DOOM_SERVER_GROUPS'), each group labelled as one with its size; and `/pick`, where the picker's
form sends the reader to the same view (a list, a task, a history) of what they picked."""

from __future__ import annotations

__all__ = ["Choice", "blueprint", "choices", "group_label", "group_names", "group_servers"]

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from quart import Blueprint, redirect, request

from bot.config import ALL_SERVERS
from bot.i18n import _, ngettext
from bot.i18n.formats import number
from bot.operations.reads import LISTS
from web.auth import page
from web.context import WebError, operations, state

if TYPE_CHECKING:
    from bot.services import ServerServices

blueprint = Blueprint("picker", __name__)

# the views a pick keeps: a list by its name, and a task's page or history by its id
BY_ID = ("tasks", "history")


@dataclass(frozen=True, slots=True)
class Choice:
    """One entry of the picker: a server or a group (`group`), as the reader sees it."""

    name: str
    label: str
    group: bool


def group_names() -> list[str]:
    """`all`, then the groups of DOOM_SERVER_GROUPS."""
    return [ALL_SERVERS, *sorted(state().services.settings.server_groups)]


def group_servers(name: str) -> list[ServerServices]:
    """The servers of the group `name`; a 404 when it is no group."""
    found = operations().group(name)
    if found is None:
        raise WebError(404, _("{name} is not a server group.", name=repr(name)))
    return found


def group_label(name: str) -> str:
    """A group named apart from a server: "group: lobbies (3 servers)"."""
    count = len(operations().group(name) or [])
    return ngettext(
        "group: {name} ({count} server)",
        "group: {name} ({count} servers)",
        count,
        name=name,
        count=number(count),
    )


def choices() -> list[Choice]:
    """Every server, then every group."""
    servers = [Choice(n, n, False) for n in state().services.servers]
    return [*servers, *(Choice(n, group_label(n), True) for n in group_names())]


def _view(view: str) -> str:
    """The path of `view` under a server's or a group's address; a 404 for any other."""
    kind, _sep, task_id = view.partition("/")
    if not task_id and kind in LISTS:
        return kind
    if kind in BY_ID and task_id:
        return f"{kind}/{quote(task_id, safe='')}"
    raise WebError(404, _("{view} is not a page of a server.", view=repr(view[:80])))


@blueprint.get("/pick")
@page()
async def pick() -> Any:
    """The picker's form: the chosen server's or group's page of the same view."""
    target = request.args.get("target", "")
    view = _view(request.args.get("view", "queue"))
    if target in state().services.servers:
        return redirect(f"/servers/{quote(target, safe='')}/{view}", 303)
    group_servers(target)
    return redirect(f"/groups/{quote(target, safe='')}/{view}", 303)
