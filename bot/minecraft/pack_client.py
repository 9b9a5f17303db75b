"""The bot's typed client of the doom.schedule data pack, over RCON.

Mutations go through the pack's storage input (datapack/README.md): the request is written to
`doom.schedule:in task` (or `op`) as data, `function doom.schedule:submit` (or `call`) consumes
it, and `doom.schedule:out` is read back. The command text never gets spliced into a command,
so any Unicode, quotes and backslashes arrive exactly as given. Each request carries a request
id (`req`), and the outcome counts only when `out` echoes it: a request that another caller
overwrote, or that the pack never saw, is reported as such instead of taking a stale answer.

Everything the pack would refuse is refused here first (ids, units, ranges, the command
checker, RCON's request cap), so a bad input costs no round trip and changes nothing.

Reads never ask for a reply that grows with the queue: single values use per-element paths, and
`list_tasks` asks the pack's `page` op for a slice (2 round trips per page; the pack ends a page
early when the tasks' `run` texts pass 8000 characters, and the client asks again from there).
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Final, Protocol

from bot.config import ServerConfig
from bot.errors import PackError, ValidationError
from bot.events.event import Event, event_from_fields
from bot.minecraft.pack_input import (
    MAX_INT,
    check_id,
    check_player,
    check_prefix,
    check_run_text,
    check_ticks,
    check_unit,
    snbt_compound,
    task_input_command,
)
from bot.minecraft.rcon import RconClient
from bot.minecraft.snbt_text import SnbtSyntaxError, parse_printed_snbt
from bot.minecraft.software import strip_colours
from bot.minecraft.tasks import TASK_LISTS, Task, TaskList, task_from_storage

__all__ = ["NOMINAL_TPS", "CommandCheck", "PackClient", "Task"]

log = logging.getLogger(__name__)

NOMINAL_TPS: Final = 20.0
MAX_PAGE: Final = 100  # tasks per list_tasks call: bounds the round trips of one request
_TPS_MIN_SPAN: Final = 1.0  # seconds between the two game-time samples of a TPS measurement
_TPS_WINDOW: Final = 60.0  # samples older than this no longer describe the current rate
_EVENT_SINGLE_READS: Final = 8  # up to this many new events are read one by one, else in bulk
_BULK_IDS: Final = 1000  # task_ids reads a list's ids in one reply up to this many tasks

_STORAGE: Final = re.compile(r"^Storage (\S+) has the following contents: ", re.S)
_RETURNED: Final = re.compile(r"Function \S+ returned (-?\d+)")
_TIME: Final = re.compile(r"^The time is (-?\d+)")
_COUNT: Final = re.compile(r"^Test passed(?:, count: |\. Count: )(\d+)")
_LEADING_COLOURS: Final = re.compile("^(?:§.)+", re.S)


class CommandCheck(Protocol):
    """bot.minecraft.command_check.CommandChecker, as far as the pack client uses it."""

    def check(self, command: str) -> None: ...


def _plain(reply: str) -> str:
    """A status reply as vanilla words it: Bukkit-family servers (and plugins rewriting replies)
    may add `§x` colour codes and end each message with `\n` (../shared/notes/servers.md)."""
    return strip_colours(reply).strip("\n")


def _storage_payload(reply: str) -> str | None:
    """The SNBT of a `data get storage` reply; None for "Found no elements matching ...".
    Only a leading colour and a final `\n` are dropped: the SNBT may hold `§` itself."""
    reply = _LEADING_COLOURS.sub("", reply)
    if reply.endswith("\n"):
        reply = reply[:-1]
    m = _STORAGE.match(reply)
    if m:
        return reply[m.end() :]
    if reply.startswith("Found no elements matching"):
        return None
    raise PackError("bad_reply", f"The server answered a storage read unexpectedly: {reply[:200]}")


class PackClient:
    """Every doom.schedule call as a typed async method (see docs/interfaces.md, `bot`)."""

    def __init__(
        self,
        rcon: RconClient,
        server: ServerConfig,
        checker: CommandCheck,
    ) -> None:
        self.rcon = rcon
        self.server = server
        self.checker = checker
        self._tag = secrets.token_hex(4)  # tells our requests from another bot's
        self._serial = 0
        self._lock = asyncio.Lock()  # one storage-input exchange at a time (in -> call -> out)
        self._samples: deque[tuple[float, int]] = deque(maxlen=64)  # (monotonic s, game time)
        self._tps: float | None = None

    # -- plumbing -------------------------------------------------------------------------------

    def _next_req(self) -> str:
        self._serial += 1
        return f"{self._tag}.{self._serial}"

    async def _read(self, path: str, storage: str = "doom.schedule:data") -> object | None:
        """`data get storage <storage> <path>` as a Python value; None when nothing matches."""
        reply = await self.rcon.command(f"data get storage {storage} {path}".rstrip())
        payload = _storage_payload(reply)
        if payload is None:
            return None
        try:
            return parse_printed_snbt(payload)
        except SnbtSyntaxError as e:
            raise PackError("bad_reply", f"Cannot read the server's storage reply: {e}") from None

    async def _count(self, path: str) -> int:
        reply = _plain(
            await self.rcon.command(f"execute if data storage doom.schedule:data {path}")
        )
        m = _COUNT.match(reply)
        if m:
            return int(m.group(1))
        if reply.startswith("Test failed"):
            return 0
        raise PackError("bad_reply", f"Unexpected answer to counting {path}: {reply[:200]}")

    def _call_failed(self, function: str, reply: str) -> PackError | None:
        """A clear error when the `function` command itself did not run the pack."""
        reply = strip_colours(reply)
        if "Unknown function" in reply or "Unknown or incomplete command" in reply:
            return PackError(
                "not_installed",
                f"Server {self.server.name!r} has no {function}: the doom.schedule data pack "
                "is not installed or not enabled (`python -m bot install-datapack`).",
            )
        return None

    async def _exchange(
        self, input_command: str, function: str, req: str, *, as_player: str | None = None
    ) -> dict[str, object]:
        """Write the input, run the pack's function, read `out`; the outcome if it is ours."""
        async with self._lock:
            await self.rcon.command(input_command)
            call = f"function {function}"
            if as_player is not None:
                call = f"execute as {as_player} at @s run {call}"
            reply = await self.rcon.command(call)
            error = self._call_failed(function, reply)
            if error is not None:
                raise error
            out = await self._read("", "doom.schedule:out")
            if as_player is not None and (not isinstance(out, dict) or out.get("req") != req):
                await self._player_missing(as_player, req)
        if not isinstance(out, dict) or out.get("req") != req:
            raise PackError(
                "no_answer",
                f"The pack on {self.server.name!r} did not answer this request (its outcome "
                "record belongs to another request); nothing is known about what it did.",
            )
        self._sample_out(out)
        return out

    def _sample_out(self, out: Mapping[str, object]) -> None:
        game_time = out.get("time")
        # -1 is the outcome record's "none" (ops that do not read the clock)
        if isinstance(game_time, int) and not isinstance(game_time, bool) and game_time >= 0:
            self._sample_at(time.monotonic(), game_time)

    async def _player_missing(self, player: str, req: str) -> None:
        """`execute as <name>` matched nobody (vanilla: no error, no context), so our input is
        still in `doom.schedule:in task`: take it back and say why."""
        left = await self.rcon.command(
            f'execute if data storage doom.schedule:in task{{req:"{req}"}}'
        )
        if _COUNT.match(_plain(left)):
            await self.rcon.command("data remove storage doom.schedule:in task")
            raise PackError(
                "player_offline",
                f"Player {player} is not online on {self.server.name!r}; a task runs as a "
                "player only when it is scheduled while they are online.",
            )

    @staticmethod
    def _raise_unless_ok(out: Mapping[str, object], *, tolerate: str | None = None) -> bool:
        """True on success, False for the tolerated code, else PackError with the pack's words."""
        if out.get("ok") == 1:
            return True
        code = str(out.get("code", "unknown"))
        if code == tolerate:
            return False
        raise PackError(code, str(out.get("message") or f"The pack refused the request ({code})."))

    async def _op(self, op: str, id: str | None = None) -> dict[str, object]:
        req = self._next_req()
        fields: dict[str, str | int] = {"req": req, "op": op}
        if id is not None:
            fields["id"] = id
        command = "data modify storage doom.schedule:in op set value " + snbt_compound(fields)
        return await self._exchange(command, "doom.schedule:call", req)

    # -- scheduling -----------------------------------------------------------------------------

    def _check_run(self, run: str) -> str:
        text = check_run_text(run)
        self.checker.check(text)
        return text

    async def schedule(
        self,
        run: str,
        time: int,
        unit: str,
        id: str,
        *,
        retry: int = 0,
        retry_delay: int = 1,
        interval: int | None = None,
        at_tick: int | None = None,
        as_player: str | None = None,
    ) -> Task | None:
        """Queue `run`; returns the queued task (None if it already ran or left the queue)."""
        check_id(id)
        ticks = check_unit(unit)
        fields: dict[str, str | int] = {"id": id, "unit": unit}
        if at_tick is not None:
            fields["tick"] = check_ticks(at_tick, "The game tick `at`")
        else:
            fields["time"] = check_ticks(time, "The delay", unit_ticks=ticks, unit=unit)
        if interval is not None:
            fields["interval"] = check_ticks(
                interval, "The interval", minimum=1, unit_ticks=ticks, unit=unit
            )
        if retry:
            fields["retry"] = check_ticks(retry, "The number of retries")
            fields["retry_delay"] = check_ticks(retry_delay, "The retry delay", minimum=1)
        elif retry_delay != 1:
            check_ticks(retry_delay, "The retry delay", minimum=1)
        player = check_player(as_player) if as_player is not None else None
        text = self._check_run(run)
        req = self._next_req()
        command = task_input_command({"req": req, "run": text, **fields})
        out = await self._exchange(command, "doom.schedule:submit", req, as_player=player)
        self._raise_unless_ok(out)
        serial = out.get("n")
        if not isinstance(serial, int):
            return None
        return await self._task_by_serial(serial)

    async def schedule_dynamic(self, run: str, time: int, unit: str, prefix: str) -> str:
        """Queue `run` under a new id `<prefix><n>`; returns that id."""
        check_prefix(prefix)
        ticks = check_unit(unit)
        delay = check_ticks(time, "The delay", unit_ticks=ticks, unit=unit)
        text = self._check_run(run)
        req = self._next_req()
        command = task_input_command(
            {"req": req, "run": text, "prefix": prefix, "time": delay, "unit": unit}
        )
        out = await self._exchange(command, "doom.schedule:submit", req)
        self._raise_unless_ok(out)
        new_id = out.get("id")
        if not isinstance(new_id, str):
            raise PackError("bad_reply", "The pack scheduled the task but did not say its id.")
        return new_id

    async def _task_by_serial(self, serial: int) -> Task | None:
        for which in TASK_LISTS:
            value = await self._read(f"{which}[{{n:{serial}}}]")
            if isinstance(value, dict):
                return task_from_storage(value, which)
        return None

    # -- the other operations -------------------------------------------------------------------

    async def cancel_one(self, id: str) -> bool:
        """Remove the first task with this id (queue, offline, paused); False if none."""
        return self._raise_unless_ok(
            await self._op("cancel_one", check_id(id)), tolerate="not_found"
        )

    async def cancel_all(self, id: str) -> int:
        """Remove every task with this id; how many were removed."""
        out = await self._op("cancel_all", check_id(id))
        if not self._raise_unless_ok(out, tolerate="not_found"):
            return 0
        return _as_int(out.get("count"))

    async def count(self, id: str) -> int:
        """How many tasks `cancel_all(id)` would remove."""
        out = await self._op("count", check_id(id))
        if not self._raise_unless_ok(out, tolerate="not_found"):
            return 0
        return _as_int(out.get("count"))

    async def clear(self) -> int:
        """Remove every task; how many were removed."""
        out = await self._op("clear")
        self._raise_unless_ok(out, tolerate="not_found")
        return _as_int(out.get("count"))

    async def pause(self, id: str) -> bool:
        return self._raise_unless_ok(await self._op("pause", check_id(id)), tolerate="not_found")

    async def resume(self, id: str) -> bool:
        return self._raise_unless_ok(await self._op("resume", check_id(id)), tolerate="not_found")

    async def get_time(self) -> int:
        """The game time, through the pack's `get_time` (one round trip)."""
        reply = await self.rcon.command("function doom.schedule:get_time")
        error = self._call_failed("doom.schedule:get_time", reply)
        if error is not None:
            raise error
        m = _RETURNED.search(strip_colours(reply))
        if not m:
            raise PackError("bad_reply", f"Unexpected answer to get_time: {reply[:200]}")
        value = int(m.group(1))
        self._sample_at(time.monotonic(), value)
        return value

    async def version(self) -> str:
        """The version the running pack wrote to `doom.schedule:const version`."""
        value = await self._read("version", "doom.schedule:const")
        if not isinstance(value, str):
            raise PackError(
                "not_installed",
                f"Server {self.server.name!r} has no doom.schedule version in storage: the pack "
                "is not installed, or its #load never ran.",
            )
        return value

    # -- reading the lists ----------------------------------------------------------------------

    @staticmethod
    def _check_list(which: str) -> TaskList:
        for name in TASK_LISTS:
            if which == name:
                return name
        raise ValidationError(f"{which!r} is not a task list; use queue, offline or paused.")

    async def list_tasks(
        self, which: str, *, offset: int = 0, limit: int = 20
    ) -> tuple[list[Task], int]:
        """One page of a list (in the pack's order) and the list's length."""
        name = self._check_list(which)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise ValidationError(f"The page offset must be 0 or more (got {offset!r}).")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
            raise ValidationError(f"A page holds 1 to {MAX_PAGE} tasks (got {limit!r}).")
        page: list[Task] = []
        total = 0
        start = offset
        while len(page) < limit:
            out = await self._page(name, start, limit - len(page))
            total = _as_int(out.get("total"))
            found = out.get("page")
            tasks = [t for t in found if isinstance(t, dict)] if isinstance(found, list) else []
            page.extend(task_from_storage(t, name) for t in tasks)
            after = _as_int(out.get("next"))
            if not tasks or after >= total or after <= start:
                break  # the end of the list, or a page cut short by size: ask again from `next`
            start = after
        if not self._recent_sample():
            await self._sample()  # so eta() has a current game time for this page
        return page, total

    async def _page(self, which: TaskList, start: int, count: int) -> dict[str, object]:
        """The pack's `page` op through the storage input: the input, then one command that runs
        it and, when it succeeded, prints `doom.schedule:out` (2 round trips)."""
        req = self._next_req()
        fields: dict[str, str | int] = {
            "req": req, "op": "page", "list": which, "from": start, "count": count,
        }  # fmt: skip
        command = "data modify storage doom.schedule:in op set value " + snbt_compound(fields)
        async with self._lock:
            await self.rcon.command(command)
            reply = await self.rcon.command(
                "execute if function doom.schedule:call run data get storage doom.schedule:out"
            )
            error = self._call_failed("doom.schedule:call", reply)
            if error is not None:
                raise error
            if not reply:  # the op failed: `if function` stopped the command; out says why
                out = await self._read("", "doom.schedule:out")
            else:
                payload = _storage_payload(reply)
                try:
                    out = parse_printed_snbt(payload) if payload is not None else None
                except SnbtSyntaxError as e:
                    raise PackError("bad_reply", f"Cannot read the page reply: {e}") from None
        if not isinstance(out, dict) or out.get("req") != req:
            raise PackError(
                "no_answer",
                f"The pack on {self.server.name!r} did not answer this page request (its "
                "outcome record belongs to another request).",
            )
        self._raise_unless_ok(out)
        self._sample_out(out)
        return out

    async def show(self, id: str) -> Task | None:
        """The first task with this id (queue, then offline, then paused), or None."""
        check_id(id)
        for which in TASK_LISTS:
            n = await self._count(f'{which}[{{id:"{id}"}}]')
            if n == 0:
                continue
            if n == 1:
                value = await self._read(f'{which}[{{id:"{id}"}}]')
            else:
                # several share the id: `append from` copies every match in list order, so the
                # first one is element 0 of the copy (4 round trips, whatever the list's length)
                async with self._lock:
                    await self.rcon.command("data modify storage doom.bot:view t set value []")
                    await self.rcon.command(
                        "data modify storage doom.bot:view t append from storage "
                        f'doom.schedule:data {which}[{{id:"{id}"}}]'
                    )
                    value = await self._read("t[0]", "doom.bot:view")
                    await self.rcon.command("data remove storage doom.bot:view t")
            if isinstance(value, dict):
                return task_from_storage(value, which)
        return None

    async def task_ids(self, prefix: str = "", limit: int = 25) -> list[str]:
        """Distinct task ids starting with `prefix` (then containing it), for autocomplete."""
        starts: list[str] = []
        contains: list[str] = []
        needle = prefix.lower()
        for which in TASK_LISTS:
            total = await self._count(f"{which}[]")
            if total == 0:
                continue
            ids: list[object]
            if total <= _BULK_IDS:
                # one reply of at most _BULK_IDS ids (<= 66 bytes each)
                async with self._lock:
                    await self.rcon.command("data modify storage doom.bot:view ids set value []")
                    await self.rcon.command(
                        "data modify storage doom.bot:view ids append from storage "
                        f"doom.schedule:data {which}[].id"
                    )
                    value = await self._read("ids", "doom.bot:view")
                    await self.rcon.command("data remove storage doom.bot:view ids")
                ids = value if isinstance(value, list) else []
            else:
                ids = []
                for index in range(min(total, 4 * limit)):
                    ids.append(await self._read(f"{which}[{index}].id"))
            for task_id in ids:
                if not isinstance(task_id, str) or task_id in starts or task_id in contains:
                    continue
                low = task_id.lower()
                if low.startswith(needle):
                    starts.append(task_id)
                elif needle in low:
                    contains.append(task_id)
            if len(starts) >= limit:
                break
        return (starts + contains)[:limit]

    async def events_after(self, seq: int) -> list[Event]:
        """Events in the ring buffer with a seq greater than `seq`, oldest first."""
        last = await self._read("seq", "doom.schedule:events")
        if not isinstance(last, int) or last <= seq:
            return []
        entries: list[object] = []
        if last - seq <= _EVENT_SINGLE_READS:
            # by seq, not by position from the end: the game ticks between two reads, and an
            # event appended meanwhile would shift `entries[-k]` onto a newer one (seq skipped)
            for wanted in range(seq + 1, last + 1):
                value = await self._read(f"entries[{{seq:{wanted}}}]", "doom.schedule:events")
                if value is not None:
                    entries.append(value)
        else:
            value = await self._read("entries", "doom.schedule:events")
            entries = value if isinstance(value, list) else []
        events = [ev for ev in (self._event(e) for e in entries) if ev is not None and ev.seq > seq]
        events.sort(key=lambda ev: ev.seq)
        return events

    def _event(self, entry: object) -> Event | None:
        if not isinstance(entry, dict):
            return None
        fields = {"event": entry.get("type"), "id": entry.get("id"), "seq": entry.get("seq"),
                  "t": entry.get("t")}  # fmt: skip
        fields.update({k: v for k, v in entry.items() if k not in ("type", "id", "seq", "t")})
        return event_from_fields(
            self.server.name, {k: str(v) for k, v in fields.items() if v is not None}
        )

    # -- time -----------------------------------------------------------------------------------

    def _sample_at(self, mono: float, game_time: int) -> None:
        self._samples.append((mono, game_time))

    def _recent_sample(self) -> bool:
        return bool(self._samples) and time.monotonic() - self._samples[-1][0] < _TPS_WINDOW

    async def _sample(self) -> tuple[float, int]:
        reply = _plain(await self.rcon.command("time query gametime"))
        m = _TIME.match(reply)
        if not m:
            raise PackError("bad_reply", f"Unexpected answer to `time query gametime`: {reply}")
        sample = (time.monotonic(), int(m.group(1)))
        self._samples.append(sample)
        return sample

    async def tps(self) -> float:
        """Ticks per second measured from two game-time samples at least 1 s apart."""
        now, game = await self._sample()
        base = self._baseline(now)
        if base is None:
            await asyncio.sleep(_TPS_MIN_SPAN)
            now, game = await self._sample()
            base = self._baseline(now)
        assert base is not None
        rate = (game - base[1]) / (now - base[0])
        self._tps = max(rate, 0.0)
        return self._tps

    def _baseline(self, now: float) -> tuple[float, int] | None:
        """The oldest sample within the window that is at least _TPS_MIN_SPAN old."""
        for sample in self._samples:
            age = now - sample[0]
            if _TPS_MIN_SPAN <= age <= _TPS_WINDOW:
                return sample
        return None

    def eta(self, due_tick: int) -> datetime:
        """The wall-clock time (UTC) at which game time reaches `due_tick`, at the measured TPS.

        Uses the last game-time sample (every schedule call, get_time, tps and list_tasks take
        one) and the last measured TPS (20 until measured; a frozen game counts as 20 too, since
        the ETA is then unknowable and "as if running" is the useful reading)."""
        now = datetime.now(UTC)
        if not self._samples:
            return now + timedelta(seconds=max(due_tick, 0) / NOMINAL_TPS)
        rate = self._tps if self._tps and self._tps > 0.01 else NOMINAL_TPS
        mono, game = self._samples[-1]
        current = game + (time.monotonic() - mono) * rate
        seconds = max(0.0, (due_tick - current) / rate)
        return now + timedelta(seconds=min(seconds, MAX_INT / 0.01))


def _as_int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
