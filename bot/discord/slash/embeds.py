"""A read's sections (bot.operations.sections) as Discord embeds: the title, the lines as the
description, the fields, the footer, the tone as the colour."""

from __future__ import annotations

__all__ = ["embed_of"]

import discord

from bot.operations.sections import Section, Tone

COLOURS: dict[Tone, int] = {
    "info": 0x3498DB,
    "planned": 0x57F287,
    "ok": discord.Colour.green().value,
    "warn": discord.Colour.orange().value,
    "bad": discord.Colour.red().value,
}
MAX_DESCRIPTION = 4096  # Discord's longest embed description


def embed_of(section: Section) -> discord.Embed:
    colour = section.colour if section.colour is not None else COLOURS[section.tone]
    embed = discord.Embed(title=section.title, colour=colour)
    if section.author:
        embed.set_author(name=section.author)
    if section.lines:
        embed.description = "\n".join(section.lines)[:MAX_DESCRIPTION]
    for field in section.fields:
        embed.add_field(name=field.name, value=field.value, inline=field.inline)
    if section.footer:
        embed.set_footer(text=section.footer)
    return embed
