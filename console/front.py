"""``python -m bot console``: the bot on the local Discord, the console reading lines on it, the
dashboard beside; started by the launcher (bot/__main__.py) with the settings it read."""

from __future__ import annotations

__all__ = ["main"]

import contextlib
import logging
import sys
from pathlib import Path
from typing import TextIO

from bot.aio import run_until_stopped
from bot.app import DoomBot
from bot.config import Settings
from bot.i18n import _, console_locale, discord_locale, set_locale
from bot.localdiscord.emulator import CHANNEL_ID, LocalDiscord
from bot.services import build_services
from bot.web_launch import start_dashboard
from console.lines import quiet_terminal
from console.session import CONSOLE_USER_ID, HISTORY_FILE, is_terminal, run_console

log = logging.getLogger(__name__)


def main(settings: Settings, *, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """The bot's cogs in a terminal, as the console user (an admin)."""
    _lines_end_at_newline(stdin)
    # from the start, not only from the first prompt: what is typed while the bot starts is
    # drawn by that prompt, not echoed as well (on a pipe-fed prompt the terminal keeps echoing)
    at_terminal = is_terminal(stdin) and is_terminal(stdout)
    with quiet_terminal(stdin) if at_terminal else contextlib.nullcontext():
        # SIGTERM/SIGINT: bot.aio.Stopped
        return run_until_stopped(_console(settings, stdin, stdout))


def _lines_end_at_newline(stdin: TextIO) -> None:
    """sys.stdin reads universal newlines, where a lone CR ends a line: `/a ...\r/b ...` would
    run as two commands. A line ends at "\n" only; one_line refuses a CR inside it."""
    reconfigure = getattr(stdin, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(newline="\n")
        except (ValueError, OSError):  # already read from, or not a text file
            log.debug("console input keeps its newline mode", exc_info=True)


async def _console(settings: Settings, stdin: TextIO, stdout: TextIO) -> int:
    """The bot on a local Discord, the console reading lines on it, the dashboard beside."""
    # the person at the terminal already holds the server; alerts print here unless routed elsewhere
    settings = settings.model_copy(
        update={
            "admin_user_ids": [*settings.admin_user_ids, CONSOLE_USER_ID],
            "alert_channel_id": settings.alert_channel_id or CHANNEL_ID,
            "locale": console_locale(
                settings.locale
            ),  # alerts printed here: the console's language
        }
    )
    locale = set_locale(console_locale(settings.locale))  # DOOM_LOCALE, else the system's
    services = await build_services(settings)
    bot = DoomBot(settings, services)
    bot.face = "console"  # the audit log says where a change came from

    async with LocalDiscord(bot, locale=discord_locale(locale)) as local:
        bot.web = await start_dashboard(services, bot)
        try:
            if bot.web is not None:
                link = bot.web.login_link(CONSOLE_USER_ID, local.guild_id, "console")
                print(_("Web dashboard: {url} (log in, once, within 5 minutes: {link})",
                        url=bot.web.base_url, link=link), file=stdout, flush=True)  # fmt: skip
            history = Path(settings.data_dir) / HISTORY_FILE
            await run_console(local, stdin, stdout, history=history)
        finally:
            if bot.web is not None:
                await bot.web.stop()
    return 0
