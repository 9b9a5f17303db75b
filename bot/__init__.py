"""doom.schedule's Discord bot: core services (config, RCON, pack, events, audit) and cogs' host.

Nothing under `bot/` imports discord except `bot/app.py` and `bot/slash/console.py`, so the core is
usable and testable without Discord.
"""

from __future__ import annotations

__all__: list[str] = []
