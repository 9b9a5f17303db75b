"""The one place that builds and runs the bot, with the face that drives it as a parameter.

:func:`run_bot` builds the core (bot.core: the services, the operations, the plugins) and the
bot for a :class:`Front` (Discord's gateway for ``python -m bot run``, :class:`Gateway`; a test
harness brings its own), opens the front's connection to Discord, starts the web dashboard
beside it when DOOM_WEB_PORT is set, runs the front, and closes everything in reverse. The
console and ``serve`` run the core without a bot (console.front, bot.cli.serve).

One of the two run-time imports of ``web`` from ``bot`` is here (the other is bot.cli.serve's,
for ``serve`` and the console): the dashboard is an optional extra (``[web]``), loaded only when
asked for. import-linter's contracts allow exactly these imports.
"""

from __future__ import annotations

__all__ = ["Front", "Gateway", "run_bot", "start_dashboard"]

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from bot.core import build_core
from bot.discord.app import DoomBot
from bot.discord.gateway import hold_gateway
from bot.errors import ConfigError

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.operations import Face
    from bot.services import Services


class Front(Protocol):
    """A face that drives the bot: where its interactions come from and its replies go."""

    @property
    def face(self) -> Face:
        """What the audit log says the changes made through it came from."""

    @property
    def sync_commands(self) -> bool:
        """Whether the bot syncs its command tree to Discord at start-up."""

    def settings(self, settings: Settings) -> Settings:
        """The settings the bot runs with under this face."""

    def connect(self, bot: DoomBot) -> AbstractAsyncContextManager[object]:
        """The bot's connection to Discord, entered before the dashboard starts; leaving it
        closes the bot and so its services."""

    async def run(self, bot: DoomBot) -> None:
        """The face's own work, with the dashboard (``bot.web``) up, until it ends."""


@dataclass(frozen=True)
class Gateway:
    """Discord itself: the bot logs in with its token and serves the gateway until stopped;
    with several processes on one database, only while this one holds the gateway's lease
    (bot.discord.gateway)."""

    token: str
    face: Face = "discord"
    sync_commands: bool = True

    def settings(self, settings: Settings) -> Settings:
        return settings

    def connect(self, bot: DoomBot) -> AbstractAsyncContextManager[object]:
        return bot  # discord.py's own: `async with bot` closes it

    async def run(self, bot: DoomBot) -> None:
        if not bot.services.shared:
            await bot.start(self.token)
            return
        bot.acting = False  # until this process holds the gateway's lease
        await bot.login(self.token)  # the core starts here (setup_hook), its fleet with it
        await hold_gateway(bot)


async def run_bot(settings: Settings, front: Front) -> int:
    """Build the bot for ``front`` and run it until the front's work ends (0)."""
    settings = front.settings(settings)
    core = await build_core(settings)  # the plugins' operations in the registry first
    services = core.services
    bot = DoomBot(settings, services, sync_commands=front.sync_commands, core=core)
    bot.face = front.face  # the audit log says where a change came from
    async with front.connect(bot):  # closing the bot closes the services
        bot.web = await start_dashboard(services, bot)
        try:
            await front.run(bot)
        finally:
            await services.hand_over()
            if bot.web is not None:
                await bot.web.stop()
    return 0


async def start_dashboard(services: Services, bot: Any) -> Any:
    """The web dashboard (web.server.WebServer), started, when DOOM_WEB_PORT is set."""
    if services.settings.web_port is None:
        return None
    try:
        from web.server import start_web
    except ImportError as exc:
        raise ConfigError(
            f"DOOM_WEB_PORT is set but the dashboard cannot load ({exc}): install the [web] "
            "extra, e.g. pip install -e '.[web]'."
        ) from None
    return await start_web(services, bot)
