"""Several bot processes on one database: who does each server's background work.

Every process serves the dashboard and the API; each server's background work (wall-clock
hand-overs, crash guard, event source, health checks) runs in exactly one process, the holder of
its lease ``server:<name>`` (bot.store.leases). A process's own lease ``member:<id>`` says it
is alive: the servers are shared out by the number of live processes (each takes at most its
share, rounded up), so a new process takes its share as the others give theirs up, and the
survivors take a dead one's.

One loop a process, every :data:`TICK` seconds (sooner when PostgreSQL's LISTEN/NOTIFY says a
lease was released): renew what it holds a third of the way into the TTL, give up what is over
its share, take expired or released leases up to its share. A process that cannot renew stops
the work of its servers on its own clock, `margin` seconds before the lease can expire, so an
RCON command it started has ended before another process may start one (fencing; every
hand-over also checks its lease in its own transaction). Stopping cleanly (SIGTERM) stops the
work and then releases the leases: another process takes them at its next look (about 1 s).

A lease a process :meth:`Fleet.want`s beside its share (the Discord gateway, :data:`GATEWAY`:
one connection per bot application) is held by whichever process looks first while it is free,
renewed, fenced and released like a server's, its own work started and stopped with it.
"""

from __future__ import annotations

__all__ = ["GATEWAY", "Fleet", "FleetWork", "process_id"]

import asyncio
import contextlib
import logging
import math
import os
import secrets
import socket
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from bot.aio import cancel_and_wait
from bot.errors import BotError
from bot.store.leases import MEMBER, Lease, LeaseStore

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncConnection

    from bot.store.schedules import Fence

log = logging.getLogger(__name__)

TICK = 1.0  # seconds between looks at the leases
GATEWAY = "discord:gateway"  # the lease of the connection to Discord's gateway (`run`)


