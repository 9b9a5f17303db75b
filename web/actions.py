"""The dashboard's writes, shared by the pages and the JSON API: the same pack client calls,
command check and audit trail as the slash commands (cogs/schedule.py), never a Minecraft
command of its own."""

from __future__ import annotations

__all__ = [
    "UNITS",
    "ScheduleRequest",
    "cancel",
    "change_planned",
    "clear",
    "pause",
    "reload_extension",
    "resume",
    "schedule",
    "server_named",
]

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, get_args

import discord
from discord.ext import commands
from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from bot import errors
from bot.i18n import N_, _
from bot.i18n.formats import number
from web.context import WebError, WebUser, state
from web.inputs import body_refusal, whole_number

if TYPE_CHECKING:
    from bot.minecraft.tasks import Task
    from bot.services import ServerServices

log = logging.getLogger(__name__)

Unit = Literal["tick", "second", "minute", "hour", "day", "game_day"]
UNITS: tuple[str, ...] = get_args(Unit)
MAX_INT = 2**31 - 1
MAX_RUN = 1400  # as /schedule's option
DYNAMIC_PREFIX = "web-"


class ScheduleRequest(BaseModel):
    """What the schedule form and `POST /api/servers/<server>/tasks` take; a field it does not
    know is refused (a script's `when` must not be dropped and the command run at once)."""

    model_config = ConfigDict(extra="forbid")

    run: str = Field(min_length=1, max_length=MAX_RUN)
    time: int = Field(ge=0, le=MAX_INT)
    unit: Unit = "tick"
    id: str | None = Field(default=None, min_length=1, max_length=64)
    retry: int = Field(default=0, ge=0, le=1000)

    @staticmethod
    def rule(field: str) -> str | None:
        """The rule of a field in the reader's language, said when a value breaks it."""
        if field == "run":
            return _("The command must be 1 to {max} characters long.", max=number(MAX_RUN))
        if field == "time":
            return _("The delay must be 0 to {max}.", max=number(MAX_INT))
        if field == "unit":
            return _("The unit is one of {units}.", units=", ".join(UNITS))
        if field == "id":
            return _("A task id is 1 to 64 characters long.")
        if field == "retry":
            return _("Retries must be 0 to 1000.")
        return None

    @classmethod
    def checked(cls, data: Mapping[str, object]) -> ScheduleRequest:
        """The request from these fields; errors.ValidationError with the first fault."""
        try:
            return cls.model_validate(data)
        except PydanticValidationError as exc:
            text, _field = body_refusal(exc, cls)
            raise errors.ValidationError(text) from None


def server_named(name: str) -> ServerServices:
    servers = state().services.servers
    try:
        return servers[name]
    except KeyError:
        known = ", ".join(sorted(servers)) or _("none")
        raise WebError(404, _("There is no server called {name} (configured: {known}).",
                              name=repr(name), known=known)) from None  # fmt: skip


async def audit(
    user: WebUser,
    server: ServerServices | None,
    action: str,
    request: Mapping[str, object],
    outcome: str,
) -> None:
    """As DoomBot.audit: stored, and posted to the audit channel, marked as from the web."""
    web = state()
    name = server.name if server is not None else ""
    await web.services.audit.record(user.id, user.name, name, action, dict(request), outcome)
    channel_id = web.bot.audit_channel_id(server)
    if channel_id is None:
        return
    title = _("/{action} (web)", action=action)
    embed = discord.Embed(title=title, description=outcome[:4096], colour=0x5865F2)
    embed.set_author(name=f"{user.name} ({user.id})")
    if name:
        embed.add_field(name=_("server"), value=name)
    for key, value in list(request.items())[:20]:
        if value is not None:
            embed.add_field(name=key, value=f"`{str(value)[:1000]}`")
    await web.bot.post(channel_id, embed=embed)


