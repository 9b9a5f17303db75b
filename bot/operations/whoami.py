"""`/whoami`: who the bot takes you for, your rank and what it lets you do. The first operation
declared only in the registry (bot.operations.registry): every face has it with no code of its
own."""

from __future__ import annotations

__all__ = ["WHOAMI", "WhoamiRequest"]

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from bot.i18n import N_, _
from bot.operations.caller import FACE_NAMES
from bot.operations.ranks import RANK_NAMES, Rank
from bot.operations.registry import OperationSpec

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller

_ALLOWS = {
    Rank.NONE: N_("You may read nothing and change nothing: an admin gives the moderator role."),
    Rank.MODERATOR: N_(
        "You may schedule, pause, resume, cancel and read tasks and planned rows, import a plan "
        "file, and make Discord events."
    ),
    Rank.ADMIN: N_(
        "You may do all a moderator does, and install the pack, run the selftest, clear a "
        "server, reload plugins and manage API tokens."
    ),
}


class WhoamiRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


async def whoami(ops: Operations, caller: Caller, req: WhoamiRequest) -> str:
    said = _(
        "You are **{name}** ({id}, {face}), with the rank {rank}.",
        name=caller.name,
        id=caller.user_id,
        face=_(FACE_NAMES[caller.face]),
        rank=_(RANK_NAMES[caller.rank]),
    )
    return f"{said} {_(_ALLOWS[caller.rank])}"


WHOAMI = OperationSpec(
    name="whoami",
    summary=N_("Who the bot takes you for, your rank, and what it lets you do."),
    request=WhoamiRequest,
    rank=Rank.NONE,
    handler=whoami,
)
