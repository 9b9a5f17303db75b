"""How wall-clock schedules ("planned" rows) read in Discord: Discord timestamps (`<t:N:F>`,
`<t:N:R>`), so every reader sees their own time zone; the console renders them in local time."""

from __future__ import annotations

__all__ = [
    "WALLCLOCK_OPTIONS",
    "add_doubt_field",
    "planned_embed",
    "planned_line",
    "stamp",
    "timezone_autocomplete",
]

from collections.abc import Sequence
from datetime import datetime

import discord
from discord import app_commands

from bot.i18n import _
from bot.i18n.formats import stamp, stamp_with_distance
from bot.i18n.words import run_outcome, schedule_state
from bot.operations.reads import doubt_fact, planned_facts
from bot.store.schedules import Run, Schedule
from bot.times.when import repeat_text
from bot.times.zones import canonical_zones

WALLCLOCK_OPTIONS = ("when", "repeat", "timezone", "announce")


def add_doubt_field(embed: discord.Embed, on_doubt: str) -> None:
    """A task's policy after a crash (bot.background.doubt), said when it is not the default."""
    fact = doubt_fact(on_doubt)
    if fact is not None:
        embed.add_field(name=fact[0], value=fact[1])


def _late(row: Schedule) -> str:
    if row.last_outcome is None:
        return ""
    late = "" if row.last_lateness is None else _(", {s} s late", s=f"{row.last_lateness:.1f}")
    return _("; last run: {outcome}{late}", outcome=run_outcome(row.last_outcome), late=late)


def planned_line(row: Schedule, upcoming: Sequence[datetime] = ()) -> str:
    """One row of `/list which:planned`: its next run, the ones after it (repeating rows), how
    late the last one ran."""
    run = row.command if len(row.command) <= 60 else row.command[:59] + "…"
    run = run.replace("`", "'")
    when: str
    if row.state == "active" and row.next_due is None:
        when = _("running now")  # handed over, or waiting for its player
    elif row.state == "paused" or row.next_due is None:
        when = schedule_state(row.state)
    else:
        when = stamp_with_distance(row.next_due)
        later = [t for t in upcoming if t > row.next_due][:2]
        if later:
            when += _(", then {times}", times=", ".join(stamp(t, "f") for t in later))
    head = _(
        "`{id}` {when}, {repeats}{late}",
        id=row.task_id,
        when=when,
        repeats=repeat_text(row.spec),
        late=_late(row),
    )
    return f"{head}\n  `{run}`"


def planned_embed(
    row: Schedule, upcoming: Sequence[datetime], runs: Sequence[Run] = (), *, title: str
) -> discord.Embed:
    """One planned row: what, when (the next runs), its last runs."""
    embed = discord.Embed(title=title, colour=0x57F287)
    embed.add_field(name=_("id"), value=f"`{row.task_id}`")
    embed.add_field(name=_("server"), value=row.server)
    embed.add_field(name=_("state"), value=schedule_state(row.state))
    embed.add_field(name=_("runs"), value=f"```\n{row.command[:1000]}\n```", inline=False)
    if upcoming and row.state == "active":
        lines = [stamp_with_distance(t) for t in upcoming]
        embed.add_field(name=_("next runs"), value="\n".join(lines), inline=False)
    embed.add_field(name=_("repeats"), value=repeat_text(row.spec))
    for name, text in planned_facts(row):
        embed.add_field(name=name, value=text, inline=False)
    if row.as_player:
        embed.add_field(name=_("as"), value=_("player `{player}`", player=row.as_player))
    if row.retry:
        embed.add_field(
            name=_("retries"), value=_("{n} (every {delay} t)", n=row.retry, delay=row.retry_delay)
        )
    embed.add_field(
        name=_("if missed"), value=_("run once, late") if row.missed == "once" else _("skip")
    )
    add_doubt_field(embed, row.on_doubt)
    if runs:
        lines = []
        for run in runs[:5]:
            late = "" if run.lateness is None else _(", {s} s late", s=f"{run.lateness:.2f}")
            lines.append(f"{stamp(run.due)}: {run_outcome(run.outcome)}{late}")
        embed.add_field(name=_("last runs"), value="\n".join(lines), inline=False)
    embed.set_footer(text=_("planned #{n} by {name}", n=row.id, name=row.created_by.name))
    return embed


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
