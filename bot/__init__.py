"""doom.schedule's Discord bot: core services (config, RCON, pack, events, audit) and cogs' host.

The Minecraft side, the server's events, the store and the background work never import discord
(tests/test_layout.py), so the core is usable and testable without Discord. The faces are beside
it: `cogs/` (Discord), `console/` (a terminal, on the local Discord), `web/` (the dashboard).
"""

from __future__ import annotations

__all__: list[str] = []
