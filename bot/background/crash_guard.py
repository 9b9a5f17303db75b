"""The crash guard: sees a server come back from a crash or restart and redoes what it lost.

A crash brings the server back with the storage, the scoreboard and the game time of its last
save (vanilla saves every 6000 ticks, on `save-all` and on stop), so the tasks the bot put in
since, and its cancels and pauses since, are gone or undone. The guard compares the pack's
lists with the bot's record (bot.store.ledger) and makes them agree again:

- a task of the record that the server forgot (its serial is past the pack's serial counter,
  or another task now holds that serial) goes in again at its own due tick, so it runs after
  `due - restored time` ticks, as it would have; a repeating one at its next boundary;
- a cancel, pause or resume the server undid is done again, on that very task: the pack's ops
  act on the first task with an id, so a change is only redone when that task is the first
  (else it is listed as not restored); a lost `clear` removes again what it removed;
- a task that already ran before the crash is not put in again, and a saved copy of it is taken
  out, so nothing runs twice. A task the bot made carries its key (the pack's `k`), and the pack
  says each run of it in the log (`event=ran ... k=<key>`), which a crash does not roll back:
  the guard first waits until the log was read to its end (`caught_up`), then goes by the
  ledger's record of those lines (read before the pack's lists, as the server ticks on; a task
  in no list whose row says it has not run is read again after another catch-up). Without the
  log (the ring-buffer source) it also counts a task whose due tick the bot saw pass as run;
  rows made before keys are compared by serial;
- tasks made in game, which the bot never touched, are left alone.

While it compares, the bot's own queueing, cancels, pauses and resumes wait (PackBase.exclusive):
one landing between its read of the lists and its read of the record would be compared half
done, and a task queued then put in a second time.

The pack holds its due tasks after each #load (cfg.hold, DOOM_CRASH_HOLD) until the guard has
compared: each check that looked ends with `doom.schedule:release`. The pack's "holding" line
(a start or a /reload) triggers a check as the start-up line does.

Then it posts ONE alert listing what it restored: an Event of type ``restored_after_crash``,
handed to the alerts cog through the server's event source (bot.events.guarded).

When: the log tailer reads the server's start-up line (``Done (...)! For help``), or RCON
reconnects to a server whose game time or task serial went back (compared with the highest the
bot saw; an answer of the pack below them also makes the guard look). A restore that fails half
way is pending in the database and resumed without doubling (a task put in again whose answer
was lost is found by its id, command and due tick). After a start, `on_started` hooks are told.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Final

from bot.aio import cancel_and_wait, tell_hooks
from bot.background.doubt import (
    DOUBT_TYPE,
    DoubtReport,
    decide_doubt,
    in_doubt,
    made_after_restart,
    window_of,
)
from bot.background.restore_diff import (
    ALERT_TYPE,
    RESTORE_LABELS,
    RestoreDiff,
    RestoreReport,
    next_due,
    would_rerun,
)
from bot.errors import BotError, PackError
from bot.events.bot_alerts import BotAlerts
from bot.events.event import Event
from bot.i18n import N_, Lazy, lazy
from bot.minecraft.pack_client import MAX_PAGE, PackClient
from bot.minecraft.pack_tasks import TASK_LISTS, Task
from bot.store.ledger import Entry, Ledger, Pending

__all__ = ["ALERT_TYPE", "CrashGuard", "RestoreReport", "restored_count"]

log = logging.getLogger(__name__)
# told of a pack event about a task the bot made, with the request it sent for it
OwnEventHook = Callable[[Event, Mapping[str, object]], Awaitable[None]]


def restored_count(event: Event) -> int | None:
    """The tasks a restore or in-doubt alert lists (its task_id "<n> task(s)"), else None."""
    head = event.task_id.split(" ", 1)[0]
    return int(head) if event.type in (ALERT_TYPE, DOUBT_TYPE) and head.isdigit() else None


_HOLD = re.compile(r"#hold has (-?\d+) ")
Sleep = Callable[[float], Awaitable[None]]
CaughtUp = Callable[[], Awaitable[None]]
CATCH_UP_WAIT: Final = 10.0  # seconds the guard waits for the log to be read before comparing
COMPARE_WAIT: Final = 20.0  # seconds a lookup in the record waits for the guard's comparison
RECORD_TRIES: Final = 4  # a pack event the record could not take is tried again (0.5, 1, 2 s)


class CrashGuard:
    """One per server; started and stopped with the bot (bot.services)."""

    def __init__(
        self,
        ledger: Ledger,
        pack: PackClient,
        *,
        sleep: Sleep = asyncio.sleep,
        retry_initial: float = 1.0,
        retry_max: float = 30.0,
        hold_ticks: int = 0,
        caught_up: CaughtUp | None = None,
        ring: bool = False,
    ) -> None:
        self.ledger = ledger
        # the pack's cfg.log as events_in_chat says (None: left as it is), set at each compare
        self.say_events: bool | None = None
        # the events come from the ring buffer (rolled back by a crash with the world): the
        # runs of the last poll interval before a crash are in doubt (bot.background.doubt)
        self.ring = ring
        self.hold_ticks = hold_ticks  # written to the pack's cfg.hold (DOOM_CRASH_HOLD)
        # the log source's wait for every line written so far (LogTailer.caught_up): the pack's
        # `ran` lines of the last moments before a crash reach the ledger before it is compared
        self.caught_up = caught_up
        self.pack = pack
        self.server = ledger.server
        self._sleep = sleep
        self.retry_initial = retry_initial
        self.retry_max = retry_max
        self._wake = asyncio.Event()
        self._full = False  # a start-up line was read: compare even with no sign of a rollback
        self._marks = True  # compare the server's game time and serial with the marks
        self._reconnected = True  # RCON connected since the last look (a new process is)
        self._task: asyncio.Task[None] | None = None
        self.alerts = BotAlerts()  # read by the server's event stream (bot.events.guarded)
        self.restores = 0  # restores that changed something (the alerts' seq)
        self.doubts = 0  # restores with tasks in doubt (their alerts' seq)
        self.last_doubt: DoubtReport | None = None
        self.checks = 0
        self.last_report: RestoreReport | None = None
        self._partial: RestoreReport | None = None  # of a restore that was interrupted
        self._partial_doubt: DoubtReport | None = None
        self.idle = asyncio.Event()  # set while nothing is left to check (tests wait on it)
        ledger.on_suspect.append(self.notice_reconnect)
        self.on_own_event: list[OwnEventHook] = []  # the run history (bot.store.history)
        self.on_started: list[Callable[[], Awaitable[None]]] = []

    def notice_start(self) -> None:
        """The server logged its start-up line: it came back from its last save."""
        self._full = True
        # every tick before the restore may run a saved task a second time: reconnect now
        self.pack.rcon.retry_now()
        self._notice()

    def notice_reconnect(self) -> None:
        self.ledger.lost_sight()  # what is made from now on may be of a restarted server
        self._reconnected = True
        self._marks = True
        self._notice()

    def _notice(self) -> None:
        self.idle.clear()
        self._wake.set()

    async def compared(self) -> None:
        """Wait (up to COMPARE_WAIT) until no check is due or running: after a restart, until the
        guard has read the log to its end and compared. A guard that cannot finish (the server
        gone again) does not hold the caller longer."""
        if self._task is None or self._task.done():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(COMPARE_WAIT):
                await self.idle.wait()

    async def saw_event(self, event: Event) -> None:
        """A pack event passing to the alerts: the record follows it, and the hooks of
        `on_own_event` hear of it when it is about a task the bot made (with what it sent).
        With the ring buffer, an event the record cannot take is raised after RECORD_TRIES: the
        source starts again from its cursor, which is still before it, and reads it again."""
        entry = None
        for attempt in range(RECORD_TRIES):
            try:
                entry = await self.ledger.apply_event(event)
                break
            except Exception:
                if attempt + 1 < RECORD_TRIES:
                    await self._sleep(0.5 * 2**attempt)
                    continue
                log.exception("%s: could not record event %s", self.server, event.type)
                if self.ring:
                    raise
                return  # the log tailer's place is past it already: the alerts still have it
        if entry is None or not entry.own:
            return
        try:
            for hook in self.on_own_event:
                await hook(event, entry.request)
        except BotError as exc:  # the database away a moment: said, not traced
            log.warning("%s: a hook failed on event %s: %s", self.server, event.type, exc)
        except Exception:
            log.exception("%s: a hook failed on event %s", self.server, event.type)

    # -- running ------------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._notice()
            self._task = asyncio.create_task(self._loop(), name=f"crash-guard-{self.server}")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task)

    async def _loop(self) -> None:
        delay = self.retry_initial
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self.check()
                delay = self.retry_initial
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the server is not back yet, or dropped mid-restore
                if isinstance(e, PackError) and e.code == "not_installed":
                    # nothing to compare with until the pack is there: the next trigger looks
                    log.info("%s: no crash check: %s", self.server, e)
                    self.idle.set()
                    continue
                quiet = isinstance(e, BotError)
                log.log(
                    logging.INFO if quiet else logging.ERROR,
                    "%s: crash check failed (%s); again in %.0f s",
                    self.server,
                    e,
                    delay,
                    exc_info=not quiet,
                )
                await self._sleep(delay)
                delay = min(delay * 2, self.retry_max)
                self._wake.set()
                continue
            if not self._wake.is_set():
                self.idle.set()

    async def check(self) -> RestoreReport | None:
        """Look at the server once; restore if it came back with less than the record."""
        full, marks, reconnected = self._full, self._marks, self._reconnected
        self._full = self._marks = self._reconnected = False
        self.checks += 1
        try:
            if marks or full:
                await self._catch_up()
            before = await self.ledger.marks()
            pending = before[2]
            if pending is None and (marks or full):
                if self.ring and reconnected and not full:
                    # no start-up line to read: a pack holding its due tasks after a #load,
                    # found on a new connection, is a server that started again (a /reload
                    # keeps the connection)
                    full = await self._holding()
                game_time = await self.pack.get_time()
                serial = await self.pack.serial()
                if not await self.ledger.saw(game_time, serial, before) and full:
                    await self.ledger.begin_restore(N_("the server started again"))
                _, _, pending = await self.ledger.marks()
            report = None
            if pending is not None:
                async with self.pack.exclusive():  # no change of the bot's lands mid-compare
                    report = await self.restore(pending)
            if marks or full or pending is not None:
                if self.say_events is not None:  # before the release: no run said otherwise
                    await self.pack.say_events(self.say_events)
                # compared: the pack's hold after its #load (datapack/README.md) may end
                await self.pack.set_hold(self.hold_ticks)
                await self.pack.release()
                if full:  # the server started and its tasks go on: the triggers may fire
                    await tell_hooks(self.on_started, what=f"{self.server}: a start hook")
            self.ledger.regained()  # nothing (more) to repair: the ring's reads count again
            return report
        except BaseException:
            self._full, self._marks = self._full or full, self._marks or marks
            self._reconnected = self._reconnected or reconnected
            raise

    async def _holding(self) -> bool:
        """The pack holds its due tasks (#hold above 0): it loaded, and nobody released it."""
        reply = await self.pack.rcon.command("scoreboard players get #hold doom.schedule")
        m = _HOLD.search(reply)
        return m is not None and int(m.group(1)) > 0

    async def _catch_up(self) -> None:
        if self.caught_up is None:
            return
        try:
            async with asyncio.timeout(CATCH_UP_WAIT):
                await self.caught_up()
        except TimeoutError:
            log.warning(
                "%s: the log was not read to its end in %.0f s; comparing anyway",
                self.server,
                CATCH_UP_WAIT,
            )

    # -- the restore --------------------------------------------------------------------------

    async def _read_all(self) -> list[Task]:
        tasks: list[Task] = []
        for which in TASK_LISTS:
            offset = 0
            while True:
                page, total = await self.pack.list_tasks(which, offset=offset, limit=MAX_PAGE)
                tasks.extend(page)
                offset += len(page)
                if not page or offset >= total:
                    break
        return tasks

    async def restore(self, pending: Pending) -> RestoreReport:
        now = await self.pack.get_time()
        serial = await self.pack.serial()
        # the record before the lists: the server ticks on (a pack an earlier check released
        # runs its due tasks), and a run after this read leaves its task listed, as the record
        # read here has it; a run before the lists were read is looked for by _ran_meanwhile
        rows = await self.ledger.entries()
        present = await self._read_all()
        diff = RestoreDiff(present)
        rows = await self._ran_meanwhile(rows, diff)
        report = self._partial or RestoreReport()
        report.game_time, report.reason = now, self._reason(pending, now)
        self._partial = report
        seen = pending.last_time  # the last game time the bot saw before the restart
        newer = {e.key: e for e in rows if e.key > pending.first_key}
        # with the log read to its end the ledger knows every run; with the ring, what ran in
        # the last poll interval before the crash is in doubt, and its policy decides
        made = made_after_restart(self.ledger.made_since_lost(), rows, now)
        window = window_of(pending, made) if self.ring else None
        doubt = self._partial_doubt or DoubtReport(window)
        self._partial_doubt = doubt
        for entry in rows:
            if window is not None and in_doubt(entry, window, pending.first_key):
                decide_doubt(entry, diff, now, window, doubt)
            elif entry.bkey is not None and entry.own:
                exact = self.caught_up is not None and not self.ring  # the log, read to its end
                self._compare_keyed(entry, diff, now, None if exact else seen)
            else:
                self._compare(entry, diff, now, serial, seen, newer)
        for clear_time, clear_serial in await self.ledger.unsettled_clears():
            for i, task in enumerate(present):
                if i not in diff.claimed and task.n <= clear_serial:
                    diff.remove(i, "cancelled", lazy("clear at {time}", time=clear_time))
        for entry in diff.finished:
            await self.ledger.set_state(entry.key, "done", now)
        for entry in diff.replaced:
            await self.ledger.set_state(entry.key, "replaced", now)
        await self._apply_removals(diff, report, doubt)
        await self._apply_moves(diff, report)
        await self._apply_adds(diff, report, now)
        await self.ledger.end_restore(await self.pack.get_time(), await self.pack.serial())
        self._partial = self._partial_doubt = None
        if doubt:
            self.doubts += 1
            self.last_doubt = doubt
            log.warning(
                "%s: %s",
                self.server,
                "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in doubt.done.items() if v),
            )
            self.alerts.emit(doubt.event(self.server, self.doubts, now))
        if report:
            self.restores += 1
            self.last_report = report
            log.warning(
                "%s came back from its last save; restored: %s",
                self.server,
                ", ".join(f"{len(v)} {RESTORE_LABELS[k]}" for k, v in report.done.items() if v),
            )
            self.alerts.emit(report.event(self.server, self.restores))
        return report

    async def _ran_meanwhile(self, rows: list[Entry], diff: RestoreDiff) -> list[Entry]:
        """`rows`, with each task the bot made that is in no list though its row says it has
        not run read again once the events said so far are in the record: it may have run
        after the record was read, its `ran` event not yet read (else it is put in again)."""
        unrun = {
            e.key
            for e in rows
            if e.bkey is not None
            and e.state in ("queue", "offline")
            and diff.find(e, claimed_ok=True) is None
        }
        if not unrun or self.caught_up is None:
            return rows
        await self._catch_up()
        again = {e.key: e for e in await self.ledger.entries()}
        return [again.get(e.key, e) if e.key in unrun else e for e in rows]

    @staticmethod
    def _reason(pending: Pending, now: int) -> Lazy:
        reason = Lazy(pending.reason, {})  # stored in English; marked N_() where it is made
        if now < pending.last_time:
            return lazy(
                "{reason}: it came back at game time {now} after the bot had seen {seen}",
                reason=reason,
                now=now,
                seen=pending.last_time,
            )
        return reason

    def _compare(
        self, e: Entry, diff: RestoreDiff, now: int, serial: int, seen: int, newer: dict[int, Entry]
    ) -> None:
        i = diff.find(e)
        task = diff.present[i] if i is not None else None
        reused = diff.reused(e)
        lost = task is None and (e.n > serial or reused)
        ran_before = e.interval is None and e.due <= seen
        if e.state == "cancelled":
            if i is not None:
                diff.remove(i, "cancelled", e.last_op)
        elif e.state in ("done", "replaced"):
            if i is not None and e.own and e.state == "done" and would_rerun(e, now, seen):
                diff.remove(i, "not_rerun", lazy("due {due}", due=e.due))
        elif e.state in ("queue", "offline"):
            if task is not None and i is not None:
                if task.list == "paused" and e.last_op == "resume":
                    diff.resumes.append(i)
                elif task.list == "queue" and would_rerun(e, now, seen, task.due):
                    diff.remove(i, "not_rerun", lazy("due {due}", due=task.due))
                elif (
                    task.list == "queue"
                    and e.interval is not None
                    and e.own
                    and e.as_player is None
                    and now < task.due <= seen
                ):
                    # repeating: its boundaries up to what the bot saw ran before the crash;
                    # it goes in again at the next one (once the saved copy is out)
                    diff.remove(i, "not_rerun", lazy("due {due}", due=task.due))
                    diff.adds.append((e, next_due(e, now, seen), False, i))
            elif lost and e.own and ran_before and e.state == "queue":
                diff.finished.append(e)  # it ran before the crash; the record says so now
            elif lost and e.own:
                twin = self._twin(e, diff, newer)
                if twin is not None:
                    diff.replaced.append(e)
                else:
                    target = next_due(e, now, seen)
                    diff.adds.append((e, target, False, None))
            elif task is None:
                diff.finished.append(e)  # ran, or was removed in game
        elif e.state == "paused":
            if task is not None and i is not None:
                if task.list != "paused" and e.last_op == "pause":
                    diff.pauses.append(i)
            elif lost and e.own:
                if self._twin(e, diff, newer) is not None:
                    diff.replaced.append(e)
                else:
                    diff.adds.append((e, now + (e.remaining or 0), True, None))
            else:
                diff.finished.append(e)

    @staticmethod
    def _compare_keyed(e: Entry, diff: RestoreDiff, now: int, seen: int | None) -> None:
        """A row with the bot's key: the pack's task is the one holding that key (a rollback
        cannot reuse a key as it reuses serials), and what ran is what the pack's `ran` events
        said (the ledger's state and ran_at); `seen`, when not None, also counts a one-off whose
        due tick the bot saw pass as run."""
        i = diff.find(e)
        task = diff.present[i] if i is not None else None
        ran_at = e.ran_at
        if seen is not None and e.interval is None and e.state == "queue" and e.due <= seen:
            if task is None:
                diff.finished.append(e)
                return
            if task.list == "queue" and would_rerun(e, now, seen, task.due):
                diff.remove(i, "not_rerun", lazy("due {due}", due=task.due))  # type: ignore[arg-type]
                return
        if seen is not None and e.interval is not None:
            ran_at = max(ran_at if ran_at is not None else seen, seen)
        if e.state == "cancelled":
            if i is not None:
                diff.remove(i, "cancelled", e.last_op)
        elif e.state == "done":
            if i is not None and task is not None:
                diff.remove(i, "not_rerun", lazy("due {due}", due=task.due))
        elif e.state in ("queue", "offline"):
            if task is not None and i is not None:
                if task.list == "paused" and e.last_op == "resume":
                    diff.resumes.append(i)
                elif (
                    e.interval is not None
                    and task.list == "queue"
                    and ran_at is not None
                    and now < task.due <= ran_at
                ):
                    # repeating: that boundary ran before the crash; in again at the next one
                    diff.remove(i, "not_rerun", lazy("due {due}", due=task.due))
                    diff.adds.append((e, next_due(e, now, ran_at), False, i))
            else:
                # parked for its player, or handed over to run at once (a wall-clock run):
                # due now; else at its own due tick, as it would have run
                at_once = e.state == "offline" or (
                    e.request.get("time") == 0 and "tick" not in e.request and e.interval is None
                )
                diff.adds.append((e, now + 1 if at_once else e.due, False, None))
        elif e.state == "paused":
            if task is not None and i is not None:
                if task.list != "paused" and e.last_op == "pause":
                    diff.pauses.append(i)
            else:
                diff.adds.append((e, now + (e.remaining or 0), True, None))

    @staticmethod
    def _twin(e: Entry, diff: RestoreDiff, newer: dict[int, Entry]) -> Entry | None:
        """A row made since the restart for the same task (a restore that put it in again,
        then was interrupted before it could mark this row)."""
        for other in newer.values():
            if (
                other.key != e.key
                and other.own
                and other.task_id == e.task_id
                and other.run == e.run
                and other.state in ("queue", "offline", "paused")
                and diff.find(other, claimed_ok=True) is not None
            ):
                return other
        return None

    async def _apply_removals(
        self, diff: RestoreDiff, report: RestoreReport, doubt: DoubtReport
    ) -> None:
        gone: set[int] = set()
        for task_id in dict.fromkeys(diff.present[i].id for i in diff.removals):
            instances = diff.instances(task_id)
            targets = [i for i in instances if i in diff.removals]
            if len(targets) == len(instances):
                removed = await self.pack.cancel_all(task_id)
                done = targets if removed >= len(targets) else targets[:removed]
            else:
                done = []
                for i in instances:
                    if i not in diff.removals or not await self.pack.cancel_one(task_id):
                        break
                    done.append(i)
            for i in targets:
                kind, why = diff.removals[i]
                label = lazy("{id} ({why})", id=task_id, why=why)
                if i in done:
                    gone.add(i)
                    if kind != "in_doubt":
                        report.add(kind, label)
                    elif why:  # a repeating task's is said with its next run (_apply_adds)
                        doubt.add("skipped", why)
                else:
                    failed = lazy("{id}: another task with this id comes first", id=task_id)
                    (doubt if kind == "in_doubt" else report).add("failed", failed)
        diff.gone = gone

    async def _apply_moves(self, diff: RestoreDiff, report: RestoreReport) -> None:
        for indexes, lists, kind, op in (
            (diff.pauses, ("queue", "offline"), "paused", self.pack.pause),
            (diff.resumes, ("paused",), "resumed", self.pack.resume),
        ):
            for i in indexes:
                task = diff.present[i]
                first = diff.first(task.id, lists)
                if first != i:
                    report.add(
                        "failed", lazy("{id}: another task with this id comes first", id=task.id)
                    )
                elif await op(task.id):
                    report.add(kind, task.id)
                    diff.present[i] = replace(task, list="paused" if kind == "paused" else "queue")
                else:
                    report.add("failed", lazy("{id}: the pack no longer has it", id=task.id))

    async def _apply_adds(self, diff: RestoreDiff, report: RestoreReport, now: int) -> None:
        for entry, target, paused, after in diff.adds:
            if after is not None and after not in diff.gone:
                continue  # its saved copy could not be taken out: reported as such
            adopted = None if entry.bkey is not None else diff.unclaimed_like(entry, target)
            if adopted is not None:
                await self.ledger.adopt(entry.key, adopted, now)
                report.add(
                    "rescheduled", lazy("{id} (due {due})", id=entry.task_id, due=adopted.due)
                )
                continue
            label = lazy("{id} (due {due})", id=entry.task_id, due=target)
            if target <= now and not paused:
                label = lazy(
                    "{id} (due {due}, runs now, {late} ticks late)",
                    id=entry.task_id,
                    due=target,
                    late=now + 1 - target,
                )
            said = not paused and entry.key not in diff.doubted  # in doubt: in that alert
            if said:
                report.add("rescheduled", label)  # before sending: the answer may be lost
            try:
                await self._schedule_again(entry, target)
            except BotError as e:
                if not _retryable(e):
                    if said:
                        report.discard("rescheduled", label)
                    report.add("failed", lazy("{id}: {error}", id=entry.task_id, error=e))
                    await self.ledger.set_state(entry.key, "done", now)
                    continue
                raise
            if entry.bkey is None:  # a keyed row stays the task's (the recorder updated it)
                await self.ledger.set_state(entry.key, "replaced", now)
            if paused:
                instances = await self.pack.instances(entry.task_id)
                waiting = [t for t in instances if t.list != "paused"]
                if waiting and waiting[0].due == target and await self.pack.pause(entry.task_id):
                    left = lazy("{id} (paused, {ticks} left)", id=entry.task_id, ticks=target - now)
                    report.add("rescheduled", left)
                    continue
                report.add(
                    "failed", lazy("{id}: put in again but could not be paused", id=entry.task_id)
                )

    async def _schedule_again(self, entry: Entry, target: int) -> None:
        request = entry.request
        retry = request.get("retry", 0)
        retry_delay = request.get("retry_delay", 1)
        cond = request.get("cond")  # the conditions go back in as recorded: the pack checks them
        await self.pack.schedule(
            entry.run,
            0,
            "t",
            entry.task_id,
            retry=retry if isinstance(retry, int) else 0,
            retry_delay=retry_delay if isinstance(retry_delay, int) else 1,
            interval=entry.interval,
            at_tick=max(target, 0),
            as_player=entry.as_player,
            key=entry.bkey,
            cond=_cond(cond),
        )


def _cond(value: object) -> dict[str, str | int] | None:
    if not isinstance(value, dict):
        return None
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str | int)}


def _retryable(error: BotError) -> bool:
    """A dropped connection is tried again; a refusal (player offline, ...) is reported."""
    return not isinstance(error, PackError) or error.code in ("no_answer", "bad_reply")