def process_id() -> str:
    """This process among the others: its host, pid and a random part (a pid is reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def server_lease(name: str) -> str:
    return f"server:{name}"


class FleetWork(Protocol):
    """What the fleet starts and stops: a server's background work, or a wanted lease's."""

    async def gain(self, lease: Lease) -> None: ...

    async def lose(self, lease: Lease) -> None: ...


@dataclass
class Held:
    lease: Lease
    renewed_at: float  # this process's monotonic clock when the renewal that gave it started


@dataclass(eq=False)
class Fleet:
    """This process's leases and the work they carry (see the module's text)."""

    leases: LeaseStore
    servers: list[str]
    work: FleetWork
    margin: float = 3.0  # seconds before expiry at which an unrenewed holder stops acting
    tick: float = TICK
    clock: Callable[[], float] = time.monotonic
    held: dict[str, Held] = field(default_factory=dict)
    _task: asyncio.Task[None] | None = None
    _watch: asyncio.Task[None] | None = None
    _renewer: asyncio.Task[None] | None = None
    _renewal: asyncio.Lock = field(default_factory=asyncio.Lock)  # one renewal at a time
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _stopping: bool = False
    down_since: float | None = None  # the database could not be reached since (monotonic)
    last_error: str = ""
    seen: list[Lease] = field(default_factory=list)  # every live lease at the last look
    wanted: dict[str, FleetWork] = field(default_factory=dict)  # leases beside the share
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one look or drop at a time

    def holder_of(self, server: str) -> str | None:
        """Which process did `server`'s work at the last look (None: nobody)."""
        return self.lease_holder(server_lease(server))

    def lease_holder(self, name: str) -> str | None:
        """Which process held the lease `name` at the last look (None: nobody)."""
        return next((lease.holder for lease in self.seen if lease.name == name), None)

    @property
    def members(self) -> int:
        """The live processes at the last look."""
        return sum(1 for lease in self.seen if lease.name.startswith(MEMBER))

    @property
    def holder(self) -> str:
        return self.leases.holder

    @property
    def ttl(self) -> float:
        return self.leases.ttl

    @property
    def member(self) -> str:
        return MEMBER + self.holder

    def holds(self, server: str) -> bool:
        return server_lease(server) in self.held

    def lease_of(self, server: str) -> Lease | None:
        held = self.held.get(server_lease(server))
        return None if held is None else held.lease

    def fence_for(self, server: str) -> Fence:
        """The check a hand-over's record makes in its own transaction: this process still
        holds `server` under the lease it acts on (bot.store.leases)."""
        lease = self.lease_of(server)

        async def fence(conn: AsyncConnection) -> bool:
            return lease is not None and await self.leases.still_held(conn, lease)

        return fence

    def want(self, name: str, work: FleetWork) -> None:
        """Hold the lease `name` whenever it is free, whatever the share, doing `work` while
        it is held; looks now."""
        self.wanted[name] = work
        self.wake()

    async def drop(self, name: str) -> None:
        """Stop wanting `name`: stop its work and release it now, so another process takes it
        at once (after a look under way: it may be taking it)."""
        async with self._lock:
            await self._give_up(name, release=True)
            self.wanted.pop(name, None)

    def wake(self) -> None:
        """Look now (a lease was released: LISTEN/NOTIFY)."""
        self._wake.set()

    async def start(self) -> None:
        """The first look (so a lone process holds its servers when start returns), then the
        loop, and the watch that fences on this process's clock."""
        await self.step()
        self._task = asyncio.create_task(self._loop(), name="fleet")
        self._watch = asyncio.create_task(self._watching(), name="fleet-fence")
        self._renewer = asyncio.create_task(self._renewing(), name="fleet-renew")

    async def stop(self) -> None:
        """Stop the work of every lease held, then release them all (the hand-over)."""
        self._stopping = True
        await cancel_and_wait(self._task, self._watch, self._renewer)
        # each lease's work stops and is released on its own, so the first is taken at once
        work = [n for n in self.held if n != self.member]
        await asyncio.gather(*(self._give_up(n, release=True) for n in work))
        await self._give_up(self.member, release=True)  # last: the others count it alive

    async def _loop(self) -> None:
        while not self._stopping:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.tick)
            self._wake.clear()
            try:
                async with self._lock:
                    await self.step()
            except Exception:  # one bad look must not end the holding of every other lease
                log.exception("the fleet's look at the leases failed")

    async def step(self) -> None:
        """One look: renew, fence, give up the surplus, take a share."""
        now = self.clock()
        try:
            await self._renew(now)
            _, live = await self.leases.live()
            self.seen = live
        except Exception as exc:  # whatever keeps the leases from being renewed, they end
            self._renew_failed(now, exc)
            return
        if self.down_since is not None:
            log.warning("the database answers again (it did not for %.1f s)", now - self.down_since)
        self.down_since = None
        if self.member not in self.held:
            await self._take(self.member)
        members = sum(1 for lease in live if lease.name.startswith(MEMBER))
        share = math.ceil(len(self.servers) / max(members, 1))
        mine = sorted(n for n in self.held if n.startswith("server:"))
        # the surplus over the share goes back, the servers this process would take last first
        for name in sorted(mine, key=self._rank, reverse=True)[: max(0, len(mine) - share)]:
            await self._give_up(name, release=True)
        holders = {lease.name: lease.holder for lease in live}
        free = [
            server_lease(s)
            for s in self.servers
            if server_lease(s) not in holders and server_lease(s) not in self.held
        ]
        for name in sorted(free, key=self._rank)[: max(0, share - len(mine))]:
            await self._take(name)
        for name in list(self.wanted):
            if name not in holders and name not in self.held:
                await self._take(name)

    def _renew_failed(self, now: float, exc: Exception) -> None:
        if not isinstance(exc, (BotError, OSError)):  # a fault not said in words: a traceback
            log.exception("renewing the leases failed")
        self._unreachable(now, exc)

    async def _renewing(self) -> None:
        """Renewals on their own beside the looks: a look starting a server's work (seconds on
        a slow server) would leave every other lease unrenewed meanwhile, and fenced."""
        while not self._stopping:
            await asyncio.sleep(self.tick / 2)
            now = self.clock()
            try:
                await self._renew(now)
            except Exception as exc:  # the fence acts on the clock
                self._renew_failed(now, exc)

    async def _watching(self) -> None:
        """Fence on this process's clock whether or not a look is under way: a database that
        stops answering (no error, no reply) holds a look inside its renewal for as long as the
        driver waits, past the lease's end."""
        while not self._stopping:
            await asyncio.sleep(self.tick / 4)
            now = self.clock()
            self._fence(now)
            if any(now >= self._deadline(h) - self.tick for h in self.held.values()):
                self.wake()  # a renewal now, not at the next look

    def _fence(self, now: float) -> None:
        """Stop the work of every lease not renewed in time: it may end `margin` seconds from
        now, and another process may take it then."""
        for name, held in list(self.held.items()):
            if now >= self._deadline(held):
                log.warning("stopping %s: its lease cannot be renewed and ends soon", name)
                self.held.pop(name, None)
                asyncio.get_running_loop().create_task(self._stop_work(held.lease))

    def _deadline(self, held: Held) -> float:
        return held.renewed_at + self.ttl - self.margin

    def _due_for_renewal(self, held: Held, now: float) -> bool:
        """A third of the TTL gone, or the fence nearer than two looks (a short TTL)."""
        return now - held.renewed_at >= self.ttl / 3 or now + 2 * self.tick >= self._deadline(held)

    def _rank(self, name: str) -> int:
        """An order of the servers of its own for each process, so processes starting together
        reach for different servers first."""
        return zlib.crc32(f"{self.holder}/{name}".encode())

    async def _renew(self, now: float) -> None:
        async with self._renewal:
            await self._renew_due(now)

    async def _renew_due(self, now: float) -> None:
        due = {n: h for n, h in self.held.items() if self._due_for_renewal(h, now)}
        if not due:
            return
        renewed = await self.leases.renew_all([h.lease for h in due.values()])
        for name, held in due.items():
            lease = renewed.get(name)
            if lease is None:
                if self.held.get(name) is held:
                    log.warning("lost the lease %s (taken over or expired)", name)
                    await self._give_up(name, release=False)
            elif self.held.get(name) is not held:
                # fenced while the renewal waited: its work is stopped; give it back
                with contextlib.suppress(BotError, OSError):
                    await self.leases.release(lease)
            else:
                self.held[name] = Held(lease, now)

    def _unreachable(self, now: float, exc: BaseException) -> None:
        """The database does not answer: fence on this process's clock."""
        if self.down_since is None:
            self.down_since = now
            log.warning("the database does not answer: %s", exc)
        self.last_error = str(exc)
        self._fence(now)

    async def _take(self, name: str) -> None:
        started = self.clock()
        lease = await self.leases.take(name)
        if lease is None:
            return
        self.held[name] = Held(lease, started)
        self.seen = [seen for seen in self.seen if seen.name != name] + [lease]
        if name != self.member:
            log.info("took %s (token %d)", name, lease.token)
            try:
                await self.wanted.get(name, self.work).gain(lease)
            except BotError as exc:  # the database or the server away: said in words
                log.warning("starting the work of %s failed (%s): giving it back", name, exc)
                await self._give_up(name, release=True)
            except Exception:
                log.exception("starting the work of %s failed: giving it back", name)
                await self._give_up(name, release=True)
        if name.startswith("server:"):
            with contextlib.suppress(BotError, OSError):
                await self.leases.forget_dead_members()

    async def _give_up(self, name: str, *, release: bool) -> None:
        held = self.held.pop(name, None)
        if held is None:
            return
        self.seen = [seen for seen in self.seen if seen.name != name]
        await self._stop_work(held.lease)
        if release:
            try:
                await self.leases.release(held.lease)
            except (BotError, OSError) as exc:  # it expires by itself
                log.warning("releasing %s failed: %s", name, exc)

    async def _stop_work(self, lease: Lease) -> None:
        if lease.name.startswith(MEMBER):
            return
        try:
            await self.wanted.get(lease.name, self.work).lose(lease)
        except BotError as exc:
            log.warning("stopping the work of %s failed: %s", lease.name, exc)
        except Exception:
            log.exception("stopping the work of %s failed", lease.name)
