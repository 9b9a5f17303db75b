"""Every command family; importing this package registers all handlers."""

from __future__ import annotations

from mcsim.commands import (
    admin,
    chat,
    data,
    entity,
    execute,
    function,
    gamerule,
    ops,
    player,
    schedule,
    scoreboard,
    tag,
    tick,
    time,
)

__all__ = [
    "admin",
    "chat",
    "data",
    "entity",
    "execute",
    "function",
    "gamerule",
    "ops",
    "player",
    "schedule",
    "scoreboard",
    "tag",
    "tick",
    "time",
]