async def schedule(
    user: WebUser, server: ServerServices, req: ScheduleRequest
) -> tuple[str, Task | None]:
    server.checker.check(req.run)  # a typo: CommandParseError with its caret, nothing queued
    if req.id is None and not req.retry:
        task_id = await server.pack.schedule_dynamic(req.run, req.time, req.unit, DYNAMIC_PREFIX)
    else:
        task_id = req.id or f"{DYNAMIC_PREFIX}{user.session.sid[:8]}"
        await server.pack.schedule(req.run, req.time, req.unit, task_id, retry=req.retry)
    outcome = _("Scheduled `{id}` on {server}.", id=task_id, server=server.name)
    await audit(user, server, "schedule", req.model_dump(), outcome)
    return outcome, await server.pack.show(task_id)


async def cancel(user: WebUser, server: ServerServices, task_id: str) -> str:
    done = await server.pack.cancel_one(task_id)
    outcome = (
        _("Cancelled `{id}`.", id=task_id)
        if done
        else _("No task `{id}` on {server}.", id=task_id, server=server.name)
    )
    await audit(user, server, "cancel", {"id": task_id}, outcome)
    return outcome


async def pause(user: WebUser, server: ServerServices, task_id: str) -> str:
    done = await server.pack.pause(task_id)
    outcome = (
        _("Paused `{id}`.", id=task_id)
        if done
        else _("No queued task `{id}` on {server}.", id=task_id, server=server.name)
    )
    await audit(user, server, "pause", {"id": task_id}, outcome)
    return outcome


async def resume(user: WebUser, server: ServerServices, task_id: str) -> str:
    done = await server.pack.resume(task_id)
    outcome = (
        _("Resumed `{id}`.", id=task_id)
        if done
        else _("No paused task `{id}` on {server}.", id=task_id, server=server.name)
    )
    await audit(user, server, "resume", {"id": task_id}, outcome)
    return outcome


async def clear(user: WebUser, server: ServerServices) -> str:
    removed = await server.pack.clear()
    outcome = _("Removed {n} task(s) from {server}.", n=removed, server=server.name)
    await audit(user, server, "clear", {}, outcome)
    return outcome


async def change_planned(user: WebUser, server: ServerServices, plan_id: str, verb: str) -> str:
    """Pause, resume or cancel one wall-clock schedule of this server (services.scheduler)."""
    scheduler = state().services.scheduler
    if scheduler is None:
        raise WebError(404, _("Wall-clock schedules are not enabled."))
    changes = {"cancel": scheduler.cancel, "pause": scheduler.pause, "resume": scheduler.resume}
    if verb not in changes:
        raise WebError(404, _("{verb} is not something a schedule can do.", verb=repr(verb)))
    row = await scheduler.get(whole_number(plan_id, "plan_id", N_("schedule number")))
    if row is None or row.server != server.name:
        raise WebError(404, _("There is no planned schedule #{id} on {server}.", id=plan_id,
                              server=server.name))  # fmt: skip
    changed = await changes[verb](row.id)  # the scheduler's sentence when it cannot
    # whole sentences, not a verb spliced in: other languages do not put it first
    said = {
        "cancel": N_("Cancelled planned `{id}` on {server}."),
        "pause": N_("Paused planned `{id}` on {server}."),
        "resume": N_("Resumed planned `{id}` on {server}."),
    }
    outcome = _(said[verb], id=changed.task_id, server=server.name)
    await audit(user, server, verb, {"planned": changed.task_id}, outcome)
    return outcome


async def reload_extension(user: WebUser, name: str) -> str:
    bot = state().bot
    known = {*state().settings.extensions, *bot.extensions}
    if name not in known:
        raise errors.ValidationError(_("Unknown extension {name}.", name=repr(name)))
    try:
        if name in bot.extensions:
            await bot.reload_extension(name)
        else:
            await bot.load_extension(name)
    except commands.ExtensionError as exc:
        log.exception("reloading %s failed", name)
        outcome = _("Reloading {name} failed: {error}", name=name, error=exc.__cause__ or exc)
    else:
        bot.failed_extensions.pop(name, None)
        outcome = _("Reloaded {name}.", name=name)
    await audit(user, None, "reload", {"extension": name}, outcome)
    return outcome
