"""cancel_one / cancel_all / count / clear / pause / resume, in macro and storage forms, including
tasks of the current tick; and hostile `run` strings through the storage input."""

from __future__ import annotations

from tests.datapack.dpharness import Pack, mark


def ids(tasks: list[dict[str, object]]) -> list[object]:
    return [t["id"] for t in tasks]


def test_cancel_one_takes_the_first_match_and_keeps_the_order(pack: Pack) -> None:
    for i, (tid, delay) in enumerate([("a", 5), ("b", 5), ("a", 3), ("a", 9), ("c", 5)]):
        pack.submit(run=mark(f"{tid}{i}"), time=delay, id=tid)
    assert pack.queue()[0]["run"] == mark("a2")
    result = pack.call("cancel_one", {"id": "a"})
    assert (result.success, result.result) == (True, 1)
    assert (pack.out()["count"], pack.out()["id"]) == (1, "a")
    assert [t["run"] for t in pack.queue()] == [mark("a0"), mark("b1"), mark("c4"), mark("a3")]
    pack.step(10)
    assert pack.ran() == ["a0", "b1", "c4", "a3"]


def test_cancel_one_looks_in_queue_then_offline_then_paused(pack: Pack) -> None:
    pack.submit(run="say p", time=50, id="k")
    assert pack.call("pause", {"id": "k"}).success
    pack.submit(run="say q", time=50, id="k")
    assert pack.call("cancel_one", {"id": "k"}).success
    assert pack.queue() == [] and ids(pack.paused()) == ["k"]
    assert pack.call("cancel_one", {"id": "k"}).success
    assert pack.paused() == []
    refused = pack.call("cancel_one", {"id": "k"})
    assert not refused.success and pack.out()["code"] == "not_found"


def test_a_task_can_cancel_another_due_later_in_the_same_tick(pack: Pack) -> None:
    pack.schedule('function doom.schedule:cancel_one {id:"victim"}', 2, "t", "killer")
    pack.schedule(mark("victim"), 2, "t", "victim")
    pack.schedule('function doom.schedule:cancel_all {id:"v2"}', 2, "t", "killer2")
    pack.schedule(mark("v2"), 2, "t", "v2")
    pack.schedule(mark("v2"), 2, "t", "v2")
    pack.schedule(mark("survivor"), 2, "t", "survivor")
    pack.step(2)
    assert pack.ran() == ["survivor"]
    assert pack.events() == []


def test_a_task_can_schedule_and_pause_others(pack: Pack) -> None:
    child = '{run:"function dstest:mark {id:\\"child\\"}",time:3,unit:"t",id:"child"}'
    inner = f"function doom.schedule:schedule {child}"
    pack.submit(run=inner, time=1, id="parent")
    pack.schedule('function doom.schedule:pause {id:"later"}', 1, "t", "pauser")
    pack.schedule(mark("later"), 1, "t", "later")
    pack.step(1)
    assert ids(pack.queue()) == ["child"] and ids(pack.paused()) == ["later"]
    pack.step(3)
    # scheduled during tick 1, before its increment (game time 0), like vanilla /schedule there
    assert [(r.id, r.tick) for r in pack.runs()] == [("child", 3)]


def test_cancel_all_counts_every_list(pack: Pack) -> None:
    for delay in (3, 8, 20, 40):
        pack.submit(run="say x", time=delay, id="many")
    pack.submit(run="say x", time=3, id="other")
    pack.call("pause", {"id": "many"})
    counted = pack.call("count", {"id": "many"})
    assert (counted.result, pack.out()["count"]) == (4, 4)
    assert len(pack.queue()) == 4
    result = pack.call("cancel_all", {"id": "many"})
    assert (result.success, result.result, pack.out()["count"]) == (True, 4, 4)
    assert ids(pack.queue()) == ["other"] and pack.paused() == []
    again = pack.call("cancel_all", {"id": "many"})
    assert (again.success, pack.out()["code"], pack.out()["count"]) == (False, "not_found", 0)


