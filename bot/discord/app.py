"""The Discord bot: a ``commands.Bot`` holding the services, loading the cogs listed in settings.

Cogs are thin faces: they reach the per-server services through :meth:`DoomBot.server`, record
mutations through :meth:`DoomBot.audit` and post to channels through :meth:`DoomBot.post`, so
that every cog resolves servers, audits and talks to channels the same way.
"""

from __future__ import annotations

__all__ = ["Dashboard", "DoomBot", "DoomTree"]

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import discord
from discord import app_commands
from discord.ext import commands

from bot import errors
from bot.aio import cancel_and_wait
from bot.core import Core
from bot.discord.slash import errors_ui
from bot.discord.slash.fit import fit_embed
from bot.discord.slash.permissions import rank_of
from bot.discord.slash.registered import command_for
from bot.discord.slash.translator import DoomTranslator
from bot.i18n import _, pick, set_locale
from bot.operations import Caller, Face
from bot.operations.base import AuditEntry

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.plugins import PluginState
    from bot.services import ServerServices, Services

log = logging.getLogger(__name__)

AUDIT_DRAIN = 10.0  # seconds close() waits for audit posts still queued


class DoomTree(app_commands.CommandTree["DoomBot"]):
    """The command tree; every error a command raises ends in :mod:`bot.discord.slash.errors_ui`."""

    async def interaction_check(self, interaction: discord.Interaction[DoomBot], /) -> bool:
        set_locale(interaction.locale)  # replies, errors and embeds in the reader's language
        return True

    async def on_error(
        self, interaction: discord.Interaction[DoomBot], error: app_commands.AppCommandError
    ) -> None:
        await errors_ui.report(interaction, error)


class Dashboard(Protocol):
    """What the faces use of the web dashboard (web.server.WebServer, which bot/ never imports):
    its address, a one-time login link, and stopping it."""

    @property
    def base_url(self) -> str: ...

    def login_link(self, user_id: int, guild_id: int, name: str) -> str: ...

    async def stop(self) -> None: ...


