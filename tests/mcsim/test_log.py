"""ServerLog: vanilla's line format, and log4j's roll of latest.log into dated .log.gz archives."""

from __future__ import annotations

import gzip
import os
import re
import threading
from datetime import datetime
from pathlib import Path

from mcsim.log import ServerLog


class FakeClock:
    """A settable clock: tests move time by hand, never wait for it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def names(logs: Path) -> list[str]:
    return sorted(p.name for p in logs.iterdir())


def test_line_format_time_and_levels(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2024, 5, 6, 7, 8, 9))
    with ServerLog(tmp_path, clock=clock) as slog:
        slog.info('Done (1.234s)! For help, type "help"')
        clock.now = datetime(2024, 5, 6, 13, 0, 1)
        slog.warn("Can't keep up!", thread="Server thread")
        slog.error("Exception whilst parsing RCON input", thread="RCON Client /127.0.0.1 #2")
        slog.info("Thread RCON Client /127.0.0.1 started", thread="RCON Listener #1")
        text = slog.path.read_text(encoding="utf-8")
    assert text == (
        '[07:08:09] [Server thread/INFO]: Done (1.234s)! For help, type "help"\n'
        "[13:00:01] [Server thread/WARN]: Can't keep up!\n"
        "[13:00:01] [RCON Client /127.0.0.1 #2/ERROR]: Exception whilst parsing RCON input\n"
        "[13:00:01] [RCON Listener #1/INFO]: Thread RCON Client /127.0.0.1 started\n"
    )


def test_datetime_timestamp_variant(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2024, 12, 31, 23, 59, 58))
    with ServerLog(tmp_path, timestamp="datetime", clock=clock) as slog:
        slog.info("[Not Secure] [Rcon] hi")
        text = slog.path.read_text(encoding="utf-8")
    assert text == "[2024-12-31 23:59:58] [Server thread/INFO]: [Not Secure] [Rcon] hi\n"


def test_each_line_is_on_disk_before_close(tmp_path: Path) -> None:
    slog = ServerLog(tmp_path, clock=FakeClock(datetime(2024, 1, 1, 0, 0, 0)))
    try:
        slog.info("é ünïcode ☃ 😀")
        # Read through a separate handle while the writer is still open: flushed per line.
        assert slog.path.read_bytes().decode("utf-8").endswith("é ünïcode ☃ 😀\n")
    finally:
        slog.close()
    assert slog.closed
    slog.info("after close")  # dropped, no crash: RCON threads may end after the log
    assert "after close" not in slog.path.read_text(encoding="utf-8")


def test_open_rolls_existing_latest_named_by_its_mtime(tmp_path: Path) -> None:
    old = b"[10:00:00] [Server thread/INFO]: old run\n"
    (tmp_path / "latest.log").write_bytes(old)
    stamp = datetime(2023, 3, 4, 12, 0, 0).timestamp()
    os.utime(tmp_path / "latest.log", (stamp, stamp))
    slog = ServerLog(tmp_path, clock=FakeClock(datetime(2024, 1, 1, 9, 0, 0)))
    slog.info("new run")
    slog.close()
    assert names(tmp_path) == ["2023-03-04-1.log.gz", "latest.log"]
    assert gzip.decompress((tmp_path / "2023-03-04-1.log.gz").read_bytes()) == old
    assert slog.path.read_text(encoding="utf-8") == "[09:00:00] [Server thread/INFO]: new run\n"


def test_open_leaves_an_empty_latest_alone(tmp_path: Path) -> None:
    (tmp_path / "latest.log").write_bytes(b"")
    ServerLog(tmp_path).close()
    assert names(tmp_path) == ["latest.log"]


def test_two_rotations_on_one_day_give_1_and_2(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2024, 7, 1, 8, 0, 0))
    slog = ServerLog(tmp_path / "logs", clock=clock)  # the directory is created
    slog.info("first")
    first = slog.path.read_bytes()
    inode_before = slog.path.stat().st_ino
    slog.rotate()
    # A tailer sees a new file: renamed away, then created again.
    assert slog.path.stat().st_ino != inode_before
    assert slog.path.read_bytes() == b""
    slog.info("second")
    second = slog.path.read_bytes()
    slog.rotate()
    slog.info("third")
    slog.close()
    logs = tmp_path / "logs"
    assert names(logs) == ["2024-07-01-1.log.gz", "2024-07-01-2.log.gz", "latest.log"]
    assert gzip.decompress((logs / "2024-07-01-1.log.gz").read_bytes()) == first
    assert gzip.decompress((logs / "2024-07-01-2.log.gz").read_bytes()) == second
    assert slog.path.read_text(encoding="utf-8") == "[08:00:00] [Server thread/INFO]: third\n"


def test_rolling_an_empty_file_makes_no_archive(tmp_path: Path) -> None:
    slog = ServerLog(tmp_path, clock=FakeClock(datetime(2024, 7, 1, 8, 0, 0)))
    slog.rotate()
    slog.info("one")
    slog.rotate()
    slog.rotate()
    slog.info("two")
    slog.close()
    assert names(tmp_path) == ["2024-07-01-1.log.gz", "latest.log"]
    assert slog.path.read_text(encoding="utf-8") == "[08:00:00] [Server thread/INFO]: two\n"


def test_index_follows_the_highest_existing_archive_of_that_day(tmp_path: Path) -> None:
    # log4j's fileIndex="max" takes the highest index in use + 1, not the first gap.
    (tmp_path / "2024-07-01-3.log.gz").write_bytes(gzip.compress(b"x"))
    (tmp_path / "2024-06-30-9.log.gz").write_bytes(gzip.compress(b"y"))
    slog = ServerLog(tmp_path, clock=FakeClock(datetime(2024, 7, 1, 8, 0, 0)))
    slog.info("a")
    slog.rotate()
    slog.close()
    assert "2024-07-01-4.log.gz" in names(tmp_path)
    assert "2024-07-01-1.log.gz" not in names(tmp_path)


def test_first_line_of_a_new_day_rolls_the_old_day(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2024, 2, 28, 23, 59, 59))
    slog = ServerLog(tmp_path, clock=clock)
    slog.info("before midnight")
    clock.now = datetime(2024, 2, 29, 0, 0, 1)
    slog.info("after midnight")
    slog.close()
    assert names(tmp_path) == ["2024-02-28-1.log.gz", "latest.log"]
    archived = gzip.decompress((tmp_path / "2024-02-28-1.log.gz").read_bytes()).decode()
    assert archived == "[23:59:59] [Server thread/INFO]: before midnight\n"
    assert slog.path.read_text(encoding="utf-8") == (
        "[00:00:01] [Server thread/INFO]: after midnight\n"
    )


def test_threads_never_interleave_within_a_line(tmp_path: Path) -> None:
    slog = ServerLog(tmp_path, clock=FakeClock(datetime(2024, 1, 1, 1, 2, 3)))

    def spam(n: int) -> None:
        for i in range(200):
            slog.info(f"thread {n} line {i} " + "x" * 50, thread=f"RCON Client /127.0.0.1 #{n}")

    threads = [threading.Thread(target=spam, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    slog.close()
    lines = slog.path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 800
    shape = re.compile(
        r"\[01:02:03\] \[RCON Client /127\.0\.0\.1 #(\d)/INFO\]: thread \1 line \d+ x{50}"
    )
    assert all(shape.fullmatch(line) for line in lines)
