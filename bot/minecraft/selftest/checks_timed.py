"""The checks that need the game to tick: game time, pause/resume, the hostile text having
run, the marker task's events (timing, delivery, retries), and the measured TPS."""

from __future__ import annotations

__all__ = ["TimedChecks", "first_due"]

import asyncio
import time
from typing import TYPE_CHECKING

from bot.i18n import lazy
from bot.minecraft.selftest import facts
from bot.minecraft.selftest.base import (
    HOSTILE,
    MARKER_DELAY,
    RETRIES,
    RETRY_DELAY,
    SELFTEST_PREFIX,
    STORAGE,
    Base,
)
from bot.minecraft.selftest.probe import EventProbe, probe_for

if TYPE_CHECKING:
    from bot.events.event import Event
    from bot.minecraft.pack_tasks import Task

_TPS_OK = 18.0
_EVENT_WAIT = 8.0  # s at most for the marker's events once it is queued
_EVENT_GRACE = 2.0  # s the event source gets after the ring buffer has the event
_PAUSED_TICKS = 5  # ticks the pause check waits while the task is paused


def first_due(task: Task) -> int:
    """The marker's first due tick, from its record read back after queueing. On a slow link, or
    a server running ticks back to back to catch up, a try may have run before the read-back:
    each try made re-queued it one retry delay later and spent one retry."""
    return task.due - (RETRIES - task.retry_left) * task.retry_delay


