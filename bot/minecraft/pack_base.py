"""The plumbing under the pack client: the RCON exchange of the storage input, reads of the
pack's storage, and the game-time samples behind tps() and eta().

Split from bot/minecraft/pack_client.py (which holds the calls) so that each module stays small;
see that module's docstring for how an exchange works.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Concatenate, Final, ParamSpec, Protocol, TypeVar

from bot.config import ServerConfig
from bot.errors import BotError, PackError, ServerUnavailable
from bot.i18n import lazy
from bot.minecraft.pack_input import (
    MAX_INT,
    check_run_text,
    snbt_compound,
)
from bot.minecraft.pack_tasks import PackRecorder
from bot.minecraft.rcon import RconClient
from bot.minecraft.snbt_text import SnbtSyntaxError, parse_printed_snbt
from bot.minecraft.software import strip_colours

__all__ = ["MAX_PAGE", "NOMINAL_TPS", "CommandCheck", "ExchangeLock", "PackBase", "recorded_write"]

log = logging.getLogger(__name__)

NOMINAL_TPS: Final = 20.0
MAX_PAGE: Final = 100  # tasks per list_tasks call: bounds the round trips of one request
_TPS_MIN_SPAN: Final = 1.0  # seconds between the two game-time samples of a TPS measurement
READ_TRIES: Final = 3  # see PackBase.read_again
_TPS_WINDOW: Final = 60.0  # samples older than this no longer describe the current rate
_EVENT_SINGLE_READS: Final = 8  # up to this many new events are read one by one, else in bulk
_BULK_IDS: Final = 1000  # task_ids reads a list's ids in one reply up to this many tasks

_STORAGE: Final = re.compile(r"^Storage (\S+) has the following contents: ", re.S)
_RETURNED: Final = re.compile(r"Function \S+ returned (-?\d+)")
_TIME: Final = re.compile(r"^The time is (-?\d+)")
_COUNT: Final = re.compile(r"^Test passed(?:, count: |\. Count: )(\d+)")
_LEADING_COLOURS: Final = re.compile("^(?:§.)+", re.S)
_SCORE: Final = re.compile(r"^\S+ has (-?\d+) \[")


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
    raise PackError(
        "bad_reply",
        lazy("The server answered a storage read unexpectedly: {reply}", reply=reply[:200]),
    )


_P = ParamSpec("_P")
_R = TypeVar("_R")
_B = TypeVar("_B", bound="PackBase")


def recorded_write(
    method: Callable[Concatenate[_B, _P], Coroutine[Any, Any, _R]],
) -> Callable[Concatenate[_B, _P], Coroutine[Any, Any, _R]]:
    """A call that changes the pack's lists and records it (the call and its record as one):
    it waits while the crash guard compares the lists with the record (`PackBase.exclusive`)."""

    @functools.wraps(method)
    async def gated(self: _B, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if self._gate_holder is asyncio.current_task():
            return await method(self, *args, **kwargs)  # the comparison's own restore
        async with self._writes:
            return await method(self, *args, **kwargs)

    return gated


class ExchangeLock:
    """One exchange with the pack's storage at a time (its input, the call, its one outcome
    record): in this process an asyncio lock; when several bot processes share the servers,
    also `across` them (a database lock, bot.store.pack_lock), since a request from any of
    them would overwrite another's input or outcome record on the same server."""

    def __init__(self) -> None:
        self._local = asyncio.Lock()
        self.across: Callable[[], contextlib.AbstractAsyncContextManager[object]] | None = None
        self._held: contextlib.AsyncExitStack | None = None

    def locked(self) -> bool:
        return self._local.locked()

    async def __aenter__(self) -> None:
        await self._local.acquire()
        if self.across is None:
            return
        stack = contextlib.AsyncExitStack()
        try:
            await stack.enter_async_context(self.across())
        except BaseException:
            self._local.release()
            raise
        self._held = stack

    async def __aexit__(self, *exc: object) -> None:
        held, self._held = self._held, None
        try:
            if held is not None:
                await held.aclose()
        finally:
            self._local.release()


