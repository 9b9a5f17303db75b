"""Who may do what: the ranks the settings give a user id and its role ids.

Free of Discord's types, so the web face (which asks Discord for a member's roles itself) and
the slash-command checks decide from the same rule.
"""

from __future__ import annotations

__all__ = ["RANK_NAMES", "Rank", "rank_for"]

import enum
from collections.abc import Iterable
from typing import TYPE_CHECKING

from bot.i18n import N_

if TYPE_CHECKING:
    from bot.config import Settings


class Rank(enum.IntEnum):
    """What a user may do: each rank includes the ones below it."""

    NONE = 0
    MODERATOR = 1
    ADMIN = 2


# each rank as a person reads it (translated where it is said)
RANK_NAMES = {Rank.NONE: N_("no rank"), Rank.MODERATOR: N_("moderator"), Rank.ADMIN: N_("admin")}


def rank_for(user_id: int, role_ids: Iterable[int], settings: Settings) -> Rank:
    """The rank of a user id holding these role ids."""
    roles = set(role_ids)
    if user_id in settings.admin_user_ids or roles & set(settings.admin_role_ids):
        return Rank.ADMIN
    if user_id in settings.moderator_user_ids or roles & set(settings.moderator_role_ids):
        return Rank.MODERATOR
    return Rank.NONE
