"""The Minecraft side of a wall-clock run: hand a due task to the pack, run it now, mark it, and
the countdown `tellraw` before it.

A hand-over queues the task with a delay of 0 (so context capture, retry and offline parking
are the pack's): with the request staged ahead (PackClient.stage, a couple of seconds before the
due time), in one RCON call at the due time (`submit_staged`); else through the pack client's
ordinary `schedule` (write the input, then submit). It is followed by
`function doom.schedule:core/tick` in the next RCON call: a server paused because it is empty
skips its ticks but still runs RCON commands (../shared/notes/vanilla-1.21.md, "Time and
persistence"), so the due task runs inside that call instead of waiting for a tick that will not
come. On a ticking server it runs the task at most one tick early (a task due now runs in the
next tick anyway), and the tasks of the next tick with it.

Never twice: the submit sets a mark `doom.bot:wallclock done.<key>` to 1b in the same command,
only when the task was queued (`execute if function ... run` or `execute store success`). A
hand-over retried after an RCON drop first asks for the mark: present means the server has the
task, so it is not sent again. The submit itself runs only while the mark is not set (`execute
unless`, in the same command): two processes handing one run over (the lease moved while the
first one's submit was on its way, and the new holder resumed the run before it arrived) queue
it once; the one that finds the mark set gets no answer and its retry finds the mark.
"""

from __future__ import annotations

__all__ = [
    "MARKS",
    "HandOver",
    "announcement",
    "forget_mark",
    "hand_over",
    "has_mark",
    "listed_players",
    "online_players",
    "pause_when_empty_seconds",
    "players_online",
    "run_copy",
    "run_due_now",
    "where",
]

import contextlib
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from bot.config import ServerConfig
from bot.errors import BotError, PackError
from bot.i18n import _, lazy, ngettext
from bot.minecraft.pack_client import PackClient, Staged
from bot.minecraft.pack_tasks import Task
from bot.minecraft.server_files import find_server_properties, read_properties

log = logging.getLogger(__name__)

MARKS = "doom.bot:wallclock"
_KEY = re.compile(r"^[A-Za-z0-9_]{1,40}$")
_LIST = re.compile(r"^There are (\d+) of a max")
_NAMES = re.compile(r"^There are \d+ of a max of \d+ players online:(.*)$", re.DOTALL)
_PASSED = re.compile(r"^Test passed")
Where = Literal["ran", "queue", "offline", "paused"]


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class HandOver:
    """What the pack did with a handed-over task: `ran` (gone from the lists after the run),
    or the list it still waits in (queue: retrying or capped; offline: its player left); when
    the pack acknowledged it, and when the call it ran in returned."""

    serial: int | None
    where: Where
    handed_at: datetime
    ran_at: datetime


def _key(key: str) -> str:
    if not _KEY.match(key):
        raise ValueError(f"bad mark key {key!r}")
    return key


def _marked(key: str) -> str:
    """The condition that the server has the hand-over of this key. 1b only: `execute store
    success` leaves 0b when the submit was refused."""
    return f"data storage {MARKS} done{{{_key(key)}:1b}}"


async def has_mark(pack: PackClient, key: str) -> bool:
    """Whether the server acknowledged the hand-over of this key (one round trip)."""
    return await pack.holds(_marked(key))


async def forget_mark(pack: PackClient, key: str) -> None:
    """Drop the mark once the bot's record says the run was handed over (keeps storage small)."""
    await pack.rcon.command(f"data remove storage {MARKS} done.{_key(key)}")


async def run_due_now(pack: PackClient) -> None:
    """Run what is due in the pack inside this RCON call (works on a paused server too)."""
    reply = await pack.rcon.command("function doom.schedule:core/tick")
    if "Unknown function" in reply or "Unknown or incomplete command" in reply:
        raise PackError(
            "not_installed",
            lazy(
                "Server {name} has no doom.schedule:core/tick: the data pack is not installed or "
                "not enabled.",
                name=repr(pack.server.name),
            ),
        )


async def where(pack: PackClient, serial: int) -> Where:
    """Which list a task waits in by its serial, or `ran` when it is in none (it ran, or
    the pack removed it)."""
    for which in ("offline", "queue", "paused"):
        reply = await pack.rcon.command(
            f"execute if data storage doom.schedule:data {which}[{{n:{serial}}}]"
        )
        if _PASSED.match(reply):
            return which
    return "ran"


async def waits_for_conditions(pack: PackClient, serial: int) -> bool:
    """Does the queued task of this serial wait for its conditions (`require` with
    `if_not:wait`: the pack keeps `cond.until` while it waits)?"""
    reply = await pack.rcon.command(
        f"execute if data storage doom.schedule:data queue[{{n:{serial}}}].cond.until"
    )
    return _PASSED.match(reply) is not None


async def _where(pack: PackClient, serial: int) -> Where:
    # a task just run cannot be paused (only a command could do that), so two lists suffice
    which: Where
    for which in ("offline", "queue"):
        reply = await pack.rcon.command(
            f"execute if data storage doom.schedule:data {which}[{{n:{serial}}}]"
        )
        if _PASSED.match(reply):
            return which
    return "ran"