class PackBase:
    """State and helpers shared by the pack client's reads and calls."""

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
        self._lock = ExchangeLock()  # one storage-input exchange at a time (in -> call -> out)
        self._samples: deque[tuple[float, int]] = deque(maxlen=64)  # (monotonic s, game time)
        self._tps: float | None = None
        self.recorder: PackRecorder | None = None  # the crash record (bot.store.ledger)
        # waits until the crash guard has compared after a restart (CrashGuard.compared): the
        # record is complete only once the log before the crash was read to its end
        self.compared: Callable[[], Awaitable[None]] | None = None
        self.last_event_seq: int | None = None  # the pack's event counter (events_after)
        # held by the crash guard's comparison: a change landing between its read of the lists
        # and its read of the record would be compared half done (a task queued then is put in
        # a second time; one cancelled then comes back)
        self._writes = asyncio.Lock()
        self._gate_holder: asyncio.Task[Any] | None = None

    def share_exchanges(
        self, across: Callable[[], contextlib.AbstractAsyncContextManager[object]]
    ) -> None:
        """Hold `across` too around each exchange: other bot processes ask this server's pack."""
        self._lock.across = across

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """Hold every other caller's recorded write (`recorded_write`) until the block ends;
        the holding task's own writes go through."""
        async with self._writes:
            self._gate_holder = asyncio.current_task()
            try:
                yield
            finally:
                self._gate_holder = None

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
            raise PackError(
                "bad_reply", lazy("Cannot read the server's storage reply: {error}", error=e)
            ) from None

    async def read_again(self, path: str, storage: str = "doom.schedule:data") -> object | None:
        """`_read` for what the bot must learn once it sent a request (its outcome record, the
        task it queued): a dropped read is tried up to READ_TRIES times, on a new connection
        each (reading changes nothing), rather than leave the outcome unknown."""
        for _ in range(READ_TRIES - 1):
            with contextlib.suppress(ServerUnavailable):
                return await self._read(path, storage)
        return await self._read(path, storage)

    async def _count(self, path: str) -> int:
        reply = _plain(
            await self.rcon.command(f"execute if data storage doom.schedule:data {path}")
        )
        m = _COUNT.match(reply)
        if m:
            return int(m.group(1))
        if reply.startswith("Test failed"):
            return 0
        raise PackError(
            "bad_reply",
            lazy("Unexpected answer to counting {path}: {reply}", path=path, reply=reply[:200]),
        )

    def _call_failed(self, function: str, reply: str) -> PackError | None:
        """A clear error when the `function` command itself did not run the pack."""
        reply = strip_colours(reply)
        if "Unknown function" in reply or "Unknown or incomplete command" in reply:
            return PackError(
                "not_installed",
                lazy(
                    "Server {name} has no {function}: the doom.schedule data pack is not "
                    "installed or not enabled (`python -m bot install-datapack`).",
                    name=repr(self.server.name),
                    function=function,
                ),
            )
        return None

    async def _exchange(
        self,
        input_command: str | None,
        function: str,
        req: str,
        *,
        as_player: str | None = None,
        then: str | None = None,
        store_success: str | None = None,
        staged_key: str | None = None,
        on_ack: Callable[[], object] | None = None,
        context: str | None = None,
        unless: str | None = None,
    ) -> dict[str, object]:
        """Write the input, run the pack's function, read `out`; the outcome if it is ours.

        `staged_key` (with `input_command` None): the input was staged ahead in
        `doom.schedule:in staged.<key>` and the function takes the key; a refusal for want of it
        says `out.req` "staged.<key>". `then` is a command run in the same RCON call only when
        the function succeeded; `store_success` (a storage target) stores the call's success
        there instead (`execute if function` takes no arguments): either is the mark that tells
        a retried hand-over whether the server has the task. `on_ack` is called as soon as the
        call returned (when the pack had queued it, if ok). `unless` (an `execute unless`
        condition, the caller's own text): the server runs the call only while it does not hold,
        in the same command; when it holds nothing runs and the outcome is not ours."""
        input_path = "task" if staged_key is None else f"staged.{staged_key}"
        ours = {req} if staged_key is None else {req, input_path}
        call = f"function {function}"
        if staged_key is not None:
            call += f' {{key:"{staged_key}"}}'
        if then is not None:
            call = f"execute if function {function} run {then}"
        if store_success is not None:
            call = f"execute store success {store_success} byte 1 run {call}"
        if as_player is not None:
            call = f"execute as {as_player} at @s run {call}"
        elif context is not None:  # checked by the caller: a dimension and numbers only
            call = f"execute {context} run {call}"
        bare = call
        if unless is not None:
            call = f"execute unless {unless} run {call}"
        out: object | None
        async with self._lock:
            if input_command is not None:
                try:
                    await self.rcon.command(input_command)
                except ServerUnavailable:
                    # the call that acts on the input was never sent; the next request's input
                    # overwrites this one
                    raise ServerUnavailable(
                        lazy(
                            "The connection to server {name} dropped before the pack ran the "
                            "request: nothing changed. Try again.",
                            name=repr(self.server.name),
                        )
                    ) from None
            try:
                reply = await self.rcon.command(call)
            except ServerUnavailable as dropped:
                if then is not None or store_success is not None:
                    raise  # a hand-over with a mark: its own retry asks the server for it
                out = await self._outcome_after_drop(function, req, ours, dropped)
                if on_ack is not None:
                    on_ack()
            else:
                if on_ack is not None:
                    on_ack()
                error = self._call_failed(function, reply)
                if error is not None:
                    raise error
                out = await self.read_again("", "doom.schedule:out")
                if (
                    unless is not None
                    and (not isinstance(out, dict) or out.get("req") not in ours)
                    and not await self.holds(unless)
                ):
                    # not stopped by the guard, yet no outcome: an error after `unless` is
                    # silent in vanilla (an unknown function: a pack too old or not enabled).
                    # Nothing was queued; the call without the guard says which error
                    error = self._call_failed(function, await self.rcon.command(bare))
                    if error is not None:
                        raise error
                    out = await self.read_again("", "doom.schedule:out")
                if as_player is not None and (
                    not isinstance(out, dict) or out.get("req") not in ours
                ):
                    await self._player_missing(as_player, req, input_path)
        if not isinstance(out, dict) or out.get("req") not in ours:
            raise PackError(
                "no_answer",
                lazy(
                    "The pack on {name} did not answer this request (its outcome record belongs "
                    "to another request); nothing is known about what it did.",
                    name=repr(self.server.name),
                ),
            )
        self._sample_out(out)
        return out

    async def holds(self, condition: str) -> bool:
        """Whether an `execute if` condition holds on the server now (one round trip)."""
        reply = strip_colours(await self.rcon.command(f"execute if {condition}"))
        return reply.startswith("Test passed")

    async def _outcome_after_drop(
        self, function: str, req: str, ours: set[str], dropped: ServerUnavailable
    ) -> dict[str, object]:
        """The connection dropped during the call: ask the pack what became of the request.
        Its outcome record echoing `req` is the call's own outcome (it ran, and the connection
        went before its reply); the input still waiting under `req` means the call never ran.
        Anything else (the server still away, a later request's record) leaves it unknown."""
        try:
            out = await self.read_again("", "doom.schedule:out")
            if isinstance(out, dict) and out.get("req") in ours:
                log.info(
                    "%s: the reply to %s was lost; the pack's record says it ran",
                    self.server.name,
                    function,
                )
                return out
            waiting = await self.read_again("", "doom.schedule:in")
        except BotError:
            raise dropped from None
        if isinstance(waiting, dict) and req in _requests(waiting):
            raise ServerUnavailable(
                lazy(
                    "The connection to server {name} dropped before the pack ran the request: "
                    "nothing changed. Try again.",
                    name=repr(self.server.name),
                )
            ) from None
        raise dropped

    def _sample_out(self, out: Mapping[str, object]) -> None:
        game_time = out.get("time")
        # -1 is the outcome record's "none" (ops that do not read the clock)
        if isinstance(game_time, int) and not isinstance(game_time, bool) and game_time >= 0:
            self._sample_at(time.monotonic(), game_time)

    async def _player_missing(self, player: str, req: str, path: str = "task") -> None:
        """`execute as <name>` matched nobody (vanilla: no error, no context), so our input is
        still in `doom.schedule:in <path>`: take it back and say why."""
        left = await self.rcon.command(
            f'execute if data storage doom.schedule:in {path}{{req:"{req}"}}'
        )
        if _COUNT.match(_plain(left)):
            await self.rcon.command(f"data remove storage doom.schedule:in {path}")
            raise PackError(
                "player_offline",
                lazy(
                    "Player {player} is not online on {name}; a task runs as a player only when "
                    "it is scheduled while they are online.",
                    player=player,
                    name=repr(self.server.name),
                ),
            )

    @staticmethod
    def _raise_unless_ok(out: Mapping[str, object], *, tolerate: str | None = None) -> bool:
        """True on success, False for the tolerated code, else PackError with the pack's words."""
        if out.get("ok") == 1:
            return True
        code = str(out.get("code", "unknown"))
        if code == tolerate:
            return False
        # the pack's own message is its English text; only the bot's fallback is translated
        raise PackError(
            code,
            str(out.get("message") or "")
            or lazy("The pack refused the request ({code}).", code=code),
        )

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

    # -- time -----------------------------------------------------------------------------------

    def _sample_at(self, mono: float, game_time: int) -> None:
        self._samples.append((mono, game_time))
        if self.recorder is not None:
            self.recorder.saw_time(game_time)

    def _recent_sample(self) -> bool:
        return bool(self._samples) and time.monotonic() - self._samples[-1][0] < _TPS_WINDOW

    async def _sample(self) -> tuple[float, int]:
        reply = _plain(await self.rcon.command("time query gametime"))
        m = _TIME.match(reply)
        if not m:
            raise PackError(
                "bad_reply",
                lazy("Unexpected answer to `time query gametime`: {reply}", reply=reply),
            )
        sample = (time.monotonic(), int(m.group(1)))
        self._sample_at(*sample)
        return sample

    async def game_time(self) -> int:
        """The game time by vanilla's `time query gametime` (works without the pack)."""
        return (await self._sample())[1]

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


def _requests(storage: Mapping[str, object]) -> set[object]:
    """The request ids waiting in `doom.schedule:in` (task, op, and each staged.<key>)."""
    entries = [storage.get("task"), storage.get("op")]
    staged = storage.get("staged")
    if isinstance(staged, dict):
        entries += staged.values()
    return {e.get("req") for e in entries if isinstance(e, dict)}


def _as_int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
