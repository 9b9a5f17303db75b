"""The dashboard's writes, shared by the pages and the JSON API: requests to the operations
(bot.operations) every face uses, so the same checks and audit trail as the slash commands."""

from __future__ import annotations

__all__ = [
    "UNITS",
    "ScheduleRequest",
    "cancel",
    "cancel_all",
    "change_planned",
    "check_task_id",
    "clear",
    "count",
    "game_time",
    "history",
    "pause",
    "preview",
    "reload_extension",
    "resume",
    "run_now",
    "run_operation",
    "schedule",
    "schedule_dynamic",
    "schedule_dynamic_group",
    "schedule_group",
    "selftest",
    "server_named",
    "setup",
]

import logging
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Self

from pydantic import ConfigDict
from quart import g

from bot import errors
from bot.i18n import N_, _
from bot.minecraft import task_fields
from bot.operations import Caller, Face, admin, groups, queue, reads, runs
from bot.operations import registry as ops_registry
from bot.operations import schedule as schedule_ops
from bot.operations.registry import Done
from bot.operations.requests import validated
from web.context import WebError, WebUser, operations, state
from web.inputs import whole_number

if TYPE_CHECKING:
    from bot.services import ServerServices

log = logging.getLogger(__name__)

UNITS = schedule_ops.UNITS
MAX_INT = task_fields.MAX_INT
MAX_RUN = task_fields.MAX_COMMAND


class ScheduleRequest(schedule_ops.ScheduleFields):
    """What the schedule form and `POST /api/servers/<server>/tasks` take (the server is the
    path's): every field of /schedule; a field it does not know is refused (a script's `when`
    must not be dropped and the command run at once)."""

    # the OpenAPI document's examples (a script's first request; the API tests send them too)
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"run": "say The raid starts!", "time": 5, "unit": "minute", "id": "raid"},
                {"run": "say Build night!", "when": "friday 20:00", "id": "build-night"},
            ]
        }
    )

    @classmethod
    def checked(cls, data: Mapping[str, object]) -> Self:
        """The request from these fields; errors.ValidationError with the first fault, named."""
        return validated(cls, data)