class DoomBot(commands.Bot):
    """The bot: settings, services, the extensions from settings, the command tree."""

    def __init__(
        self,
        settings: Settings,
        services: Services,
        *,
        sync_commands: bool = False,
        core: Core | None = None,
    ):
        intents = discord.Intents.none()
        intents.guilds = True  # the guild cache holds the roles the permission checks read
        intents.guild_scheduled_events = True  # /event follows moves and cancels made in Discord
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            tree_cls=DoomTree,
            help_command=None,
            # nothing a task id or a player name contains may ping anyone; mentions are opt-in
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.settings = settings
        self.services = services
        # the core every face drives (bot.core): the cogs turn interactions into its requests;
        # the audit channel is one more place its audit trail tells
        self.core = core or Core.around(services)
        self.ops = self.core.ops
        self.core.audit.sinks.append(self)
        self.ops.plugin_reloaded.append(self._plugin_reloaded)
        self.face: Face = "discord"  # what the audit says the changes came from
        self.sync_commands = sync_commands
        self.failed_extensions: dict[str, BaseException] = {}
        self.web: Dashboard | None = None  # when DOOM_WEB_PORT is set
        # whether this process speaks for the bot in Discord: always alone; with several `run`
        # processes on one database, only the holder of the gateway's lease (bot.discord.gateway)
        # posts what nobody asked for, so an alert is posted once
        self.acting = True
        # audit-channel posts go out in order behind the replies: Discord allows 5 messages per
        # 5 s in a channel, and a reply that waited for its audit post waited for that bucket
        self._audit_posts: asyncio.Queue[tuple[int, discord.Embed]] = asyncio.Queue()
        self.audit_drain = AUDIT_DRAIN  # tests that do not read the audit channel shorten it
        self._audit_worker: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        await self.tree.set_translator(DoomTranslator())  # zh-CN names and descriptions
        # background work (scheduler, crash guards) before the cogs: the alerts cog reads it
        await self.core.start()
        self.add_registered_commands()
        for old, new in self.settings.renamed_extensions:
            log.warning(
                "DOOM_EXTENSIONS: %s is a deprecated name, loading %s (the module was "
                "renamed; write %s in the settings)",
                old,
                new,
                new,
            )
        # the product's cogs, then the Discord extensions the loaded plugins bring
        plugin_cogs = [c for p in self.ops.plugins if p.state == "loaded" for c in p.cogs]
        for name in [*self.settings.extensions, *plugin_cogs]:
            try:
                await self.load_extension(name)
            except Exception as exc:  # one broken cog must not keep the others down
                log.exception("failed to load extension %s", name)
                self.failed_extensions[name] = exc
            else:
                log.info("loaded extension %s", name)
        if self.sync_commands:
            await self._sync()

    def add_registered_commands(self) -> None:
        """The registry's operations a cog does not answer itself: a slash command each, built
        from its spec (a two-word name is a group's subcommand)."""
        made: dict[str, app_commands.Group] = {}
        for spec in self.ops.registry:
            if spec.face_code:  # a cog's own command
                continue
            group, _sep, sub = spec.name.rpartition(" ")
            if not group:
                self.tree.add_command(command_for(spec), override=True)
                continue
            if group not in made:
                made[group] = app_commands.guild_only()(
                    app_commands.Group(name=group, description=spec.summary)
                )
                self.tree.add_command(made[group], override=True)
            made[group].add_command(command_for(spec, sub))

    async def reload_named(self, name: str) -> str:
        """Reload an extension, or load one of the configured ones that is not loaded (it
        failed at start, or was unloaded); the outcome's sentence. ValidationError (nothing
        done) for a name that is neither configured nor loaded."""
        plugin_cogs = {c for p in self.ops.plugins for c in p.cogs}
        if name not in {*self.settings.extensions, *self.extensions, *plugin_cogs}:
            raise errors.ValidationError(_("Unknown extension {name}.", name=repr(name)))
        try:
            if name in self.extensions:
                await self.reload_extension(name)
            else:
                await self.load_extension(name)
        except commands.ExtensionError as exc:
            log.exception("reloading %s failed", name)
            return _("Reloading {name} failed: {error}", name=name, error=exc.__cause__ or exc)
        self.failed_extensions.pop(name, None)
        return _("Reloaded {name}.", name=name)

    async def _plugin_reloaded(self, state: PluginState) -> None:
        """A reloaded plugin's Discord extensions, reloaded too (loaded when new to the bot)."""
        for name in state.cogs:
            log.info("%s", await self.reload_named(name))

    async def _sync(self) -> None:
        if not self.settings.guild_ids:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))
            return
        for guild_id in self.settings.guild_ids:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), guild_id)

    async def close(self) -> None:
        # cogs first (their tasks save event cursors in the audit store), then the services
        try:
            await self._stop_audit_posts()
            await super().close()
        finally:
            await self.core.close()

    async def audit_posted(self) -> None:
        """Return once every audit post queued so far has been sent (or failed)."""
        await self._audit_posts.join()

    async def _post_audits(self) -> None:
        while True:
            channel_id, embed = await self._audit_posts.get()
            try:
                # the change was made in this process: only it can tell, gateway or not
                await self._send(channel_id, embed=embed)
            except Exception:  # one bad post must not stop the ones behind it
                log.exception("could not post an audit entry to channel %s", channel_id)
            finally:
                self._audit_posts.task_done()

    async def _stop_audit_posts(self) -> None:
        worker, self._audit_worker = self._audit_worker, None
        if worker is None:
            return
        try:
            await asyncio.wait_for(self.audit_posted(), self.audit_drain)
        except TimeoutError:
            log.warning("%d audit posts not sent at shutdown", self._audit_posts.qsize())
        await cancel_and_wait(worker)

    # -- helpers shared by the cogs -------------------------------------------------------------

    def server(self, name: str | None) -> ServerServices:
        """The services of the named server, or of the only one when no name is given."""
        return self.ops.server(name)

    def caller(self, interaction: discord.Interaction[Any]) -> Caller:
        """The user of an interaction as the operations see them."""
        user = interaction.user
        rank = rank_of(user, self.settings)
        # the name the guild sees (nickname, else display name), as the audit log says it
        return Caller(
            user.id, user.display_name, rank, self.face, interaction.id, interaction.guild_id
        )

    def alert_channel_id(self, server: ServerServices) -> int | None:
        return server.config.alert_channel_id or self.settings.alert_channel_id

    def audit_channel_id(self, server: ServerServices | None) -> int | None:
        own = server.config.audit_channel_id if server is not None else None
        return own or self.settings.audit_channel_id

    def channel_locale(self, channel_id: int) -> str:
        """The language of posts nobody asked for (alerts): DOOM_LOCALE, else the guild's."""
        channel = self.get_channel(channel_id)
        guild = getattr(channel, "guild", None) or (
            self.guilds[0] if len(self.guilds) == 1 else None
        )
        return pick(self.settings.locale, guild.preferred_locale if guild is not None else None)

    async def post(self, channel_id: int, **kwargs: Any) -> discord.Message | None:
        """Send to a channel by id (no cache needed); failures are logged, not raised. None,
        sending nothing, while another process holds the gateway (`acting`)."""
        if not self.acting:
            log.debug("not posting to channel %s: another process holds the gateway", channel_id)
            return None
        return await self._send(channel_id, **kwargs)

    async def _send(self, channel_id: int, **kwargs: Any) -> discord.Message | None:
        channel = self.get_partial_messageable(channel_id)
        try:
            return await channel.send(**kwargs)
        except discord.HTTPException:
            log.warning("could not post to channel %s", channel_id, exc_info=True)
            return None

    def member_name(self, guild_id: int, user_id: int) -> str | None:
        """A member's name as the guild shows it, from the cache only (None: not cached)."""
        guild = self.get_guild(guild_id)
        member = guild.get_member(user_id) if guild is not None else None
        return str(member.display_name) if member is not None else None

    async def member(self, guild_id: int, user_id: int) -> dict[str, Any] | None:
        """The member's payload from Discord now (``GET /guilds/{guild}/members/{user}``); None
        when they are not in the guild; DiscordUnavailable when Discord does not say."""
        try:
            found = dict(await self.http.get_member(guild_id, user_id))
        except discord.NotFound:
            return None
        except discord.HTTPException as exc:
            raise errors.DiscordUnavailable(
                _("Discord did not answer (HTTP {status}).", status=exc.status)
            ) from None
        return found

    async def audit(
        self,
        interaction: discord.Interaction[Any],
        server: ServerServices | None,
        action: str,
        request: Mapping[str, object],
        outcome: str,
    ) -> None:
        """Record a mutation in the audit store and queue its post to the audit channel, if one
        is configured (posted in order, after the reply: see `_audit_posts`)."""
        await self.ops.audit(self.caller(interaction), server, action, request, outcome)

    async def record(self, entry: AuditEntry) -> None:
        """The core audit trail's Discord part: the entry, queued for the audit channel when
        one is configured."""
        caller, server, action = entry.caller, entry.server, entry.action
        server_name = server.config.name if server is not None else ""
        channel_id = self.audit_channel_id(server)
        if channel_id is None:
            return
        # a change made on the dashboard or through the API says so
        title = (
            f"/{action}"
            if caller.face in ("discord", "console")
            else _("/{action} (web)", action=action)
        )
        embed = discord.Embed(title=title, description=entry.outcome[:4096], colour=0x5865F2)
        embed.set_author(name=f"{caller.name} ({caller.user_id})")
        if server_name:
            embed.add_field(name=_("server"), value=server_name)
        for key, value in list(entry.request.items())[:20]:
            if value is not None:
                embed.add_field(name=key, value=f"`{str(value)[:1000]}`")
        # recorded above before the reply; the post follows in order, without holding it
        self._audit_posts.put_nowait((channel_id, fit_embed(embed)))
        if self._audit_worker is None or self._audit_worker.done():
            self._audit_worker = asyncio.create_task(self._post_audits(), name="audit-posts")
