"""How a task's run history reads in Discord: one line a run, Discord timestamps (each reader's
own time zone), the outcome in words, how late, how many attempts, who ran it now."""

from __future__ import annotations

__all__ = ["history_embed", "history_line"]

import discord

from bot.i18n import _, ngettext
from bot.i18n.formats import stamp
from bot.i18n.words import run_outcome
from bot.operations.runs import History
from bot.store.history import HistoryEntry


def history_line(entry: HistoryEntry) -> str:
    """`<due> · ran · 0.3 s late · 1 attempt · run now by mod`"""
    parts = [stamp(entry.due, "f"), run_outcome(entry.outcome)]
    if entry.lateness is not None:
        parts.append(_("{s} s late", s=f"{entry.lateness:.1f}"))
    if entry.attempts:
        parts.append(ngettext("{n} attempt", "{n} attempts", entry.attempts, n=entry.attempts))
    if entry.triggered_by:
        parts.append(_("run now by {user}", user=discord.utils.escape_markdown(entry.triggered_by)))
    if entry.kind == "game":
        parts.append(_("game time"))
    return " · ".join(parts)


def history_embed(found: History) -> discord.Embed:
    embed = discord.Embed(
        title=_("History of `{id}` on {server}", id=found.task_id, server=found.server.name),
        colour=0x3498DB,
    )
    lines = [history_line(e) for e in found.entries]
    embed.description = "\n".join(lines)[:4096] if lines else found.text
    embed.set_footer(
        text=_(
            "page {page} of {pages}; {n} run(s) in the last {days} days",
            page=found.page,
            pages=found.pages,
            n=found.total,
            days=f"{found.days:g}",
        )
    )
    return embed