class TimedChecks(Base):
    async def _check_game_time(self) -> None:
        await asyncio.sleep(max(0.0, self.g0[0] + 1.0 - time.monotonic()))
        now = time.monotonic()
        game = await self._game_time()
        ticks = game - self.g0[1]
        seconds = now - self.g0[0]
        self.ticking = ticks > 0
        pause, path = facts.pause_when_empty_seconds(self.server.config)
        if self.ticking:
            self._add(
                "PASS",
                "game time",
                lazy(
                    "advancing ({ticks} ticks in {seconds} s)",
                    ticks=ticks,
                    seconds=f"{seconds:.1f}",
                ),
            )
        elif await facts.is_frozen(self.rcon):
            self._add(
                "FAIL",
                "game time",
                lazy("frozen (`tick freeze`): no task runs until someone runs `tick unfreeze`"),
            )
        elif pause is not None and pause > 0 and await facts.players_online(self.rcon) == 0:
            self._add(
                "WARN",
                "game time",
                lazy(
                    "paused: nobody has been online for {pause} s (pause-when-empty-seconds), "
                    "so game-time tasks wait until a player joins, wall-clock ones do not; "
                    "join, or set pause-when-empty-seconds=0, and run the selftest again",
                    pause=pause,
                ),
            )
        else:
            self._add(
                "FAIL",
                "game time",
                lazy(
                    "stuck at {game} for {seconds} s although not frozen: the server is not "
                    "ticking (stalled, or stepped by hand); see its log",
                    game=game,
                    seconds=f"{seconds:.1f}",
                ),
            )
        if pause is None:
            self._add(
                "WARN",
                "pause when empty",
                lazy(
                    "server.properties not readable: since 1.21.2 a server with nobody online "
                    "stops ticking after pause-when-empty-seconds (default 60); game-time "
                    "tasks then wait, wall-clock ones do not"
                ),
            )
        elif pause > 0:
            self._add(
                "WARN",
                "pause when empty",
                lazy(
                    "pause-when-empty-seconds={pause} ({path}): {pause} s after the last player "
                    "leaves, the game time stops; game-time tasks then wait until someone "
                    "joins, wall-clock ones do not. Set it to 0 if tasks must run on an empty "
                    "server",
                    pause=pause,
                    path=path,
                ),
            )
        else:
            self._add(
                "PASS",
                "pause when empty",
                lazy("off (pause-when-empty-seconds={pause})", pause=pause),
            )

    async def _check_resume(self, due: int, before: int, after: int, kept: int | None) -> None:
        name = "pause/resume"
        task_id = self.ids["pause"]
        if kept is None or due < 0:
            self._add(
                "FAIL", name, lazy("pausing a queued task left no paused task with its delay")
            )
            return
        if not due - after <= kept <= due - before:
            self._add(
                "FAIL",
                name,
                lazy(
                    "paused at game time {before}..{after} a task due at {due} kept {kept} "
                    "ticks instead of {low}..{high}; reinstall the pack",
                    before=before,
                    after=after,
                    due=due,
                    kept=kept,
                    low=due - after,
                    high=due - before,
                ),
            )
            return
        deadline = time.monotonic() + 3.0
        while True:  # game time is the server's: there is no event to wait on
            if await self._game_time() >= after + _PAUSED_TICKS or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        still = await self.pack.show(task_id)
        if still is None or still.list != "paused" or still.remaining != kept:
            self._add(
                "FAIL",
                name,
                lazy(
                    "while paused the task changed ({task}); a paused task must keep its "
                    "{kept} ticks",
                    task=still,
                    kept=kept,
                ),
            )
            return
        before = await self._game_time()
        resumed = await self.pack.resume(task_id)
        after = await self._game_time()
        back = await self.pack.show(task_id)
        if not resumed or back is None or back.list != "queue":
            self._add("FAIL", name, lazy("resume did not put the task back in the queue"))
        elif not before + kept <= back.due <= after + kept:
            self._add(
                "FAIL",
                name,
                lazy(
                    "resumed at {before}..{after} with {kept} ticks left, the task is due at "
                    "{due} instead of {low}..{high}",
                    before=before,
                    after=after,
                    kept=kept,
                    due=back.due,
                    low=before + kept,
                    high=after + kept,
                ),
            )
        else:
            self._add(
                "PASS",
                name,
                lazy(
                    "kept its {kept} ticks while paused and is due {kept} ticks after resuming",
                    kept=kept,
                ),
            )

    async def _check_hostile(self, run: str) -> None:
        name = "hostile run text"
        queued = self._hostile_queued
        if queued is not None and queued != run:
            self._add(
                "FAIL",
                name,
                lazy("the queued command differs from the one sent: {run}", run=repr(queued)),
            )
            return
        deadline = time.monotonic() + 3.0
        got = await self._read(STORAGE, "got")
        while got is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            got = await self._read(STORAGE, "got")
        if got == HOSTILE:
            self._add("PASS", name, lazy("quotes, backslashes and non-ASCII ran exactly as given"))
        elif got is None:
            self._add("FAIL", name, lazy("the task did not run within 3 s of being due"))
        else:
            self._add(
                "FAIL",
                name,
                lazy(
                    "the command ran but produced {got} instead of {sent}: the storage input "
                    "altered the text",
                    got=repr(got),
                    sent=repr(HOSTILE),
                ),
            )

    async def _ring(self) -> list[Event]:
        marker = self.ids["marker"]
        # a `ran` event says each attempt of a task the bot made: the retry check counts outcomes
        return [
            e for e in await self.pack.events_after(0) if e.task_id == marker and e.type != "ran"
        ]

    async def _check_marker(self, task: Task | None) -> None:
        """The marker's three runs: on time, each event delivered, retries counted."""
        if task is None:
            self._add("FAIL", "marker task", lazy("the pack did not queue the marker task"))
            return
        expected = [("retry", "1"), ("retry", "0"), ("retry_exhausted", "0")]
        times = [first_due(task) - 1 + k * RETRY_DELAY for k in range(len(expected))]
        deadline = time.monotonic() + _EVENT_WAIT
        ring: list[Event] = []
        complete_at: float | None = None
        next_ring = 0.0
        while time.monotonic() < deadline:
            seen = self._seen()
            if any(e.type == "retry_exhausted" for e in seen) or self._probe_failed():
                break
            now = time.monotonic()
            if now >= next_ring:
                ring = await self._ring()
                next_ring = now + 0.5
                if complete_at is None and any(e.type == "retry_exhausted" for e in ring):
                    complete_at = now
            if complete_at is not None and now - complete_at > _EVENT_GRACE:
                break
            if self.probe is not None:
                await self.probe.wait_changed(0.2)
            else:
                await asyncio.sleep(0.2)
        ring = await self._ring()
        seen = self._seen()
        truth = sorted(ring, key=lambda e: e.seq) or seen
        self._judge_marker(task, truth, times)
        self._judge_source(truth, seen)
        self._judge_retries(truth, expected, times)

    def _judge_marker(self, task: Task, truth: list[Event], times: list[int]) -> None:
        if not truth:
            self._add(
                "FAIL",
                "marker task",
                lazy(
                    "queued to run at game time {due} ({delay} ticks later), it raised no "
                    "event: the pack's tick does not run tasks (is it in #minecraft:tick? see "
                    "the log for errors)",
                    due=task.due,
                    delay=MARKER_DELAY,
                ),
            )
            return
        first = truth[0]
        late = first.details.get("late")
        if first.game_time != times[0] or late:
            detail = (
                lazy(
                    "due {delay} ticks after queueing (t={due}), it ran at t={ran}, {late} "
                    "ticks late",
                    delay=MARKER_DELAY,
                    due=times[0],
                    ran=first.game_time,
                    late=late,
                )
                if late
                else lazy(
                    "due {delay} ticks after queueing (t={due}), it ran at t={ran}",
                    delay=MARKER_DELAY,
                    due=times[0],
                    ran=first.game_time,
                )
            )
            self._add("FAIL", "marker task", detail)
        else:
            self._add(
                "PASS",
                "marker task",
                lazy("ran exactly {delay} ticks after queueing", delay=MARKER_DELAY),
            )

    def _seen(self) -> list[Event]:
        """The marker's events the probe delivered, in seq order."""
        if self.probe is None:
            return []
        marker = self.ids["marker"]
        return sorted(
            (e for e in self.probe.events if e.task_id == marker and e.type != "ran"),
            key=lambda e: e.seq,
        )

    def _probe_failed(self) -> bool:
        return self.probe is not None and self.probe.error is not None

    def _judge_source(self, truth: list[Event], seen: list[Event]) -> None:
        if self.probe is None:
            self._add(
                "FAIL",
                "event source",
                lazy(
                    "the bot has no event source for this server it can read: set log_path to "
                    "the server's logs/latest.log, or event_source=rcon"
                ),
            )
            return
        kind = self.probe.kind
        if not truth:
            self._add("WARN", "event source", lazy("not checked: the marker raised no event"))
        elif seen and seen[0].seq == truth[0].seq:
            self._add(
                "PASS",
                "event source",
                lazy("the marker's events arrived through {source}", source=kind),
            )
        elif self.probe.error is not None:
            self._add(
                "FAIL",
                "event source",
                lazy("reading {source} failed: {error}", source=kind, error=self.probe.error),
            )
        else:
            hint = (
                lazy(
                    "check that log_path ({path}) is the server's logs/latest.log and that the "
                    "pack's cfg.log is 1b",
                    path=self.server.config.log_path,
                )
                if self.probe.reads_log
                else lazy("check that the bot can poll the ring buffer over RCON")
            )
            self._add(
                "FAIL",
                "event source",
                lazy(
                    "the pack raised event seq {seq} but {source} did not deliver it within "
                    "{grace} s; {hint}",
                    seq=truth[0].seq,
                    source=kind,
                    grace=f"{_EVENT_GRACE:g}",
                    hint=hint,
                ),
            )

    def _judge_retries(
        self, truth: list[Event], expected: list[tuple[str, str]], times: list[int]
    ) -> None:
        got = [(e.type, e.details.get("retry", "")) for e in truth]
        at = [e.game_time for e in truth]
        if not truth:
            self._add("WARN", "retry counts", lazy("not checked: the marker raised no event"))
        elif got == expected and at == times:
            self._add(
                "PASS",
                "retry counts",
                lazy(
                    "retry={retries}: {runs} runs {delay} ticks apart, then retry_exhausted",
                    retries=RETRIES,
                    runs=RETRIES + 1,
                    delay=RETRY_DELAY,
                ),
            )
        else:
            runs = len(truth)
            self._add(
                "FAIL",
                "retry counts",
                lazy(
                    "retry={retries} gave {runs} run(s) ({got} at t={at}) instead of {want} "
                    "runs at t={times} ending in retry_exhausted; the server's pack is not the "
                    "bundled one: reinstall it",
                    retries=RETRIES,
                    runs=runs,
                    got=", ".join(f"{k} retry={r}" for k, r in got),
                    at=at,
                    want=RETRIES + 1,
                    times=times,
                ),
            )

    async def _start_probe(self) -> None:
        source = self.server.events
        probe = probe_for(source) if source is not None else None
        if probe is None:
            self.probe = None
            return
        self.probe = EventProbe(probe, lambda task_id: task_id.startswith(SELFTEST_PREFIX))
        await self.probe.start()

    async def _check_tps(self) -> None:
        rate = await self.pack.tps()
        if not self.ticking:
            self._add(
                "WARN",
                "measured TPS",
                lazy("{tps} (the game time does not advance)", tps=f"{rate:.1f}"),
            )
        elif rate >= _TPS_OK:
            self._add("PASS", "measured TPS", f"{rate:.1f}")
        else:
            shown = round(rate, 1)  # the factor is the shown rate's, so the reader can check it
            self._add(
                "WARN",
                "measured TPS",
                lazy(
                    "{tps}: below 20, a task due in N seconds of game time runs {factor} times "
                    "later in wall-clock time",
                    tps=f"{shown:.1f}",
                    factor=f"{20 / max(shown, 0.1):.1f}",
                ),
            )
