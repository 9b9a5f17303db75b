"""schedule_every: the cadence, cancelling, a first delay, and catching up without a replay storm or
drift after its due tick passed unrun (the pack disabled for a while, or the per-tick cap)."""

from __future__ import annotations

from tests.datapack.dpharness import Pack, mark


def ticks(pack: Pack, task_id: str) -> list[int]:
    return [r.tick for r in pack.runs() if r.id == task_id]


def test_every_runs_one_interval_apart_until_cancelled(pack: Pack) -> None:
    args = {"run": mark("e"), "interval": 1, "unit": "s", "id": "e"}
    assert pack.call("schedule_every", args).success
    assert pack.out()["due"] == 20
    pack.step(65)
    assert ticks(pack, "e") == [20, 40, 60]
    assert pack.queue()[0]["due"] == 80 and pack.queue()[0]["interval"] == 20
    assert pack.call("cancel_one", {"id": "e"}).success
    pack.step(40)
    assert ticks(pack, "e") == [20, 40, 60]


def test_every_with_a_first_delay(pack: Pack) -> None:
    pack.submit(run=mark("f"), interval=10, time=3, id="f")
    pack.step(25)
    assert ticks(pack, "f") == [3, 13, 23]


def test_a_missed_interval_runs_once_and_skips_ahead_on_its_grid(pack: Pack) -> None:
    pack.submit(run=mark("g"), interval=10, id="g")
    pack.step(10)
    assert ticks(pack, "g") == [10]
    disabled = pack.run('datapack disable "file/doom.schedule"')
    assert disabled.success, disabled
    pack.step(47)  # game time 57: due ticks 20, 30, 40, 50 pass unrun
    assert ticks(pack, "g") == [10]
    assert pack.run('datapack enable "file/doom.schedule"').success
    pack.step(1)
    assert ticks(pack, "g") == [10, 58]
    assert pack.queue()[0]["due"] == 60  # the next boundary of 10, 20, 30, ... after 58
    assert pack.queue()[0]["late"] == 38
    pack.step(12)
    assert ticks(pack, "g") == [10, 58, 60, 70]


def test_an_interval_task_held_back_by_the_cap_does_not_drift(pack: Pack) -> None:
    pack.run("data modify storage doom.schedule:data cfg.cap set value 1")
    pack.submit(run=mark("h"), interval=5, id="h")
    pack.submit(run=mark("blocker"), time=5, id="blocker")
    pack.step(5)
    # "h" was scheduled first, so it runs at 5 and "blocker" waits a tick
    assert ticks(pack, "h") == [5] and ticks(pack, "blocker") == []
    pack.step(10)
    assert ticks(pack, "h") == [5, 10, 15] and ticks(pack, "blocker") == [6]


def test_a_failing_interval_task_is_removed_when_retries_are_exhausted(pack: Pack) -> None:
    pack.submit(run="function dstest:fail", interval=4, id="i", retry=1, retry_delay=1)
    pack.step(6)
    assert [e["type"] for e in pack.events()] == ["retry", "retry_exhausted"]
    assert pack.queue() == []


def test_a_paused_interval_task_resumes_on_a_new_grid(pack: Pack) -> None:
    pack.submit(run=mark("p"), interval=10, id="p")
    pack.step(4)
    pack.call("pause", {"id": "p"})
    pack.step(100)
    pack.call("resume", {"id": "p"})  # at 104, 6 ticks were left
    pack.step(30)
    assert ticks(pack, "p") == [110, 120, 130]


def test_tick_with_interval_first_runs_at_the_tick_then_every_interval(pack: Pack) -> None:
    out = pack.submit(run=mark("j"), tick=7, interval=1, unit="s", id="j")
    assert out["ok"] and out["due"] == 7
    assert pack.queue()[0]["interval"] == 20 and pack.queue()[0]["anchor"] == 7
    pack.step(50)
    assert ticks(pack, "j") == [7, 27, 47]


def test_a_past_tick_with_interval_runs_once_then_keeps_its_grid(pack: Pack) -> None:
    pack.step(33)
    pack.submit(run=mark("k"), tick=5, interval=10, id="k")  # boundaries 5, 15, 25, 35, ...
    pack.step(20)
    assert ticks(pack, "k") == [34, 35, 45]


def test_tick_with_a_bad_interval_or_unit_is_refused(pack: Pack) -> None:
    assert pack.submit(run=mark("l"), tick=5, interval=0, id="l")["code"] == "bad_interval"
    assert pack.submit(run=mark("l"), tick=5, interval=2, unit="x", id="l")["code"] == "bad_unit"
    assert pack.queue() == []
