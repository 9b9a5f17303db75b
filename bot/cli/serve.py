"""`python -m bot serve`, `python -m bot token ...` and `python -m bot login`: a server
administered with no Discord at all.

``serve`` runs the core (bot.core), its background work (wall-clock schedules, crash guards,
every server's events) and the dashboard with its JSON API, until SIGTERM or Ctrl-C. Nothing on
this path imports discord.py. The pack's alerts go to the log (and the dashboard's events page):
with no Discord there is no alert channel.

``token`` and ``login`` only write to the database (bot.store.access), so they run beside a
``serve`` (or a bot) on the same data folder: they take no lock and start no server.
"""

from __future__ import annotations

__all__ = ["dashboard_on", "in_shell", "login", "serve", "token"]

import asyncio
import getpass
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TextIO

from bot.aio import cancel_and_wait
from bot.cli import shell_caller
from bot.core import Core, build_core, follow_alerts
from bot.errors import BotError, ConfigError
from bot.i18n import _
from bot.i18n.formats import clock
from bot.operations import Caller, Operations, access
from bot.operations.base import StoreAuditor
from bot.operations.requests import validated

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.services import Services

log = logging.getLogger(__name__)

DASHBOARD_URL = "dashboard_url"  # the audit store's cursor holding where `serve` listens


async def dashboard_on(core: Core) -> Any:
    """The dashboard and its API on the core, started (``serve``'s and the console's: no
    Discord bot behind it); ConfigError when the [web] extra cannot load."""
    try:
        from web.server import WebServer  # the one import of the web face on these paths
    except ImportError as exc:
        raise ConfigError(
            f"The dashboard cannot load ({exc}): install the [web] extra, e.g. "
            "pip install -e '.[web]'."
        ) from None
    web = WebServer(core.services, None, ops=core.ops)
    await web.start()
    return web


async def serve(settings: Settings, out: TextIO) -> int:
    if settings.web_port is None:
        raise ConfigError(
            _(
                "DOOM_WEB_PORT: serve runs the dashboard and its API, so it needs a port "
                "(e.g. DOOM_WEB_PORT=8080)."
            )
        )
    core = await build_core(settings)
    followers: list[asyncio.Task[None]] = []
    web: Any = None
    try:
        await core.start()
        # an alert goes to the log (what the Discord bot's alerts cog posts to a channel)
        followers = [asyncio.create_task(follow_alerts(core), name="alerts")]
        web = await dashboard_on(core)
        await core.services.audit.set_cursor(DASHBOARD_URL, web.base_url)
        print(
            _(
                "Serving the dashboard and API at {url} (no Discord). For a login link: "
                "python -m bot login; for an API token: python -m bot token new NAME.",
                url=web.base_url,
            ),
            file=out,
            flush=True,
        )
        await asyncio.Event().wait()  # until SIGTERM or Ctrl-C cancels it
        return 0
    finally:
        await core.services.hand_over()
        await cancel_and_wait(*followers)
        if web is not None:
            await web.stop()
        await core.close()


Work = Callable[["Services", Operations, Caller], Awaitable[int]]


async def in_shell(settings: Settings, work: Work) -> int:
    """`work` on operations over the data folder's database alone (no server, no background
    work), as its admin; a refusal is said on stderr, exit 2, nothing done."""
    from bot.services import Services
    from bot.store.audit import AuditStore
    from bot.store.db import settings_database

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    services = Services(settings, {}, AuditStore(settings_database(settings)))
    try:
        return await work(services, Operations(services, StoreAuditor(services)), shell_caller())
    except BotError as exc:
        print(exc, file=sys.stderr)
        return 2
    finally:
        await services.close()


async def token(settings: Settings, words: list[str], rank: str, out: TextIO) -> int:
    """``token new NAME``, ``token list``, ``token revoke NAME``."""
    verb, names = (words[0], words[1:]) if words else ("", [])
    if (verb, len(names)) not in (("new", 1), ("list", 0), ("revoke", 1)):
        print(
            _("usage: token new NAME [--rank moderator|admin] | token list | token revoke NAME"),
            file=sys.stderr,
        )
        return 2

    async def work(services: Services, ops: Operations, caller: Caller) -> int:
        if verb == "new":
            request = validated(access.AccessRequest, {"name": names[0], "rank": rank})
            made = await access.new_token(ops, caller, request)
            print(made.text, file=sys.stderr)
            print(made.secret, file=out)
        elif verb == "revoke":
            print(await access.revoke(ops, caller, names[0]), file=out)
        else:
            found = await access.tokens(ops, caller)
            if not found:
                print(_("No API tokens."), file=out)
            for t in found:
                used = clock(t.last_used_at) if t.last_used_at else _("never")
                print(
                    _(
                        "{name}\t{rank}\tmade {made}\tlast used {used}",
                        name=t.name,
                        rank=_(t.rank),
                        made=clock(t.created_at),
                        used=used,
                    ),
                    file=out,
                )
        return 0

    return await in_shell(settings, work)


async def login(settings: Settings, name: str | None, rank: str, out: TextIO) -> int:
    """A one-time dashboard link, printed."""

    async def work(services: Services, ops: Operations, caller: Caller) -> int:
        # where the dashboard answers, known before a link is made: a link to nowhere is none
        base = settings.web_url or await services.audit.get_cursor(DASHBOARD_URL)
        if not base and settings.web_port:
            base = f"http://{settings.web_host}:{settings.web_port}"
        if not base:
            raise ConfigError(
                _(
                    "The dashboard's address is not known: set DOOM_WEB_URL (or DOOM_WEB_PORT), "
                    "or start python -m bot serve first; no link was made."
                )
            )
        who = name or getpass.getuser()
        request = validated(access.AccessRequest, {"name": who, "rank": rank})
        secret = await access.login(ops, caller, request)
        print(f"{base}/login?c={secret}", file=out)
        print(
            _("It works once, within 5 minutes, for {name} ({rank}).", name=who, rank=_(rank)),
            file=sys.stderr,
        )
        return 0

    return await in_shell(settings, work)
