"""One run of a wall-clock row handed over to its server (bot.minecraft.handover), for the
scheduler (bot.wallclock.scheduler): tried with back-off until `max_late`, never twice (the
hand-over mark, and the crash record after a rollback), its outcome recorded in the run's row
and each late, missed, failed or waiting run alerted among the server's alerts."""

from __future__ import annotations

__all__ = ["TRANSIENT", "Delivery"]

import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.background.doubt import DOUBT_TYPE, doubt_label
from bot.errors import BotError, PackError, may_have_run
from bot.i18n import N_, Text, lazy
from bot.i18n.formats import stamp
from bot.minecraft import handover
from bot.minecraft.conditions import pack_cond
from bot.minecraft.pack_client import PackClient, Staged
from bot.store.schedules import Schedule, State
from bot.times.when import human
from bot.wallclock.staging import drop_staged, task_key

if TYPE_CHECKING:
    from bot.wallclock.scheduler import Scheduler

log = logging.getLogger(__name__)

# the server restarted between the request and its submit (no_input), or the answer was lost
# (no_answer, bad_reply): tried again as a drop is, the mark and the crash record keeping it
# from being sent twice
TRANSIENT = ("no_input", "no_answer", "bad_reply")
_OUTCOMES = {"ran": "ran", "queue": "queued", "offline": "waiting_player", "paused": "paused"}


async def _forget_later(owner: Scheduler, pack: PackClient, key: str) -> None:
    """Drop a run's mark `mark_keep` after its record: until then a submit of the run still
    on its way from a process that lost the server (or was frozen) finds it and queues
    nothing (bot.minecraft.handover); dropped, storage stays small. A stop before then leaves
    it (a few bytes)."""
    await owner.inflight.sleep(owner.mark_keep)
    with contextlib.suppress(BotError):
        await handover.forget_mark(pack, key)


