"""The one Event type both event sources produce, the parser of the pack's log line, and the
(server, seq) de-duplication every source and the merge share.

The pack announces each event with `say`, so it reaches latest.log as
`[HH:mm:ss] [Server thread/INFO]: [Not Secure] [Server] [doom.schedule] event=<type> id=<id>
seq=<n> t=<game time> key=value ...`, or `[Rcon]` for the events of a tick the bot runs inside
an RCON call (a wall-clock hand-over runs `core/tick` so). Only lines said by the server itself
or over RCON count: a player who types the same text in chat (`<Name> ...`) or says it
(`[Name] ...`) cannot forge an event.
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

from bot.i18n import Text

__all__ = [
    "LOG_TAG",
    "CursorStore",
    "Event",
    "SeqDedup",
    "event_from_fields",
    "load_cursor",
    "log_message",
    "parse_event_text",
    "parse_log_line",
    "save_cursor",
]

log = logging.getLogger(__name__)

LOG_TAG = "[doom.schedule]"

# `[12:34:56] [Server thread/INFO]: msg`, `[2024-05-01 12:34:56] [Server thread/INFO]: msg`, and
# Paper-style `[12:34:56 INFO]: msg` (hosts reconfigure the layout; the message part is the same).
_LINE = re.compile(
    r"^\[(?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?: (?P<plevel>[A-Z]+))?\]"
    r"(?: \[(?P<thread>[^\]/]*)/(?P<level>[A-Z]+)\])?: (?P<msg>.*)$"
)
# The say line of the server itself (the tick's functions run with the name "Server"; a function
# called over RCON, the hand-over's tick, with "Rcon"); 1.19+ adds the `[Not Secure] ` mark for
# unsigned messages.
_SAID = re.compile(r"^(?:\[Not Secure\] )?\[(?:Server|Rcon)\] \[doom\.schedule\] (?P<body>.*)$")
_REQUIRED = ("event", "id", "seq", "t")
_MAX_SEQ = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Event:
    """One thing the pack reported: a retry, a task that went offline, a dropped task..."""

    server: str  # configured server name
    seq: int
    type: str  # retry, retry_exhausted, offline, restored, dropped, invalid, ...
    task_id: str
    game_time: int
    # values are strings, or lazy texts (bot.i18n) an alert says in its channel's language
    details: Mapping[str, Text] = field(default_factory=lambda: MappingProxyType({}))
    # of a server another process reads, read from the shared event log
    # (bot.background.event_relay): shown and alerted here, neither recorded again nor acted on
    # (the reader does that)
    relayed: bool = field(default=False, compare=False, repr=False)


def _to_int(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        return None
    return value if -_MAX_SEQ <= value <= _MAX_SEQ else None


def event_from_fields(server: str, fields: Mapping[str, str]) -> Event | None:
    """An Event from the pack's named fields (`event`, `id`, `seq`, `t`, extras), None if any
    required field is missing or malformed. Shared by the log parser and the ring-buffer reader."""
    if any(name not in fields for name in _REQUIRED):
        return None
    seq = _to_int(fields["seq"])
    game_time = _to_int(fields["t"])
    kind = fields["event"]
    if seq is None or seq < 0 or game_time is None or not kind:
        return None
    details = {k: v for k, v in fields.items() if k not in _REQUIRED}
    return Event(
        server=server,
        seq=seq,
        type=kind,
        task_id=fields["id"],
        game_time=game_time,
        details=MappingProxyType(details),
    )


def parse_event_text(server: str, body: str) -> Event | None:
    """Parses `event=<type> id=<id> seq=<n> t=<time> k=v ...` (the part after the tag).

    A word without `=` continues the previous value, so a detail such as `reason=no such player`
    keeps its spaces; the four required keys never contain spaces (ids are validated)."""
    fields: dict[str, str] = {}
    last: str | None = None
    for word in body.strip().split(" "):
        if not word:
            continue
        key, sep, value = word.partition("=")
        if sep and key and key.replace("_", "").replace("-", "").isalnum():
            if key in fields:
                return None  # a repeated key: not a line the pack wrote
            fields[key] = value
            last = key
        elif last is not None and last not in _REQUIRED:
            fields[last] = f"{fields[last]} {word}"
        else:
            return None
    return event_from_fields(server, fields)


def log_message(line: str) -> str | None:
    """The message part of a latest.log line (after `]: `), None when the line has another shape."""
    match = _LINE.match(line.rstrip("\r\n"))
    if match is None:
        return None
    level = match.group("level") or match.group("plevel")
    if level is not None and level != "INFO":
        return None
    return match.group("msg")


def parse_log_line(server: str, line: str) -> Event | None:
    """The Event in one latest.log line, or None for any other line. Never raises."""
    try:
        if LOG_TAG not in line:
            return None  # the fast path: almost every line is something else
        message = log_message(line)
        if message is None:
            return None
        said = _SAID.match(message)
        if said is None:
            return None
        return parse_event_text(server, said.group("body"))
    except Exception:  # junk must never stop a tailer; say what it was instead
        log.debug("unparsable log line %r", line[:200], exc_info=True)
        return None


class SeqDedup:
    """Remembers which (server, seq) pairs were delivered.

    Exact for the last `window` seqs of each server (so two sources that deliver out of order lose
    nothing), and everything at or below the floor counts as seen (the floor is the persisted
    cursor after a restart, and rises as old seqs leave the window)."""

    def __init__(self, window: int = 4096) -> None:
        self._window = window
        self._seen: dict[str, set[int]] = {}
        self._floor: dict[str, int] = {}

    def set_floor(self, server: str, seq: int) -> None:
        if seq > self._floor.get(server, -1):
            self._floor[server] = seq
            seen = self._seen.get(server)
            if seen:
                seen.difference_update([s for s in seen if s <= seq])

    def floor(self, server: str) -> int:
        return self._floor.get(server, -1)

    def rewind(self, server: str, seq: int) -> None:
        """The pack's event counter went back to `seq` (its server restarted from a save older
        than the events already delivered): seqs above it are new events again."""
        self._floor[server] = seq
        self._seen[server] = set()

    def forget(self, event: Event) -> None:
        """An event offered and not taken after all: new again when offered next."""
        self._seen.get(event.server, set()).discard(event.seq)

    def is_new(self, event: Event) -> bool:
        """True the first time this (server, seq) is offered; records it."""
        if event.seq <= self._floor.get(event.server, -1):
            return False
        seen = self._seen.setdefault(event.server, set())
        if event.seq in seen:
            return False
        seen.add(event.seq)
        if len(seen) > self._window:
            # trim to half the window at once so the sort is paid rarely (amortised O(log n))
            oldest = sorted(seen)[: len(seen) - self._window // 2]
            seen.difference_update(oldest)
            self._floor[event.server] = max(self._floor.get(event.server, -1), oldest[-1])
        return True

    def highest(self, server: str) -> int:
        """The highest seq delivered (or the floor), the value a cursor stores."""
        seen = self._seen.get(server)
        top = max(seen) if seen else -1
        return max(top, self._floor.get(server, -1))


class CursorStore(Protocol):
    """Where event sources keep their place (bot.store.audit.AuditStore). Either sync or async
    methods are accepted, so the sources do not depend on how the store talks to SQLite."""

    def get_cursor(self, key: str) -> str | Awaitable[str | None] | None: ...

    def set_cursor(self, key: str, value: str) -> Awaitable[None] | None: ...


async def load_cursor(store: CursorStore | None, key: str) -> str | None:
    if store is None:
        return None
    value = store.get_cursor(key)
    if inspect.isawaitable(value):
        value = await value
    return None if value is None else str(value)


async def save_cursor(store: CursorStore | None, key: str, value: str) -> None:
    if store is None:
        return
    result = store.set_cursor(key, value)
    if inspect.isawaitable(result):
        await result
