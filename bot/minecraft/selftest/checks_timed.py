"""The checks that need the game to tick: game time, pause/resume, the hostile text having
run, the marker task's events (timing, delivery, retries), and the measured TPS."""

from __future__ import annotations

__all__ = ["TimedChecks"]

import asyncio
import time
from typing import TYPE_CHECKING

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
    from bot.minecraft.tasks import Task

_TPS_OK = 18.0
_EVENT_WAIT = 8.0  # s at most for the marker's events once it is queued
_EVENT_GRACE = 2.0  # s the event source gets after the ring buffer has the event
_PAUSED_TICKS = 5  # ticks the pause check waits while the task is paused


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
            self._add("PASS", "game time", f"advancing ({ticks} ticks in {seconds:.1f} s)")
        elif await facts.is_frozen(self.rcon):
            self._add(
                "FAIL",
                "game time",
                "frozen (`tick freeze`): no task runs until someone runs `tick unfreeze`",
            )
        elif pause is not None and pause > 0 and await facts.players_online(self.rcon) == 0:
            self._add(
                "WARN",
                "game time",
                f"paused: nobody has been online for {pause} s (pause-when-empty-seconds), so "
                "game-time tasks wait until a player joins, wall-clock ones do not; join, or "
                "set pause-when-empty-seconds=0, and run the selftest again",
            )
        else:
            self._add(
                "FAIL",
                "game time",
                f"stuck at {game} for {seconds:.1f} s although not frozen: the server is not "
                "ticking (stalled, or stepped by hand); see its log",
            )
        if pause is None:
            self._add(
                "WARN",
                "pause when empty",
                "server.properties not readable: since 1.21.2 a server with nobody online "
                "stops ticking after pause-when-empty-seconds (default 60); game-time tasks "
                "then wait, wall-clock ones do not",
            )
        elif pause > 0:
            self._add(
                "WARN",
                "pause when empty",
                f"pause-when-empty-seconds={pause} ({path}): {pause} s after the last player "
                "leaves, the game time stops; game-time tasks then wait until someone joins, "
                "wall-clock ones do not. Set it to 0 if tasks must run on an empty server",
            )
        else:
            self._add("PASS", "pause when empty", f"off (pause-when-empty-seconds={pause})")

    async def _check_resume(self, due: int, before: int, after: int, kept: int | None) -> None:
        name = "pause/resume"
        task_id = self.ids["pause"]
        if kept is None or due < 0:
            self._add("FAIL", name, "pausing a queued task left no paused task with its delay")
            return
        if not due - after <= kept <= due - before:
            self._add(
                "FAIL",
                name,
                f"paused at game time {before}..{after} a task due at {due} kept {kept} ticks "
                f"instead of {due - after}..{due - before}; reinstall the pack",
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
                f"while paused the task changed ({still}); a paused task must keep its "
                f"{kept} ticks",
            )
            return
        before = await self._game_time()
        resumed = await self.pack.resume(task_id)
        after = await self._game_time()
        back = await self.pack.show(task_id)
        if not resumed or back is None or back.list != "queue":
            self._add("FAIL", name, "resume did not put the task back in the queue")
        elif not before + kept <= back.due <= after + kept:
            self._add(
                "FAIL",
                name,
                f"resumed at {before}..{after} with {kept} ticks left, the task is due at "
                f"{back.due} instead of {before + kept}..{after + kept}",
            )
        else:
            self._add(
                "PASS",
                name,
                f"kept its {kept} ticks while paused and is due {kept} ticks after resuming",
            )

    async def _check_hostile(self, run: str) -> None:
        name = "hostile run text"
        queued = self._hostile_queued
        if queued is not None and queued != run:
            self._add("FAIL", name, f"the queued command differs from the one sent: {queued!r}")
            return
        deadline = time.monotonic() + 3.0
        got = await self._read(STORAGE, "got")
        while got is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            got = await self._read(STORAGE, "got")
        if got == HOSTILE:
            self._add("PASS", name, "quotes, backslashes and non-ASCII ran exactly as given")
        elif got is None:
            self._add("FAIL", name, "the task did not run within 3 s of being due")
        else:
            self._add(
                "FAIL",
                name,
                f"the command ran but produced {got!r} instead of {HOSTILE!r}: the storage "
                "input altered the text",
            )

    async def _ring(self) -> list[Event]:
        marker = self.ids["marker"]
        return [e for e in await self.pack.events_after(0) if e.task_id == marker]

    async def _check_marker(self, task: Task | None) -> None:
        """The marker's three runs: on time, each event delivered, retries counted."""
        if task is None:
            self._add("FAIL", "marker task", "the pack did not queue the marker task")
            return
        expected = [("retry", "1"), ("retry", "0"), ("retry_exhausted", "0")]
        times = [task.due - 1 + k * RETRY_DELAY for k in range(len(expected))]
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
                f"queued to run at game time {task.due} ({MARKER_DELAY} ticks later), it "
                "raised no event: the pack's tick does not run tasks (is it in #minecraft:tick?"
                " see the log for errors)",
            )
            return
        first = truth[0]
        late = first.details.get("late")
        if first.game_time != times[0] or late:
            self._add(
                "FAIL",
                "marker task",
                f"due {MARKER_DELAY} ticks after queueing (t={times[0]}), it ran at "
                f"t={first.game_time}{f', {late} ticks late' if late else ''}",
            )
        else:
            self._add("PASS", "marker task", f"ran exactly {MARKER_DELAY} ticks after queueing")

    def _seen(self) -> list[Event]:
        """The marker's events the probe delivered, in seq order."""
        if self.probe is None:
            return []
        marker = self.ids["marker"]
        return sorted((e for e in self.probe.events if e.task_id == marker), key=lambda e: e.seq)

    def _probe_failed(self) -> bool:
        return self.probe is not None and self.probe.error is not None

    def _judge_source(self, truth: list[Event], seen: list[Event]) -> None:
        if self.probe is None:
            self._add(
                "FAIL",
                "event source",
                "the bot has no event source for this server it can read: set log_path to the "
                "server's logs/latest.log, or event_source=rcon",
            )
            return
        kind = self.probe.kind
        if not truth:
            self._add("WARN", "event source", "not checked: the marker raised no event")
        elif seen and seen[0].seq == truth[0].seq:
            self._add("PASS", "event source", f"the marker's events arrived through {kind}")
        elif self.probe.error is not None:
            self._add("FAIL", "event source", f"reading {kind} failed: {self.probe.error}")
        else:
            hint = (
                f"check that log_path ({self.server.config.log_path}) is the server's "
                "logs/latest.log and that the pack's cfg.log is 1b"
                if "log" in kind
                else "check that the bot can poll the ring buffer over RCON"
            )
            self._add(
                "FAIL",
                "event source",
                f"the pack raised event seq {truth[0].seq} but {kind} did not deliver it "
                f"within {_EVENT_GRACE:g} s; {hint}",
            )

    def _judge_retries(
        self, truth: list[Event], expected: list[tuple[str, str]], times: list[int]
    ) -> None:
        got = [(e.type, e.details.get("retry", "")) for e in truth]
        at = [e.game_time for e in truth]
        if not truth:
            self._add("WARN", "retry counts", "not checked: the marker raised no event")
        elif got == expected and at == times:
            self._add(
                "PASS",
                "retry counts",
                f"retry={RETRIES}: {RETRIES + 1} runs {RETRY_DELAY} ticks apart, then "
                "retry_exhausted",
            )
        else:
            runs = len(truth)
            self._add(
                "FAIL",
                "retry counts",
                f"retry={RETRIES} gave {runs} run(s) ({', '.join(f'{k} retry={r}' for k, r in got)}"
                f" at t={at}) instead of {RETRIES + 1} runs at t={times} ending in "
                "retry_exhausted; the server's pack is not the bundled one: reinstall it",
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
            self._add("WARN", "measured TPS", f"{rate:.1f} (the game time does not advance)")
        elif rate >= _TPS_OK:
            self._add("PASS", "measured TPS", f"{rate:.1f}")
        else:
            self._add(
                "WARN",
                "measured TPS",
                f"{rate:.1f}: below 20, a task due in N seconds of game time runs "
                f"{20 / max(rate, 0.1):.1f} times later in wall-clock time",
            )
