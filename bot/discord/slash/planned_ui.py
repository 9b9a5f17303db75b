"""The Discord side of wall-clock schedules ("planned" rows): the options /schedule adds for
them and a time zone's autocomplete. How a row reads is bot.operations.sections'."""

from __future__ import annotations

__all__ = [
    "WALLCLOCK_OPTIONS",
    "timezone_autocomplete",
]


import discord
from discord import app_commands

from bot.times.zones import canonical_zones

WALLCLOCK_OPTIONS = ("when", "repeat", "timezone", "announce")


async def timezone_autocomplete(
    interaction: discord.Interaction[discord.Client], current: str
) -> list[app_commands.Choice[str]]:
    """Canonical zone names (bot.times.zones) starting with (then containing) what the
    user typed (no round trip); any other IANA name typed in full is still taken."""
    low = current.lower().replace(" ", "_")
    zones = canonical_zones()
    ranked = [z for z in zones if z.lower().startswith(low)]
    ranked += [z for z in zones if low in z.lower() and z not in ranked]
    return [app_commands.Choice(name=z, value=z) for z in ranked[:25]]
