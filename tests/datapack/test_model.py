"""Model-based test: random sequences of schedule / cancel / pause / resume / join / leave / tick
run against the pack in mcsim and against a small Python model of the scheduler; the tasks that
ran, and the ticks they ran at, must match, and so must the lists left at the end."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpharness import Pack, install, mark
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcsim.server import Server

PLAYER = "Bot"


@dataclass
class Task:
    label: str
    id: str
    due: int
    player: bool
    interval: int = 0
    anchor: int = 0
    remaining: int = 0


@dataclass
class Model:
    """What the README promises, for tasks whose commands always succeed."""

    time: int = 0
    online: bool = False
    queue: list[Task] = field(default_factory=list)
    offline: list[Task] = field(default_factory=list)
    paused: list[Task] = field(default_factory=list)
    runs: list[tuple[str, int]] = field(default_factory=list)

    def insert(self, task: Task) -> None:
        i = len(self.queue)
        while i > 0 and self.queue[i - 1].due > task.due:
            i -= 1
        self.queue.insert(i, task)

    def schedule(self, task: Task) -> None:
        self.insert(task)

    @staticmethod
    def take(tasks: list[Task], task_id: str) -> Task | None:
        for i, task in enumerate(tasks):
            if task.id == task_id:
                return tasks.pop(i)
        return None

    def cancel_one(self, task_id: str) -> bool:
        return any(self.take(tasks, task_id) for tasks in (self.queue, self.offline, self.paused))

    def cancel_all(self, task_id: str) -> int:
        count = 0
        for tasks in (self.queue, self.offline, self.paused):
            kept = [t for t in tasks if t.id != task_id]
            count += len(tasks) - len(kept)
            tasks[:] = kept
        return count

    def pause(self, task_id: str) -> bool:
        task = self.take(self.queue, task_id) or self.take(self.offline, task_id)
        if task is None:
            return False
        task.remaining = max(task.due - self.time, 0)
        self.paused.append(task)
        return True

    def resume(self, task_id: str) -> bool:
        task = self.take(self.paused, task_id)
        if task is None:
            return False
        task.due = task.anchor = self.time + task.remaining
        self.insert(task)
        return True

    def tick(self) -> None:
        now = self.time + 1
        while self.queue and self.queue[0].due <= now:
            task = self.queue.pop(0)
            if task.player and not self.online:
                self.offline.append(task)
                continue
            self.runs.append((task.label, now))
            if task.interval:
                k = (now - task.anchor) // task.interval + 1
                task.due = task.anchor = task.anchor + k * task.interval
                self.insert(task)
        if self.online:  # restored in the same tick, after the due tasks, due at once
            for task in [t for t in self.offline if t.player]:
                self.offline.remove(task)
                task.due = max(task.due, self.time)
                self.insert(task)
        self.time = now


IDS = st.sampled_from(["a", "b", "c"])
OPS = st.one_of(
    st.tuples(
        st.just("schedule"), IDS, st.integers(0, 8), st.booleans(), st.sampled_from([0, 0, 3, 7])
    ),
    st.tuples(st.sampled_from(["cancel_one", "cancel_all", "pause", "resume"]), IDS),
    st.tuples(st.sampled_from(["join", "leave"])),
    st.tuples(st.just("tick"), st.integers(1, 25)),
)


def apply(pack: Pack, model: Model, op: tuple[Any, ...], serial: int) -> None:
    kind = op[0]
    if kind == "schedule":
        _, task_id, delay, as_player, interval = op
        as_player = as_player and model.online
        label = f"{task_id}{serial}"
        request: dict[str, Any] = {"run": mark(label), "id": task_id}
        if interval:
            request.update(interval=interval, time=delay)
        else:
            request.update(time=delay)
        out = pack.submit(**request, as_=PLAYER if as_player else None)
        assert out["ok"] == 1, out
        due = model.time + delay
        model.schedule(Task(label, task_id, due, as_player, interval, due))
    elif kind in ("cancel_one", "cancel_all", "pause", "resume"):
        result = pack.call(kind, {"id": op[1]})
        expected = getattr(model, kind)(op[1])
        assert result.result == int(expected), (op, pack.out())
    elif kind == "join" and not model.online:
        pack.run(f"player {PLAYER} spawn")
        model.online = True
    elif kind == "leave" and model.online:
        pack.run(f"player {PLAYER} kill")
        model.online = False
    elif kind == "tick":
        for _ in range(op[1]):
            pack.step(1)
            model.tick()


def labels(tasks: list[Any]) -> list[str]:
    return [t["run"] if isinstance(t, dict) else mark(t.label) for t in tasks]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ops=st.lists(OPS, min_size=1, max_size=30))
def test_the_pack_behaves_like_the_model(ops: list[tuple[Any, ...]]) -> None:
    folder = Path(tempfile.mkdtemp(prefix="dsmodel"))
    try:
        install(folder)
        server = Server(folder, frozen=True)
        server.start()
        try:
            pack, model = Pack(server), Model()
            for serial, op in enumerate([*ops, ("tick", 45)]):
                apply(pack, model, op, serial)
                assert pack.time == model.time
            assert [(r.id, r.tick) for r in pack.runs()] == model.runs
            assert labels(pack.queue()) == labels(model.queue)
            assert labels(pack.offline()) == labels(model.offline)
            assert labels(pack.paused()) == labels(model.paused)
            assert [t["remaining"] for t in pack.paused()] == [t.remaining for t in model.paused]
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
