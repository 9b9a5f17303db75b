"""The reference model of doom.schedule used by test_model.py: what datapack/README.md promises,
in plain Python, plus a few tests of the model itself against the README's worked examples (so a
model bug is not mistaken for a pack bug, nor hides one)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["UNITS", "Event", "Executor", "Model", "Task"]

# README "Units": ticks per unit name.
UNITS = {
    "t": 1, "tick": 1, "ticks": 1, "s": 20, "second": 20, "seconds": 20,
    "m": 1200, "minute": 1200, "minutes": 1200, "h": 72000, "hour": 72000, "hours": 72000,
    "d": 1728000, "day": 1728000, "days": 1728000,
    "gd": 24000, "game_day": 24000, "game_days": 24000,
}

# None: no executor (console/RCON); a player name; or ("marker", generation) for a marker entity.
Executor = str | tuple[str, int] | None


@dataclass
class Task:
    label: str  # unique per task: its run text records it
    id: str
    due: int
    executor: Executor = None
    fails: int = 0  # the command fails on its first `fails` runs (counted per label), then succeeds
    invalid: bool = False  # the command does not instantiate
    interval: int = 0
    anchor: int = 0
    retry: int = 0
    retry_left: int = 0
    retry_delay: int = 1
    remaining: int = 0
    late: int = 0  # ticks after due its last run (or parking) happened; kept until the next


@dataclass(frozen=True)
class Event:
    type: str
    id: str
    t: int
    retry: int | None = None
    by: bool = False  # the task has an executor (the event then names it)
    late: int | None = None  # run events: ticks after its due tick the run happened, when > 0


@dataclass
class Model:
    """The scheduler between ticks at game time `time`. Calls happen between ticks, as the
    console's do; `tick()` is one full game tick (the pack's #tick, then the increment)."""

    time: int
    cap: int = 100
    online: list[str] = field(default_factory=list)  # players, in join order (vanilla's @a order)
    markers: set[int] = field(default_factory=set)  # generations of markers alive
    queue: list[Task] = field(default_factory=list)
    offline: list[Task] = field(default_factory=list)
    paused: list[Task] = field(default_factory=list)
    runs: list[tuple[str, int]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    tries: dict[str, int] = field(default_factory=dict)
    deferred: int = 0  # ticks on which the cap left due tasks for the next tick
    stats_late: int | None = None  # at the last such tick: how late the first waiting task was

    # README "queue": sorted by due, ties in scheduling order, i.e. after every task due at or
    # before it.
    def insert(self, task: Task) -> None:
        i = len(self.queue)
        while i > 0 and self.queue[i - 1].due > task.due:
            i -= 1
        self.queue.insert(i, task)

    def schedule(self, task: Task) -> None:
        if task.interval:
            task.anchor = task.due
        task.retry_left = task.retry
        task.retry_delay = max(task.retry_delay, 1)
        self.insert(task)

    @staticmethod
    def _take(tasks: list[Task], task_id: str) -> Task | None:
        for i, task in enumerate(tasks):
            if task.id == task_id:
                return tasks.pop(i)
        return None

    def cancel_one(self, task_id: str) -> int:
        lists = (self.queue, self.offline, self.paused)
        return int(any(self._take(tasks, task_id) is not None for tasks in lists))

    def count(self, task_id: str) -> int:
        lists = (self.queue, self.offline, self.paused)
        return sum(t.id == task_id for tasks in lists for t in tasks)

    def cancel_all(self, task_id: str) -> int:
        n = self.count(task_id)
        for tasks in (self.queue, self.offline, self.paused):
            tasks[:] = [t for t in tasks if t.id != task_id]
        return n

    def clear(self) -> int:
        n = len(self.queue) + len(self.offline) + len(self.paused)
        self.queue.clear()
        self.offline.clear()
        self.paused.clear()
        return n

    def pause(self, task_id: str) -> int:
        task = self._take(self.queue, task_id) or self._take(self.offline, task_id)
        if task is None:
            return 0
        task.remaining = max(task.due - self.time, 0)
        self.paused.append(task)
        return 1

    def resume(self, task_id: str) -> int:
        task = self._take(self.paused, task_id)
        if task is None:
            return 0
        # "resuming a task paused 100 ticks before its deadline runs it 100 ticks after resume";
        # an interval task is re-anchored there.
        task.due = task.anchor = self.time + task.remaining
        task.remaining = 0
        self.insert(task)
        return 1

    def _event(
        self, kind: str, task: Task, retry: int | None = None, late: int | None = None
    ) -> None:
        by = task.executor is not None
        self.events.append(Event(kind, task.id, self.time, retry, by, late or None))

    def _gone(self, executor: Executor) -> bool:
        if executor is None:
            return False
        if isinstance(executor, str):
            return executor not in self.online
        return executor[1] not in self.markers

    def _run(self, task: Task, now: int) -> None:
        late = now - task.due
        if self._gone(task.executor):
            if isinstance(task.executor, str):
                task.late = late
                self.offline.append(task)
                self._event("offline", task, late=late)
            else:
                self._event("dropped", task, late=late)
            return
        if task.invalid:
            self._event("invalid", task, late=late)
            return
        self.runs.append((task.label, now))
        self.tries[task.label] = self.tries.get(task.label, 0) + 1
        if self.tries[task.label] > task.fails:
            if task.interval:  # next boundary strictly after now, anchored: no storm, no drift
                task.late = late
                k = (now - task.anchor) // task.interval + 1
                task.due = task.anchor = task.anchor + k * task.interval
                task.retry_left = task.retry
                self.insert(task)
        elif task.retry_left == 0:
            self._event("retry_exhausted", task, 0, late)
        else:
            task.retry_left -= 1
            task.late = late
            task.due = now + task.retry_delay
            self.insert(task)
            self._event("retry", task, task.retry_left, late)

    def tick(self) -> None:
        now = self.time + 1  # the time this tick advances to; events carry the time before
        ran = 0
        while self.queue and self.queue[0].due <= now and ran < self.cap:
            ran += 1
            self._run(self.queue.pop(0), now)
        if self.queue and self.queue[0].due <= now:
            self.deferred += 1
            self.stats_late = now - self.queue[0].due
        # Restore, after the due tasks: each online player's parked tasks, in parking order, due
        # at once (the next tick) if overdue, one `restored` event each.
        for player in self.online:
            for task in [t for t in self.offline if t.executor == player]:
                self.offline.remove(task)
                task.due = max(task.due, self.time)
                self.insert(task)
                self._event("restored", task)
        self.time = now


def _mark(model: Model, label: str, due: int, **kw: object) -> Task:
    task = Task(label, label, due, **kw)  # type: ignore[arg-type]
    model.schedule(task)
    return task


def test_model_timing_and_order_follow_vanilla_schedule() -> None:
    model = Model(time=100)
    _mark(model, "late", 105)
    _mark(model, "b", 105)
    _mark(model, "now", 100)  # a delay of 0 runs at the next tick
    for _ in range(4):
        model.tick()
    assert model.runs == [("now", 101)]
    model.tick()
    assert model.runs == [("now", 101), ("late", 105), ("b", 105)]


def test_model_resume_keeps_the_remaining_delay() -> None:
    model = Model(time=0)
    _mark(model, "p", 150)
    for _ in range(50):
        model.tick()
    assert model.pause("p") == 1 and model.paused[0].remaining == 100
    for _ in range(30):
        model.tick()
    assert model.resume("p") == 1 and model.queue[0].due == 180
    for _ in range(100):
        model.tick()
    assert model.runs == [("p", 180)]


def test_model_interval_skips_ahead_after_a_deferral() -> None:
    model = Model(time=0, cap=1)
    _mark(model, "x", 5)
    _mark(model, "i", 5, interval=3)
    for _ in range(6):
        model.tick()
    # cap 1: x ran at 5, i at 6 (one late), then the next boundary after 6 is 8, not 6+3
    assert model.runs == [("x", 5), ("i", 6)]
    assert model.queue[0].due == 8 and model.queue[0].anchor == 8 and model.queue[0].late == 1
    # the cap left i (due 5) waiting at tick 5, 0 ticks late then
    assert model.deferred == 1 and model.stats_late == 0


def test_model_retry_counts_and_exhaustion() -> None:
    model = Model(time=0)
    _mark(model, "r", 1, fails=99, retry=2, retry_delay=3)
    for _ in range(20):
        model.tick()
    assert model.runs == [("r", 1), ("r", 4), ("r", 7)]  # retry 2: at most 3 runs
    assert [(e.type, e.retry, e.t) for e in model.events] == [
        ("retry", 1, 0), ("retry", 0, 3), ("retry_exhausted", 0, 6),
    ]


def test_model_parks_and_restores_player_tasks() -> None:
    model = Model(time=0, online=[])
    _mark(model, "p", 2, executor="Bot")
    for _ in range(5):
        model.tick()
    assert [t.label for t in model.offline] == ["p"] and model.events[0].type == "offline"
    model.online.append("Bot")
    model.tick()  # restored during the tick at game time 5, due at once: runs at 7
    assert model.queue[0].due == 5 and model.events[-1] == Event("restored", "p", 5, by=True)
    model.tick()
    model.tick()
    assert model.runs == [("p", 7)]
