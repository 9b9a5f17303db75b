"""One request for a group of servers (`all`, or a group of DOOM_SERVER_GROUPS): each server
gets its own task or planned row, through the one-server operation and all its checks, at the
same time; a server that is down or refuses says so in its line and stops none of the others.
"""

from __future__ import annotations

__all__ = ["GroupScheduled", "ServerOutcome", "schedule"]

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot import errors
from bot.i18n import _
from bot.operations import schedule as schedule_ops
from bot.operations.ranks import Rank

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices


@dataclass(frozen=True)
class ServerOutcome:
    """What became of the request on one server: done (`ok`) or why not, as a sentence."""

    server: str
    ok: bool
    text: str


@dataclass(frozen=True)
class GroupScheduled:
    group: str
    outcomes: tuple[ServerOutcome, ...]
    text: str


async def _one(
    ops: Operations, caller: Caller, target: ServerServices, req: schedule_ops.ScheduleRequest
) -> ServerOutcome:
    single = req.model_copy(update={"server": target.name})
    try:
        made = await schedule_ops.schedule(ops, caller, single)
    except errors.NotAllowed:
        raise
    except errors.BotError as exc:  # refused there, or the server is unreachable
        return ServerOutcome(target.name, False, str(exc))
    return ServerOutcome(target.name, True, made.text)


async def schedule(
    ops: Operations, caller: Caller, req: schedule_ops.ScheduleRequest
) -> GroupScheduled:
    """/schedule with `server` naming a group."""
    ops.require(caller, Rank.MODERATOR, "/schedule")
    members = ops.group(req.server)
    if members is None:
        raise errors.ValidationError(
            _("{name} is not a server group.", name=repr(req.server)), field="server"
        )
    assert req.server is not None
    found = await asyncio.gather(*(_one(ops, caller, t, req) for t in members))
    done = sum(o.ok for o in found)
    head = _("{group}: done on {done} of {total} servers.", group=req.server, done=done,
             total=len(found))  # fmt: skip
    lines = [f"- **{o.server}**: {o.text}" if o.ok else
             f"- **{o.server}**: " + _("not done: {why}", why=o.text) for o in found]  # fmt: skip
    return GroupScheduled(req.server, tuple(found), "\n".join([head, *lines]))
