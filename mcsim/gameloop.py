"""The server thread's game loop: ticks, the RCON command queue, autosave, the empty pause.

Realtime mode runs MinecraftServer's loop at the tick rate: a server tick (pause when empty,
the world tick unless frozen or stepping, the autosave countdown), then queued RCON commands
until the next tick is due. Manual mode only serves the queue; time advances through
`Server.step()` and `tick step` (pending steps run right after the command that asked).
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
import time
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mcsim.context import Source
    from mcsim.executor import Executor
    from mcsim.log import ServerLog
    from mcsim.state import SimState

__all__ = ["MAX_PENDING_STEPS_PER_CALL", "GameLoop", "LoopHost"]

log = logging.getLogger(__name__)

MAX_PENDING_STEPS_PER_CALL = 1_000_000

Job = tuple[str, "concurrent.futures.Future[str]"]


def _int_property(properties: dict[str, str], key: str, default: int) -> int:
    try:
        return int(properties.get(key, str(default)).strip())
    except ValueError:
        return default


class LoopHost(Protocol):
    """What the loop needs of its server (mcsim.server.Server), so the loop does not import it."""

    realtime: bool
    properties: dict[str, str]
    lock: threading.RLock

    @property
    def sim(self) -> SimState | None: ...
    @property
    def log(self) -> ServerLog | None: ...
    def world_state(self) -> tuple[SimState, Executor]: ...
    def scheduled_source(self) -> Source: ...
    def run_rcon_command(self, text: str) -> str: ...
    def maybe_stop(self) -> None: ...
    def save(self) -> None: ...


class GameLoop:
    """Owned by one Server; every method but `submit` runs on the server thread or under the
    server's lock."""

    def __init__(self, server: LoopHost) -> None:
        self.server = server
        self.jobs: queue.Queue[Job | None] = queue.Queue()
        self.idle_ticks = 0  # server ticks with nobody online (pause-when-empty-seconds)
        self.ticks_until_autosave = 6000  # MinecraftServer.ticksUntilAutosave

    # -- the RCON queue -----------------------------------------------------------------------

    def submit(self, command: str) -> concurrent.futures.Future[str]:
        future: concurrent.futures.Future[str] = concurrent.futures.Future()
        self.jobs.put((command, future))
        return future

    def request_exit(self) -> None:
        """Wake the loop and make it return (the server is stopping)."""
        self.jobs.put(None)

    def serve_jobs(self, deadline: float | None) -> bool:
        """Run queued RCON commands until `deadline` (time.monotonic), or a short while when
        None; False once asked to stop.

        Like MinecraftServer.runTasksTillTickEnd: the thread sleeps until the next tick is due
        but wakes as soon as a command is queued (vanilla unparks the server thread on every
        new task), so a command waits for the command before it, not for a polling interval.
        """
        srv = self.server
        while True:
            if deadline is None:
                timeout = 0.05
            else:
                timeout = deadline - time.monotonic()
                if timeout <= 0:
                    return True
            try:
                job = self.jobs.get(timeout=timeout)
            except queue.Empty:
                return True
            if job is None:
                return False
            command, future = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(srv.run_rcon_command(command))
            except BaseException as e:  # a bug in mcsim: answer, log, keep serving
                log.exception("RCON command %r crashed", command)
                future.set_exception(e)
            srv.maybe_stop()

    def drain_after_stop(self) -> None:
        while True:
            try:
                job = self.jobs.get_nowait()
            except queue.Empty:
                return
            if job is not None:
                job[1].cancel()

    # -- ticking ------------------------------------------------------------------------------

    def run(self) -> None:
        """The server thread's body."""
        srv = self.server
        next_tick = time.monotonic()
        while True:
            if not srv.realtime:
                if not self.serve_jobs(None):
                    return
                continue
            sim = srv.sim
            assert sim is not None
            now = time.monotonic()
            if now >= next_tick:
                with srv.lock:
                    self.server_tick()
                next_tick = max(next_tick + 1.0 / sim.tick_rate, now - 1.0)
            if not self.serve_jobs(next_tick):
                return

    def server_tick(self) -> None:
        """MinecraftServer.tick in realtime mode: pause when empty, the world tick unless
        frozen (or stepping), then the autosave countdown, which runs frozen or not."""
        srv = self.server
        sim, _ = srv.world_state()
        pause = _int_property(srv.properties, "pause-when-empty-seconds", 60) * 20
        if pause > 0:
            self.idle_ticks = 0 if sim.entities.players() else self.idle_ticks + 1
            if self.idle_ticks >= pause:
                if self.idle_ticks == pause:
                    assert srv.log is not None
                    srv.log.info(f"Server empty for {pause // 20} seconds, pausing")
                    self.autosave()
                return
        if not sim.frozen:
            self.tick()
        elif sim.pending_steps > 0:
            sim.pending_steps -= 1
            self.tick()
        self.count_autosave()

    def run_pending_steps(self) -> None:
        """Manual mode: the ticks a `tick step` asked for run right after that command."""
        srv = self.server
        sim, _ = srv.world_state()
        if not srv.realtime and sim.pending_steps > 0:
            steps = min(sim.pending_steps, MAX_PENDING_STEPS_PER_CALL)
            sim.pending_steps = 0
            for _ in range(steps):
                self.tick()

    def step(self, ticks: int) -> None:
        """Full ticks now, frozen or not (the test clock), each counting toward the autosave;
        the empty-server pause does not apply."""
        for _ in range(ticks):
            self.tick()
            self.count_autosave()

    def count_autosave(self) -> None:
        self.ticks_until_autosave -= 1
        if self.ticks_until_autosave <= 0:
            self.autosave()

    def autosave(self) -> None:
        """MinecraftServer.runAutosave: saveAll with logs suppressed, every 300 s of ticks."""
        sim, _ = self.server.world_state()
        self.ticks_until_autosave = max(100, int(sim.tick_rate * 300))
        self.server.save()

    def tick(self) -> None:
        """One full tick: pending #load (after reload), #tick functions, then time +1."""
        srv = self.server
        sim, ex = srv.world_state()
        began = time.perf_counter_ns()
        sim.counters.current_tick = 0
        lib = sim.functions
        if lib is not None:
            for fid in lib.tags.get("minecraft:tick", []):
                fn = lib.functions.get(fid)
                if fn is not None:
                    ex.run_function_top(fn, srv.scheduled_source())
        sim.game_time += 1
        if sim.gamerules.get("advance_time", True):
            sim.day_time += 1
        self.fire_schedules()
        sim.counters.last_tick = sim.counters.current_tick
        sim.tick_times.append(float(time.perf_counter_ns() - began))
        del sim.tick_times[:-100]

    def fire_schedules(self) -> None:
        """Scheduled functions due by the new game time, each its own top-level call."""
        srv = self.server
        sim, ex = srv.world_state()
        lib = sim.functions
        while True:
            due = [e for e in sim.schedules if e.due <= sim.game_time]
            if not due:
                return
            event = min(due, key=lambda e: e.due)  # stable: earliest first, then insertion
            sim.schedules.remove(event)
            if lib is None:
                continue
            ids = lib.tags.get(event.name[1:], []) if event.is_tag else [event.name]
            for fid in ids:
                fn = lib.functions.get(fid)
                if fn is not None:
                    ex.run_function_top(fn, srv.scheduled_source())
