"""How a server is doing, as every face shows it: RCON, the pack's version and state, the
server software, TPS, and how many tasks each list holds, the bot's planned rows included.

Each part is read on its own: a server that answers but has no pack still shows what it can, and
a part that could not be read says why instead of hiding the others.
"""

from __future__ import annotations

__all__ = ["LISTS", "ServerStatus", "status"]

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot import errors
from bot.background.fleet import GATEWAY
from bot.i18n import _
from bot.operations.ranks import Rank

if TYPE_CHECKING:
    from bot.background.fleet import Fleet
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.operations.queue import ServerRef
    from bot.services import ServerServices

LISTS = ("queue", "offline", "paused")


def _holder(ops: Operations, target: ServerServices) -> str:
    """Which process holds the server's lease (bot.background.fleet), and which one is
    connected to Discord when a Discord bot runs; "" alone."""
    fleet = ops.services.fleet
    if fleet is None:
        return ""
    holder = fleet.holder_of(target.name)
    if holder is None:
        said = _("no process yet (one takes it within {ttl} s)", ttl=format(fleet.ttl, "g"))
    elif holder == fleet.holder:
        said = _("this process ({holder}), of {n} running", holder=holder, n=fleet.members)
    else:
        said = _("the process {holder}, of {n} running", holder=holder, n=fleet.members)
    gateway = _gateway(fleet)
    return f"{said}; {gateway}" if gateway else said


def _gateway(fleet: Fleet) -> str:
    """Which process is connected to Discord's gateway (bot.discord.gateway); "" when no
    process of the Discord bot runs."""
    holder = fleet.lease_holder(GATEWAY)
    if holder is None:
        if GATEWAY not in fleet.wanted:
            return ""
        return _(
            "Discord: no process connected yet (one connects within {ttl} s)",
            ttl=format(fleet.ttl, "g"),
        )
    if holder == fleet.holder:
        return _("Discord: connected from this process ({holder})", holder=holder)
    return _("Discord: connected from the process {holder}", holder=holder)


@dataclass
class ServerStatus:
    """`error` set: RCON is unavailable and nothing else was read. `version` "" is a server
    without the pack. `damage` None: not checked (no pack) or `damage_error` says why."""

    server: ServerServices
    error: str | None = None
    version: str = ""
    damage: list[str] | None = None
    damage_error: str | None = None
    software: str | None = None
    software_error: str | None = None
    tps: float | None = None
    sizes: dict[str, int] = field(default_factory=dict)  # the pack's lists, then "planned"
    sizes_error: str | None = None
    # where the events come from; for the log over SFTP also its connection's state
    events: str = ""
    # several processes on one database: which one does the server's background work
    background: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None


async def status(ops: Operations, caller: Caller, req: ServerRef) -> list[ServerStatus]:
    """The named server's status, a group's servers' (`all`, DOOM_SERVER_GROUPS), or every
    configured server's. Each part of each server is read on its own, so one server that is
    down is its own status only."""
    ops.require(caller, Rank.MODERATOR, "/status")
    group = ops.group(req.server)
    if group is not None:
        targets = group
    else:
        targets = [ops.server(req.server)] if req.server else list(ops.services.servers.values())
    return [await _one(ops, target) for target in targets]


async def _one(ops: Operations, target: ServerServices) -> ServerStatus:
    found = ServerStatus(target, events=target.events_state(), background=_holder(ops, target))
    try:
        found.version = await target.pack.version() or ""
    except errors.BotError as exc:
        found.error = str(exc)
        return found
    if found.version:
        try:
            found.damage = [str(p) for p in await target.pack.damage()]
        except errors.BotError as exc:
            found.damage_error = str(exc)
    try:
        found.software = (await target.ensure_software()).describe()
    except errors.BotError as exc:
        found.software_error = str(exc)
    try:
        found.tps = await target.pack.tps()
        for which in LISTS:
            found.sizes[which] = (await target.pack.list_tasks(which, limit=1))[1]
    except errors.BotError as exc:  # e.g. the pack is not installed yet
        found.sizes_error = str(exc)
    scheduler = ops.services.scheduler
    if scheduler is not None:
        found.sizes["planned"] = (await scheduler.planned(target.name, limit=1))[1]
    return found
