"""Where the log tailer reads its files: the bot's own disk, or another machine (over SFTP,
bot/minecraft/sftp_log.py), behind one small interface.

The live latest.log is an open handle that keeps reading the same file after the server
renamed it (a roll), as an open file does on Linux and an SFTP handle does on OpenSSH's server;
the archives (`YYYY-MM-DD-N.log.gz`) are read whole.
"""

from __future__ import annotations

import asyncio
import gzip
import logging
import os
import re
from pathlib import Path, PurePath
from typing import BinaryIO, Protocol

__all__ = [
    "ARCHIVE",
    "LiveFile",
    "LocalLogFiles",
    "LogFiles",
    "archive_key",
    "pick_archives",
]

log = logging.getLogger(__name__)

ARCHIVE = re.compile(r"(\d{4}-\d{2}-\d{2})-(\d+)\.log(\.gz)?")


class LiveFile(Protocol):
    """latest.log as it was when opened (renaming it does not change what this reads)."""

    ident: tuple[int, int]  # (device, inode) on the bot's disk; (0, 0) where none is known
    name: str

    async def read_at(self, offset: int, size: int) -> bytes: ...

    async def size(self) -> int: ...

    def close(self) -> None: ...


class LogFiles(Protocol):
    """The file operations the tailer needs; `where` names the place in messages."""

    where: str

    async def open(self, path: PurePath) -> LiveFile | None:
        """The file at `path`, or None when it does not exist or cannot be read (logged)."""
        ...

    async def rolled(self, path: PurePath, live: LiveFile) -> bool:
        """`path` names another file than `live`, or none: `live` will not grow any more."""
        ...

    async def list_archives(self, logs_dir: PurePath) -> list[tuple[tuple[str, int], PurePath]]:
        """Rolled logs oldest first; a `.log` still being gzipped wins over its partial `.gz`."""
        ...

    async def read_archive(self, path: PurePath, size: int | None) -> bytes:
        """An archive's bytes (its first `size`, or all); a `.log` gzipped and removed since
        the listing is read from its `.gz`. OSError, EOFError or zlib.error when unreadable."""
        ...

    async def archive_mtime(self, path: PurePath) -> float: ...


def archive_key(path: PurePath) -> tuple[str, int]:
    match = ARCHIVE.fullmatch(path.name)
    assert match is not None  # only listed archives get here
    return (match.group(1), int(match.group(2)))


def pick_archives(logs_dir: PurePath, names: list[str]) -> list[tuple[tuple[str, int], PurePath]]:
    """The archives among a folder's names, oldest first, a `.log` winning over its `.gz`."""
    by_key: dict[tuple[str, int], PurePath] = {}
    for name in names:
        match = ARCHIVE.fullmatch(name)
        if match is None:
            continue
        path = logs_dir / name
        key = archive_key(path)
        if key not in by_key or match.group(3) is None:
            by_key[key] = path
    return [(k, by_key[k]) for k in sorted(by_key)]


class _LocalFile:
    def __init__(self, fh: BinaryIO, ident: tuple[int, int], name: str) -> None:
        self.fh: BinaryIO | None = fh
        self.ident = ident
        self.name = name

    async def read_at(self, offset: int, size: int) -> bytes:
        assert self.fh is not None
        self.fh.seek(offset)
        return self.fh.read(size)

    async def size(self) -> int:
        assert self.fh is not None
        return os.fstat(self.fh.fileno()).st_size

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None


class LocalLogFiles:
    """The bot's own disk: the live file is read in the loop (a small read of a local file),
    archives are listed and unpacked in a thread."""

    where = "local"

    async def open(self, path: PurePath) -> LiveFile | None:
        try:
            # kept open while the tailer follows it; a local open does not block the loop long
            fh = Path(path).open("rb")  # noqa: ASYNC230, SIM115
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("cannot read %s: %s", path, exc)
            return None
        st = os.fstat(fh.fileno())
        return _LocalFile(fh, (st.st_dev, st.st_ino), f"{path.name}#{st.st_ino}")

    async def rolled(self, path: PurePath, live: LiveFile) -> bool:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return (st.st_dev, st.st_ino) != live.ident

    async def list_archives(self, logs_dir: PurePath) -> list[tuple[tuple[str, int], PurePath]]:
        return await asyncio.to_thread(_list_local, Path(logs_dir))

    async def read_archive(self, path: PurePath, size: int | None) -> bytes:
        return await asyncio.to_thread(_read_archive, Path(path), size)

    async def archive_mtime(self, path: PurePath) -> float:
        return await asyncio.to_thread(_archive_mtime, Path(path))


def _list_local(logs_dir: Path) -> list[tuple[tuple[str, int], PurePath]]:
    try:
        names = [entry.name for entry in logs_dir.iterdir()]
    except OSError:
        return []
    return pick_archives(logs_dir, names)


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
