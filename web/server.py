"""Serving the dashboard with Hypercorn inside the bot's own event loop.

The socket is bound here (port 0 allowed, so tests learn the real port) and handed to Hypercorn
as a file descriptor. Hypercorn's access log stays off: a login link's token must never reach
a log line.
"""

from __future__ import annotations

__all__ = ["TrustedProxies", "WebServer", "start_web"]

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Callable, Iterable
from ipaddress import IPv4Network, IPv6Network, ip_address
from typing import TYPE_CHECKING, Any

from hypercorn.asyncio import serve
from hypercorn.config import Config
from hypercorn.middleware import ProxyFixMiddleware

from web.app import HostApp, create_app
from web.context import EXTENSION, HostBot, WebState

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.operations import Operations
    from bot.services import Services

log = logging.getLogger(__name__)


class TrustedProxies:
    """ASGI middleware: X-Forwarded-For (and -Proto, -Host) is believed only from a peer in
    `networks`, so the client address the app sees (rate limits, logs) is the one the proxy
    saw; from anyone else the headers change nothing. Hypercorn's ProxyFixMiddleware does the
    rewriting; this only decides how many hops to believe: the peer, then every further
    trusted proxy the header names from its right end."""

    def __init__(self, app: Any, networks: Iterable[IPv4Network | IPv6Network]) -> None:
        self.app = app
        self.networks = tuple(networks)
        self._fixes: dict[int, ProxyFixMiddleware] = {}

    def trusted(self, address: str) -> bool:
        try:
            found = ip_address(address)
        except ValueError:
            return False
        return any(found in network for network in self.networks)

    def hops(self, scope: Any) -> int:
        client = scope.get("client")
        if not self.networks or not client or not self.trusted(str(client[0])):
            return 0
        forwarded = [
            part.strip()
            for name, value in scope.get("headers", [])
            if name.lower() == b"x-forwarded-for"
            for part in value.decode("latin1").split(",")
        ]
        hops = 1 if forwarded else 0
        while hops < len(forwarded) and self.trusted(forwarded[-hops]):
            hops += 1
        return hops

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        hops = self.hops(scope) if scope.get("type") in ("http", "websocket") else 0
        if not hops:
            await self.app(scope, receive, send)
            return
        fix = self._fixes.get(hops)
        if fix is None:
            fix = self._fixes[hops] = ProxyFixMiddleware(self.app, "legacy", trusted_hops=hops)
        await fix(scope, receive, send)


class WebServer:
    """The dashboard app and its Hypercorn server; `login_link` makes a one-time link."""

    def __init__(
        self,
        services: Services,
        bot: HostBot | None,
        *,
        ops: Operations | None = None,
        settings: Settings | None = None,
        host: str | None = None,
        port: int | None = None,
        clock: Callable[[], float] = time.time,
        secret: bytes | None = None,
    ) -> None:
        self.settings = settings or services.settings
        self.host = host or self.settings.web_host
        self.requested_port = port if port is not None else (self.settings.web_port or 0)
        self.app: HostApp = create_app(
            services, bot=bot, ops=ops, settings=self.settings, clock=clock, secret=secret
        )
        self.port = 0
        self._socket: socket.socket | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def state(self) -> WebState:
        found: WebState = self.app.extensions[EXTENSION]
        return found

    @property
    def base_url(self) -> str:
        return self.settings.web_url or f"http://{self.host}:{self.port}"

    def login_link(self, user_id: int, guild_id: int, name: str) -> str:
        """A link that opens a session for this user, once, within 5 minutes."""
        token = self.state.links.issue(user_id, guild_id, name)
        return f"{self.base_url}/login?t={token}"

    async def start(self) -> None:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.requested_port))
        sock.listen(128)
        sock.set_inheritable(True)
        self._socket = sock
        self.port = sock.getsockname()[1]
        config = Config()
        config.bind = [f"fd://{sock.fileno()}"]
        config.accesslog = None
        config.errorlog = logging.getLogger("hypercorn.error")  # through the bot's logging only
        config.graceful_timeout = 1.0
        config.include_server_header = False
        self.state.base_url = self.base_url
        self.state.ops.web_url = self.base_url  # the calendar feed's address is the dashboard's
        app = TrustedProxies(self.app, self.settings.web_trusted_proxies)
        self._task = asyncio.create_task(
            serve(app, config, shutdown_trigger=self._stop.wait),
            name="web-dashboard",
        )
        # serve() starts the app (before_serving) before it accepts: wait for that, bounded
        serving = asyncio.ensure_future(self.app.serving.wait())
        await asyncio.wait([serving, self._task], timeout=20, return_when=asyncio.FIRST_COMPLETED)
        serving.cancel()
        if self._task.done():
            self._task.result()  # raises why it stopped
        log.info("dashboard at %s", self.base_url)

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                try:
                    await asyncio.wait_for(self._task, 10)
                except TimeoutError:
                    self._task.cancel()
        if self._socket is not None:
            with contextlib.suppress(OSError):  # Hypercorn owns the descriptor and closed it
                self._socket.close()


async def start_web(services: Services, bot: HostBot) -> WebServer | None:
    """The Discord bot's dashboard when DOOM_WEB_PORT is set (started), else None."""
    if services.settings.web_port is None:
        return None
    server = WebServer(services, bot)
    await server.start()
    return server
