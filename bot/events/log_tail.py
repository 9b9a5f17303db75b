"""Follows a server's logs/latest.log and turns the pack's lines into Events.

Polling, not inotify: it works the same on every host and on network mounts. It follows the file
through rotation (latest.log renamed to YYYY-MM-DD-N.log, gzipped, a new latest.log created),
truncation, and a file that does not exist yet, and reads whole lines only (a half-written last
line waits for its newline).

Its place is a cursor (file identity, offset, a hash of the file's first bytes, last seq) kept in
the cursor store, so a restart of the bot neither replays nor loses events: if latest.log is the
same file it resumes at the offset; if the file was rolled while the bot was down, the rest of the
rolled archive is read first (found by the hash of its first bytes, since gzip keeps no inode),
then every archive rolled after it, then the new latest.log. Inode numbers alone are not trusted:
Linux reuses them as soon as the old file is deleted.

The files are read through a `LogFiles` (bot/events/log_files.py): the bot's own disk by default,
or the server's machine over SFTP (bot/minecraft/sftp_log.py), where a dropped connection is
waited out inside each read, so the tailer's place and order are the same either way.

Order: on Paper a `say` line is written after the chat text was styled on another thread, so
the lines of one function can reach the file late and out of order (../shared/notes/servers.md).
With `reorder_window` > 0 an event whose seq is not the next one is held until the missing seqs
arrive or it has waited that long, then events go out in seq order; while one is held the saved
cursor stays before its line, so a restart reads it again rather than losing it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
import zlib
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path, PurePath

from bot.aio import tell_hooks
from bot.events.event import (
    CursorStore,
    Event,
    SeqDedup,
    load_cursor,
    log_message,
    parse_log_line,
    save_cursor,
)
from bot.events.log_files import LiveFile, LocalLogFiles, LogFiles, archive_key

__all__ = ["LogTailer", "TailCursor"]

log = logging.getLogger(__name__)

_CHUNK = 1 << 20  # bytes read per step; a long log is consumed in steps, yielding between them
_HEAD = 4096  # bytes of a file's start that identify it
_MAX_ARCHIVES = 64  # newest archives searched for the file a cursor points into
_SAVE_EVERY = 5.0  # seconds between saves of progress that carried no event
_FIRST_LINE = 512  # bytes of a file's start that hold its first line
# The dedicated server's "started" line (MinecraftDedicatedServer.setupServer; RCON opens
# right after it): a server that logs it has just (re)started from its last save.
_STARTED = re.compile(r'^Done \(\d+(?:[.,]\d+)?s\)! For help, type "help"')
# The pack's #load holding its due tasks for the bot (datapack/README.md, Holding after a load):
# a start or a /reload, which the crash guard must look at before it releases the hold.
_HOLDING = re.compile(
    r"^(?:\[Not Secure\] )?\[(?:Server|Rcon)\] \[doom\.schedule\] holding due tasks "
)


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(slots=True)
class TailCursor:
    """Where the tailer is: which file (identity and first bytes), how far, and the last seq."""

    dev: int
    ino: int
    offset: int
    head: str  # hash of the file's first head_len bytes
    head_len: int
    seq: int
    saved_at: float = 0.0  # wall clock, to pick archives rolled since when the file is unknown

    def dumps(self) -> str:
        return json.dumps({"v": 1, **asdict(self)}, sort_keys=True)

    @classmethod
    def loads(cls, text: str | None) -> TailCursor | None:
        """The stored cursor, or None (with a warning) if it is missing or unreadable."""
        if not text:
            return None
        try:
            data = json.loads(text)
            return cls(
                dev=int(data["dev"]),
                ino=int(data["ino"]),
                offset=max(0, int(data["offset"])),
                head=str(data["head"]),
                head_len=max(0, int(data["head_len"])),
                seq=int(data["seq"]),
                saved_at=float(data.get("saved_at", 0.0)),
            )
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring an unreadable log cursor: %r", text[:200])
            return None


class _Source:
    """One file being read: the live latest.log (an open handle) or an archive (bytes)."""

    def __init__(
        self,
        ident: tuple[int, int],
        name: str,
        fh: LiveFile | None = None,
        data: bytes | None = None,
    ) -> None:
        self.ident = ident
        self.name = name
        self.fh = fh
        self.data = data
        self.offset = 0
        self.head = _hash(b"")
        self.head_len = 0
        self._identity: str | None = None

    async def identity(self) -> str:
        """The file's name for a line's place that outlives rolling and gzip: a hash of its
        first line (a log's first line carries its time), once that line is whole."""
        if self._identity is not None:
            return self._identity
        first = await self.read_at(0, _FIRST_LINE)
        cut = first.find(b"\n")
        if cut < 0:
            return _hash(first)
        self._identity = _hash(first[:cut])
        return self._identity

    async def read_at(self, offset: int, size: int) -> bytes:
        if self.data is not None:
            return self.data[offset : offset + size]
        assert self.fh is not None
        return await self.fh.read_at(offset, size)

    async def size(self) -> int:
        if self.data is not None:
            return len(self.data)
        assert self.fh is not None
        return await self.fh.size()

    async def update_head(self) -> None:
        """Re-hash the first bytes up to the offset (only while that is under _HEAD)."""
        want = min(self.offset, _HEAD)
        if want != self.head_len:
            self.head = _hash(await self.read_at(0, want))
            self.head_len = want

    async def head_changed(self) -> bool:
        """The file no longer starts with the bytes we read: truncated and written again."""
        if self.head_len == 0:
            return False
        return _hash(await self.read_at(0, self.head_len)) != self.head

    async def lines(self, *, final: bool) -> list[tuple[int, bytes]]:
        """Complete lines from the offset as (end offset, line); with final, a last line with no
        newline counts too (a rolled file will not grow)."""
        out: list[tuple[int, bytes]] = []
        data = await self.read_at(self.offset, _CHUNK)
        pos = 0
        while True:
            nl = data.find(b"\n", pos)
            if nl < 0:
                break
            out.append((self.offset + nl + 1, data[pos:nl]))
            pos = nl + 1
        if final and pos < len(data) and len(data) < _CHUNK:
            out.append((self.offset + len(data), data[pos:]))
        elif not out and len(data) == _CHUNK:
            # a single line longer than a chunk: no event is that long, skip it whole
            out.append((self.offset + len(data), b""))
        return out

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None


class LogTailer:
    """Async iterator of Events from one server's latest.log: `async for ev in t.events()`.

    Close the iterator (`contextlib.aclosing`, or leaving the `async for` normally) to save the
    cursor; an event handed out counts as delivered once the consumer asks for the next one or
    closes the iterator."""

    def __init__(
        self,
        path: PurePath,
        server: str,
        cursor_store: CursorStore | None,
        *,
        poll_interval: float = 0.5,
        cursor_key: str | None = None,
        dedup: SeqDedup | None = None,
        reorder_window: float = 0.0,
        files: LogFiles | None = None,
    ) -> None:
        self.files: LogFiles = files or LocalLogFiles()
        self.path: PurePath = Path(path) if files is None else path
        self.reorder_window = reorder_window
        # seq -> (event, offset of its line's start, monotonic arrival) while held for order
        self._pending: dict[int, tuple[Event, int, float]] = {}
        self.server = server
        self.poll_interval = poll_interval
        self.cursor_key = cursor_key or f"log:{server}"
        self._store = cursor_store
        self._dedup = dedup or SeqDedup()
        self._live: _Source | None = None
        self._backlog: list[_Source] = []
        self._seq = -1
        # the event handed out last (its line's start, the seq before it) until the consumer
        # asks for the next; `_refused` the same once the consumer said it did not take it
        self._out: tuple[Event, int, int] | None = None
        self._refused: tuple[Event, int, int] | None = None
        self._saved: str | None = None
        self._last_save = 0.0
        self._known: set[tuple[str, int]] = set()  # archives that existed or were read
        self._own: tuple[int, str] | None = None  # (size, head hash) of the file just drained
        self.lines_read = 0  # counters for tests and benchmarks
        # called for each start-up line read (bot.background.crash_guard listens)
        self.on_server_started: list[Callable[[], None]] = []
        # told each line that is no event: (message, place, read from a rolled archive)
        self.on_line: list[Callable[[str, str, bool], Awaitable[None]]] = []
        self._started = False  # a start-up line was read; the next event may rewind the count
        self._in_backlog = False
        self.rotations = 0
        self.end_passes = 0  # times the tailer found nothing new at the end of the live file
        self._end_pass = asyncio.Event()  # set (and replaced) at each of those
        # set once the start position is fixed: a caller that says "following" waits for it,
        # or lines written before the tailer placed itself at the end would be skipped unseen
        self.ready = asyncio.Event()

    # -- the iterator ------------------------------------------------------------------------

    async def events(self) -> AsyncGenerator[Event, None]:
        self._in_backlog = False  # a stream closed while in an archive left it set
        self._out = self._refused = None
        await self._resume()
        self.ready.set()
        current: _Source | None = None
        try:
            while True:
                if self._backlog:  # archives to read in full before the live file
                    current = self._backlog[0]
                    while current.offset < await current.size():
                        # a start line in an archive read again is no news of a restart: what
                        # follows it was counted before (and a repeat is dropped by seq)
                        self._in_backlog = True
                        batch = await current.lines(final=True)
                        async for ev in self._drain(current, batch):
                            yield ev
                        self._in_backlog = False
                        await asyncio.sleep(0)
                    async for ev in self._release(current, final=True):
                        yield ev  # nothing of this file can arrive later
                    self._backlog.pop(0)
                    await self._save(current, force=True)
                    continue
                current = self._live
                if current is None:
                    current = await self._open_live(from_end=False)
                    # Files rolled since the last look were never open here (several rolls
                    # between two polls): their archives come first. Listed after the open,
                    # so nothing rolled in between is missed; a repeat is dropped by seq.
                    self._backlog = await self._new_archives(self._own)
                    self._own = None
                    if self._backlog:
                        log.info(
                            "%s was rolled %d more time(s) since the last look; reading the "
                            "archives first",
                            self.path,
                            len(self._backlog),
                        )
                        continue
                if current is None:
                    await asyncio.sleep(self.poll_interval)
                    continue
                assert current.fh is not None  # the live file is an open one
                rolled = await self.files.rolled(self.path, current.fh)
                if (
                    not rolled and await current.size() < current.offset
                ) or await current.head_changed():
                    log.info("%s was truncated; reading it from the start", self.path)
                    current.offset = 0
                    await current.update_head()
                batch = await current.lines(final=rolled)
                async for ev in self._drain(current, batch):
                    yield ev
                if batch:
                    await asyncio.sleep(0)
                    continue  # more may be waiting: read on before sleeping
                if rolled:
                    async for ev in self._release(current, final=True):
                        yield ev
                    self.rotations += 1
                    self._own = (current.offset, _hash(await current.read_at(0, _HEAD)))
                    log.info("%s was rolled; following the new file", self.path)
                    current.close()
                    self._live = None
                    continue
                async for ev in self._release(current, final=False):
                    yield ev  # held events whose wait is over
                if not self._pending and not self._backlog:
                    self.end_passes += 1  # every event read so far was taken by the consumer
                    passed, self._end_pass = self._end_pass, asyncio.Event()
                    passed.set()
                await self._save(current, force=False)
                wait = self.poll_interval
                if self._pending:
                    wait = min(wait, max(self.reorder_window / 4, 0.01))
                await asyncio.sleep(wait)
        finally:
            if current is not None:
                await self._save(current, force=True)
            for src in [*self._backlog, self._live]:
                if src is not None:
                    src.close()
            self._backlog.clear()
            self._live = None

    async def _drain(
        self, src: _Source, batch: list[tuple[int, bytes]]
    ) -> AsyncGenerator[Event, None]:
        """The events of whole lines read from `src`; its place is saved after each one handed out
        (once the consumer asks for the next, so an event counts as delivered only then)."""
        for end, raw in batch:
            start = src.offset
            src.offset = end
            await src.update_head()
            ev = self._parse(raw)
            if ev is None:
                if self.on_line:
                    await self._tell_line(src, raw, start)
                continue
            if self.reorder_window <= 0:
                async for out in self._hand_out(src, ev, start):
                    yield out
                continue
            self._pending[ev.seq] = (ev, start, time.monotonic())
            async for out in self._release(src, final=False):
                yield out

    async def _release(self, src: _Source, *, final: bool) -> AsyncGenerator[Event, None]:
        """Held events that may go now, lowest seq first: the next seq, anything at or below one
        that waited `reorder_window`, or everything (`final`: the file will not grow)."""
        while self._pending:
            now = time.monotonic()
            low = min(self._pending)
            expired = max(
                (s for s, (_, _, at) in self._pending.items() if now - at >= self.reorder_window),
                default=-1,
            )
            # With no known place (a first start at the end of the file) the first event starts
            # the count; a lower seq arriving after it is still delivered (late, not lost).
            if not (final or self._seq < 0 or low <= self._seq + 1 or low <= expired):
                return
            ev, start, _ = self._pending.pop(low)
            if 0 <= self._seq < low - 1 and not final:
                log.info("%s: seq %d..%d did not arrive in time", self.path, self._seq + 1, low - 1)
            async for out in self._hand_out(src, ev, start):
                yield out

    async def _hand_out(self, src: _Source, ev: Event, start: int) -> AsyncGenerator[Event, None]:
        """Yield `ev` (its line starting at `start`); the place moves past it once the consumer
        asks for the next. A consumer that stops before it recorded the event says so
        (`not_taken`): the place saved as the stream closes stays before its line."""
        before = self._seq
        self._seq = max(self._seq, ev.seq)
        self._out = (ev, start, before)
        yield ev
        self._out = self._refused = None
        await self._save(src, force=True)

    def not_taken(self, event: Event) -> None:
        """The consumer could not record the event just handed out (and stops): the place
        stays before its line, so the next stream reads it again."""
        if self._out is not None and self._out[0] is event:
            self._refused = self._out
            self._dedup.forget(event)

    async def caught_up(self) -> None:
        """Wait until every line latest.log had when this was called has been read and its
        events taken by the consumer: two passes that found nothing new (the second one read
        the file after the call). Never returns while nobody reads the stream: bound it."""
        for _ in range(2):
            await self._end_pass.wait()

    # -- reading -----------------------------------------------------------------------------

    async def _tell_line(self, src: _Source, raw: bytes, start: int) -> None:
        """Hand a line that is no event to the `on_line` hooks (the triggers), awaited here so
        the saved place never passes a line they have not taken."""
        message = log_message(raw.rstrip(b"\r").decode("utf-8", errors="replace"))
        if message is None:
            return
        place = f"{await src.identity()}:{start}"
        await tell_hooks(
            self.on_line, message, place, self._in_backlog, what=f"{self.server}: a line hook"
        )

    def _parse(self, raw: bytes) -> Event | None:
        self.lines_read += 1
        line = raw.rstrip(b"\r").decode("utf-8", errors="replace")
        ev = parse_log_line(self.server, line)
        if ev is None and "Done (" in line:
            message = log_message(line)
            if message is not None and _STARTED.match(message):
                self._started = not self._in_backlog
                for listener in self.on_server_started:
                    listener()
        elif ev is None and "holding due tasks" in line and not self._in_backlog:
            message = log_message(line)
            if message is not None and _HOLDING.match(message):
                for listener in self.on_server_started:
                    listener()
        if ev is None:
            return None
        if self._started:
            self._started = False
            self._after_start(ev)
        if not self._dedup.is_new(ev):
            return None
        return ev

    def _after_start(self, ev: Event) -> None:
        """The first event after the server logged its start: a crash brought the pack back
        from its last save, so its event counter may have gone back, and seqs already delivered
        before the crash are new events now (they would be dropped as repeats until the counter
        passed its old height)."""
        highest = max(self._dedup.highest(self.server), self._seq)
        if ev.seq <= highest:
            log.warning(
                "%s: the pack's events start again at seq %d after the server's start (%d had "
                "been read): the server came back from an older save",
                self.server,
                ev.seq,
                highest,
            )
            self._dedup.rewind(self.server, ev.seq - 1)
            self._seq = ev.seq - 1

    async def _open_live(self, *, from_end: bool) -> _Source | None:
        fh = await self.files.open(self.path)
        if fh is None:
            return None
        src = _Source(fh.ident, fh.name, fh=fh)
        if from_end:
            # start after the last complete line: a half-written one is read when it ends
            size = await fh.size()
            tail_start = max(0, size - _CHUNK)
            tail = await src.read_at(tail_start, size - tail_start)
            nl = tail.rfind(b"\n")
            src.offset = tail_start + nl + 1 if nl >= 0 else tail_start
        await src.update_head()
        self._live = src
        log.debug("opened %s at offset %d", src.name, src.offset)
        return src

    # -- the cursor --------------------------------------------------------------------------

    async def _save(self, src: _Source, *, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self._last_save < _SAVE_EVERY:
            return
        # A held event's line must be read again after a restart: stay before it.
        held = [start for _, start, _ in self._pending.values()]
        seq = max(self._seq, self._dedup.floor(self.server))
        if self._refused is not None:  # and the one the consumer did not take
            held.append(self._refused[1])
            seq = self._refused[2]
        cursor = TailCursor(
            dev=src.ident[0],
            ino=src.ident[1],
            offset=min([src.offset, *held]),
            head=src.head,
            head_len=src.head_len,
            seq=seq,
        )
        key = cursor.dumps()
        if key != self._saved:
            cursor.saved_at = time.time()
            await save_cursor(self._store, self.cursor_key, cursor.dumps())
            self._saved = key
        self._last_save = now

    async def _resume(self) -> None:
        """Find where the last run stopped: the live file, a rolled archive, or nowhere."""
        cursor = TailCursor.loads(await load_cursor(self._store, self.cursor_key))
        # before the live file is opened, so a file rolled after this is seen as new
        self._known = {key for key, _ in await self.files.list_archives(self.path.parent)}
        if cursor is None:
            if await self._open_live(from_end=True) is not None:
                log.info("no saved place for %s; starting at its end", self.path)
            return
        self._seq = cursor.seq
        self._dedup.set_floor(self.server, cursor.seq)
        live = await self._open_live(from_end=False)
        if cursor.head_len == 0:
            # The file was empty: nothing identifies it (its inode may be reused by now). Any
            # archive rolled since may hold its lines; repeats are dropped by seq.
            self._backlog = await self._archives_rolled_after(cursor.saved_at)
            return
        if live is not None and await self._same_file(live, cursor):
            live.offset = cursor.offset
            await live.update_head()
            return
        if live is not None:
            live.offset = 0
            await live.update_head()
        archives = await self._archives_since(cursor)
        if archives is None:
            archives = await self._archives_rolled_after(cursor.saved_at)
            log.warning(
                "could not find the file %s was at when the bot stopped; reading the %d "
                "archive(s) rolled since then and the current latest.log in full (seq dedup "
                "drops what was already delivered)",
                self.path,
                len(archives),
            )
        self._backlog = archives
        log.debug("resuming with archives %s", [a.name for a in archives])
        if archives:
            log.info(
                "%s was rolled while the bot was down; reading %d archive(s) first",
                self.path,
                len(archives),
            )

    async def _same_file(self, live: _Source, cursor: TailCursor) -> bool:
        if await live.size() < cursor.offset:
            return False
        return _hash(await live.read_at(0, cursor.head_len)) == cursor.head

    async def _archives_since(self, cursor: TailCursor) -> list[_Source] | None:
        """The archive the cursor points into (read from its offset) and every later one."""
        found = [path for _, path in await self.files.list_archives(self.path.parent)]
        for index in range(len(found) - 1, max(-1, len(found) - 1 - _MAX_ARCHIVES), -1):
            if cursor.head_len == 0:
                break  # nothing identifies an empty file among archives
            try:
                head = await self.files.read_archive(found[index], cursor.head_len)
            except (OSError, EOFError, zlib.error) as exc:
                log.warning("cannot read archive %s: %s", found[index], exc)
                continue
            if _hash(head) != cursor.head:
                continue
            out: list[_Source] = []
            self._known.update(archive_key(path) for path in found)
            for pos, path in enumerate(found[index:]):
                try:
                    data = await self.files.read_archive(path, None)
                except (OSError, EOFError, zlib.error) as exc:
                    log.warning("cannot read archive %s: %s", path, exc)
                    continue
                ident = (cursor.dev, cursor.ino) if pos == 0 else (0, 0)
                src = _Source(ident, path.name, data=data)
                src.offset = min(cursor.offset, len(data)) if pos == 0 else 0
                await src.update_head()
                out.append(src)
            return out
        return None

    async def _new_archives(self, drained: tuple[int, str] | None) -> list[_Source]:
        """Archives rolled since the last look, minus the one holding the file just drained."""
        found = await self.files.list_archives(self.path.parent)
        fresh = [(key, path) for key, path in found if key not in self._known]
        self._known.update(key for key, _ in found)
        out: list[_Source] = []
        skipped_own = False
        for _, path in fresh:
            try:
                data = await self.files.read_archive(path, None)
            except (OSError, EOFError, zlib.error) as exc:
                log.warning("cannot read archive %s: %s", path, exc)
                continue
            if not skipped_own and (len(data), _hash(data[:_HEAD])) == drained:
                skipped_own = True
                continue
            out.append(_Source((0, 0), path.name, data=data))
        return out

    async def _archives_rolled_after(self, saved_at: float) -> list[_Source]:
        out: list[_Source] = []
        for key, path in await self.files.list_archives(self.path.parent):
            self._known.add(key)
            try:
                # a 2 s margin for coarse file-system clocks; dedup drops any repeat
                if await self.files.archive_mtime(path) < saved_at - 2.0:
                    continue
                data = await self.files.read_archive(path, None)
                out.append(_Source((0, 0), path.name, data=data))
            except (OSError, EOFError, zlib.error) as exc:
                log.warning("cannot read archive %s: %s", path, exc)
        return out
