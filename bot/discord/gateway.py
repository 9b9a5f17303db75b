"""One connection to Discord's gateway among several `run` processes on one database.

Discord sends each interaction to every gateway connection of a bot's session, so two `run`
processes both connected would answer (and alert) twice. With several processes on PostgreSQL,
the connection goes with the lease :data:`~bot.background.fleet.GATEWAY` (bot.background.fleet:
renewed, fenced and released like a server's): the holder connects; the others log in over HTTP,
do their share of the servers' work, serve the dashboard, and wait; one takes it when it is
released (at once, LISTEN/NOTIFY) or expires. A holder that cannot renew closes its connection
before the lease can expire, so no two processes are ever connected at once: it keeps the
connection only while the lease's last renewal is recent by its own clock (:data:`MARGIN`), which
also holds when a look at the leases is stuck on a database that does not answer. Alone, the
bot connects at once with no lease (bot.discord.launch).
"""

from __future__ import annotations

__all__ = ["CLOSE_WAIT", "MARGIN", "WATCH", "GatewayHolder", "hold_gateway"]

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from bot.aio import cancel_and_wait
from bot.background.fleet import GATEWAY

if TYPE_CHECKING:
    from aiohttp import ClientWebSocketResponse

    from bot.background.fleet import Fleet
    from bot.discord.app import DoomBot
    from bot.store.leases import Lease

log = logging.getLogger(__name__)

CLOSE_WAIT = 0.5  # seconds Discord may take to answer a close before the socket is dropped
WATCH = 0.1  # seconds between looks at the lease's last renewal
# the connection is closed this long before its lease could expire: a look's delay and a close
MARGIN = CLOSE_WAIT + 2 * WATCH


class GatewayHolder:
    """The gateway lease's work (bot.background.fleet.FleetWork): connected while it is held
    and fresh (:meth:`fresh`)."""

    def __init__(self, bot: DoomBot, fleet: Fleet) -> None:
        self.bot = bot
        self.fleet = fleet
        self._settling = asyncio.Lock()  # one connect or close at a time
        # the connection ended by itself: the bot closed (a result) or Discord refused it
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task: asyncio.Task[None] | None = None
        self._sockets: list[ClientWebSocketResponse] = []
        connect = bot.http.ws_connect

        # every socket discord.py opens, kept: one cancelled in its handshake is not yet the
        # bot's `ws`, and would stay open beside the next holder's
        async def ws_connect(url: str, *, compress: int = 0) -> ClientWebSocketResponse:
            socket = await connect(url, compress=compress)
            self._sockets.append(socket)
            return socket

        bot.http.ws_connect = ws_connect  # type: ignore[method-assign]

    def fresh(self) -> bool:
        """Whether this process holds the lease, renewed recently enough by its own clock
        (the fleet's) that a close now ends before the lease could expire."""
        held = self.fleet.held.get(GATEWAY)
        return held is not None and self.fleet.clock() < (held.renewed_at + self.fleet.ttl - MARGIN)

    async def gain(self, lease: Lease) -> None:
        await self.settle()

    async def lose(self, lease: Lease) -> None:
        await self.settle()

    async def watch(self) -> None:
        """Every WATCH seconds: a renewal that did not come in time closes the connection (the
        fleet's own look may be waiting on the database), a late one opens it again."""
        while True:
            await asyncio.sleep(WATCH)
            await self.settle()

    async def settle(self) -> None:
        """Connect when fresh, close when not."""
        async with self._settling:
            if self.fresh():
                if self._task is None:
                    log.info("connecting to Discord's gateway (this process holds its lease)")
                    self.bot.acting = True
                    self._task = asyncio.create_task(self._connect(), name="discord-gateway")
            elif self._task is not None or self._sockets:
                if GATEWAY in self.fleet.held:
                    log.warning(
                        "closing the connection to Discord's gateway: its lease cannot be "
                        "renewed and ends soon"
                    )
                await self._close()

    async def _close(self) -> None:
        self.bot.acting = False
        task, self._task = self._task, None
        await cancel_and_wait(task)
        ws: Any = self.bot.ws  # None before the first connection
        if ws is not None:
            await _bounded(ws.close(code=1000))  # also stops its heartbeats
        for socket in self._sockets:
            if not socket.closed:
                await _bounded(socket.close(code=1000))
        self._sockets.clear()
        log.info("closed the connection to Discord's gateway")

    async def _connect(self) -> None:
        try:
            await self.bot.connect(reconnect=True)
        except Exception as exc:  # a refusal discord.py does not retry (a bad token): said by run
            if not self.ended.done():
                self.ended.set_exception(exc)
        else:
            if not self.ended.done():
                self.ended.set_result(None)


async def _bounded(closing: Any) -> None:
    """A socket's close, not waiting long for the other end (a cancelled close drops it)."""
    with contextlib.suppress(TimeoutError, OSError):
        await asyncio.wait_for(closing, CLOSE_WAIT)


async def hold_gateway(bot: DoomBot) -> None:
    """Connect to the gateway whenever this process holds its lease, until the connection ends
    by itself; leaving (SIGTERM) closes it and releases the lease at once."""
    fleet = bot.services.fleet
    assert fleet is not None, "the core starts its fleet on a shared database"
    holder = GatewayHolder(bot, fleet)
    watching = asyncio.create_task(holder.watch(), name="discord-gateway-watch")
    fleet.want(GATEWAY, holder)
    try:
        await holder.ended
    finally:
        await cancel_and_wait(watching)
        await fleet.drop(GATEWAY)
