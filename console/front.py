"""``python -m bot console``: the bot on the local Discord, the console reading lines on it, the
dashboard beside; started by the launcher (bot/__main__.py) with the settings it read.

The bot is built where ``run``'s is (bot.launch.run_bot); :class:`ConsoleFront` is what the
console brings to it: its settings, the local Discord as the connection, the session.
"""

from __future__ import annotations

__all__ = ["ConsoleFront", "main"]

import contextlib
import importlib.util
import logging
import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.aio import run_until_stopped
from bot.i18n import _, console_locale, discord_locale, set_locale
from bot.launch import run_bot
from bot.localdiscord.emulator import CHANNEL_ID, LocalDiscord
from console.files import FILES_FOLDER
from console.lines import quiet_terminal
from console.session import CONSOLE_USER_ID, HISTORY_FILE, is_terminal, run_console

if TYPE_CHECKING:
    from bot.app import DoomBot
    from bot.config import Settings
    from bot.operations import Face

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"


def main(settings: Settings, *, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """The bot's cogs in a terminal, as the console user (an admin)."""
    _lines_end_at_newline(stdin)
    # from the start, not only from the first prompt: what is typed while the bot starts is
    # drawn by that prompt, not echoed as well (on a pipe-fed prompt the terminal keeps echoing)
    at_terminal = is_terminal(stdin) and is_terminal(stdout)
    with quiet_terminal(stdin) if at_terminal else contextlib.nullcontext():
        # SIGTERM/SIGINT: bot.aio.Stopped
        return run_until_stopped(run_bot(settings, ConsoleFront(stdin, stdout)))


def _lines_end_at_newline(stdin: TextIO) -> None:
    """sys.stdin reads universal newlines, where a lone CR ends a line: `/a ...\r/b ...` would
    run as two commands. A line ends at "\n" only; one_line refuses a CR inside it."""
    reconfigure = getattr(stdin, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(newline="\n")
        except (ValueError, OSError):  # already read from, or not a text file
            log.debug("console input keeps its newline mode", exc_info=True)


def _own_dashboard(settings: Settings) -> dict[str, object]:
    """Without DOOM_WEB_PORT the console still serves the dashboard (/calendar and /dashboard
    need it), on 127.0.0.1 only (whatever DOOM_WEB_HOST says: nobody asked to serve others) and
    any free port. Starting it costs about 0.05 s. Not with DOOM_CONSOLE_DASHBOARD=false, nor
    without the [web] extra installed (then /dashboard says what to set)."""
    if settings.web_port is not None or not settings.console_dashboard:
        return {}
    if importlib.util.find_spec("quart") is None or importlib.util.find_spec("hypercorn") is None:
        log.info("console: no dashboard, the [web] extra is not installed")
        return {}
    return {"web_port": 0, "web_host": LOOPBACK}


class ConsoleFront:
    """The console as the bot's front (bot.launch.Front): lines typed at ``stdin`` run on a
    local Discord, what Discord would show prints to ``stdout``."""

    face: Face = "console"
    sync_commands = False  # the local Discord checks the tree at every start instead

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.locale = "en"
        self.local: LocalDiscord | None = None

    def settings(self, settings: Settings) -> Settings:
        # the person at the terminal already holds the server; alerts print here unless routed
        # elsewhere, in the console's language
        locale = console_locale(settings.locale)  # DOOM_LOCALE, else the system's
        self.locale = set_locale(locale)
        return settings.model_copy(
            update={
                "admin_user_ids": [*settings.admin_user_ids, CONSOLE_USER_ID],
                "alert_channel_id": settings.alert_channel_id or CHANNEL_ID,
                "locale": locale,
                **_own_dashboard(settings),
            }
        )

    def connect(self, bot: DoomBot) -> AbstractAsyncContextManager[object]:
        self.local = LocalDiscord(bot, locale=discord_locale(self.locale))
        return self.local

    async def run(self, bot: DoomBot) -> None:
        assert self.local is not None, "run before connect"
        if bot.web is not None:
            link = bot.web.login_link(CONSOLE_USER_ID, self.local.guild_id, "console")
            print(
                _(
                    "Web dashboard: {url} (log in, once, within 5 minutes: {link})",
                    url=bot.web.base_url,
                    link=link,
                ),
                file=self.stdout,
                flush=True,
            )
            if bot.settings.web_port == 0 and bot.settings.web_host == LOOPBACK:
                print(
                    _(
                        "Only this computer can open it (127.0.0.1). DOOM_WEB_PORT and "
                        "DOOM_WEB_HOST serve it to others; DOOM_CONSOLE_DASHBOARD=false turns "
                        "it off."
                    ),
                    file=self.stdout,
                    flush=True,
                )
        data = Path(bot.settings.data_dir)
        await run_console(
            self.local,
            self.stdin,
            self.stdout,
            history=data / HISTORY_FILE,
            files=data / FILES_FOLDER,
        )
