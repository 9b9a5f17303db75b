"""Model-based test of the doom.schedule pack: a hypothesis state machine drives the pack in one
mcsim world and the reference model (test_model_reference.py, which follows datapack/README.md)
side by side, and after every step compares the runs (task, tick), the three lists (queue,
offline, paused: ids, order, due ticks, remaining, attempts left, late, anchors), stats.deferred
and stats.late, the events in the ring buffer (type, id, t, retry, by, consecutive seq) and in
latest.log (the `say` lines), and every call's result and outcome record.

Steps: schedule (macro forms schedule / schedule_with_retry / schedule_every / schedule_at and the
storage input, every unit, retry and retry_delay, interval, absolute tick; as the server, a
player or a marker; commands that succeed, fail a few times, always fail or do not instantiate),
cancel_one / cancel_all / count / clear / pause / resume (macro and storage forms), join / leave
of two Carpet-style players (and "away": leave, n ticks, join), summon / kill of the marker, the
per-tick cap (1, 2, 3, 100), and tick(n).

One world serves every example: each example starts by clearing the pack's lists, the test's
records and the event ring, so 150 examples of 40 steps take 20-30 s on 2 cores. derandomize and
no example database keep CI deterministic. DSMODEL_PACK=<dir> runs it against another copy of
the pack (used to check that the test bites; never point it at the repo's datapack/ to edit it).

Bites: each bug below was put into a scratch copy of datapack/ (never the repo's) and the test
run against it with the default settings (DSMODEL_PACK=<copy>/datapack, no shrinking); every one
fails, first detected as follows (step = the rule after which an invariant failed):
- resume doubles the remaining delay (core/op/resume adds `remaining` twice): same_state "queue"
  after step 28, call_op(resume): the resumed task's due is 2 ticks (its remaining) too late.
- cancel_one removes two (core/op/cancel_one calls take_first twice): same_state "queue" after
  step 22, call_more(cancel_one): a second task of that id is gone.
- retry count off by one (check/retry starts retry_left at retry+1): same_state "queue" after
  step 1, schedule_more(submit with retry): retry_left 3 for retry 2.
- retries exhausted one attempt late (core/run/failed tests retry_left -1 instead of 0): same_log
  after step 16, tick_more: event retry with retry=-1 where retry_exhausted was due.
- interval drifting by one tick (core/run/again adds 1 to the next boundary): same_state runs
  after step 18, tick_more: an interval task ran one tick late (47 for 46).
- restore skipping a task (core/restore/each drops r.l[0] twice): same_log after step 37,
  tick_more: a restored event missing (and the task lost from offline and queue).
- cancel_all forgets the paused list (core/op/remove_all): call_more(cancel_all) after step 20:
  result 0 (not_found) where the model removed 1.
- cap off by one (core/due_loop runs cap+1 tasks per tick): same_state runs after step 24,
  tick(1) with cap 1: a second task ran in the same tick.
- pause remaining off by one (core/op/pause subtracts 1): same_state "paused remaining" after
  step 12, call_more(pause): 2 for 3.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from tests.datapack.dpharness import EVENT_LINE, PACK_DIR, Pack
from tests.fixtures import install_pack
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from tests.datapack.test_model_reference import UNITS, Event, Executor, Model, Task

from mcsim.server import Server

__all__ = ["PackMachine"]

PLAYERS = ("Bot", "Alt")
MARKER = "@e[type=minecraft:marker,tag=dsm,limit=1]"
IDS = st.sampled_from(["a", "b", "c"])
FORMS = ["schedule", "schedule_with_retry", "schedule_every", "schedule_at", "submit"]
WHO = st.sampled_from([None, None, "Bot", "Alt", "marker"])
OPS = st.sampled_from(
    ["cancel_one", "cancel_all", "count", "pause", "pause", "resume", "resume", "resume", "clear"]
)
# Mostly short steps; now and then a minute (tasks in m/s units come due) or an idle stretch.
TICKS = st.integers(1, 24).map(lambda n: {23: 60, 24: 1201}.get(n, n))

# The test pack: dsm:do {id,f} records (id, game time) and fails on its first f runs (per id).
DSM_DO = (
    '$data modify storage dsm:log runs append value {id:"$(id)"}\n'
    "execute store result storage dsm:log runs[-1].t int 1 run time query gametime\n"
    "$scoreboard players add $(id) dsm.tries 1\n"
    "$execute if score $(id) dsm.tries matches ..$(f) run return fail\n"
)


def max_time(unit: str) -> int:
    """Delays that can come due within an example (longer units: only 0)."""
    return {1: 30, 20: 2, 1200: 1}.get(UNITS[unit], 0)


@dataclass(frozen=True)
class Request:
    form: str  # schedule, schedule_with_retry, schedule_every, schedule_at, submit
    unit: str | None
    time: int | None
    interval: int | None
    tick_offset: int | None  # absolute tick = game time + offset (clamped at 0)
    retry: int | None
    retry_delay: int | None
    fails: int
    invalid: bool


@st.composite
def requests(draw: st.DrawFn) -> Request:
    form = draw(st.sampled_from(FORMS))
    fails = draw(st.sampled_from([0, 0, 0, 1, 2, 99]))
    invalid = draw(st.sampled_from([False] * 7 + [True]))
    unit: str | None = draw(st.sampled_from(sorted(UNITS)))
    time: int | None = None
    interval: int | None = None
    tick_offset = retry = retry_delay = None
    if form in ("schedule_every",) or (form == "submit" and draw(st.integers(0, 3)) == 0):
        unit = draw(st.sampled_from(["t", "t", "ticks", "s", "m"]))
        interval = draw(st.integers(1, {"t": 9, "ticks": 9, "s": 2, "m": 1}[unit]))
    # the storage input also takes `tick` with `interval`: first run at the tick, then the grid
    if form == "schedule_at" or (form == "submit" and draw(st.booleans())):
        tick_offset = draw(st.integers(-4, 15))
    elif form != "schedule_every":
        assert unit is not None
        time = draw(st.integers(0, max_time(unit)))
    if form == "schedule_with_retry" or (form == "submit" and draw(st.booleans())):
        retry = draw(st.integers(0, 3))
        retry_delay = draw(st.integers(-1, 4))
    if form == "submit":
        if (tick_offset is not None and interval is None) or (unit == "t" and draw(st.booleans())):
            unit = None  # the storage input's default unit is t
        if interval is not None and draw(st.booleans()):
            time = None  # first run one interval from now
    return Request(form, unit, time, interval, tick_offset, retry, retry_delay, fails, invalid)


def install(world: Path, pack_dir: Path) -> None:
    install_pack(world, pack_dir)
    test = world / "datapacks" / "dsmodel"
    (test / "data" / "dsm" / "function").mkdir(parents=True)
    (test / "pack.mcmeta").write_text(
        '{"pack":{"description":"t","pack_format":48,"supported_formats":[48,94],'
        '"min_format":48,"max_format":94}}'
    )
    (test / "data" / "dsm" / "function" / "do.mcfunction").write_text(DSM_DO)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    world = tmp_path_factory.mktemp("model") / "world"
    world.mkdir()
    install(world, Path(os.environ.get("DSMODEL_PACK", PACK_DIR)))
    server = Server(world, frozen=True)
    server.start()
    server.run("scoreboard objectives add dsm.tries dummy")
    # Room for every event of one example (the ring is emptied between examples).
    server.run("data modify storage doom.schedule:data cfg.events_max set value 100000")
    try:
        yield server
    finally:
        server.stop()


def run_text(label: str, fails: int, invalid: bool) -> str:
    """A task's command: dsm:do, or (invalid) a command that does not parse, so the macro line
    running it fails to instantiate (an unknown function would parse, and fail only when run)."""
    return f'{"dsm_no_such_command" if invalid else "function dsm:do"} {{id:"{label}",f:{fails}}}'


def task_view(t: dict[str, Any] | Task) -> tuple[Any, ...]:
    """What is compared of a task in a list: its command (label), id, due, attempts left,
    lateness, interval and the anchor of interval tasks."""
    if isinstance(t, Task):
        run = run_text(t.label, t.fails, t.invalid)
        return (
            run,
            t.id,
            t.due,
            t.retry_left,
            t.late,
            t.interval,
            t.anchor if t.interval else None,
        )
    interval = t.get("interval", 0)
    anchor = t.get("anchor") if interval else None
    return (t["run"], t["id"], t["due"], t["retry_left"], t["late"], interval, anchor)


class PackMachine(RuleBasedStateMachine):
    server: ClassVar[Server]

    def __init__(self) -> None:
        super().__init__()
        self.pack = Pack(self.server)
        for name in PLAYERS:
            if self.pack.run(f"execute if entity {name}").success:
                self.pack.run(f"player {name} kill")
        for command in (
            "kill @e[type=minecraft:marker,tag=dsm]",
            "function doom.schedule:clear",
            "data modify storage doom.schedule:data cfg.cap set value 100",
            "data modify storage doom.schedule:events entries set value []",
            "data remove storage dsm:log runs",
            "scoreboard players reset * dsm.tries",
        ):
            self.pack.run(command)
        self.seq0 = int(self.server.storage("doom.schedule:events").get("seq", 0))  # type: ignore[call-overload]
        self.log_pos = self.server.log_path.stat().st_size
        self.log_lines: list[dict[str, str]] = []
        self.model = Model(time=self.pack.time)
        self.deferred0 = self.pack.data()["stats"]["deferred"]
        self.serial = 0
        self.marker_gen = 0

    # -- steps --------------------------------------------------------------------------------

    @rule(req=requests(), task_id=IDS, who=WHO)
    def schedule(self, req: Request, task_id: str, who: str | None) -> None:
        """Schedules as `who` (a player joins first if offline, a marker is summoned if none)."""
        model = self.model
        executor: Executor = None
        as_: str | None = None
        if who == "marker":
            if not model.markers:
                self.toggle("marker")
            executor, as_ = ("marker", self.marker_gen), MARKER
        elif who is not None:
            if who not in model.online:
                self.toggle(who)
            executor, as_ = who, who
        self.serial += 1
        label = f"{task_id}{self.serial}"
        run = run_text(label, req.fails, req.invalid)
        args: dict[str, Any] = {"run": run, "id": task_id}
        mult = UNITS[req.unit or "t"]
        if req.tick_offset is not None:
            args["tick"] = due = max(model.time + req.tick_offset, 0)
            if req.interval is not None:
                args["interval"] = req.interval
        else:
            first = req.time if req.time is not None else req.interval
            assert first is not None
            due = model.time + first * mult
            if req.time is not None:
                args["time"] = req.time
            if req.interval is not None:
                args["interval"] = req.interval
        if req.unit is not None and (req.tick_offset is None or req.interval is not None):
            args["unit"] = req.unit
        if req.retry is not None:
            args.update(retry=req.retry, retry_delay=req.retry_delay)
        if req.form == "submit":
            out = self.pack.submit(**args, as_=as_)
        else:
            result = self.pack.call(req.form, args, as_=as_)
            out = self.pack.out()
            assert result.success, (req, args, out)
        assert out["ok"] == 1 and out["due"] == due, (req, args, out)
        interval = (req.interval or 0) * mult
        model.schedule(
            Task(label, task_id, due, executor, req.fails, req.invalid, interval,
                 retry=req.retry or 0, retry_delay=req.retry_delay or 1)
        )

    @rule(op=OPS, task_id=IDS, storage=st.booleans())
    def call_op(self, op: str, task_id: str, storage: bool) -> None:
        expected = self.model.clear() if op == "clear" else getattr(self.model, op)(task_id)
        if storage:
            result, out = self.pack.op(op, None if op == "clear" else task_id, req=self.serial)
            assert out["req"] == self.serial, out
        else:
            args = None if op == "clear" else {"id": task_id}
            result, out = self.pack.call(op, args), self.pack.out()
        assert result.result == expected, (op, task_id, result, out)
        assert out["ok"] == int(expected > 0 or op in ("count", "clear")), (op, out)
        if op in ("cancel_all", "count", "clear"):
            assert out["count"] == expected, (op, out)

    @rule(who=st.sampled_from([*PLAYERS, "marker"]))
    def toggle(self, who: str) -> None:
        """An online player leaves (Carpet's kill), an offline one joins; the marker is killed,
        or a new one (a new UUID) is summoned."""
        if who in self.model.online:
            assert self.pack.run(f"player {who} kill").success
            self.model.online.remove(who)
        elif who != "marker":
            assert self.pack.run(f"player {who} spawn").success
            self.model.online.append(who)
        elif self.model.markers:
            assert self.pack.run("kill @e[type=minecraft:marker,tag=dsm]").success
            self.model.markers = set()
        else:
            assert self.pack.run("summon minecraft:marker 3 70 -5 {Tags:[dsm]}").success
            self.marker_gen += 1
            self.model.markers = {self.marker_gen}

    @rule(player=st.sampled_from(PLAYERS), ticks=st.integers(1, 30))
    def away(self, player: str, ticks: int) -> None:
        """A player is offline for a while and comes back: their due tasks park, then return."""
        if player in self.model.online:
            self.toggle(player)
        self.tick(ticks)
        self.toggle(player)

    # Rules are drawn about evenly: these give scheduling, calls and ticks more of the steps.
    @rule(req=requests(), task_id=IDS, who=WHO)
    def schedule_more(self, req: Request, task_id: str, who: str | None) -> None:
        self.schedule(req, task_id, who)

    @rule(req=requests(), task_id=IDS, who=WHO)
    def schedule_again(self, req: Request, task_id: str, who: str | None) -> None:
        self.schedule(req, task_id, who)

    @rule(op=OPS, task_id=IDS, storage=st.booleans())
    def call_more(self, op: str, task_id: str, storage: bool) -> None:
        self.call_op(op, task_id, storage)

    @rule(ticks=TICKS)
    def tick_more(self, ticks: int) -> None:
        self.tick(ticks)

    @rule(cap=st.sampled_from([1, 2, 3, 100]))
    def set_cap(self, cap: int) -> None:
        self.pack.run(f"data modify storage doom.schedule:data cfg.cap set value {cap}")
        self.model.cap = cap

    @rule(ticks=TICKS)
    def tick(self, ticks: int) -> None:
        for _ in range(ticks):
            self.pack.step(1)
            self.model.tick()

    # -- comparisons --------------------------------------------------------------------------

    @invariant()
    def same_state(self) -> None:
        pack, model = self.pack, self.model
        assert pack.time == model.time
        runs = self.server.storage("dsm:log").get("runs", [])
        assert [(r["id"], r["t"] + 1) for r in runs] == model.runs  # type: ignore[attr-defined]
        data = pack.data()
        for name in ("queue", "offline", "paused"):
            got = [task_view(t) for t in data.get(name, [])]
            want = [task_view(t) for t in getattr(model, name)]
            assert got == want, name
        stats = data["stats"]
        assert stats["deferred"] - self.deferred0 == model.deferred, "stats.deferred"
        if model.stats_late is not None:
            assert stats["late"] == model.stats_late, "stats.late"
        remaining = [t["remaining"] for t in data.get("paused", [])]
        assert remaining == [t.remaining for t in model.paused], "paused remaining"
        entries = pack.events()
        got_events = [
            Event(e["type"], e["id"], e["t"], e.get("retry"), "by" in e, e.get("late"))
            for e in entries
        ]
        assert got_events == model.events, "events"
        seq = self.seq0 + 1
        assert [e["seq"] for e in entries] == list(range(seq, seq + len(entries))), "seq"

    @invariant()
    def same_log(self) -> None:
        """The event lines said since the example began (read on from where the last check
        stopped), against the model's events."""
        with self.server.log_path.open("rb") as f:
            f.seek(self.log_pos)
            text = f.read().decode("utf-8")
        complete = text[: text.rfind("\n") + 1]
        self.log_pos += len(complete.encode("utf-8"))
        for line in complete.splitlines():
            m = EVENT_LINE.search(line)
            if m:
                assert m.group("who") == "Server", line
                self.log_lines.append(dict(p.split("=", 1) for p in m.group("body").split(" ")))
        want = [
            {"event": e.type, "id": e.id, "seq": str(self.seq0 + 1 + i), "t": str(e.t)}
            | ({"retry": str(e.retry)} if e.retry is not None else {})
            | ({"late": str(e.late)} if e.late is not None else {})
            for i, e in enumerate(self.model.events)
        ]
        assert [{k: v for k, v in d.items() if k != "by"} for d in self.log_lines] == want
        assert ["by" in d for d in self.log_lines] == [e.by for e in self.model.events]


@pytest.mark.slow
def test_the_pack_behaves_like_the_model(server: Server) -> None:
    PackMachine.server = server
    run_state_machine_as_test(
        PackMachine,
        settings=settings(
            max_examples=int(os.environ.get("DSMODEL_EXAMPLES", "150")),
            stateful_step_count=40,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            # Against a scratch pack (the bite check) the first failing example is enough.
            phases=[Phase.generate] if "DSMODEL_PACK" in os.environ else list(Phase),
        ),
    )


def test_the_command_records_are_exact(server: Server) -> None:
    """The probe the model relies on: dsm:do fails exactly its first f runs, recorded each time."""
    pack = Pack(server)
    pack.run("scoreboard players reset probe dsm.tries")
    pack.run("data remove storage dsm:log runs")
    outcomes = [pack.run('function dsm:do {id:"probe",f:2}').success for _ in range(4)]
    assert outcomes == [False, False, True, True]
    assert [r["id"] for r in server.storage("dsm:log")["runs"]] == ["probe"] * 4  # type: ignore[attr-defined]
