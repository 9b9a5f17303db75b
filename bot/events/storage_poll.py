"""Reads the pack's events ring buffer over RCON, for servers whose log the bot cannot read.

Each poll asks the pack client for the events after the last seq delivered; the seq is kept in
the cursor store, so a restart neither replays nor loses (as long as the ring buffer did not
wrap while the bot was away: a gap in seqs is reported). Every RCON command is echoed to online
operators and into the log while `broadcast-rcon-to-ops` is true (the default), so the poller
says so once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Protocol

from bot.errors import BotError
from bot.events.event import CursorStore, Event, SeqDedup, load_cursor, save_cursor

__all__ = ["EventsReader", "StoragePoller"]

log = logging.getLogger(__name__)

_MAX_BACKOFF = 60.0


class EventsReader(Protocol):
    """What the poller needs from bot.minecraft.pack_client.PackClient."""

    async def events_after(self, seq: int) -> list[Event]: ...

    async def get_time(self) -> int: ...


class PollWatch(Protocol):
    """Told of each read of the ring (bot.store.ledger.Ledger): what the crash guard measures
    the window of doubt with, when the server stops before its last events were read."""

    def poll_started(self) -> None:
        """A read begins (its game time is read first)."""

    async def polled(self, game_time: int) -> None:
        """Every event up to `game_time` (read before the ring) was handed out and taken."""

    async def poll_failed(self) -> None:
        """A read failed: the server may have stopped."""


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class StoragePoller:
    """Async iterator of Events read from the ring buffer: `async for ev in p.events()`."""

    def __init__(
        self,
        pack_client: EventsReader,
        server: str | _Named,
        cursor_store: CursorStore | None,
        *,
        poll_interval: float = 2.0,
        broadcast_rcon_to_ops: bool | None = None,
        cursor_key: str | None = None,
        dedup: SeqDedup | None = None,
    ) -> None:
        self.pack = pack_client
        self.server = server if isinstance(server, str) else server.name
        self.poll_interval = poll_interval
        self.broadcast_rcon_to_ops = broadcast_rcon_to_ops
        self.cursor_key = cursor_key or f"rcon:{self.server}"
        self._store = cursor_store
        self._dedup = dedup or SeqDedup()
        self._warned_broadcast = False
        self._last = -1
        self.polls = 0
        self.missed = 0  # events the ring buffer dropped before they were read
        self.ready = asyncio.Event()  # set once the start seq is known (see LogTailer.ready)
        self.watch: PollWatch | None = None  # the ledger, when a crash guard watches the server
        self._wake = asyncio.Event()  # caught_up: poll now
        self._polled = asyncio.Event()  # set (and replaced) after each whole poll
        self._refused: Event | None = None  # see not_taken

    def warn_broadcast(self) -> bool:
        """Log once that polling spams operators; True if a warning was logged."""
        if self._warned_broadcast or self.broadcast_rcon_to_ops is False:
            return False
        self._warned_broadcast = True
        if self.broadcast_rcon_to_ops:
            log.warning(
                "server %s has broadcast-rcon-to-ops=true: every event poll (one every %.1f s) "
                "is echoed to online operators and into the log; set it to false in "
                "server.properties",
                self.server,
                self.poll_interval,
            )
        else:
            log.warning(
                "could not read broadcast-rcon-to-ops of server %s (vanilla's default is true): "
                "if it is on, every event poll is echoed to online operators; set it to false "
                "in server.properties",
                self.server,
            )
        return True

    def not_taken(self, event: Event) -> None:
        """The consumer could not record the event just handed out (and stops): the cursor
        stays before it, so the next stream reads it again."""
        self._refused = event

    async def caught_up(self) -> None:
        """Wait for a whole poll that began after this call (the crash guard, before it compares
        the pack with its record: the ring of a server that came back may hold events the bot
        had not read, of runs before its save)."""
        polled = self._polled
        self._wake.set()
        await polled.wait()

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._wake.wait()
        self._wake.clear()

    def _done_poll(self) -> None:
        done, self._polled = self._polled, asyncio.Event()
        done.set()

    async def events(self) -> AsyncGenerator[Event, None]:
        self.warn_broadcast()
        self._last = await self._load()
        if self._last >= 0:
            self.ready.set()  # a saved place; without one, the first poll fixes it (_poll)
        try:
            async with aclosing(self._poll(self._last)) as polled:
                async for ev in polled:
                    yield ev
        finally:
            if self._last >= 0:
                await self._save(self._last)

    async def _poll(self, last: int) -> AsyncGenerator[Event, None]:
        self._dedup.set_floor(self.server, last)
        backoff = self.poll_interval
        failing = False
        while True:
            try:
                # the game time first: every event up to it is in the ring read after it
                game_time = None
                if self.watch is not None:
                    self.watch.poll_started()
                    game_time = await self.pack.get_time()
                batch = await self.pack.events_after(max(last, 0))
            except BotError as exc:
                if not failing:
                    log.warning("polling events of %s failed: %s; retrying", self.server, exc)
                    if self.watch is not None:
                        await self.watch.poll_failed()
                failing = True
                self._done_poll()  # a caught_up() waits for no server that does not answer
                await self._sleep(backoff)
                backoff = min(backoff * 2, _MAX_BACKOFF)
                continue
            if failing:
                log.info("polling events of %s works again", self.server)
            failing = False
            backoff = self.poll_interval
            self.polls += 1
            if last < 0:
                # first run: start after what is already there, as the log tailer does
                last = max((ev.seq for ev in batch), default=0)
                self._last = last
                await self._save(last)
                log.info(
                    "no saved place for events of %s; starting after seq %d", self.server, last
                )
                self.ready.set()
                await self._finish_poll(game_time)
                continue
            # PackClient.last_event_seq: the counter events_after read (readers without it: None)
            newest = getattr(self.pack, "last_event_seq", None)
            if newest is not None and 0 <= newest < last:
                # the server restarted from a save older than what was read: its counter went
                # back, and from here on its seqs are new events (which of those up to `newest`
                # came after the restart cannot be told: they are skipped, and said to be)
                log.warning(
                    "the event counter of %s went back from %d to %d (the server came back from "
                    "an older save); events from seq %d on are delivered, up to %d made since "
                    "its restart may be missed",
                    self.server,
                    last,
                    newest,
                    newest + 1,
                    newest,
                )
                self._dedup.rewind(self.server, newest)
                last = newest
                self._last = last
                await self._save(last)
            for ev in sorted(batch, key=lambda e: e.seq):
                if ev.seq <= last or not self._dedup.is_new(ev):
                    continue
                if ev.seq > last + 1:
                    self.missed += ev.seq - last - 1
                    log.warning(
                        "events %d..%d of %s were dropped by the ring buffer before they "
                        "were read (poll more often, or let the bot read the log)",
                        last + 1,
                        ev.seq - 1,
                        self.server,
                    )
                self._refused = None
                try:
                    yield ev
                except GeneratorExit:
                    if self._refused is ev:  # read again from the cursor, still before it
                        self._dedup.forget(ev)
                    else:  # the consumer stopped after taking it
                        self._last = ev.seq
                    raise
                # taken: the consumer (bot.events.guarded) recorded it before asking for more
                last = ev.seq
                self._last = last
                await self._save(last)
            await self._finish_poll(game_time)

    async def _finish_poll(self, game_time: int | None) -> None:
        if self.watch is not None and game_time is not None:
            await self.watch.polled(game_time)
        self._done_poll()
        await self._sleep(self.poll_interval)

    async def _load(self) -> int:
        text = await load_cursor(self._store, self.cursor_key)
        if text is None:
            return -1
        try:
            return int(text)
        except ValueError:
            log.warning("ignoring an unreadable event cursor %r", text[:100])
            return -1

    async def _save(self, seq: int) -> None:
        await save_cursor(self._store, self.cursor_key, str(seq))
