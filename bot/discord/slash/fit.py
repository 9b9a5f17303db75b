"""Make what the bot says fit Discord's limits without losing what matters.

One place for clipping and splitting, so every face stays within the numbers in
:mod:`bot.discord.slash.limits` (which LocalDiscord enforces): a text clipped with a visible
marker, an embed shrunk to its 6,000 characters, embeds packed into messages of at most 10 and
6,000, lines split into pages of a given size. Lengths are code points, as Discord counts them.
"""

from __future__ import annotations

__all__ = ["MARK", "clip", "content", "fit_embed", "pack_embeds", "pages"]

from collections.abc import Iterable, Sequence

import discord

from bot.discord.slash.limits import LIMITS, embed_size

MARK = "…"


def clip(text: str, limit: int, mark: str = MARK) -> str:
    """`text` if it fits in `limit` characters, else its start and `mark`, `limit` in all."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(mark))] + mark[:limit]


def content(text: str) -> str:
    """A message's text within Discord's 2,000 characters, clipped with the visible mark."""
    return clip(text, LIMITS["content"])


def _size(embed: discord.Embed) -> int:
    return embed_size(embed.to_dict())


def fit_embed(embed: discord.Embed, budget: int = LIMITS["embeds.total"]) -> discord.Embed:
    """Clip every part of `embed` to its own limit, drop fields past 25, then shorten the
    longest texts until the whole counts at most `budget` (changes and returns `embed`)."""
    if embed.title:
        embed.title = clip(embed.title, LIMITS["embed.title"])
    if embed.description:
        embed.description = clip(embed.description, LIMITS["embed.description"])
    fields = embed.fields[: LIMITS["embed.fields"]]
    embed.clear_fields()
    for f in fields:
        name = clip(str(f.name or "").strip() or "-", LIMITS["embed.field.name"])
        value = clip(str(f.value or "").strip() or "-", LIMITS["embed.field.value"])
        embed.add_field(name=name, value=value, inline=bool(f.inline))
    if embed.footer.text:
        embed.set_footer(
            text=clip(embed.footer.text, LIMITS["embed.footer.text"]),
            icon_url=embed.footer.icon_url,
        )
    if embed.author.name:
        embed.set_author(
            name=clip(embed.author.name, LIMITS["embed.author.name"]),
            url=embed.author.url,
            icon_url=embed.author.icon_url,
        )
    excess = _size(embed) - budget
    while excess > 0:
        # the longest of the description and the field values gives up what is over
        texts = [(len(embed.description or ""), -1)]
        texts += [(len(str(f.value)), i) for i, f in enumerate(embed.fields)]
        length, index = max(texts)
        if length <= len(MARK) + 1:
            break  # nothing left to shorten (a budget below titles and names)
        keep = max(len(MARK) + 1, length - excess)
        if index < 0:
            embed.description = clip(embed.description or "", keep)
        else:
            f = embed.fields[index]
            embed.set_field_at(index, name=f.name, value=clip(str(f.value), keep), inline=f.inline)
        excess = _size(embed) - budget
    return embed


def pack_embeds(embeds: Sequence[discord.Embed]) -> list[list[discord.Embed]]:
    """The embeds, each fitted, in order, in messages of at most 10 and 6,000 characters."""
    messages: list[list[discord.Embed]] = []
    room = 0
    for embed in embeds:
        size = _size(fit_embed(embed))
        if not messages or len(messages[-1]) >= LIMITS["embeds"] or size > room:
            messages.append([])
            room = LIMITS["embeds.total"]
        messages[-1].append(embed)
        room -= size
    return messages


def pages(lines: Iterable[str], limit: int, sep: str = "\n") -> list[str]:
    """The lines joined into as few pages of at most `limit` characters as their order allows;
    a line longer than a page is clipped. Nothing else is dropped."""
    out: list[str] = []
    current = ""
    for raw in lines:
        line = clip(raw, limit)
        if current and len(current) + len(sep) + len(line) <= limit:
            current += sep + line
            continue
        if current:
            out.append(current)
        current = line
    if current:
        out.append(current)
    return out
