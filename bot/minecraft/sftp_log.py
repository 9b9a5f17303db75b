"""The log tailer's files (bot/events/log_files.py) on the server's machine, over SFTP.

SFTP tells no inode, so a roll is seen another way: the open handle keeps reading the renamed
file (OpenSSH's sftp-server holds it open), and `latest.log` names another file when its size
and time differ from the handle's while the handle's own file stays still (the server writes
only the new one). A dropped connection is waited out inside each call (SftpSession.retrying,
with its capped backoff); the live file is then opened again and kept only if it is still the
same file (it starts with the bytes read before, is no shorter, and no archive appeared since):
otherwise it is "gone", reads as ended, and the tailer goes on to the archive that holds its
rest, then the new latest.log, as after any roll.
"""

from __future__ import annotations

__all__ = ["SftpLogFiles"]

import gzip
import logging
import zlib
from pathlib import PurePath
from typing import TYPE_CHECKING, cast

from bot.events.log_files import LiveFile, pick_archives
from bot.minecraft.sftp import FileError, SftpSession, dropped, is_missing

if TYPE_CHECKING:
    from asyncssh import SFTPAttrs, SFTPClient, SFTPClientFile

log = logging.getLogger(__name__)

_HEAD = 4096  # bytes of the file's start kept to know it again after a reconnect
_GZ_PREFIX = 256 * 1024  # compressed bytes fetched first when only an archive's head is wanted


class _RemoteFile:
    """latest.log as opened over SFTP; follows its file across reconnects while it can."""

    ident = (0, 0)

    def __init__(self, files: SftpLogFiles, path: PurePath) -> None:
        self.files = files
        self.path = path
        self.name = f"{path.name}@sftp"
        self.handle: SFTPClientFile | None = None
        self.generation = -1  # the session's connection the handle belongs to
        self.head = b""
        self.last_size = 0
        self.archives: set[tuple[str, int]] = set()
        self.gone = False

    async def open(self, sftp: SFTPClient) -> bool:
        """Open the path on this connection; False when the file is not there (or unreadable)."""
        try:
            self.handle = await sftp.open(str(self.path), "rb")
        except FileError as exc:
            if dropped(exc):
                raise
            if not is_missing(exc):
                log.warning("cannot read %s over SFTP: %s", self.path, exc)
            return False
        self.generation = self.files.session.connects
        return True

    async def _current(self, sftp: SFTPClient) -> SFTPClientFile | None:
        """The handle on the live connection, opened again after a reconnect if the path still
        names this file; None (and `gone`) when it does not."""
        if self.handle is not None and self.generation == self.files.session.connects:
            return self.handle
        self.handle = None
        if not await self.open(sftp):
            self._lost("latest.log is gone")
            return None
        assert self.handle is not None
        size = (await self.handle.stat()).size or 0
        head = cast(bytes, await self.handle.read(len(self.head), 0)) if self.head else b""
        try:
            names = [str(n) for n in await sftp.listdir(str(self.path.parent))]
        except FileError as exc:
            if dropped(exc):
                raise
            names = []
        rolled = {key for key, _ in pick_archives(self.path.parent, names)} - self.archives
        if size < self.last_size or head != self.head or rolled:
            await self.handle.close()
            self.handle = None
            self._lost("latest.log was rolled meanwhile")
            return None
        log.info("%s: following %s again after the reconnect", self.files.session.server, self.path)
        return self.handle

    def _lost(self, why: str) -> None:
        log.info("%s: %s; reading its rest from the archive", self.files.session.server, why)
        self.gone = True
        return None

    async def read_at(self, offset: int, size: int) -> bytes:
        async def op(sftp: SFTPClient) -> bytes | None:
            handle = await self._current(sftp)
            return None if handle is None else cast(bytes, await handle.read(size, offset))

        data = None if self.gone else await self.files.session.retrying(op)
        if data is None:
            # gone: only its first bytes are known, asked for to find its archive by them
            return self.head[:size] if offset == 0 and size <= _HEAD else b""
        if offset < _HEAD and offset <= len(self.head) and offset + len(data) > len(self.head):
            self.head = (self.head[:offset] + data)[:_HEAD]
        self.last_size = max(self.last_size, offset + len(data))
        return data

    async def attrs(self) -> SFTPAttrs | None:
        async def op(sftp: SFTPClient) -> SFTPAttrs | None:
            handle = await self._current(sftp)
            return None if handle is None else await handle.stat()

        return None if self.gone else await self.files.session.retrying(op)

    async def size(self) -> int:
        attrs = await self.attrs()
        if attrs is None:
            return self.last_size
        self.last_size = attrs.size or 0
        return self.last_size

    def close(self) -> None:
        handle, self.handle = self.handle, None
        if handle is not None:
            self.files.closing(handle)


