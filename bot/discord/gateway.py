"""One connection to Discord's gateway among several `run` processes on one database.

Discord sends each interaction to every gateway connection of a bot's session, so two `run`
processes both connected would answer (and alert) twice. With several processes on PostgreSQL,
the connection goes with the lease :data:`~bot.background.fleet.GATEWAY` (bot.background.fleet:
renewed, fenced and released like a server's): the holder connects; the others log in over HTTP,
do their share of the servers' work, serve the dashboard, and wait; one takes it when it is
released (at once, LISTEN/NOTIFY) or expires. A holder that cannot renew closes its connection
before the lease can expire, so no two processes are ever connected at once. Alone, the bot
connects at once with no lease (bot.discord.launch).
"""

from __future__ import annotations

__all__ = ["CLOSE_WAIT", "GatewayHolder", "hold_gateway"]

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from bot.aio import cancel_and_wait
from bot.background.fleet import GATEWAY

if TYPE_CHECKING:
    from aiohttp import ClientWebSocketResponse

    from bot.discord.app import DoomBot
    from bot.store.leases import Lease

log = logging.getLogger(__name__)

CLOSE_WAIT = 1.0  # seconds Discord may take to answer a close before the socket is dropped


class GatewayHolder:
    """The gateway lease's work (bot.background.fleet.FleetWork): connected while it is held."""

    def __init__(self, bot: DoomBot) -> None:
        self.bot = bot
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

    async def gain(self, lease: Lease) -> None:
        log.info("connecting to Discord's gateway (this process holds its lease)")
        self.bot.acting = True
        self._task = asyncio.create_task(self._connect(), name="discord-gateway")

    async def lose(self, lease: Lease) -> None:
        self.bot.acting = False
        await cancel_and_wait(self._task)
        self._task = None
        ws: Any = self.bot.ws  # None before the first connection
        if ws is not None:
            await _bounded(ws.close(code=1000))  # also stops its heartbeats
        for socket in self._sockets:
            if not socket.closed:
                await _bounded(socket.close(code=1000))
        self._sockets.clear()
        log.info("closed the connection to Discord's gateway (its lease is given up)")

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
    holder = GatewayHolder(bot)
    fleet.want(GATEWAY, holder)
    try:
        await holder.ended
    finally:
        await fleet.drop(GATEWAY)
