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

Order: on Paper a `say` line is written after the chat text was styled on another thread, so
the lines of one function can reach the file late and out of order (../shared/notes/servers.md).
With `reorder_window` > 0 an event whose seq is not the next one is held until the missing seqs
arrive or it has waited that long, then events go out in seq order; while one is held the saved
cursor stays before its line, so a restart reads it again rather than losing it.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import logging
import os
import re
import time
import zlib
from collections.abc import AsyncGenerator, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

from bot.events.event import (
    CursorStore,
    Event,
    SeqDedup,
    load_cursor,
    log_message,
    parse_log_line,
    save_cursor,
)

__all__ = ["LogTailer", "TailCursor"]

log = logging.getLogger(__name__)

_CHUNK = 1 << 20  # bytes read per step; a long log is consumed in steps, yielding between them
_HEAD = 4096  # bytes of a file's start that identify it
_ARCHIVE = re.compile(r"(\d{4}-\d{2}-\d{2})-(\d+)\.log(\.gz)?")
_MAX_ARCHIVES = 64  # newest archives searched for the file a cursor points into
_SAVE_EVERY = 5.0  # seconds between saves of progress that carried no event
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
        fh: BinaryIO | None = None,
        data: bytes | None = None,
    ) -> None:
        self.ident = ident
        self.name = name
        self.fh = fh
        self.data = data
        self.offset = 0
        self.head = _hash(b"")
        self.head_len = 0

    def read_at(self, offset: int, size: int) -> bytes:
        if self.data is not None:
            return self.data[offset : offset + size]
        assert self.fh is not None
        self.fh.seek(offset)
        return self.fh.read(size)

    def size(self) -> int:
        if self.data is not None:
            return len(self.data)
        assert self.fh is not None
        return os.fstat(self.fh.fileno()).st_size

    def update_head(self) -> None:
        """Re-hash the first bytes up to the offset (only while that is under _HEAD)."""
        want = min(self.offset, _HEAD)
        if want != self.head_len:
            self.head = _hash(self.read_at(0, want))
            self.head_len = want

    def head_changed(self) -> bool:
        """The file no longer starts with the bytes we read: truncated and written again."""
        if self.head_len == 0:
            return False
        return _hash(self.read_at(0, self.head_len)) != self.head

    def lines(self, *, final: bool) -> list[tuple[int, bytes]]:
        """Complete lines from the offset as (end offset, line); with final, a last line with no
        newline counts too (a rolled file will not grow)."""
        out: list[tuple[int, bytes]] = []
        data = self.read_at(self.offset, _CHUNK)
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
        path: Path,
        server: str,
        cursor_store: CursorStore | None,
        *,
        poll_interval: float = 0.5,
        cursor_key: str | None = None,
        dedup: SeqDedup | None = None,
        reorder_window: float = 0.0,
    ) -> None:
        self.path = Path(path)
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
        self._saved: str | None = None
        self._last_save = 0.0
        self._known: set[tuple[str, int]] = set()  # archives that existed or were read
        self._own: tuple[int, str] | None = None  # (size, head hash) of the file just drained
        self.lines_read = 0  # counters for tests and benchmarks
        # called for each start-up line read (bot.background.crash_guard listens)
        self.on_server_started: list[Callable[[], None]] = []
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
        await self._resume()
        self.ready.set()
        current: _Source | None = None
        try:
            while True:
                if self._backlog:  # archives to read in full before the live file
                    current = self._backlog[0]
                    while current.offset < current.size():
                        # a start line in an archive read again is no news of a restart: what
                        # follows it was counted before (and a repeat is dropped by seq)
                        self._in_backlog = True
                        async for ev in self._drain(current, current.lines(final=True)):
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
                    current = self._open_live(from_end=False)
                    # Files rolled since the last look were never open here (several rolls
                    # between two polls): their archives come first. Listed after the open,
                    # so nothing rolled in between is missed; a repeat is dropped by seq.
                    self._backlog = await asyncio.to_thread(self._new_archives, self._own)
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
                rolled = self._rolled(current)
                if (not rolled and current.size() < current.offset) or current.head_changed():
                    log.info("%s was truncated; reading it from the start", self.path)
                    current.offset = 0
                    current.update_head()
                batch = current.lines(final=rolled)
                async for ev in self._drain(current, batch):
                    yield ev
                if batch:
                    await asyncio.sleep(0)
                    continue  # more may be waiting: read on before sleeping
                if rolled:
                    async for ev in self._release(current, final=True):
                        yield ev
                    self.rotations += 1
                    self._own = (current.offset, _hash(current.read_at(0, _HEAD)))
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
            src.update_head()
            ev = self._parse(raw)
            if ev is None:
                continue
            if self.reorder_window <= 0:
                self._seq = max(self._seq, ev.seq)
                yield ev
                await self._save(src, force=True)
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
            ev, _, _ = self._pending.pop(low)
            if 0 <= self._seq < low - 1 and not final:
                log.info("%s: seq %d..%d did not arrive in time", self.path, self._seq + 1, low - 1)
            self._seq = max(self._seq, low)
            yield ev
            await self._save(src, force=True)

    async def caught_up(self) -> None:
        """Wait until every line latest.log had when this was called has been read and its
        events taken by the consumer: two passes that found nothing new (the second one read
        the file after the call). Never returns while nobody reads the stream: bound it."""
        for _ in range(2):
            await self._end_pass.wait()

    # -- reading -----------------------------------------------------------------------------

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

    def _open_live(self, *, from_end: bool) -> _Source | None:
        try:
            fh = self.path.open("rb")
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("cannot read %s: %s", self.path, exc)
            return None
        st = os.fstat(fh.fileno())
        src = _Source((st.st_dev, st.st_ino), f"{self.path.name}#{st.st_ino}", fh=fh)
        if from_end:
            # start after the last complete line: a half-written one is read when it ends
            tail_start = max(0, st.st_size - _CHUNK)
            tail = src.read_at(tail_start, st.st_size - tail_start)
            nl = tail.rfind(b"\n")
            src.offset = tail_start + nl + 1 if nl >= 0 else tail_start
        src.update_head()
        self._live = src
        log.debug("opened %s at offset %d", src.name, src.offset)
        return src

    def _rolled(self, src: _Source) -> bool:
        """latest.log now names another file, or none: the open one will not grow any more."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return (st.st_dev, st.st_ino) != src.ident

    # -- the cursor --------------------------------------------------------------------------

    async def _save(self, src: _Source, *, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self._last_save < _SAVE_EVERY:
            return
        # A held event's line must be read again after a restart: stay before it.
        held = [start for _, start, _ in self._pending.values()]
        cursor = TailCursor(
            dev=src.ident[0],
            ino=src.ident[1],
            offset=min([src.offset, *held]),
            head=src.head,
            head_len=src.head_len,
            seq=max(self._seq, self._dedup.floor(self.server)),
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
        self._known = {key for key, _ in _list_archives(self.path.parent)}
        if cursor is None:
            if self._open_live(from_end=True) is not None:
                log.info("no saved place for %s; starting at its end", self.path)
            return
        self._seq = cursor.seq
        self._dedup.set_floor(self.server, cursor.seq)
        live = self._open_live(from_end=False)
        if cursor.head_len == 0:
            # The file was empty: nothing identifies it (its inode may be reused by now). Any
            # archive rolled since may hold its lines; repeats are dropped by seq.
            self._backlog = await asyncio.to_thread(self._archives_rolled_after, cursor.saved_at)
            return
        if live is not None and self._same_file(live, cursor):
            live.offset = cursor.offset
            live.update_head()
            return
        if live is not None:
            live.offset = 0
            live.update_head()
        archives = await asyncio.to_thread(self._archives_since, cursor)
        if archives is None:
            archives = await asyncio.to_thread(self._archives_rolled_after, cursor.saved_at)
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

    def _same_file(self, live: _Source, cursor: TailCursor) -> bool:
        if live.size() < cursor.offset:
            return False
        return _hash(live.read_at(0, cursor.head_len)) == cursor.head

    def _archives_since(self, cursor: TailCursor) -> list[_Source] | None:
        """The archive the cursor points into (read from its offset) and every later one."""
        found = [path for _, path in _list_archives(self.path.parent)]
        for index in range(len(found) - 1, max(-1, len(found) - 1 - _MAX_ARCHIVES), -1):
            if cursor.head_len == 0:
                break  # nothing identifies an empty file among archives
            try:
                head = _read_archive(found[index], cursor.head_len)
            except (OSError, EOFError, zlib.error) as exc:
                log.warning("cannot read archive %s: %s", found[index], exc)
                continue
            if _hash(head) != cursor.head:
                continue
            out: list[_Source] = []
            self._known.update(_archive_key(path) for path in found)
            for pos, path in enumerate(found[index:]):
                try:
                    data = _read_archive(path, None)
                except (OSError, EOFError, zlib.error) as exc:
                    log.warning("cannot read archive %s: %s", path, exc)
                    continue
                ident = (cursor.dev, cursor.ino) if pos == 0 else (0, 0)
                src = _Source(ident, path.name, data=data)
                src.offset = min(cursor.offset, len(data)) if pos == 0 else 0
                src.update_head()
                out.append(src)
            return out
        return None

    def _new_archives(self, drained: tuple[int, str] | None) -> list[_Source]:
        """Archives rolled since the last look, minus the one holding the file just drained."""
        found = _list_archives(self.path.parent)
        fresh = [(key, path) for key, path in found if key not in self._known]
        self._known.update(key for key, _ in found)
        out: list[_Source] = []
        skipped_own = False
        for _, path in fresh:
            try:
                data = _read_archive(path, None)
            except (OSError, EOFError, zlib.error) as exc:
                log.warning("cannot read archive %s: %s", path, exc)
                continue
            if not skipped_own and (len(data), _hash(data[:_HEAD])) == drained:
                skipped_own = True
                continue
            out.append(_Source((0, 0), path.name, data=data))
        return out

    def _archives_rolled_after(self, saved_at: float) -> list[_Source]:
        out: list[_Source] = []
        for key, path in _list_archives(self.path.parent):
            self._known.add(key)
            try:
                # a 2 s margin for coarse file-system clocks; dedup drops any repeat
                if _archive_mtime(path) < saved_at - 2.0:
                    continue
                out.append(_Source((0, 0), path.name, data=_read_archive(path, None)))
            except (OSError, EOFError, zlib.error) as exc:
                log.warning("cannot read archive %s: %s", path, exc)
        return out


def _list_archives(logs_dir: Path) -> list[tuple[tuple[str, int], Path]]:
    """Rolled logs oldest first; a `.log` still being gzipped wins over its partial `.gz`."""
    by_key: dict[tuple[str, int], Path] = {}
    try:
        entries = list(logs_dir.iterdir())
    except OSError:
        return []
    for path in entries:
        match = _ARCHIVE.fullmatch(path.name)
        if match is None:
            continue
        key = _archive_key(path)
        if key not in by_key or match.group(3) is None:
            by_key[key] = path
    return [(k, by_key[k]) for k in sorted(by_key)]


def _archive_key(path: Path) -> tuple[str, int]:
    match = _ARCHIVE.fullmatch(path.name)
    assert match is not None  # only listed archives get here
    return (match.group(1), int(match.group(2)))


def _archive_mtime(path: Path) -> float:
    """Like _read_archive, a `.log` gzipped and removed since the listing is found as its `.gz`."""
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        if path.suffix == ".gz":
            raise
        return path.with_name(path.name + ".gz").stat().st_mtime


def _read_archive(path: Path, size: int | None) -> bytes:
    if path.suffix != ".gz":
        try:
            with path.open("rb") as fh:
                return fh.read() if size is None else fh.read(size)
        except FileNotFoundError:
            # gzipped and removed since the listing: the finished .gz holds the same bytes
            path = path.with_name(path.name + ".gz")
    with gzip.open(path, "rb") as gz:
        return gz.read() if size is None else gz.read(size)
