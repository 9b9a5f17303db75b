"""`<world>/session.lock`: one server per world, as vanilla's level storage holds it.

Read from the 1.21.11 decompile (duollectis/minecraft-decompiled-1.21.11,
`world/level/storage/SessionLock.java`, Mojang's `util/DirectoryLock.java`; the session is made
in `LevelStorage.Session`'s constructor, called from `server/Main.java`): open `session.lock`
with CREATE and WRITE (no truncation), write the UTF-8 snowman at its start, force it to disk,
then `FileChannel.tryLock()`; no lock means `AlreadyLockedException`, whose message is the lock
file's absolute path, `: `, and `already locked (possibly by other Minecraft instance?)`. The
lock is released when the server closes its session at shutdown, and by the OS when the
process dies.

On Linux `tryLock()` is an fcntl record lock over the whole file (F_SETLK, F_WRLCK); Python's
`fcntl.lockf` takes the same lock, so mcsim and a real Java server exclude each other. Such
locks belong to a process: a second lock from the same process succeeds, and closing any
descriptor of the file drops them all. Tests run several servers in one process, so the locks
this process holds are also kept in a registry, looked up before the file is opened at all.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
from pathlib import Path

__all__ = ["LOCK_FILE", "SessionLock", "SessionLockedError"]

LOCK_FILE = "session.lock"
_SNOWMAN = "☃".encode()
# DirectoryLock.LockException.alreadyLocked, word for word
_ALREADY_LOCKED = "already locked (possibly by other Minecraft instance?)"
# The exception as a real server's log names it (Mojang's name; a 1.21 jar is obfuscated).
EXCEPTION_CLASS = "net.minecraft.util.DirectoryLock$LockException"

_held_lock = threading.Lock()
_held: dict[tuple[int, int], Path] = {}  # (st_dev, st_ino) of each lock file this process holds


class SessionLockedError(OSError):
    """Another server holds the world: vanilla's message, `<abs path>: already locked ...`."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path.absolute()}: {_ALREADY_LOCKED}")
        self.path = path

    @property
    def log_text(self) -> str:
        """The exception as log4j writes it under `Failed to start the minecraft server`."""
        return f"{EXCEPTION_CLASS}: {self}"


class SessionLock:
    """The held lock on one world; `release()` at stop (a dead process frees it anyway)."""

    def __init__(self, path: Path, fd: int, key: tuple[int, int]) -> None:
        self.path = path
        self._fd: int | None = fd
        self._key = key

    @classmethod
    def acquire(cls, world: Path) -> SessionLock:
        """Lock `world` or raise SessionLockedError; nothing in the world changes but the
        snowman rewritten at the start of session.lock, as vanilla rewrites it."""
        world.mkdir(parents=True, exist_ok=True)
        path = world / LOCK_FILE
        with _held_lock:
            key = _key(path)
            if key is not None and key in _held:
                # Held by this process: opening and closing the file here would drop that lock.
                raise SessionLockedError(path)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)
            try:
                os.pwrite(fd, _SNOWMAN, 0)
                os.fsync(fd)
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                os.close(fd)
                if e.errno in (errno.EAGAIN, errno.EACCES):  # another process holds it
                    raise SessionLockedError(path) from None
                raise
            st = os.fstat(fd)
            key = (st.st_dev, st.st_ino)
            _held[key] = path
            return cls(path, fd, key)

    def release(self) -> None:
        with _held_lock:
            if self._fd is None:
                return
            try:
                fcntl.lockf(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None
                _held.pop(self._key, None)

    @property
    def held(self) -> bool:
        return self._fd is not None


def _key(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino)
