"""The web dashboard's Discord side: `/dashboard` gives a one-time login link; and the cog
brings a page of its own to the dashboard (the plugin host's example: see README, "Pages from
an extension")."""

from __future__ import annotations

__all__ = ["DashboardCog", "setup"]

import functools
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.slash.cog_helpers import server_command
from bot.discord.slash.permissions import is_moderator
from bot.i18n import N_, _
from bot.operations import calendar as calendar_ops

if TYPE_CHECKING:
    from bot.discord.app import DoomBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["DoomBot"]

# the page's texts come translated from index() (an inline template is not extracted); the
# descriptions are the command tree's, whose translations the catalog has (no context)
COMMANDS_PAGE = """{% extends "base.html" %}
{% block title %}{{ heading }}{% endblock %}
{% block main %}
<h1>{{ heading }}</h1>
<p>{{ intro }}</p>
<dl>{% for name, text in commands %}
<dt><code>/{{ name }}</code></dt><dd>{{ _(text) }}</dd>
{% endfor %}</dl>
{% endblock %}"""


def _blueprint(bot: DoomBot) -> Any:
    """The cog's pages, or None when the [web] extra is not installed."""
    try:
        from quart import Blueprint, g, render_template_string

        from web.auth import page
    except ImportError:
        return None
    pages = Blueprint("commands", __name__)

    @pages.get("/")
    @page()
    async def index() -> Any:
        found = sorted(
            (c.qualified_name, c.description)
            for c in bot.tree.walk_commands()
            if isinstance(c, app_commands.Command)
        )
        return await render_template_string(
            COMMANDS_PAGE,
            commands=found,
            user=g.user,
            heading=_("Slash commands"),
            intro=_("Everything the dashboard does is also a slash command in Discord."),
        )

    return pages


class DashboardCog(commands.Cog, name="Dashboard"):
    """Login links to the web dashboard, the calendar feed it serves, and its Commands page."""

    web_label = N_("Commands")  # translated in the navigation

    def __init__(self, bot: DoomBot) -> None:
        self.bot = bot

    @functools.cached_property
    def web_blueprint(self) -> Any:
        """Mounted by the dashboard while this cog is loaded; made when first asked for, since
        importing Quart is ~1 s of a start that a bot without the dashboard never needs."""
        return _blueprint(self.bot)

    @app_commands.command(description="A one-time link that logs you in to the web dashboard.")
    @app_commands.guild_only()
    @is_moderator()
    async def dashboard(self, interaction: Interaction) -> None:
        web = self.bot.web
        if web is None:
            await interaction.response.send_message(
                _(
                    "The web dashboard is not enabled: an admin sets DOOM_WEB_PORT (and "
                    "DOOM_WEB_URL for the public address) and restarts the bot."
                ),
                ephemeral=True,
            )
            return
        guild_id = interaction.guild_id or 0
        link = web.login_link(interaction.user.id, guild_id, str(interaction.user))
        log.info("issued a dashboard login link to user %s", interaction.user.id)
        await interaction.response.send_message(
            _(
                "Your login link (it works once, for 5 minutes; do not share it):\n{link}",
                link=link,
            ),
            ephemeral=True,
        )

    @server_command(
        "The address of the plan's calendar feed (iCalendar), for your calendar app.",
        server_help="only this server's plan (default: every server)",
        renew="make a new address; the old one stops working",
    )
    async def calendar(
        self, interaction: Interaction, server: str | None = None, renew: bool = False
    ) -> None:
        request = calendar_ops.CalendarRequest(server=server, renew=renew)
        link = await calendar_ops.calendar(self.bot.ops, self.bot.caller(interaction), request)
        await interaction.response.send_message(link.text, ephemeral=True)


async def setup(bot: DoomBot) -> None:
    await bot.add_cog(DashboardCog(bot))
