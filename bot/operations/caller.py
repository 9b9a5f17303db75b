"""Who asks for an operation, and through which face."""

from __future__ import annotations

__all__ = ["FACE_NAMES", "Caller", "Face"]

from dataclasses import dataclass
from typing import Literal

from bot.i18n import N_
from bot.operations.ranks import Rank

# where a request came from: the audit log says it
Face = Literal["discord", "console", "web", "api"]
FACE_NAMES: dict[str, str] = {  # each face as a person reads it (translated where it is said)
    "discord": N_("Discord"),
    "console": N_("console"),
    "web": N_("web page"),
    "api": N_("API"),
}


@dataclass(frozen=True, slots=True)
class Caller:
    """A user as an operation sees them: their id and name, their rank, their face.

    `ref` is a number unique to this request (a Discord interaction id, a web request's): a
    task id the bot has to make up is derived from it, so a retried request names the same task.
    """

    user_id: int
    name: str
    rank: Rank
    face: Face
    ref: int
    guild_id: int | None = (
        None  # the Discord guild the user acts in (Discord events are made there)
    )
