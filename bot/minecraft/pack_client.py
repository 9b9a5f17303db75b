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

import logging
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.errors import BotError, PackError
from bot.i18n import lazy
from bot.minecraft.pack_base import (
    _RETURNED,
    _SCORE,
    MAX_PAGE,
    NOMINAL_TPS,
    CommandCheck,
    _as_int,
    recorded_write,
)
from bot.minecraft.pack_input import (
    InputValue,
    TaskRequest,
    check_executor,
    check_id,
    check_place,
    check_player,
    check_prefix,
    check_ticks,
    check_unit,
    task_input_command,
)
from bot.minecraft.pack_reads import PackReads
from bot.minecraft.pack_tasks import TASK_LISTS, PackRecorder, Task, task_from_storage
from bot.minecraft.software import strip_colours

__all__ = [
    "MAX_PAGE",
    "NOMINAL_TPS",
    "CommandCheck",
    "PackClient",
    "PackRecorder",
    "Staged",
    "Task",
]

log = logging.getLogger(__name__)
_KEY = re.compile(r"^[A-Za-z0-9_]{1,40}$")  # a staging key is spliced into a storage path


@dataclass(frozen=True, slots=True)
class Staged:
    """A request written ahead by `PackClient.stage`: its key, its request id, and its fields
    (for the crash record once it is queued)."""

    key: str
    req: str
    request: Mapping[str, InputValue]


def new_key() -> str:
    """A new bot key for a task (request `key`, the task's `k`): the bot's own name for it, which
    a rollback cannot hand out again as it does the pack's serials (bot.store.ledger). Hex; a
    hand-over's key starts with a letter hex has not (see handed_over)."""
    return secrets.token_hex(8)


def handed_over(key: str) -> bool:
    """Whether a task key is a hand-over's: a wall-clock run's (`w...`) or a run-now copy's
    (`now...`), whose runs the scheduler and the run-now record themselves."""
    return key.startswith(("w", "now"))


