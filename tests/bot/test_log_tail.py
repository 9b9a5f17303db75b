"""LogTailer against a latest.log that mcsim's ServerLog writes and rolls.

Every wait is bounded (asyncio.wait_for); nothing asserts how long anything took."""

from __future__ import annotations

import asyncio
import json
import os
import random
import threading
import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path

import pytest

from bot.events.event import Event
from bot.events.log_tail import LogTailer, TailCursor
from mcsim.log import ServerLog

POLL = 0.005
WAIT = 10.0


class MemStore:
    """The cursor half of the audit store, in memory."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.writes = 0

    def get_cursor(self, key: str) -> str | None:
        return self.values.get(key)

    def set_cursor(self, key: str, value: str) -> None:
        self.values[key] = value
        self.writes += 1


def say(slog: ServerLog, seq: int) -> None:
    slog.info(f"[Not Secure] [Server] [doom.schedule] event=retry id=t{seq} seq={seq} t={seq * 20}")


def line(seq: int) -> str:
    return (
        f"[10:00:00] [Server thread/INFO]: [Not Secure] [Server] [doom.schedule] "
        f"event=retry id=t{seq} seq={seq} t={seq}\n"
    )


def archives(logs: Path) -> int:
    return len(list(logs.glob("*.log.gz")))


def tailer(path: Path, store: MemStore) -> LogTailer:
    return LogTailer(path, "survival", store, poll_interval=POLL)


async def take(it: AsyncIterator[Event], n: int) -> list[int]:
    return [(await asyncio.wait_for(anext(it), WAIT)).seq for _ in range(n)]


async def nothing_more(t: LogTailer, it: AsyncIterator[Event]) -> None:
    """Give the tailer several polls; it must not produce an event."""
    task = asyncio.ensure_future(anext(it))
    before = t.lines_read
    for _ in range(200):
        await asyncio.sleep(POLL)
        if task.done():
            break
    assert not task.done(), f"unexpected event {task.result()}"
    assert t.lines_read >= before
    task.cancel()
    with pytest.raises((asyncio.CancelledError, StopAsyncIteration)):
        await task


async def test_follows_lines_and_waits_for_a_whole_line(tmp_path: Path) -> None:
    path = tmp_path / "latest.log"
    path.write_text("[10:00:00] [Server thread/INFO]: Done (1.0s)!\n")
    t = tailer(path, MemStore())
    async with aclosing(t.events()) as it:
        first = asyncio.ensure_future(anext(it))
        await asyncio.sleep(POLL * 4)  # the tailer starts at the end of what is there
        with path.open("a") as fh:
            fh.write(line(1))
            fh.flush()
            fh.write(line(2)[:30])  # half a line: must not be read yet
            fh.flush()
        assert (await asyncio.wait_for(first, WAIT)).seq == 1
        second = asyncio.ensure_future(anext(it))
        await asyncio.sleep(POLL * 20)
        assert not second.done()
        with path.open("a") as fh:
            fh.write(line(2)[30:])
        ev = await asyncio.wait_for(second, WAIT)
        assert (ev.seq, ev.task_id, ev.server) == (2, "t2", "survival")


async def test_file_that_does_not_exist_yet(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    t = tailer(logs / "latest.log", MemStore())
    async with aclosing(t.events()) as it:
        pending = asyncio.ensure_future(take(it, 3))
        await asyncio.sleep(POLL * 4)
        with ServerLog(logs) as slog:
            for seq in (1, 2, 3):
                say(slog, seq)
            assert await asyncio.wait_for(pending, WAIT) == [1, 2, 3]


async def test_both_timestamp_formats(tmp_path: Path) -> None:
    for stamp in ("time", "datetime"):
        logs = tmp_path / stamp
        with ServerLog(logs, timestamp=stamp) as slog:  # type: ignore[arg-type]
            t = tailer(slog.path, MemStore())
            async with aclosing(t.events()) as it:
                pending = asyncio.ensure_future(take(it, 2))
                await asyncio.sleep(POLL * 4)
                say(slog, 7)
                slog.info("Saving the game (this may take a moment!)")
                say(slog, 8)
                assert await asyncio.wait_for(pending, WAIT) == [7, 8]


async def test_rotation_while_running(tmp_path: Path) -> None:
    with ServerLog(tmp_path) as slog:
        t = tailer(slog.path, MemStore())
        async with aclosing(t.events()) as it:
            pending = asyncio.ensure_future(take(it, 6))
            await asyncio.sleep(POLL * 4)
            say(slog, 1)
            say(slog, 2)
            slog.rotate()
            say(slog, 3)
            slog.rotate()
            slog.rotate()  # an empty file rolled: nothing to roll, no harm
            say(slog, 4)
            say(slog, 5)
            slog.rotate()
            say(slog, 6)
            assert await asyncio.wait_for(pending, WAIT) == [1, 2, 3, 4, 5, 6]
            assert t.rotations >= 1


async def test_truncation(tmp_path: Path) -> None:
    path = tmp_path / "latest.log"
    path.write_text("")
    t = tailer(path, MemStore())
    async with aclosing(t.events()) as it:
        pending = asyncio.ensure_future(take(it, 2))
        await asyncio.sleep(POLL * 4)
        path.write_text(line(1) + line(2))
        assert await asyncio.wait_for(pending, WAIT) == [1, 2]
        # truncated to a shorter content
        path.write_text(line(3))
        assert await take(it, 1) == [3]
        # truncated and written past the old offset before the next poll: the first bytes
        # changed, so it is read again from the start
        path.write_text("[10:00:01] [Server thread/INFO]: x\n" + line(4) + line(5) + line(6))
        assert await take(it, 3) == [4, 5, 6]


async def test_restart_resumes_in_the_same_file(tmp_path: Path) -> None:
    store = MemStore()
    with ServerLog(tmp_path) as slog:
        t = tailer(slog.path, store)
        async with aclosing(t.events()) as it:
            pending = asyncio.ensure_future(take(it, 2))
            await asyncio.sleep(POLL * 4)
            for seq in (1, 2, 3, 4):
                say(slog, seq)
            assert await asyncio.wait_for(pending, WAIT) == [1, 2]
        saved = TailCursor.loads(store.values["log:survival"])
        assert saved is not None and saved.seq == 2
        say(slog, 5)  # written while the bot is down
        t2 = tailer(slog.path, store)
        async with aclosing(t2.events()) as it:
            assert await take(it, 3) == [3, 4, 5]
            await nothing_more(t2, it)


async def test_an_event_the_consumer_did_not_take_is_read_again_after_a_restart(
    tmp_path: Path,
) -> None:
    """The bot stops while it records an event (the consumer says `not_taken` as it stops): the
    place saved as the stream closes stays before that line, and the next start reads it."""
    store = MemStore()
    with ServerLog(tmp_path) as slog:
        t = tailer(slog.path, store)
        async with aclosing(t.events()) as it:
            pending = asyncio.ensure_future(take(it, 1))
            await asyncio.sleep(POLL * 4)
            for seq in (1, 2, 3):
                say(slog, seq)
            assert await asyncio.wait_for(pending, WAIT) == [1]
            second = await asyncio.wait_for(anext(it), WAIT)
            assert second.seq == 2
            t.not_taken(second)
        saved = TailCursor.loads(store.values["log:survival"])
        assert saved is not None and saved.seq == 1
        t2 = tailer(slog.path, store)
        async with aclosing(t2.events()) as it:
            assert await take(it, 2) == [2, 3]
            await nothing_more(t2, it)


async def test_restart_after_rotations_while_down(tmp_path: Path) -> None:
    store = MemStore()
    with ServerLog(tmp_path) as slog:
        t = tailer(slog.path, store)
        async with aclosing(t.events()) as it:
            pending = asyncio.ensure_future(take(it, 2))
            await asyncio.sleep(POLL * 4)
            for seq in (1, 2, 3):
                say(slog, seq)
            assert await asyncio.wait_for(pending, WAIT) == [1, 2]
        say(slog, 4)
        slog.rotate()  # the file the cursor points into is now an archive
        say(slog, 5)
        slog.rotate()  # and another whole archive after it
        say(slog, 6)
        assert archives(tmp_path) == 2
        t2 = tailer(slog.path, store)
        async with aclosing(t2.events()) as it:
            assert await take(it, 4) == [3, 4, 5, 6]
            await nothing_more(t2, it)


async def test_unknown_file_falls_back_to_archives_rolled_since(tmp_path: Path) -> None:
    store = MemStore()
    stale = TailCursor(dev=1, ino=1, offset=10, head="0" * 32, head_len=10, seq=2)
    stale.saved_at = time.time() - 60
    store.values["log:survival"] = stale.dumps()
    with ServerLog(tmp_path) as slog:
        for seq in (1, 2, 3):
            say(slog, seq)
        slog.rotate()
        say(slog, 4)
        t = tailer(slog.path, store)
        async with aclosing(t.events()) as it:
            assert await take(it, 2) == [3, 4]  # 1 and 2 are at or below the saved seq


def _writer(slog: ServerLog, total: int, seed: int, done: threading.Event) -> None:
    rng = random.Random(seed)
    for seq in range(1, total + 1):
        say(slog, seq)
        if rng.random() < 0.04:
            slog.rotate()
        if rng.random() < 0.2:
            time.sleep(0.0005)
    done.set()


@pytest.mark.parametrize(("stamp", "seed"), [("time", 1), ("datetime", 2), ("time", 3)])
async def test_rotation_and_restarts_lose_and_repeat_nothing(
    tmp_path: Path, stamp: str, seed: int
) -> None:
    """Events stream in while the log rolls; the tailer is stopped and started again at random
    moments, sometimes staying down across rolls. Counted: every seq exactly once."""
    total = 600
    rng = random.Random(seed)
    store = MemStore()
    received: list[int] = []
    with ServerLog(tmp_path, timestamp=stamp) as slog:  # type: ignore[arg-type]
        # the bot has seen the empty latest.log once, so everything written after counts
        st = os.stat(slog.path)
        store.values["log:survival"] = TailCursor(st.st_dev, st.st_ino, 0, "", 0, -1).dumps()
        done = threading.Event()
        writer = threading.Thread(target=_writer, args=(slog, total, seed, done))
        writer.start()
        try:
            sessions = 0
            deadline = time.monotonic() + 60
            while len(received) < total and time.monotonic() < deadline:
                sessions += 1
                t = tailer(slog.path, store)
                want = min(rng.randint(1, 90), total - len(received))
                async with aclosing(t.events()) as it:
                    received += await take(it, want)
                if rng.random() < 0.5:
                    await asyncio.sleep(rng.random() * 0.01)  # down while lines and rolls go on
        finally:
            writer.join(timeout=30)
        assert done.is_set()
    assert len(received) == total, f"lost {total - len(set(received))}"
    assert received == list(range(1, total + 1))  # none lost, none twice, in order
    assert sessions > 5
    assert archives(tmp_path) > 3
    assert json.loads(store.values["log:survival"])["seq"] == total


def test_an_archive_gzipped_between_listing_and_reading_is_found_as_its_gz(tmp_path: Path) -> None:
    # mcsim (like log4j) renames latest.log to a dated .log, then gzips it and removes the .log:
    # a tailer that listed the .log must find the .gz for both its time and its bytes.
    import gzip

    from bot.events.log_files import _archive_mtime, _read_archive

    listed = tmp_path / "2026-11-30-1.log"
    with gzip.open(tmp_path / "2026-11-30-1.log.gz", "wb") as gz:
        gz.write(b"line\n")
    assert _archive_mtime(listed) == (tmp_path / "2026-11-30-1.log.gz").stat().st_mtime
    assert _read_archive(listed, None) == b"line\n"