class DynamicFields(schedule_ops.DynamicRequest):
    """`POST /api/servers/<server>/tasks/dynamic`: a command after some game time under a new
    unique id starting with `prefix` (the server is the path's)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"run": "say hi", "time": 30, "unit": "second"}]}
    )

    server: None = None  # the path's

    @classmethod
    def checked(cls, data: Mapping[str, object]) -> Self:
        return validated(cls, data)


def server_named(name: str) -> ServerServices:
    servers = state().services.servers
    try:
        return servers[name]
    except KeyError:
        known = ", ".join(sorted(servers)) or _("none")
        raise WebError(
            404,
            _(
                "There is no server called {name} (configured: {known}).",
                name=repr(name),
                known=known,
            ),
        ) from None


def caller(user: WebUser) -> Caller:
    """The user as the operations see them: the API (a bearer token) or the web pages."""
    face: Face = "api" if user.by_token else "web"
    return Caller(user.id, user.name, user.rank, face, secrets.randbits(40), user.guild_id)


async def run_operation(name: str, data: Mapping[str, object]) -> Done:
    """The registry's operation `name` for this request's signed-in user: its rank check (a
    refusal is a 403 page), validation and audit, as every face runs it."""
    try:
        return await ops_registry.run(operations(), caller(g.user), name, data)
    except errors.NotAllowed as exc:
        raise WebError(403, str(exc)) from None


async def schedule(
    user: WebUser, server: ServerServices, req: ScheduleRequest
) -> schedule_ops.Scheduled:
    """/schedule from the web: a typo is CommandParseError with its caret, nothing queued."""
    request = schedule_ops.ScheduleRequest(server=server.name, **req.model_dump())
    return await schedule_ops.schedule(operations(), caller(user), request)


async def preview(
    user: WebUser, server: ServerServices, req: ScheduleRequest
) -> schedule_ops.Preview:
    """The next runs of a wall-clock request, every check made, nothing stored."""
    request = schedule_ops.ScheduleRequest(server=server.name, **req.model_dump())
    return await schedule_ops.preview(operations(), caller(user), request)


async def schedule_group(user: WebUser, group: str, req: ScheduleRequest) -> groups.GroupScheduled:
    """/schedule on a group of servers; an unknown group is a 404."""
    if operations().group(group) is None:
        raise WebError(404, _("{name} is not a server group.", name=repr(group)))
    request = schedule_ops.ScheduleRequest(server=group, **req.model_dump())
    return await groups.schedule(operations(), caller(user), request)


async def schedule_dynamic(
    user: WebUser, server: ServerServices, req: DynamicFields
) -> schedule_ops.Scheduled:
    request = schedule_ops.DynamicRequest(server=server.name, **req.model_dump(exclude={"server"}))
    return await schedule_ops.schedule_dynamic(operations(), caller(user), request)


async def schedule_dynamic_group(
    user: WebUser, group: str, req: DynamicFields
) -> groups.GroupScheduled:
    """/schedule_dynamic on a group: each server makes up its own id; an unknown group is a 404."""
    if operations().group(group) is None:
        raise WebError(404, _("{name} is not a server group.", name=repr(group)))
    request = schedule_ops.DynamicRequest(server=group, **req.model_dump(exclude={"server"}))
    return await groups.schedule_dynamic(operations(), caller(user), request)


async def game_time(user: WebUser, server: ServerServices) -> reads.Clock:
    return await reads.game_time(operations(), caller(user), queue.ServerRef(server=server.name))


def check_task_id(task_id: str) -> None:
    """A task id from a path is 1 to 64 characters, said as a sentence (the request models
    would refuse it in pydantic's English)."""
    if not 1 <= len(task_id) <= task_fields.MAX_ID:
        raise errors.ValidationError(_("A task id is 1 to 64 characters long."), field="task_id")


async def _change(verb: str, user: WebUser, server: ServerServices, task_id: str) -> str:
    check_task_id(task_id)
    request = queue.TaskRef(id=task_id, server=server.name)
    if verb == "run_now":
        return (await runs.run_now(operations(), caller(user), request)).text
    change = {
        "cancel": queue.cancel,
        "pause": queue.pause,
        "resume": queue.resume,
        "cancel_all": queue.cancel_all,
    }[verb]
    return (await change(operations(), caller(user), request)).text


async def cancel(user: WebUser, server: ServerServices, task_id: str) -> str:
    return await _change("cancel", user, server, task_id)


async def pause(user: WebUser, server: ServerServices, task_id: str) -> str:
    return await _change("pause", user, server, task_id)


async def resume(user: WebUser, server: ServerServices, task_id: str) -> str:
    return await _change("resume", user, server, task_id)


async def history(
    user: WebUser, server: ServerServices, task_id: str, page: int = 1
) -> runs.History:
    check_task_id(task_id)
    request = runs.HistoryRequest(id=task_id, server=server.name, page=page)
    return await runs.history(operations(), caller(user), request)


async def run_now(user: WebUser, server: ServerServices, task_id: str) -> str:
    """Run the task (or planned row) of this id once, now; its schedule stays."""
    return await _change("run_now", user, server, task_id)


async def count(user: WebUser, server: ServerServices, task_id: str) -> queue.Counted:
    """The question before `cancel_all`: how many tasks of this id, and a planned row?"""
    check_task_id(task_id)
    request = queue.TaskRef(id=task_id, server=server.name)
    return await queue.count(operations(), caller(user), request)


async def cancel_all(user: WebUser, server: ServerServices, task_id: str) -> str:
    """Every task with this id (and its planned row): the API asks no question first."""
    return await _change("cancel_all", user, server, task_id)


async def clear(user: WebUser, server: ServerServices) -> str:
    return (await queue.clear(operations(), caller(user), queue.ServerRef(server=server.name))).text


async def change_planned(user: WebUser, server: ServerServices, plan_id: str, verb: str) -> str:
    """Pause, resume or cancel one wall-clock schedule of this server by its number."""
    if state().services.scheduler is None:
        raise WebError(404, _("Wall-clock schedules are not enabled."))
    if verb not in ("cancel", "pause", "resume"):
        raise WebError(404, _("{verb} is not something a schedule can do.", verb=repr(verb)))
    number_ = whole_number(plan_id, "plan_id", N_("schedule number"))
    request = queue.PlanChange(number=number_, verb=verb, server=server.name)  # type: ignore[arg-type]
    try:
        return (await queue.change_planned(operations(), caller(user), request)).text
    except errors.NotFound as exc:
        raise WebError(404, str(exc)) from None


async def setup(user: WebUser, server: ServerServices) -> admin.SetupOutcome:
    """/setup from the web (admins): install the pack, then the selftest when it is in place."""
    return await admin.setup(operations(), caller(user), queue.ServerRef(server=server.name))


async def selftest(user: WebUser, server: ServerServices) -> admin.Tested:
    return await admin.selftest(operations(), caller(user), queue.ServerRef(server=server.name))


async def reload_extension(user: WebUser, name: str) -> str:
    bot = state().bot
    if bot is None:
        raise WebError(
            409, _("Extensions are the Discord bot's cogs, and no Discord bot runs here.")
        )
    outcome = await bot.reload_named(name)
    await operations().audit(caller(user), None, "reload", {"extension": name}, outcome)
    return outcome
