"""Scheduling: vanilla /schedule timing, units, ordering, the call forms and their refusals."""

from __future__ import annotations

import re
from typing import Any

import pytest
from tests.datapack.dpharness import PACK_DIR, Pack, mark

from bot.minecraft.installer import pack_version_of

UNITS = {
    "t": 1, "tick": 1, "ticks": 1, "s": 20, "second": 20, "seconds": 20, "m": 1200, "minute": 1200,
    "minutes": 1200, "h": 72000, "hour": 72000, "hours": 72000, "d": 1_728_000, "day": 1_728_000,
    "days": 1_728_000, "gd": 24000, "game_day": 24000, "game_days": 24000,
}


def test_a_5_tick_task_runs_after_exactly_5_ticks(pack: Pack) -> None:
    start = pack.time
    assert pack.schedule(mark("five"), 5, "t", "five").success
    pack.step(4)
    assert pack.ran() == []
    pack.step(1)
    assert [(r.id, r.tick) for r in pack.runs()] == [("five", start + 5)]
    assert pack.queue() == []


def test_a_1_second_task_runs_after_20_ticks(pack: Pack) -> None:
    assert pack.schedule(mark("sec"), 1, "s", "sec").success
    pack.step(19)
    assert pack.ran() == []
    pack.step(1)
    assert pack.ran() == ["sec"]


def test_tasks_due_on_one_tick_run_in_scheduling_order(pack: Pack) -> None:
    # scheduled out of due order, so the binary-search insert is used too
    for i, delay in enumerate([7, 3, 7, 5, 3, 7, 1, 7, 5, 3]):
        pack.schedule(mark(f"t{i}-{delay}"), delay, "t", f"t{i}")
    assert [t["due"] for t in pack.queue()] == sorted(t["due"] for t in pack.queue())
    pack.step(8)
    ran = pack.ran()
    assert ran == sorted(ran, key=lambda x: (int(x.split("-")[1]), int(x[1:].split("-")[0])))
    assert len(ran) == 10


@pytest.mark.parametrize(("unit", "ticks"), sorted(UNITS.items()))
def test_every_unit_sets_the_due_tick(pack: Pack, unit: str, ticks: int) -> None:
    pack.step(3)
    assert pack.schedule("say u", 2, unit, "u").success
    out = pack.out()
    assert (out["ok"], out["code"], out["due"], out["time"]) == (1, "ok", 3 + 2 * ticks, 3)
    assert pack.queue()[0]["due"] == 3 + 2 * ticks


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"run": "say x", "time": 5, "unit": "fortnight", "id": "a"}, "bad_unit"),
        ({"run": "say x", "time": -1, "unit": "t", "id": "a"}, "bad_time"),
        ({"run": "say x", "time": 2, "unit": "d", "id": "a"}, "too_late"),
        ({"run": "say x", "time": 5, "unit": "t", "id": "bad id"}, "bad_id"),
        ({"run": "say x", "time": 5, "unit": "t", "id": "@a"}, "bad_id"),
        ({"run": "say x", "time": 5, "unit": "t", "id": "x" * 65}, "bad_id"),
        ({"run": "say x", "time": 5, "unit": "t", "id": ""}, "bad_id"),
        ({"run": "", "time": 5, "unit": "t", "id": "a"}, "bad_run"),
    ],
)
def test_refusals_fail_queue_nothing_and_say_why(
    pack: Pack, args: dict[str, object], code: str
) -> None:
    if code == "too_late":
        args = {**args, "time": 1243}  # 1243 real days of 1,728,000 ticks > 2^31 - 1
    result = pack.call("schedule", args)
    assert not result.success
    out = pack.out()
    assert (out["ok"], out["code"]) == (0, code)
    assert out["message"]
    assert pack.queue() == []


def test_storage_input_refusals_echo_the_request_id(pack: Pack) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"run": "say x", "time": "5", "id": "a"}, "bad_time"),
        ({"run": "say x", "time": 5, "unit": 20, "id": "a"}, "bad_unit"),
        ({"run": "say x", "time": 5, "unit": 't"]', "id": "a"}, "bad_unit"),
        ({"run": "say x", "time": 5, "id": 'a"}]'}, "bad_id"),
        ({"run": "say x", "time": 5, "id": "ünï"}, "bad_id"),
        ({"run": "say x", "time": 5, "id": 5}, "bad_id"),
        ({"run": {"cmd": "say"}, "time": 5, "id": "a"}, "bad_run"),
        ({"time": 5, "id": "a"}, "bad_run"),
        ({"run": "say x", "tick": -3, "id": "a"}, "bad_tick"),
        ({"run": "say x", "interval": 0, "id": "a"}, "bad_interval"),
        ({"run": "say x", "time": 1, "retry": -1, "id": "a"}, "bad_retry"),
        ({"run": "say x", "time": 1, "prefix": "p q"}, "bad_prefix"),
    ]
    for req, (task, code) in enumerate(cases, start=100):
        out = pack.submit(req=req, **task)
        assert (out["req"], out["ok"], out["code"]) == (req, 0, code), task
    assert pack.queue() == []
    assert pack.server.storage("doom.schedule:in").get("task") is None


