"""One process per data folder: `<data_dir>/bot.lock`, an OS lock holding the holder's pid.

The data folder holds the database (queue rows, the crash guard's record) and the embedded world;
two bots on it would each restore and run the same tasks. `python -m bot` takes this lock for
every command before it touches anything else, and keeps it until it is done. The lock is an
flock: the OS drops it when the process dies (SIGKILL included), so a lock file left behind
blocks nobody; and flock locks belong to an open file, so two holders in one process exclude
each other too (tests run commands in threads).

The file says who holds it (`pid command`), for the sentence the next one prints; it is not what
excludes.
"""

from __future__ import annotations

__all__ = ["LOCK_FILE", "DataDirBusy", "DataDirLock", "Holder", "busy_message"]

import contextlib
import errno
import fcntl
import os
import time
from dataclasses import dataclass
from pathlib import Path

from bot.i18n import _

LOCK_FILE = "bot.lock"
# The bot's own long-running commands: the ones a short command must not work beside.
BOT_COMMANDS = frozenset({"run", "console"})


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a data folder: its pid (None when it has not written it yet) and command."""

    pid: int | None
    command: str

    @property
    def is_bot(self) -> bool:
        return self.command in BOT_COMMANDS


class DataDirBusy(Exception):
    """Another process holds the data folder."""

    def __init__(self, data_dir: Path, holder: Holder) -> None:
        super().__init__(f"{data_dir} is in use by pid {holder.pid} ({holder.command})")
        self.data_dir = data_dir
        self.holder = holder


class DataDirLock:
    """The held lock; `release()` (or leaving the `with`) gives it up."""

    def __init__(self, data_dir: Path, fd: int) -> None:
        self.data_dir = data_dir
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, data_dir: Path, command: str) -> DataDirLock:
        """Take the data folder for `command`, or raise DataDirBusy naming its holder."""
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / LOCK_FILE
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                raise DataDirBusy(data_dir, _read_holder(path)) from None
            raise
        # truncated and rewritten only once held: a holder's line is never cut by a loser
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {command}\n".encode(), 0)
        return cls(data_dir, fd)

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # a lock file left behind names nobody
        os.close(fd)  # closing drops the flock

    def __enter__(self) -> DataDirLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_holder(path: Path, *, attempts: int = 20, pause: float = 0.01) -> Holder:
    """The holder's line; it may not be written yet when the lock was only just taken, so a
    few short tries (bounded) before saying the pid is unknown."""
    for _attempt in range(attempts):
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError:
            text = ""
        pid, _sep, command = text.partition(" ")
        if pid.isdigit():
            return Holder(int(pid), command or "?")
        time.sleep(pause)
    return Holder(None, "?")


def busy_message(command: str, busy: DataDirBusy) -> str:
    """The sentence `command` is refused with: who holds the folder and what to do instead."""
    holder = busy.holder
    pid = str(holder.pid) if holder.pid is not None else "?"
    folder = str(busy.data_dir)
    if not holder.is_bot:
        return _(
            "`{holder}` (pid {pid}) is using the data folder {folder}. Wait for it to finish, "
            "then run `{command}` again.",
            holder=holder.command,
            pid=pid,
            folder=folder,
            command=command,
        )
    if command in BOT_COMMANDS:
        return _(
            "Another bot (pid {pid}) is already running on the data folder {folder}. One bot per "
            "data folder: stop that one first, or give this one its own folder (DOOM_DATA_DIR).",
            pid=pid,
            folder=folder,
        )
    return _(
        "A bot (pid {pid}) is running on the data folder {folder}; `{command}` would be a second "
        "owner of its server and queue. {instead} Or stop the bot first.",
        pid=pid,
        folder=folder,
        command=command,
        instead=_instead(command),
    )


def _instead(command: str) -> str:
    """What to use in the running bot (its console or Discord) for a refused command."""
    if command == "export":
        return _("Use /plan export in its console or on Discord.")
    if command == "import":
        return _("Use /plan import in its console or on Discord.")
    if command == "install-datapack":
        return _("Use /setup in its console or on Discord.")
    if command == "selftest":
        return _("Use /selftest in its console or on Discord.")
    if command == "check":
        return _("Its /status (console or Discord) shows the server, the pack and the events.")
    return _("It already follows the events: its alerts and /status show them.")
