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
from bot.guildevents.readiness import status_line
from bot.i18n import _, pgettext
from bot.i18n.formats import decimal, number
from bot.minecraft.pack_health import DAMAGE_ADVICE
from bot.operations import admin
from bot.operations import status as status_ops
from bot.operations.queue import ServerRef
from bot.operations.status import ServerStatus
from bot.slash import fit
from bot.slash.cog_helpers import audited_reply, late_followup, server_command
from bot.slash.fit import pack_embeds
from bot.slash.permissions import is_admin

if TYPE_CHECKING:
    from bot.app import DoomBot
    from bot.minecraft.selftest import SelftestResult
    from bot.services import ServerServices

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

    @staticmethod
    def _checker_fields(embed: discord.Embed, server: ServerServices) -> None:
        embed.add_field(
            name=_("commands checked"),
            value=_(
                "Minecraft {version}; {tree} tree, function permission level {level}",
                version=server.minecraft.describe(),
                tree=server.checker.tree,
                level=server.checker.function_permission_level,
            )[:1024],
            inline=False,
        )
        note = server.checker_note
        if note is not None:
            embed.add_field(name=_("warning"), value=note[:1024], inline=False)

    def _status_embed(self, found: ServerStatus) -> discord.Embed:
        server = found.server
        embed = discord.Embed(title=_("Status of {server}", server=server.name))
        if found.error is not None:
            embed.colour = discord.Colour.red()
            embed.add_field(
                name="RCON", value=_("unavailable: {error}", error=found.error)[:1024], inline=False
            )
            embed.add_field(name=_("event source"), value=found.events[:1024])
            self._checker_fields(embed, server)
            return embed
        embed.colour = discord.Colour.green()
        embed.add_field(
            name="RCON",
            value=_(
                "ok ({host}:{port})", host=server.config.rcon_host, port=server.config.rcon_port
            ),
        )
        embed.add_field(name=_("pack version"), value=found.version or _("not installed"))
        if found.version:
            self._pack_state_field(embed, found)
        software = found.software or _("unknown: {error}", error=found.software_error)
        embed.add_field(name=_("server software"), value=software[:1024])
        embed.add_field(name=_("event source"), value=found.events[:1024])
        if found.sizes_error is not None:
            embed.add_field(
                name=_("queues"),
                value=_("unavailable: {error}", error=found.sizes_error)[:1024],
                inline=False,
            )
        else:
            embed.add_field(name=_("TPS"), value=decimal(found.tps or 0.0))
        for which, total in found.sizes.items():
            embed.add_field(name=pgettext("slash option choice", which), value=number(total))
        self._checker_fields(embed, server)
        return embed

    @staticmethod
    def _pack_state_field(embed: discord.Embed, found: ServerStatus) -> None:
        """The pack's objectives and storages: whole, or what is damaged and what to do."""
        if found.damage is None:
            value = _("unknown: {error}", error=found.damage_error)
        elif not found.damage:
            value = _("ok (objectives and storages in place)")
        else:
            embed.colour = discord.Colour.orange()
            value = _(
                "damaged: {problems}. {advice}",
                problems="; ".join(found.damage),
                advice=DAMAGE_ADVICE,
            )
        embed.add_field(name=_("pack state"), value=value[:1024], inline=False)

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
        embeds = [self._status_embed(f) for f in found]
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
