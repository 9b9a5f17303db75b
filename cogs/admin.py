"""Admin commands: install the pack, prove it works (selftest), see how every server is doing,
reload a cog."""

from __future__ import annotations

__all__ = ["AdminCog", "setup"]

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import errors
from bot.discord.guildevents.readiness import status_line
from bot.discord.slash import fit
from bot.discord.slash.cog_helpers import audited_reply, late_followup, server_command
from bot.discord.slash.embeds import embed_of
from bot.discord.slash.fit import pack_embeds
from bot.discord.slash.permissions import is_admin
from bot.i18n import _
from bot.operations import admin
from bot.operations import status as status_ops
from bot.operations.queue import ServerRef
from bot.operations.sections import plugins_section, status_section

if TYPE_CHECKING:
    from bot.discord.app import DoomBot
    from bot.minecraft.selftest import SelftestResult

log = logging.getLogger(__name__)

Interaction = discord.Interaction["DoomBot"]
MAX_MESSAGE = 2000  # Discord's limit on a message's content


def selftest_message(result: SelftestResult) -> str:
    """The selftest's lines as one code block that fits a message: the details of passed
    checks go first when it is too long, then the tail is cut."""
    lines = result.lines()
    body = "\n".join(lines)
    if len(body) > MAX_MESSAGE - 8:
        short = [c.line() if c.status != "PASS" else c.short() for c in result.checks]
        body = "\n".join([*short, lines[-1]])
    if len(body) > MAX_MESSAGE - 8:
        body = body[: MAX_MESSAGE - 9] + "…"
    return f"```\n{body}\n```"


class AdminCog(commands.Cog, name="Admin"):
    """Setup, status and reload; admins only."""

    def __init__(self, bot: DoomBot) -> None:
        self.bot = bot

    async def extension_autocomplete(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        names = sorted({*self.bot.settings.extensions, *self.bot.extensions})
        return [app_commands.Choice(name=n, value=n) for n in names if current in n][:25]

    # -- commands ---------------------------------------------------------------------------

    @server_command("Install (or update) the data pack and verify its version.", check=is_admin)
    async def setup(self, interaction: Interaction, server: str | None = None) -> None:
        request = ServerRef(server=server)
        admin.installable(self.bot.ops, self.bot.caller(interaction), request)  # before deferring
        await interaction.response.defer(ephemeral=True, thinking=True)
        done = await admin.setup(self.bot.ops, self.bot.caller(interaction), request)
        await interaction.followup.send(fit.content(done.text), ephemeral=True)
        if done.report.ok:  # the pack is in place: prove it works there
            tested = await admin.selftest(self.bot.ops, self.bot.caller(interaction), request)
            await late_followup(interaction, selftest_message(tested.result))

    @server_command(
        "Prove the pack works on the server: live checks, one line each (about 5 s).",
        check=is_admin,
    )
    async def selftest(self, interaction: Interaction, server: str | None = None) -> None:
        self.bot.server(server)  # an unknown server is said before deferring
        await interaction.response.defer(ephemeral=True, thinking=True)
        tested = await admin.selftest(
            self.bot.ops, self.bot.caller(interaction), ServerRef(server=server)
        )
        await late_followup(interaction, selftest_message(tested.result))

    @server_command(
        "RCON, pack version, event source, TPS and queue sizes.",
        check=is_admin,
        server_help="One server or a group of them (default: all).",
        groups=True,
    )
    async def status(self, interaction: Interaction, server: str | None = None) -> None:
        if server and self.bot.ops.group(server) is None:
            self.bot.server(server)  # an unknown server is said before deferring
        elif not self.bot.services.servers:
            raise errors.ValidationError(_("No Minecraft server is configured."))
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await status_ops.status(
            self.bot.ops, self.bot.caller(interaction), ServerRef(server=server)
        )
        embeds = [embed_of(status_section(f)) for f in found]
        plugins = plugins_section(self.bot.ops.plugins)
        if plugins is not None:
            embeds.append(embed_of(plugins))
        failed = ", ".join(sorted(self.bot.failed_extensions))
        content = (
            _("Extensions that failed to load: {names}", names=failed) + "\n" if failed else ""
        )
        content += status_line(self.bot.intents, interaction.guild)
        for i, batch in enumerate(pack_embeds(embeds)):  # 10 and 6,000 characters a message
            text = content if i == 0 and content else discord.utils.MISSING
            await interaction.followup.send(text, embeds=batch, ephemeral=True)

    @app_commands.command(description="Reload one of the bot's extensions (cogs).")
    @app_commands.describe(extension="The extension, e.g. cogs.schedule.")
    @app_commands.guild_only()
    @is_admin()
    async def reload(self, interaction: Interaction, extension: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        outcome = await self.bot.reload_named(extension)
        await audited_reply(interaction, None, "reload", {"extension": extension}, outcome)

    reload.autocomplete("extension")(extension_autocomplete)


async def setup(bot: DoomBot) -> None:
    await bot.add_cog(AdminCog(bot))