class SftpLogFiles:
    """The files of logs/ on the server's machine, through the server's SFTP session."""

    def __init__(self, session: SftpSession) -> None:
        self.session = session
        self.where = str(session.target)
        self._closing: set[object] = set()

    async def open(self, path: PurePath) -> LiveFile | None:
        live = _RemoteFile(self, path)

        async def op(sftp: SFTPClient) -> bool:
            if not await live.open(sftp):
                return False
            try:
                names = [str(n) for n in await sftp.listdir(str(path.parent))]
            except FileError as exc:
                if dropped(exc):
                    raise
                names = []
            live.archives = {key for key, _ in pick_archives(path.parent, names)}
            return True

        return live if await self.session.retrying(op) else None

    async def rolled(self, path: PurePath, live: LiveFile) -> bool:
        assert isinstance(live, _RemoteFile)
        before = await live.attrs()
        if before is None:
            return True  # gone: it was rolled while the connection was down

        async def named(sftp: SFTPClient) -> SFTPAttrs | None:
            try:
                return await sftp.stat(str(path))
            except FileError as exc:
                if dropped(exc):
                    raise
                if is_missing(exc):
                    return None
                raise OSError(str(exc)) from None

        try:
            now = await self.session.retrying(named)
        except OSError:
            return False  # cannot look: as the local tailer, keep reading what is open
        if now is None:
            return True
        if (now.size, now.mtime) == (before.size, before.mtime):
            return False
        after = await live.attrs()
        # the open file still changes: the server writes it, so it is the live one (a roll is
        # seen at a later look, once the old file stands still)
        return after is None or (after.size, after.mtime) == (before.size, before.mtime)

    async def list_archives(self, logs_dir: PurePath) -> list[tuple[tuple[str, int], PurePath]]:
        async def op(sftp: SFTPClient) -> list[str]:
            try:
                return [str(n) for n in await sftp.listdir(str(logs_dir))]
            except FileError as exc:
                if dropped(exc):
                    raise
                return []

        return pick_archives(logs_dir, await self.session.retrying(op))

    async def read_archive(self, path: PurePath, size: int | None) -> bytes:
        async def op(sftp: SFTPClient) -> bytes:
            target = path
            if path.suffix != ".gz":
                try:
                    return await _read(sftp, path, size)
                except FileError as exc:
                    if dropped(exc):
                        raise
                    if not is_missing(exc):
                        raise OSError(str(exc)) from None
                    # gzipped and removed since the listing: the .gz holds the same bytes
                    target = path.with_name(path.name + ".gz")
            try:
                if size is None:
                    return gzip.decompress(await _read(sftp, target, None))
                packed = await _read(sftp, target, _GZ_PREFIX)
                head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(packed, size)
                if len(head) < size and len(packed) == _GZ_PREFIX:
                    head = gzip.decompress(await _read(sftp, target, None))[:size]
                return head
            except FileError as exc:
                if dropped(exc):
                    raise
                raise OSError(str(exc)) from None

        return await self.session.retrying(op)

    async def archive_mtime(self, path: PurePath) -> float:
        async def op(sftp: SFTPClient) -> float:
            try:
                try:
                    return float((await sftp.stat(str(path))).mtime or 0)
                except FileError as exc:
                    if dropped(exc):
                        raise
                    if not is_missing(exc) or path.suffix == ".gz":
                        raise
                    gz = path.with_name(path.name + ".gz")
                    return float((await sftp.stat(str(gz))).mtime or 0)
            except FileError as exc:
                if dropped(exc):
                    raise
                raise OSError(str(exc)) from None

        return await self.session.retrying(op)

    def closing(self, handle: SFTPClientFile) -> None:
        """Close a handle in the background (LiveFile.close is not async); a handle of a
        dropped connection needs nothing."""
        import asyncio

        async def close() -> None:
            try:
                await handle.close()
            except Exception:  # the connection dropped meanwhile: nothing to close
                pass
            finally:
                self._closing.discard(task)

        task = asyncio.get_running_loop().create_task(close())
        self._closing.add(task)


async def _read(sftp: SFTPClient, path: PurePath, size: int | None) -> bytes:
    async with sftp.open(str(path), "rb") as fh:
        data = await fh.read(-1 if size is None else size)
    return cast(bytes, data)
