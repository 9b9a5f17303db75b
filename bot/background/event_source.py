"""Which event source a server gets (`log`, `rcon`, `auto`), and the (server, seq) merge.

`auto` reads the log when the bot can read it (free and immediate): the log on this machine
(log_path, or the one in the server's folder beside world_dir), else the log on the server's
machine over SFTP (sftp_url), else it polls the ring buffer over RCON (a round trip every
interval, echoed to operators unless broadcast-rcon-to-ops=false). `log` follows the local log
when log_path names it or sftp_url is not set, else the log over SFTP. `merge` combines several
sources, e.g. every server's, or a log and a poller of one server, delivering each (server, seq)
once.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncGenerator
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from bot.aio import cancel_and_wait
from bot.events.event import CursorStore, Event, SeqDedup
from bot.events.log_tail import LogTailer
from bot.events.storage_poll import EventsReader, StoragePoller
from bot.minecraft.server_files import local_root, read_properties

if TYPE_CHECKING:
    from bot.minecraft.sftp import SftpSession

__all__ = [
    "EventSource",
    "build_event_source",
    "local_log",
    "log_readable",
    "merge",
    "read_broadcast_setting",
]

log = logging.getLogger(__name__)

# Seconds an out-of-order event waits for the seqs before it (bot/events/log_tail.py).
LOG_REORDER_WINDOW = 2.0


class EventSource(Protocol):
    ready: asyncio.Event  # set once the source knows where it starts reading

    def events(self) -> AsyncGenerator[Event, None]: ...


class _ServerLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def log_path(self) -> Path | None: ...
    @property
    def world_dir(self) -> Path | None: ...
    @property
    def event_source(self) -> Literal["log", "rcon", "auto"]: ...
    @property
    def events_in_chat(self) -> bool | None: ...


def local_log(server: _ServerLike) -> Path | None:
    """The log on this machine: log_path, or logs/latest.log in the server's folder beside
    world_dir (bot.minecraft.server_files.local_root)."""
    if server.log_path is not None:
        return server.log_path
    if server.world_dir is None:
        return None
    # before the server's first start neither layout shows: vanilla's, where the log will be
    root = local_root(server.world_dir) or server.world_dir.parent
    return root / "logs" / "latest.log"


def log_readable(path: Path | None) -> bool:
    """The bot can follow this log: the file is readable, or it does not exist yet but its
    folder is there and readable (a server that has not started)."""
    if path is None:
        return False
    if path.exists():
        return path.is_file() and os.access(path, os.R_OK)
    parent = path.parent
    return parent.is_dir() and os.access(parent, os.R_OK | os.X_OK)


def read_broadcast_setting(properties: Path | None) -> bool | None:
    """`broadcast-rcon-to-ops` from server.properties, None when the file cannot be read."""
    values = read_properties(properties) if properties is not None else None
    if values is None:
        return None
    # vanilla's default when the key is absent is true
    return values.get("broadcast-rcon-to-ops", "true").lower() == "true"


def build_event_source(
    server: _ServerLike,
    pack: EventsReader,
    cursor_store: CursorStore | None,
    *,
    log_poll_interval: float = 0.5,
    rcon_poll_interval: float = 2.0,
    broadcast_rcon_to_ops: bool | None = None,
    log_reorder_window: float = LOG_REORDER_WINDOW,
    sftp: SftpSession | None = None,
) -> LogTailer | StoragePoller:
    """The source for one server, by its `event_source` setting (`auto`: the log if readable,
    here or over SFTP). The tailer puts events back in seq order (Paper writes `say` lines late
    and out of order); vanilla's come in order, so there it only waits when a seq is missing."""
    kind = event_kind(server, sftp)
    if server.event_source == "auto":
        said = {"log": "latest.log", "sftp": "latest.log over SFTP", "rcon": "RCON"}[kind]
        log.info("events of %s: %s (auto)", server.name, said)
    if kind == "sftp" and sftp is not None:
        from bot.minecraft.sftp_log import SftpLogFiles

        return LogTailer(
            sftp.path("logs", "latest.log"),
            server.name,
            cursor_store,
            poll_interval=log_poll_interval,
            reorder_window=log_reorder_window,
            files=SftpLogFiles(sftp),
        )
    path = local_log(server)
    if kind == "log" and path is not None:
        return LogTailer(
            path,
            server.name,
            cursor_store,
            poll_interval=log_poll_interval,
            reorder_window=log_reorder_window,
        )
    return StoragePoller(
        pack,
        server.name,
        cursor_store,
        poll_interval=rcon_poll_interval,
        broadcast_rcon_to_ops=broadcast_rcon_to_ops,
    )


def event_kind(server: _ServerLike, sftp: SftpSession | None) -> Literal["log", "sftp", "rcon"]:
    """Where a server's events are read: `log` (this machine), `sftp` (the log over SFTP), or
    `rcon` (the ring buffer)."""
    here = local_log(server)
    if server.event_source == "rcon" or server.events_in_chat is False:
        return "rcon"
    if server.event_source == "log":
        if sftp is not None and server.log_path is None and not log_readable(here):
            return "sftp"
        return "log" if here is not None else "rcon"
    if log_readable(here):
        return "log"
    return "sftp" if sftp is not None else "rcon"


async def merge(
    *sources: EventSource, dedup: SeqDedup | None = None
) -> AsyncGenerator[Event, None]:
    """Events of every source as they come, each (server, seq) once. A source that fails is
    logged and dropped; the others go on."""
    seen = dedup or SeqDedup()
    queue: asyncio.Queue[Event] = asyncio.Queue(maxsize=256)

    async def pump(source: EventSource) -> None:
        async with aclosing(source.events()) as stream:
            async for ev in stream:
                await queue.put(ev)

    tasks = [asyncio.create_task(pump(s)) for s in sources]
    for task in tasks:
        task.add_done_callback(_report)
    try:
        while True:
            ev = await queue.get()
            if seen.is_new(ev):
                yield ev
    finally:
        await cancel_and_wait(*tasks)


def _report(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("an event source stopped", exc_info=task.exception())