@dataclass
class Delivery:
    """One run's hand-over, with what its attempts so far have done and said."""

    owner: Scheduler
    row: Schedule
    run_id: int
    due: datetime
    recovered: bool = False  # resumed after a restart of the bot: it may have been handed over
    extra: bool = False  # run now: leaves the row's state and its staged next run alone
    tries: int = 0  # hand-overs attempted, for the run's record
    waiting_said: bool = False  # the "player offline" alert was posted
    # the server may have the task (a restart mid hand-over, a reply lost after the request
    # went out, the mark seen): past max_late such a run is asked about, never called missed
    # unasked
    in_doubt: bool = False
    found_after_restart: bool = False  # recovered, and the mark says it was handed over
    # the rollbacks counted (PackClient.rollbacks) when the first attempt whose answer was
    # lost went out: a rollback after it took the mark and the `ran` it may have left
    lost_answer: int | None = None

    @property
    def one_shot(self) -> bool:
        return self.row.kind == "at" and not self.extra  # its run ends the row

    async def run(self) -> None:
        row, owner = self.row, self.owner
        key = f"s{row.id}r{self.run_id}"
        tkey = task_key(row.id, self.due.timestamp())
        deadline = self.due + owner.max_late
        attempt = 1 if self.recovered else 0
        self.in_doubt = self.recovered
        server = owner.servers.get(row.server)
        # the staged request's content does not depend on the due
        staged: Staged | None = None if self.extra else owner.staging.take(row.id)
        while True:
            sent_at: int | None = None  # set once this attempt's request may go out
            if not owner.owns(row.server):
                # another process holds the server now: the run stays `sending`, and the
                # new holder resumes it (the mark says whether the server has it)
                return
            if attempt > 0:
                current = await owner.store.get(row.id)
                if current is not None and current.state == "cancelled":
                    await owner.store.finish_run(self.run_id, "cancelled")
                    return
            try:
                if server is None:
                    raise PackError(
                        "no_server",
                        lazy("The server {name} is not configured.", name=repr(row.server)),
                    )
                # handed over before: the mark says so, or the crash record (a rollback took
                # the mark; the crash guard puts the task in again, under its key)
                known = attempt > 0 and (
                    await handover.has_mark(server.pack, key)
                    or await server.pack.acknowledged(tkey)
                )
                self.in_doubt = self.in_doubt or known
                # the server took it before the bot stopped: when is not known here (the
                # pack's `ran` tells the run history), and now is not it
                self.found_after_restart = known and self.recovered
                if not known and self._rolled_back(server.pack):
                    # sent, its answer lost, then the server came back from an older save:
                    # whether it ran is unknown (bot.background.doubt), the row's policy decides
                    self.lost_answer = None
                    self._alert_doubt("run" if row.on_doubt == "run" else "skipped")
                    if row.on_doubt != "run":
                        await self._finished_in_doubt()
                        return
                if not known and not self.waiting_said and owner.clock.now() > deadline:
                    # never handed over (no mark) and now too late: e.g. the bot died mid
                    # hand-over and came back after max_late
                    await self._finished_badly("missed", N_("it could not be handed over in time"))
                    return
                self.tries += 1
                sent_at = server.pack.rollbacks()
                result = await handover.hand_over(
                    server.pack,
                    command=row.command,
                    task_id=row.task_id,
                    key=key,
                    retry=row.retry,
                    retry_delay=row.retry_delay,
                    as_player=row.as_player,
                    skip_submit=known,
                    staged=staged if attempt == 0 else None,
                    now=owner.clock.now,
                    task_key=tkey,
                    cond=pack_cond(row.conditions),
                    on_doubt=row.on_doubt,
                )
            except PackError as e:
                if e.code in TRANSIENT:
                    self.in_doubt = True
                    if e.code != "no_input":  # no_input: nothing was queued
                        self._answer_lost(sent_at)
                    if not await self._wait_retry(e, attempt):
                        return
                    attempt += 1
                    continue
                if e.code == "player_offline":
                    if not self.waiting_said:
                        self.waiting_said = True
                        await owner.store.finish_run(self.run_id, "sending", attempts=self.tries)
                        reason = N_("the player is offline; it runs when they are back")
                        owner.alert(
                            row,
                            "wallclock_waiting",
                            self.due,
                            player=row.as_player or "",
                            reason=reason,
                        )
                    attempt += 1
                    await owner.inflight.sleep(owner.offline_retry)
                    continue
                await self._finished_badly(f"failed: {e.code}", e.text)
                return
            except BotError as e:  # unreachable, timeout, bad password: retry until max_late
                self.in_doubt = self.in_doubt or may_have_run(e)
                if may_have_run(e):
                    self._answer_lost(sent_at)
                # later attempts write the request anew: drop the staged one
                if staged is not None and server is not None:
                    owner.inflight.spawn(drop_staged(server.pack, staged.key))
                    staged = None
                if not await self._wait_retry(e, attempt):
                    return
                attempt += 1
                continue
            break
        found = self.found_after_restart
        late = None if found else (result.handed_at - self.due).total_seconds()
        await owner.store.finish_run(
            self.run_id,
            _OUTCOMES[result.where],
            handed_over=None if found else result.handed_at,
            ran_in_game=result.ran_at if result.where == "ran" and not found else None,
            lateness=late,
            state="done" if self.one_shot else None,
            attempts=self.tries,
            serial=result.serial,
        )
        owner.handed_over += 1
        if late is not None and timedelta(seconds=late) > owner.grace:
            owner.alert(row, "wallclock_late", self.due, late=human(int(late)) or "0s")
        if server is not None:
            owner.inflight.spawn(_forget_later(owner, server.pack, key))

    def _answer_lost(self, sent_at: int | None) -> None:
        if sent_at is not None and self.lost_answer is None:
            self.lost_answer = sent_at

    def _rolled_back(self, pack: PackClient) -> bool:
        """An attempt's answer was lost, and the server may have run it in a world a rollback
        took since (PackClient.lost_in_rollback)."""
        return self.lost_answer is not None and pack.lost_in_rollback(self.lost_answer)

    def _alert_doubt(self, kind: str) -> None:
        label = lazy("{id} (due {due})", id=self.row.task_id, due=stamp(self.due))
        self.owner.alert(self.row, DOUBT_TYPE, self.due, **{doubt_label(kind): label})

    async def _finished_in_doubt(self) -> None:
        """Not sent again (the default policy, `skip`): the alert names it; /run_now runs it."""
        state: State | None = "done" if self.one_shot else None
        await self.owner.store.finish_run(self.run_id, "in_doubt", state=state, attempts=self.tries)

    async def _wait_retry(self, error: BotError, attempt: int) -> bool:
        """Sleep before the next hand-over attempt; False (the run is marked missed) once it
        is later than max_late, unless the server may have it: then the next attempt asks for
        its mark first, however late, and only a run the server does not have is missed."""
        owner = self.owner
        now = owner.clock.now()
        end = self.due + owner.max_late
        delay = owner.backoff[min(attempt, len(owner.backoff) - 1)]
        if now >= end and not self.waiting_said:
            if self.in_doubt:
                self._log_retry(error, delay)
                await owner.inflight.sleep(delay)
                return True
            await self._finished_badly(
                "missed", lazy("the server was unreachable: {error}", error=error.text)
            )
            return False
        delay = min(delay, (end - now).total_seconds())
        self._log_retry(error, delay)
        await owner.inflight.sleep(delay)
        return True

    def _log_retry(self, error: BotError, delay: float) -> None:
        # the run stays `sending` in its history meanwhile: the line says why
        log.info(
            "handing %s (due %s) to %s again in %.1f s, try %d: %s",
            self.row.task_id,
            self.due.isoformat(timespec="seconds"),
            self.row.server,
            delay,
            self.tries,
            error.text,
        )

    async def _finished_badly(self, outcome: str, reason: Text) -> None:
        state: State | None = "missed" if self.one_shot else None
        await self.owner.store.finish_run(self.run_id, outcome, state=state, attempts=self.tries)
        kind = "wallclock_missed" if outcome == "missed" else "wallclock_failed"
        self.owner.alert(self.row, kind, self.due, reason=reason)
