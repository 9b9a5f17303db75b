"""The ledger's view of the ring-buffer source's reads (bot.events.storage_poll.PollWatch):
the last whole read of the ring and the first read after it that did not end well, from which
a crash's window of doubt is measured (bot.background.doubt). A mixin of
bot.store.ledger.Ledger, which owns the table and the state it keeps."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from sqlalchemy import Update, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.db import Database, greatest
from bot.store.tables import ledger_servers

S = ledger_servers.c

__all__ = ["DOUBT_MARGIN", "DOUBT_MIN_RATE", "RATE_MEMORY", "RingSight"]

# The server ticked at most this fast after the bot's last read of the ring. Vanilla's rate is
# 20 a second; a `tick rate` the bot measured between its last two reads counts when higher,
# with half again for a rate raised since.
DOUBT_MIN_RATE: Final = 20.0
DOUBT_MARGIN: Final = 1.5
# A rate measured lower than the highest of this many seconds back does not replace it: a
# server frozen or stalled between two reads (rate 0) ticks at its own rate again after, and
# a stalled one catches up faster still.
RATE_MEMORY: Final = 60.0


class RingSight:
    """What the ledger knows of the ring's reads (state set up by Ledger.__init__)."""

    db: Database
    server: str
    _clock: Callable[[], float]
    _since_lost: set[int] | None
    _attempt_at: float | None
    _in_flight: bool
    _lost_at: float | None
    _peak: tuple[float, float] | None  # (the highest rate of RATE_MEMORY, when it was measured)

    def _suspect(self) -> None:
        raise NotImplementedError

    async def _doubt_window(
        self, conn: AsyncConnection, last_time: int
    ) -> tuple[int | None, int | None]:
        """From the last whole read of the ring (every event up to its game time is in the
        record) to the latest game time the server could have reached: it ticked at most until
        the first read that failed after it (else until now), at the rate the bot measured
        (DOUBT_MIN_RATE at least, DOUBT_MARGIN more). (None, None): the ring was never read."""
        query = select(S.read_time, S.read_at, S.read_rate, S.lost_at).where(
            S.server == self.server
        )
        row = (await conn.execute(query)).first()
        if row is None or row[0] is None or row[1] is None:
            return None, None
        read_time, read_at, rate, lost_at = int(row[0]), float(row[1]), row[2], row[3]
        # the first read that did not end well (a server alive then would have answered it),
        # or the moment the bot lost sight of it; else now (this process saw nothing before)
        ends = [float(t) for t in (lost_at, self._lost_at) if t is not None]
        end = min(ends) if ends else self._clock()
        speed = max(float(rate or 0.0), DOUBT_MIN_RATE) * DOUBT_MARGIN
        until = read_time + math.ceil(max(end - read_at, 0.0) * speed)
        return read_time, max(until, last_time)

    # -- the ring-buffer source's reads (bot.events.storage_poll.PollWatch) ---------------------

    def lost_sight(self) -> None:
        """The bot may have lost sight of the server (an RCON reconnect, a failed read): rows
        made from now on until a read shows it whole may be of a new timeline, and the server
        may have stopped ticking since the read in flight began (else since now)."""
        if self._since_lost is None:
            self._since_lost = set()
        if self._lost_at is None:
            in_flight = self._in_flight and self._attempt_at is not None
            self._lost_at = self._attempt_at if in_flight else self._clock()

    def poll_started(self) -> None:
        """A read of the ring begins: its game time is read now."""
        self._attempt_at = self._clock()
        self._in_flight = True

    def regained(self) -> None:
        """The crash guard looked after the loss of sight and found no restart to repair: reads
        of the ring start the window again."""
        self._since_lost = self._lost_at = None

    def made_since_lost(self) -> frozenset[int]:
        return frozenset(self._since_lost or ())

    async def polled(self, game_time: int) -> None:
        """A whole read of the ring: its game time read first, then every event up to it went
        into the record. Kept (with the wall-clock time and the tick rate since the last one)
        as the start of the window of doubt. Not while the bot has lost sight of the server
        until the guard has looked (the server may have restarted: the window is the one
        before). A game time below what the bot saw is a restart not yet compared: the guard
        is asked to look."""
        self._in_flight = False
        lost = self._since_lost is not None
        now = self._attempt_at if self._attempt_at is not None else self._clock()

        async with self.db.begin() as conn:
            behind = await self._read_whole(conn, game_time, lost, now)
        if behind:
            self.lost_sight()
            self._suspect()

    async def _read_whole(
        self, conn: AsyncConnection, game_time: int, lost: bool, now: float
    ) -> bool:
        query = select(S.last_time, S.pending, S.read_time, S.read_at, S.read_rate).where(
            S.server == self.server
        )
        row = (await conn.execute(query)).first()
        if row is not None and row[1] is not None:
            return False  # a restore is pending: the window is the one before it
        last_time = -1 if row is None else int(row[0])
        read_time = None if row is None or row[2] is None else int(row[2])
        if game_time < max(last_time, read_time if read_time is not None else -1):
            await conn.execute(self._lost_from(now))
            return True
        if lost:
            return False  # the guard has not looked yet: the window is the one before
        rate = row[4] if row is not None else None
        if read_time is not None and row is not None and row[3] is not None:
            elapsed = now - float(row[3])
            if elapsed > 0:
                rate = self._kept_rate((game_time - read_time) / elapsed, now)
        insert = self.db.insert(ledger_servers).values(
            server=self.server,
            last_time=game_time,
            last_serial=0,
            read_time=game_time,
            read_at=now,
            read_rate=rate,
        )
        await conn.execute(
            insert.on_conflict_do_update(
                index_elements=[S.server],
                set_={
                    "last_time": greatest(S.last_time, insert.excluded.last_time),
                    "read_time": insert.excluded.read_time,
                    "read_at": insert.excluded.read_at,
                    "read_rate": insert.excluded.read_rate,
                    "lost_at": None,
                },
            )
        )
        return False

    def _lost_from(self, now: float) -> Update:
        """The first read that did not end well is kept (a later one says nothing new)."""
        return (
            update(ledger_servers)
            .where(S.server == self.server)
            .values(lost_at=func.coalesce(S.lost_at, now))
        )

    def _kept_rate(self, measured: float, now: float) -> float:
        """The rate the window is measured with: `measured`, or the highest of RATE_MEMORY
        seconds back when that is higher."""
        peak = self._peak
        if peak is not None and peak[0] > measured and now - peak[1] <= RATE_MEMORY:
            return peak[0]
        self._peak = (measured, now)
        return measured

    async def poll_failed(self) -> None:
        """A read of the ring failed: the server may have stopped ticking since the last one
        (the end of the window of doubt, kept from the first such failure); the guard looks
        once it answers again."""
        self._in_flight = False
        # when the failure was seen, not when the read began: a read is several commands, and
        # the server answered the first ones (it ticked on) before it died
        now = self._clock()
        if self._lost_at is None:
            self._lost_at = now
        self.lost_sight()
        lost = self._lost_from(now).where(S.pending.is_(None), S.read_time.is_not(None))
        async with self.db.begin() as conn:
            await conn.execute(lost)
        self._suspect()