async def hand_over(
    pack: PackClient,
    *,
    command: str,
    task_id: str,
    key: str,
    retry: int = 0,
    retry_delay: int = 1,
    as_player: str | None = None,
    skip_submit: bool = False,
    staged: Staged | None = None,
    now: Callable[[], datetime] = _utcnow,
    task_key: str | None = None,
    executor: str | None = None,
    place: str | None = None,
    cond: Mapping[str, str | int] | None = None,
    on_doubt: str | None = None,
) -> HandOver:
    """Queue the task due now (marked `key`), then run it; `skip_submit` when the mark shows the
    server already has it (a retry after a drop); `staged`: its request, staged ahead. `now` is
    the caller's clock; the hand-over's time is when the server's acknowledgement arrived.
    `task_key`: the queued task's bot key (the crash record's name for it); `on_doubt`: its
    policy when a crash leaves its run unknown (PackClient.schedule; a staged request has it)."""
    serial: int | None = None
    handed = now()
    acked: list[datetime] = []
    if not skip_submit and staged is not None:
        try:
            serial = await pack.submit_staged(
                staged,
                as_player=as_player,
                mark=f"storage {MARKS} done.{_key(key)}",
                on_ack=lambda: acked.append(now()),
                unless=_marked(key),
            )
            skip_submit = True
        except PackError as e:
            # no_input: the server lost it (restarted from an older save); not_installed: a pack
            # older than 2.2.0. Nothing was queued either way: write the request now.
            if e.code not in ("no_input", "not_installed"):
                raise
            log.info("%s: staged hand-over of %s not possible (%s)", pack.server.name, task_id, e)
            acked.clear()
    if not skip_submit:
        task = await pack.schedule(
            command,
            0,
            "tick",
            task_id,
            retry=retry,
            retry_delay=retry_delay,
            as_player=as_player,
            then=f"data modify storage {MARKS} done.{_key(key)} set value 1b",
            on_ack=lambda: acked.append(now()),
            key=task_key,
            executor=executor,
            place=place,
            cond=cond,
            on_doubt=on_doubt,
            unless=_marked(key),
        )
        serial = task.n if task is not None else None
    if acked:
        handed = acked[0]
    await run_due_now(pack)
    ran = now()
    where: Where = "ran" if serial is None else await _where(pack, serial)
    return HandOver(serial, where, handed, ran)


async def run_copy(
    pack: PackClient, task: Task, *, key: str, now: Callable[[], datetime] = _utcnow
) -> HandOver:
    """Run a queued task once, now, leaving it queued at its due: a copy of it (its command,
    retries, and its context: its executor, else the place it was scheduled at) handed over
    due now, as a wall-clock run is. The copy never repeats."""
    place = await pack.place(task)
    try:
        return await hand_over(
            pack,
            command=task.run,
            task_id=task.id,
            key=key,
            retry=task.retry,
            retry_delay=task.retry_delay,
            executor=task.executor,
            place=place,
            now=now,
            task_key=key,
        )
    finally:
        with contextlib.suppress(BotError):
            await forget_mark(pack, key)


def tellraw_all(parts: list[dict[str, str]]) -> str:
    """`tellraw @a` of JSON text components: quotes or braces in a text cannot break it."""
    return "tellraw @a " + json.dumps(parts, ensure_ascii=False, separators=(",", ":"))


def announcement(task_id: str, seconds: int) -> str:
    """`tellraw @a` telling everyone online what starts and in how long (as restart warnings
    do)."""
    return tellraw_all(
        [
            {"text": "[doom.schedule] ", "color": "gold"},
            {"text": task_id, "color": "yellow"},
            {"text": _(" starts in {wait}.", wait=_spoken(seconds)), "color": "white"},
        ]
    )


def _unit(name: str, n: int) -> str:
    """`n` of a unit in the current locale (the scheduler sets the server's)."""
    if name == "day":
        return ngettext("{n} day", "{n} days", n, n=n)
    if name == "hour":
        return ngettext("{n} hour", "{n} hours", n, n=n)
    if name == "minute":
        return ngettext("{n} minute", "{n} minutes", n, n=n)
    return ngettext("{n} second", "{n} seconds", n, n=n)


def _spoken(seconds: int) -> str:
    parts = []
    for name, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        if seconds >= size:
            n, seconds = divmod(seconds, size)
            parts.append(_unit(name, n))
    return " ".join(parts[:2]) or _unit("second", 0)


async def players_online(pack: PackClient) -> int:
    """How many players are online (`list`)."""
    reply = await pack.rcon.command("list")
    m = _LIST.match(reply)
    if not m:
        raise PackError(
            "bad_reply", lazy("Unexpected answer to `list`: {reply}", reply=reply[:200])
        )
    return int(m.group(1))


async def listed_players(pack: PackClient) -> list[str]:
    """The names of the players online (`list`), as the server writes them."""
    reply = await pack.rcon.command("list")
    m = _NAMES.match(reply)
    if not m:
        raise PackError(
            "bad_reply", lazy("Unexpected answer to `list`: {reply}", reply=reply[:200])
        )
    return [n.strip() for n in m.group(1).split(",") if n.strip()]


async def online_players(pack: PackClient) -> set[str]:
    """The names of the players online (`list`), lower case: names are not case-sensitive."""
    return {n.lower() for n in await listed_players(pack)}


def pause_when_empty_seconds(server: ServerConfig) -> int:
    """server.properties `pause-when-empty-seconds` (vanilla's 60 when unreadable or absent)."""
    path = find_server_properties(server)
    values = read_properties(path) if path is not None else None
    try:
        return int((values or {}).get("pause-when-empty-seconds", "60"))
    except ValueError:
        return 60