class PackClient(PackReads):
    """Every doom.schedule call as a typed async method (docs/interfaces.md, "The pack as the
    bot calls it")."""

    def task_request(
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
        key: str | None = None,
        executor: str | None = None,
        place: str | None = None,
        cond: Mapping[str, str | int] | None = None,
    ) -> TaskRequest:
        """The request `schedule` sends for these, checked as it is (ValidationError otherwise)
        and nothing sent: a dry run shows what a task would run from it."""
        check_id(id)
        ticks = check_unit(unit)
        fields: dict[str, InputValue] = {"id": id, "unit": unit, "key": key or new_key()}
        if cond:
            fields["cond"] = dict(cond)
        if at_tick is not None:
            fields["tick"] = check_ticks(at_tick, lazy("The game tick `at`"))
        else:
            fields["time"] = check_ticks(time, lazy("The delay"), unit_ticks=ticks, unit=unit)
        if interval is not None:
            fields["interval"] = check_ticks(
                interval, lazy("The interval"), minimum=1, unit_ticks=ticks, unit=unit
            )
        if retry:
            fields["retry"] = check_ticks(retry, lazy("The number of retries"))
            fields["retry_delay"] = check_ticks(retry_delay, lazy("The retry delay"), minimum=1)
        elif retry_delay != 1:
            check_ticks(retry_delay, lazy("The retry delay"), minimum=1)
        player = check_player(as_player) if as_player is not None else None
        if executor is not None:
            player = check_executor(executor)
        context = check_place(place) if place is not None else None
        text = self._check_run(run)
        req = self._next_req()
        command = task_input_command({"req": req, "run": text, **fields})
        return TaskRequest(req, text, fields, player, context, command)

    @recorded_write
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
        then: str | None = None,
        on_ack: Callable[[], object] | None = None,
        key: str | None = None,
        executor: str | None = None,
        place: str | None = None,
        cond: Mapping[str, str | int] | None = None,
        on_doubt: str | None = None,
        unless: str | None = None,
    ) -> Task | None:
        """Queue `run`; returns the queued task (None if it already ran or left the queue, or
        could not be read back: it is queued all the same).

        `then`: a command the server runs in the same call once the task is queued (see
        bot.minecraft.handover: the mark of a wall-clock hand-over); `on_ack`: called when the
        submit call returned; `key`: the task's bot key (a new one by default, see new_key).
        `executor` (a UUID) or `place` (the pack's `at` of a task) give the submit the context
        of another task, so a copy of it runs as that one would. `cond`: the conditions the
        pack checks when the task is due (bot.minecraft.conditions, `Conditions.pack_fields`).
        `on_doubt`: `run` makes the crash guard run it again when a crash leaves its run unknown
        (bot.background.doubt); the bot's record keeps it, the pack never sees it. `unless`: a
        condition under which the server queues nothing (PackBase._exchange)."""
        request = self.task_request(
            run,
            time,
            unit,
            id,
            retry=retry,
            retry_delay=retry_delay,
            interval=interval,
            at_tick=at_tick,
            as_player=as_player,
            key=key,
            executor=executor,
            place=place,
            cond=cond,
        )
        out = await self._exchange(
            request.command,
            "doom.schedule:submit",
            request.req,
            as_player=request.player,
            then=then,
            on_ack=on_ack,
            context=request.place,
            unless=unless,
        )
        self._raise_unless_ok(out)
        recorded: dict[str, object] = {"run": request.run, **request.fields}
        recorded["as_player"] = request.player
        if on_doubt == "run":  # the default (skip) is not written
            recorded["on_doubt"] = on_doubt
        await self._record_schedule(recorded, out)
        serial = out.get("n")
        if not isinstance(serial, int):
            return None
        try:
            return await self._task_by_serial(serial)
        except BotError as e:  # the task is queued: a read-back that failed must not say otherwise
            log.info("%s: %s is queued; reading it back failed: %s", self.server.name, id, e)
            return None

    @recorded_write
    async def schedule_dynamic(self, run: str, time: int, unit: str, prefix: str) -> str:
        """Queue `run` under a new id `<prefix><n>`; returns that id."""
        check_prefix(prefix)
        ticks = check_unit(unit)
        delay = check_ticks(time, lazy("The delay"), unit_ticks=ticks, unit=unit)
        text = self._check_run(run)
        req = self._next_req()
        key = new_key()
        command = task_input_command(
            {"req": req, "run": text, "prefix": prefix, "time": delay, "unit": unit, "key": key}
        )
        out = await self._exchange(command, "doom.schedule:submit", req)
        self._raise_unless_ok(out)
        await self._record_schedule(
            {"run": text, "prefix": prefix, "time": delay, "unit": unit, "key": key}, out
        )
        new_id = out.get("id")
        if not isinstance(new_id, str):
            raise PackError(
                "bad_reply", lazy("The pack scheduled the task but did not say its id.")
            )
        return new_id

    async def stage(
        self,
        run: str,
        id: str,
        *,
        key: str,
        retry: int = 0,
        retry_delay: int = 1,
        task_key: str | None = None,
        cond: Mapping[str, str | int] | None = None,
        on_doubt: str | None = None,
    ) -> Staged:
        """Write a request due now to `doom.schedule:in staged.<key>`, checked as `schedule`
        checks it, for `submit_staged` to queue with one command at its time (the wall-clock
        hand-over stages a run ahead of its due time). Queues nothing. `task_key`: the task's
        bot key (a new one by default); `cond` and `on_doubt` as for `schedule`."""
        check_id(id)
        if not _KEY.match(key):
            raise ValueError(f"bad staging key {key!r}")
        fields: dict[str, InputValue] = {
            "id": id,
            "unit": "tick",
            "time": 0,
            "key": task_key or new_key(),
        }
        if cond:
            fields["cond"] = dict(cond)
        if retry:
            fields["retry"] = check_ticks(retry, lazy("The number of retries"))
            fields["retry_delay"] = check_ticks(retry_delay, lazy("The retry delay"), minimum=1)
        text = self._check_run(run)
        req = self._next_req()
        command = task_input_command({"req": req, "run": text, **fields}, f"staged.{key}")
        reply = strip_colours(await self.rcon.command(command))  # no lock: not `in task`
        if not reply.startswith("Modified storage"):
            raise PackError(
                "bad_reply", lazy("Unexpected answer to staging a task: {reply}", reply=reply[:200])
            )
        recorded: dict[str, InputValue] = {"run": text, **fields}
        if on_doubt == "run":  # for the crash record only, as `schedule` keeps it
            recorded["on_doubt"] = on_doubt
        return Staged(key, req, recorded)

    async def unstage(self, key: str) -> None:
        """Drop a staged request that will not be submitted (its run was cancelled or moved)."""
        if not _KEY.match(key):
            raise ValueError(f"bad staging key {key!r}")
        await self.rcon.command(f"data remove storage doom.schedule:in staged.{key}")

    @recorded_write
    async def submit_staged(
        self,
        staged: Staged,
        *,
        as_player: str | None = None,
        mark: str | None = None,
        on_ack: Callable[[], object] | None = None,
        unless: str | None = None,
    ) -> int | None:
        """Queue a staged request in one RCON call; the queued task's serial (None if the pack
        did not say). `mark`: a storage target (`storage <id> <path>`) the call's success is
        stored in, in the same command. `on_ack` is called when that call returned. Fails with
        PackError `no_input` when nothing is staged under the key (e.g. the server restarted
        from a save older than the staging): nothing was queued then. `unless`: a condition
        under which the server queues nothing (PackBase._exchange)."""
        player = check_player(as_player) if as_player is not None else None
        out = await self._exchange(
            None,
            "doom.schedule:submit_staged",
            staged.req,
            as_player=player,
            store_success=mark,
            staged_key=staged.key,
            on_ack=on_ack,
            unless=unless,
        )
        self._raise_unless_ok(out)
        await self._record_schedule({**staged.request, "as_player": player}, out)
        serial = out.get("n")
        return serial if isinstance(serial, int) else None

    async def _task_by_serial(self, serial: int) -> Task | None:
        for which in TASK_LISTS:
            value = await self.read_again(f"{which}[{{n:{serial}}}]")
            if isinstance(value, dict):
                return task_from_storage(value, which)
        return None

    # -- the other operations -------------------------------------------------------------------

    @recorded_write
    async def cancel_one(self, id: str) -> bool:
        """Remove the first task with this id (queue, offline, paused); False if none."""
        affected = await self._before_op("cancel_one", check_id(id))
        done = self._raise_unless_ok(await self._op("cancel_one", id), tolerate="not_found")
        await self._record_op("cancel_one", id, affected, int(done))
        return done

    @recorded_write
    async def cancel_all(self, id: str) -> int:
        """Remove every task with this id; how many were removed."""
        affected = await self._before_op("cancel_all", check_id(id))
        out = await self._op("cancel_all", id)
        if not self._raise_unless_ok(out, tolerate="not_found"):
            return 0
        count = _as_int(out.get("count"))
        await self._record_op("cancel_all", id, affected, count)
        return count

    async def count(self, id: str) -> int:
        """How many tasks `cancel_all(id)` would remove."""
        out = await self._op("count", check_id(id))
        if not self._raise_unless_ok(out, tolerate="not_found"):
            return 0
        return _as_int(out.get("count"))

    @recorded_write
    async def clear(self) -> int:
        """Remove every task; how many were removed."""
        out = await self._op("clear")
        self._raise_unless_ok(out, tolerate="not_found")
        count = _as_int(out.get("count"))
        await self._record_op("clear", None, [], count)
        return count

    @recorded_write
    async def pause(self, id: str) -> bool:
        affected = await self._before_op("pause", check_id(id))
        done = self._raise_unless_ok(await self._op("pause", id), tolerate="not_found")
        await self._record_op("pause", id, affected, int(done))
        return done

    @recorded_write
    async def resume(self, id: str) -> bool:
        affected = await self._before_op("resume", check_id(id))
        done = self._raise_unless_ok(await self._op("resume", id), tolerate="not_found")
        await self._record_op("resume", id, affected, int(done))
        return done

    # -- the crash record -----------------------------------------------------------------------

    async def acknowledged(self, key: str) -> bool:
        """Whether the record has a task of this bot key, so the server acknowledged it (and the
        crash guard puts it in again if a rollback lost it): a hand-over retried after a
        crash must not send it a second time."""
        knows = getattr(self.recorder, "knows", None)
        if knows is None:
            return False
        if self.compared is not None:  # the log's last lines before a crash read, first
            began = time.monotonic()
            await self.compared()
            if (waited := time.monotonic() - began) >= 1.0:  # its run left `sending` meanwhile
                log.info("%s: waited %.1f s for the crash guard", self.server.name, waited)
        return bool(await knows(key))

    def rollbacks(self) -> int:
        """How often the record found the server back from an older save (restores made
        pending by this process)."""
        return int(getattr(self.recorder, "rollbacks", 0))

    def lost_in_rollback(self, sent_at: int) -> bool:
        """Whether a request whose answer was lost when `rollbacks()` was `sent_at` may have
        run in a world a rollback took since, with no mark or record left to say so: only with
        the ring. With the log, its `ran` line outlives the rollback and is in the record before
        `acknowledged` answers, so a request the record does not know did not run."""
        return bool(getattr(self.recorder, "ring", False)) and self.rollbacks() > sent_at

    async def set_hold(self, ticks: int) -> None:
        """Make every #load hold due tasks for up to `ticks` (cfg.hold; 0: no hold) until
        `release`: the crash guard compares the lists with its record first."""
        await self.rcon.command(
            f"data modify storage doom.schedule:data cfg.hold set value {max(int(ticks), 0)}"
        )

    async def say_events(self, on: bool) -> None:
        """Whether the pack says each event (cfg.log: a `say`, in the server's log and every
        player's chat) or keeps them in its ring buffer only."""
        flag = "1b" if on else "0b"
        await self.rcon.command(f"data modify storage doom.schedule:data cfg.log set value {flag}")

    async def release(self) -> None:
        """End #load's hold (doom.schedule:release): due tasks run from the next tick."""
        await self.rcon.command("function doom.schedule:release")

    async def serial(self) -> int:
        """The pack's task serial counter (score holder #serial): the `n` of the newest task.
        A crash rolls it back with the storage, so it tells which tasks the server forgot."""
        reply = await self.rcon.command("scoreboard players get #serial doom.schedule")
        m = _SCORE.match(reply)
        if m:
            return int(m.group(1))
        if reply.startswith("Can't get value of"):
            return 0  # no task was ever scheduled on this world
        raise PackError(
            "bad_reply", lazy("Unexpected answer to reading #serial: {reply}", reply=reply[:200])
        )

    async def instances(self, id: str) -> list[Task]:
        """Every task with this id, in the order the pack's ops search them (queue, offline,
        paused; each list in its order)."""
        check_id(id)
        found: list[Task] = []
        for which in TASK_LISTS:
            if await self._count(f'{which}[{{id:"{id}"}}]') == 0:
                continue
            async with self._lock:
                await self.rcon.command("data modify storage doom.bot:view t set value []")
                await self.rcon.command(
                    "data modify storage doom.bot:view t append from storage "
                    f'doom.schedule:data {which}[{{id:"{id}"}}]'
                )
                value = await self._read("t", "doom.bot:view")
                await self.rcon.command("data remove storage doom.bot:view t")
            if isinstance(value, list):
                found.extend(task_from_storage(t, which) for t in value if isinstance(t, dict))
        return found

    async def _before_op(self, op: str, id: str) -> list[Task]:
        """The tasks `op` will act on, read first (only when a recorder wants them)."""
        if self.recorder is None:
            return []
        try:
            tasks = await self.instances(id)
        except PackError:
            return []
        if op == "cancel_all":
            return tasks
        # the first match in the lists the pack's op searches (datapack/README.md, Public API)
        lists = {"cancel_one": TASK_LISTS, "pause": ("queue", "offline"), "resume": ("paused",)}
        first = next((t for t in tasks if t.list in lists[op]), None)
        return [] if first is None else [first]

    async def _record_schedule(self, request: dict[str, object], out: Mapping[str, object]) -> None:
        if self.recorder is None:
            return
        try:
            await self.recorder.scheduled({k: v for k, v in request.items() if v is not None}, out)
        except BotError as exc:  # the database away a moment: said in words, not traced
            log.warning("%s: could not record the scheduled task: %s", self.server.name, exc)
        except Exception:  # the task is queued: a record that failed must not say otherwise
            log.exception("%s: could not record the scheduled task", self.server.name)

    async def _record_op(self, op: str, id: str | None, affected: list[Task], count: int) -> None:
        if self.recorder is None or count == 0:
            return
        try:
            game_time = await self.get_time()
            serial = await self.serial()
            await self.recorder.operated(op, id, affected, count, game_time, serial)
        except BotError as exc:  # the database or the server away a moment: said in words
            log.warning("%s: could not record %s %s: %s", self.server.name, op, id or "", exc)
        except Exception:
            log.exception("%s: could not record %s %s", self.server.name, op, id or "")

    async def get_time(self) -> int:
        """The game time, through the pack's `get_time` (one round trip)."""
        async with self._lock:  # get_time rewrites doom.schedule:out: not inside an exchange
            reply = await self.rcon.command("function doom.schedule:get_time")
        error = self._call_failed("doom.schedule:get_time", reply)
        if error is not None:
            raise error
        m = _RETURNED.search(strip_colours(reply))
        if not m:
            raise PackError(
                "bad_reply", lazy("Unexpected answer to get_time: {reply}", reply=reply[:200])
            )
        value = int(m.group(1))
        self._sample_at(time.monotonic(), value)
        return value

    async def version(self) -> str:
        """The version the running pack wrote to `doom.schedule:const version`."""
        value = await self._read("version", "doom.schedule:const")
        if not isinstance(value, str):
            raise PackError(
                "not_installed",
                lazy(
                    "Server {name} has no doom.schedule version in storage: the pack is not "
                    "installed, or its #load never ran.",
                    name=repr(self.server.name),
                ),
            )
        return value
