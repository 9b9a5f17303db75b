"""Can the bot run /event here? The Create Events / Manage Events permission and the
`guild_scheduled_events` intent, as sentences for `/status` and `python -m bot check`.

`/status` reads the bot's member from the guild cache; `check` runs without a gateway connection,
so it logs in over HTTP only and asks Discord for the bot's member and the guild's roles, then
adds the permissions up as Discord does (the @everyone role, every role of the member;
Administrator grants all).
"""

from __future__ import annotations

__all__ = [
    "INTENT_MISSING",
    "check_guilds",
    "event_permission_problem",
    "permission_sentence",
    "status_line",
    "usable_guild",
]

from collections.abc import Sequence
from typing import Any, TextIO

import discord

from bot import errors
from bot.i18n import _, lazy

INTENT_MISSING = lazy(
    "The bot does not ask Discord for scheduled-event updates (the guild_scheduled_events "
    "intent): moves and cancels made in Discord's own UI would not reach the in-game tasks."
)


def permission_sentence(perms: discord.Permissions, guild_name: str) -> str | None:
    """Why /event cannot work with these permissions, or None when it can."""
    if perms.administrator or perms.create_events or perms.manage_events:
        return None
    return _(
        "The bot lacks the Create Events permission in {guild}: give its role Create Events "
        "(or Manage Events) in Server Settings > Roles, or /event cannot make events.",
        guild=guild_name,
    )


def status_line(intents: discord.Intents, guild: discord.Guild | None) -> str:
    """One line for /status about Discord events in this guild."""
    problems: list[str] = []
    if not intents.guild_scheduled_events:
        problems.append(str(INTENT_MISSING))
    if guild is not None and guild.me is not None:
        missing = permission_sentence(guild.me.guild_permissions, guild.name)
        if missing:
            problems.append(missing)
    if problems:
        return _("Discord events: {problems}", problems=" ".join(problems))
    return _("Discord events: ok (the bot may create and manage events and follows their changes).")


def _permissions(member: dict[str, Any], roles: Sequence[dict[str, Any]], guild_id: int) -> int:
    mine = {int(r) for r in member.get("roles", [])} | {guild_id}  # @everyone's id is the guild's
    value = 0
    for role in roles:
        if int(role["id"]) in mine:
            value |= int(role.get("permissions", 0))
    return value


async def check_guilds(
    http: discord.http.HTTPClient, me: dict[str, Any], guild_ids: Sequence[int], out: TextIO
) -> bool:
    """Print a line per guild about /event's permission; False when one is missing. `http` is
    logged in as `me` (what ``static_login`` returned)."""
    ok = True
    # the intent is not privileged, so asking for it (bot.discord.app does) is enough to get it
    print(
        "  "
        + _(
            "Discord: logged in as {user}; the guild_scheduled_events intent is requested",
            user=me.get("username"),
        ),
        file=out,
    )
    if not guild_ids:
        print(
            "  " + _("Discord events: no DOOM_GUILD_IDS set, so no guild's permissions checked"),
            file=out,
        )
    for guild_id in guild_ids:
        try:
            member = await http.get_member(guild_id, int(me["id"]))
            roles = await http.get_roles(guild_id)
        except discord.HTTPException as exc:
            ok = False
            print(
                "  "
                + _(
                    "Discord events: guild {guild} NOT readable ({status}): is the bot in it?",
                    guild=guild_id,
                    status=exc.status,
                ),
                file=out,
            )
            continue
        perms = discord.Permissions(_permissions(dict(member), [dict(r) for r in roles], guild_id))
        problem = permission_sentence(perms, _("guild {guild}", guild=guild_id))
        if problem is None:
            print(
                "  "
                + _("Discord events: guild {guild}: may create and manage events", guild=guild_id),
                file=out,
            )
        else:
            ok = False
            print("  " + _("Discord events: {problems}", problems=problem), file=out)
    return ok


def usable_guild(guild: discord.Guild | None) -> discord.Guild:
    """The guild when the bot can make events in it; ValidationError saying why not."""
    problem = event_permission_problem(guild)
    if problem is not None:
        raise errors.ValidationError(problem)
    assert guild is not None
    return guild


def event_permission_problem(guild: discord.Guild | None) -> str | None:
    """The sentence saying why the bot cannot make events in this guild, or None when it can."""
    if guild is None:
        return _("Events can only be made in a server (guild), not in direct messages.")
    me = guild.me
    if me is None:
        return None  # the member cache is not filled (no intent): Discord will say so if it must
    perms = me.guild_permissions
    if perms.create_events or perms.manage_events:
        return None
    return _(
        "The bot lacks the Create Events permission in {guild}: give its role Create Events "
        "(or Manage Events) in Server Settings > Roles, then try again. Nothing was made.",
        guild=guild.name,
    )
