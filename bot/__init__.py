"""doom.schedule: the core (settings, services, store, operations, background work, events) and,
in ``bot/discord/``, the Discord adapter.

Nothing outside ``bot/discord/`` (and the test kit's local Discord) imports discord.py
(import-linter says so), so the core runs without Discord: ``python -m bot serve`` and the console.
The faces are beside it: ``cogs/`` (Discord), ``console/`` (a terminal, on the core), ``web/``
(the dashboard and its API).
"""

from __future__ import annotations

__all__: list[str] = []
