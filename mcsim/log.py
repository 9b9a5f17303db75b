"""The server's `logs/latest.log`, written and rolled the way vanilla's log4j2 setup does it.

Vanilla's server jar ships a log4j2.xml with (checked against copies of it with the search tool):

    <RollingRandomAccessFile name="File" fileName="logs/latest.log"
                             filePattern="logs/%d{yyyy-MM-dd}-%i.log.gz">
        <PatternLayout pattern="[%d{HH:mm:ss}] [%t/%level]: %msg{nolookups}%n"/>
        <Policies><TimeBasedTriggeringPolicy/><OnStartupTriggeringPolicy/></Policies>
        <DefaultRolloverStrategy max="1000"/>   (the max is inferred, not seen in this version)

What we follow from it:
- the line pattern; `%t` is the writing thread's name ("Server thread", "RCON Listener #1", ...);
- OnStartupTriggeringPolicy: opening rolls a non-empty latest.log; log4j dates the archive with the
  old file's last-modified time, so we use its mtime;
- TimeBasedTriggeringPolicy: the first line written on a new day (by our clock) first rolls the
  file, which is dated with the day it covered;
- `%i` from DefaultRolloverStrategy (fileIndex "max"): the highest index already used for that date
  plus one, starting at 1 (so 1, 2, 3 on one day); the old file is renamed, a fresh latest.log is
  created, then the renamed file is gzipped and removed, as log4j's GzCompressAction does; an
  empty latest.log is deleted and recreated with no archive (FileRenameAction).
"""

from __future__ import annotations

import gzip
import logging
import re
import shutil
import threading
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import IO, Literal

__all__ = ["ServerLog"]

log = logging.getLogger(__name__)

_STAMP_FORMATS = {"time": "%H:%M:%S", "datetime": "%Y-%m-%d %H:%M:%S"}


class ServerLog:
    """Append-only, line-flushed, thread-safe writer of vanilla-format log lines."""

    def __init__(
        self,
        logs_dir: Path,
        *,
        timestamp: Literal["time", "datetime"] = "time",
        clock: Callable[[], datetime] = datetime.now,
    ) -> None:
        if timestamp not in _STAMP_FORMATS:
            raise ValueError(f"timestamp must be 'time' or 'datetime', not {timestamp!r}")
        self.logs_dir = Path(logs_dir)
        self.path = self.logs_dir / "latest.log"
        self._stamp_format = _STAMP_FORMATS[timestamp]
        self._clock = clock
        # RCON client threads and the game loop write concurrently; one line at a time.
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        self._period: date = clock().date()
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        with self._lock:
            if self.path.exists() and self.path.stat().st_size > 0:
                old_day = datetime.fromtimestamp(self.path.stat().st_mtime).date()
                self._roll(old_day)
            else:
                self._open()

    # -- writing -----------------------------------------------------------------------------

    def info(self, msg: str, thread: str = "Server thread") -> None:
        self.write("INFO", msg, thread)

    def warn(self, msg: str, thread: str = "Server thread") -> None:
        self.write("WARN", msg, thread)

    def error(self, msg: str, thread: str = "Server thread") -> None:
        self.write("ERROR", msg, thread)

    def write(self, level: str, msg: str, thread: str = "Server thread") -> None:
        """Write one event; a message with newlines stays one event, as log4j writes it."""
        with self._lock:
            if self._file is None:
                # Late lines (an RCON thread ending after shutdown) have nowhere to go.
                log.debug("log closed, dropped: %s", msg)
                return
            now = self._clock()
            if now.date() != self._period:
                self._roll(self._period, now.date())
            line = f"[{now.strftime(self._stamp_format)}] [{thread}/{level}]: {msg}\n"
            self._file.write(line)
            self._file.flush()

    # -- rolling -----------------------------------------------------------------------------

    def rotate(self) -> None:
        """Roll latest.log now, as a restart or midnight would (tailer tests use it)."""
        with self._lock:
            if self._file is None:
                raise RuntimeError("the server log is closed")
            self._roll(self._period)

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    @property
    def closed(self) -> bool:
        return self._file is None

    def __enter__(self) -> ServerLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(self, period: date | None = None) -> None:
        self._period = period if period is not None else self._clock().date()
        # newline="" keeps "\n" on every platform, as log4j's %n does on a Linux server.
        self._file = self.path.open("a", encoding="utf-8", newline="")

    def _roll(self, day: date, new_period: date | None = None) -> None:
        """latest.log -> <day>-<N>.log, a fresh latest.log, then gzip the renamed file."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if not self.path.exists() or self.path.stat().st_size == 0:
            # log4j's FileRenameAction (renameEmptyFiles=false) deletes an empty file, no archive.
            self.path.unlink(missing_ok=True)
            self._open(new_period)
            return
        stem = f"{day:%Y-%m-%d}-{self._next_index(day)}.log"
        renamed = self.logs_dir / stem
        self.path.rename(renamed)
        self._open(new_period)
        with renamed.open("rb") as src, gzip.open(self.logs_dir / f"{stem}.gz", "wb") as dst:
            shutil.copyfileobj(src, dst)
        renamed.unlink()
        log.debug("rolled %s to %s.gz", self.path, stem)

    def _next_index(self, day: date) -> int:
        pattern = re.compile(rf"{day:%Y-%m-%d}-(\d+)\.log(?:\.gz)?")
        used = [
            int(m.group(1))
            for p in self.logs_dir.iterdir()
            if (m := pattern.fullmatch(p.name)) is not None
        ]
        return max(used, default=0) + 1
