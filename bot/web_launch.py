"""The web dashboard, started beside the bot when DOOM_WEB_PORT is set.

The one run-time import of ``web`` from ``bot``: the launcher (``python -m bot run``) and the
console both start it, and the dashboard is an optional extra (``[web]``), loaded only when
asked for. import-linter's contracts allow exactly this import.
"""

from __future__ import annotations

__all__ = ["start_dashboard"]

from typing import TYPE_CHECKING, Any

from bot.errors import ConfigError

if TYPE_CHECKING:
    from bot.services import Services


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