def test_schedule_at_runs_at_the_absolute_tick(pack: Pack) -> None:
    assert pack.call("schedule_at", {"run": mark("at"), "tick": 12, "id": "at"}).success
    pack.step(11)
    assert pack.ran() == []
    pack.step(1)
    assert [(r.id, r.tick) for r in pack.runs()] == [("at", 12)]


def test_a_past_tick_runs_at_the_next_tick(pack: Pack) -> None:
    pack.step(10)
    assert pack.submit(run=mark("past"), tick=3, id="past")["due"] == 3
    pack.step(1)
    assert [(r.id, r.tick) for r in pack.runs()] == [("past", 11)]


def test_time_zero_runs_at_the_next_tick(pack: Pack) -> None:
    pack.schedule(mark("zero"), 0, "t", "zero")
    pack.step(1)
    assert pack.ran() == ["zero"]


def test_schedule_dynamic_makes_ids_from_a_counter(pack: Pack) -> None:
    first = pack.call(
        "api/schedule_dynamic", {"run": "say a", "time": 5, "unit": "t", "prefix": "job-"}
    )
    assert first.success
    id1 = pack.out()["id"]
    second = pack.call(
        "api/schedule_dynamic", {"run": "say a", "time": 5, "unit": "t", "prefix": "job-"}
    )
    id2 = pack.out()["id"]
    assert (id1, id2) == (f"job-{first.result}", f"job-{second.result}")
    assert second.result == first.result + 1
    assert [t["id"] for t in pack.queue()] == [id1, id2]


def test_get_time_version_and_help(pack: Pack) -> None:
    pack.step(7)
    result = pack.call("get_time")
    assert (result.success, result.result) == (True, 7)
    assert pack.out()["time"] == 7
    assert pack.server.storage("doom.schedule:const")["version"] == pack_version()
    pack.server.join("Alex")
    assert pack.call("__help__", as_="Alex").success
    assert any("schedule_every" in line for line in pack.server.chat("Alex"))


def pack_version() -> str:
    """The version the pack's #load writes, read from its source (never spelled out in a test)."""
    version = pack_version_of(PACK_DIR)
    assert version is not None and re.fullmatch(r"\d+\.\d+\.\d+", version), version
    return version


def test_the_readme_states_the_version_the_pack_writes() -> None:
    readme = (PACK_DIR / "README.md").read_text(encoding="utf-8")
    assert f'`version` (String, this release: `"{pack_version()}"`)' in readme


def test_every_public_function_is_reachable_through_its_tag(pack: Pack) -> None:
    args = '{run:"function dstest:mark {id:\\"tag\\"}",time:2,unit:"t",id:"tag"}'
    assert pack.run(f"function #doom.schedule:schedule {args}").success
    pack.step(2)
    assert pack.ran() == ["tag"]


def test_a_leading_slash_is_removed(pack: Pack) -> None:
    pack.submit(run="/" + mark("slash"), time=1, id="slash")
    assert pack.queue()[0]["run"] == mark("slash")
    pack.step(1)
    assert pack.ran() == ["slash"]


def test_mixed_time_and_tick_submissions_queue_by_due_then_scheduling_order(pack: Pack) -> None:
    pack.step(2)  # game time 2: tick 1 below is in the past (due 1, runs at the next tick)
    requests: list[tuple[str, dict[str, Any]]] = [
        ("a", {"time": 30}), ("b", {"tick": 10}), ("c", {"time": 5}), ("d", {"tick": 32}),
        ("e", {"tick": 7}), ("f", {"time": 0}), ("g", {"tick": 1}), ("h", {"time": 8}),
        ("i", {"tick": 12, "unit": "s"}), ("j", {"time": 1, "unit": "s"}), ("k", {"tick": 22}),
    ]
    for task_id, when in requests:
        out = pack.submit(run=mark(task_id), id=task_id, **when)
        assert out["ok"] == 1, out
    assert pack.call("schedule_at", {"run": mark("m"), "tick": 7, "id": "m"}).success
    expected = [("g", 1), ("f", 2), ("c", 7), ("e", 7), ("m", 7), ("b", 10), ("h", 10),
                ("i", 12), ("j", 22), ("k", 22), ("a", 32), ("d", 32)]
    assert [(t["id"], t["due"]) for t in pack.queue()] == expected
    pack.step(30)
    assert [(r.id, r.tick) for r in pack.runs()] == [(i, max(d, 3)) for i, d in expected]
