"""``python -m bot console``: the core (bot.core), its background work, the dashboard beside it
and the console reading lines on it; started by the launcher (bot/__main__.py) with the
settings it read. No Discord: the operations run on the core, the alerts print in the console.
"""

from __future__ import annotations

__all__ = ["main"]

import contextlib
import importlib.util
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from bot.aio import run_until_stopped
from bot.cli.serve import dashboard_on
from bot.core import Core, build_core, follow_alerts
from bot.i18n import _, console_locale, set_locale
from bot.operations import access
from bot.operations.requests import validated
from bot.operations.sections import alert_section
from console.files import FILES_FOLDER
from console.lines import quiet_terminal
from console.session import HISTORY_FILE, Screen, console_caller, is_terminal, run_console

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from bot.config import Settings
    from bot.operations import Caller

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"


def main(settings: Settings, *, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """The operations in a terminal, as the console user (an admin)."""
    _lines_end_at_newline(stdin)
    # from the start, not only from the first prompt: what is typed while the bot starts is
    # drawn by that prompt, not echoed as well (on a pipe-fed prompt the terminal keeps echoing)
    at_terminal = is_terminal(stdin) and is_terminal(stdout)
    with quiet_terminal(stdin) if at_terminal else contextlib.nullcontext():
        # SIGTERM/SIGINT: bot.aio.Stopped
        return run_until_stopped(run(settings, stdin, stdout))


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


async def _start_web(core: Core) -> Any:
    """The dashboard on the core, when a port is set."""
    if core.settings.web_port is None:
        return None
    return await dashboard_on(core)


def _link_maker(
    core: Core, base: str, caller: Callable[[], Caller]
) -> Callable[[], Awaitable[str]]:
    """A one-time dashboard link for the person at the terminal, with their rank (admin)."""

    async def link() -> str:
        who = caller()
        request = validated(access.AccessRequest, {"name": who.name, "rank": "admin"})
        secret = await access.login(core.ops, who, request)
        return f"{base}/login?c={secret}"

    return link


async def run(settings: Settings, stdin: TextIO, stdout: TextIO) -> int:
    locale = console_locale(settings.locale)  # DOOM_LOCALE, else the system's
    set_locale(locale)
    settings = settings.model_copy(update={"locale": locale, **_own_dashboard(settings)})
    core = await build_core(settings)
    web: Any = None
    try:
        await core.start()
        web = await _start_web(core)
        caller = console_caller()
        link = _link_maker(core, web.base_url, caller) if web is not None else None
        if link is not None:
            print(
                _(
                    "Web dashboard: {url} (log in, once, within 5 minutes: {link})",
                    url=web.base_url,
                    link=await link(),
                ),
                file=stdout,
                flush=True,
            )
            if settings.web_port == 0 and settings.web_host == LOOPBACK:
                print(
                    _(
                        "Only this computer can open it (127.0.0.1). DOOM_WEB_PORT and "
                        "DOOM_WEB_HOST serve it to others; DOOM_CONSOLE_DASHBOARD=false turns "
                        "it off."
                    ),
                    file=stdout,
                    flush=True,
                )

        async def alerts(screen: Screen) -> None:
            await follow_alerts(core, lambda _server, event: screen.alert(alert_section(event)))

        data = Path(settings.data_dir)
        await run_console(
            core.ops,
            stdin,
            stdout,
            caller,
            history=data / HISTORY_FILE,
            files=data / FILES_FOLDER,
            dashboard=link,
            follow=alerts,
        )
        return 0
    finally:
        await core.services.hand_over()
        if web is not None:
            await web.stop()
        await core.close()
