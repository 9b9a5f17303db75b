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
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot import errors
from bot.i18n import N_, _
from bot.i18n.formats import number
from web.context import WebError, WebUser, state

if TYPE_CHECKING:
    from bot.minecraft.tasks import Task
    from bot.services import ServerServices

log = logging.getLogger(__name__)

UNITS = ("tick", "second", "minute", "hour", "day", "game_day")
MAX_INT = 2**31 - 1
MAX_RUN = 1400  # as /schedule's option
DYNAMIC_PREFIX = "web-"


@dataclass
class ScheduleRequest:
    """What the schedule form and `POST /api/servers/<server>/tasks` take."""

    run: str
    time: int
    unit: str = "tick"
    id: str | None = None
    retry: int = 0

    def validate(self) -> None:
        if not 1 <= len(self.run) <= MAX_RUN:
            raise errors.ValidationError(
                _("The command must be 1 to {max} characters long.", max=number(MAX_RUN))
            )
        if not 0 <= self.time <= MAX_INT:
            raise errors.ValidationError(_("The delay must be 0 to {max}.", max=number(MAX_INT)))
        if self.unit not in UNITS:
            raise errors.ValidationError(_("The unit is one of {units}.", units=", ".join(UNITS)))
        if self.id is not None and not 1 <= len(self.id) <= 64:
            raise errors.ValidationError(_("A task id is 1 to 64 characters long."))
        if not 0 <= self.retry <= 1000:
            raise errors.ValidationError(_("Retries must be 0 to 1000."))


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
    req.validate()
    server.checker.check(req.run)  # a typo: CommandParseError with its caret, nothing queued
    if req.id is None and not req.retry:
        task_id = await server.pack.schedule_dynamic(req.run, req.time, req.unit, DYNAMIC_PREFIX)
    else:
        task_id = req.id or f"{DYNAMIC_PREFIX}{user.session.sid[:8]}"
        await server.pack.schedule(req.run, req.time, req.unit, task_id, retry=req.retry)
    outcome = _("Scheduled `{id}` on {server}.", id=task_id, server=server.name)
    await audit(user, server, "schedule", asdict(req), outcome)
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
    if verb not in changes or not plan_id.isdigit():
        raise WebError(404, _("{verb} is not something a schedule can do.", verb=repr(verb)))
    row = await scheduler.get(int(plan_id))
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