def test_clear_removes_everything_and_returns_the_count(pack: Pack) -> None:
    for i in range(5):
        pack.submit(run="say x", time=i + 1, id=f"c{i}")
    pack.call("pause", {"id": "c4"})
    result = pack.call("clear")
    assert (result.result, pack.out()["count"]) == (5, 5)
    assert pack.queue() == [] and pack.paused() == [] and pack.offline() == []
    pack.step(10)
    assert pack.events() == []


def test_pause_keeps_the_remaining_delay(pack: Pack) -> None:
    pack.schedule(mark("p"), 150, "t", "p")
    pack.step(50)
    assert pack.call("pause", {"id": "p"}).success
    assert pack.paused()[0]["remaining"] == 100
    pack.step(500)
    assert pack.ran() == []
    assert pack.call("resume", {"id": "p"}).success
    resumed = pack.time
    assert pack.out()["due"] == resumed + 100
    pack.step(99)
    assert pack.ran() == []
    pack.step(1)
    assert [(r.id, r.tick) for r in pack.runs()] == [("p", resumed + 100)]


def test_pause_works_on_parked_tasks(pack: Pack) -> None:
    pack.run("player Bot spawn")
    pack.submit(run=mark("bot"), time=2, id="b", as_="Bot")
    pack.run("player Bot kill")
    pack.step(2)
    assert ids(pack.offline()) == ["b"]
    assert pack.call("pause", {"id": "b"}).success
    assert pack.offline() == [] and pack.paused()[0]["remaining"] == 0
    assert not pack.call("resume", {"id": "nope"}).success
    assert pack.out()["code"] == "not_found"


def test_storage_ops_echo_req_and_refuse_bad_input(pack: Pack) -> None:
    pack.submit(run="say x", time=5, id="j")
    result, out = pack.op("count", "j", req=41)
    assert (result.result, out["req"], out["op"], out["count"]) == (1, 41, "count", 1)
    result, out = pack.op("get_time", req=42)
    assert (result.success, out["req"], out["time"]) == (True, 42, pack.time)
    result, out = pack.op("explode", "j", req=43)
    assert (result.success, out["req"], out["code"]) == (False, 43, "bad_op")
    result, out = pack.op("cancel_one", 'j"}]', req=44)
    assert (result.success, out["req"], out["code"]) == (False, 44, "bad_id")
    result, out = pack.op("cancel_all", "j", req=45)
    assert (result.result, out["ok"], out["count"]) == (1, 1, 1)
    assert pack.server.storage("doom.schedule:in").get("op") is None


def test_macro_calls_with_hostile_ids_do_nothing(pack: Pack) -> None:
    pack.submit(run="say x", time=5, id="keep")
    for bad in ['keep"}] ', "@a", "a b", "k\\\\"]:
        assert not pack.call("cancel_all", {"id": bad}).success
    assert ids(pack.queue()) == ["keep"]


HOSTILE = [
    "a \"double\" and 'single' quotes",
    'back\\slash \\" and \\n',
    "selectors @a @e[type=zombie] @s",
    "non-ASCII: é ü 日本 🎉",
    '$(run) ${x} %s {id:"x"} ] } \'',
]


def test_hostile_run_strings_run_exactly_as_given(pack: Pack) -> None:
    for i, text in enumerate(HOSTILE):
        command = f"data modify storage dstest:log hostile{i} set value {snbt_string(text)}"
        out = pack.submit(run=command, time=1, id=f"h{i}", req=i)
        assert out["ok"] == 1 and out["req"] == i
        assert pack.queue()[-1]["run"] == command
    pack.step(1)
    log = pack.server.storage("dstest:log")
    assert [log.get(f"hostile{i}") for i in range(len(HOSTILE))] == HOSTILE
    assert pack.events() == []


def test_a_hostile_say_is_logged_verbatim(pack: Pack) -> None:
    text = "say quote\" apostrophe' backslash\\ é"
    pack.submit(run=text, time=1, id="say")
    pack.step(1)
    assert (
        "[Not Secure] [Server] quote\" apostrophe' backslash\\ é"
        in pack.server.log_path.read_text()
    )


def snbt_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
