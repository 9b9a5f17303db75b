"""doom.schedule:submit_staged: a request written ahead under a key, queued by one command at its
time (what the bot's wall-clock hand-over uses to keep one round trip between due and queued)."""

from __future__ import annotations

from tests.datapack.dpharness import Pack, mark, snbt

__all__: list[str] = []


def stage(pack: Pack, key: str, **task: object) -> None:
    pack.run(f"data modify storage doom.schedule:in staged.{key} set value {snbt(task)}")


def staged(pack: Pack) -> dict[str, object]:
    return dict(pack.server.storage("doom.schedule:in").get("staged", {}))  # type: ignore[call-overload]


def test_a_staged_request_is_queued_like_submit_and_consumed(pack: Pack) -> None:
    stage(pack, "s1", req="r1", run=mark("w"), time=0, id="w", retry=2, retry_delay=3)
    stage(pack, "s2", req="r2", run=mark("other"), time=0, id="other")
    result = pack.call("submit_staged", {"key": "s1"})
    assert result.success
    out = pack.out()
    assert (out["req"], out["ok"], out["code"], out["id"]) == ("r1", 1, "ok", "w")
    [task] = pack.queue()
    assert (task["id"], task["retry"]) == ("w", 2)
    assert list(staged(pack)) == ["s2"]  # only its own key is consumed
    pack.step(1)
    assert pack.ran() == ["w"]


def test_nothing_staged_under_the_key_fails_and_queues_nothing(pack: Pack) -> None:
    stage(pack, "s2", req="r2", run=mark("other"), time=0, id="other")
    # a leftover `in task` (a caller that wrote it and died) must not be taken for the request
    pack.run('data modify storage doom.schedule:in task set value {run:"say stale",id:"stale"}')
    result = pack.call("submit_staged", {"key": "s1"})
    assert not result.success
    out = pack.out()
    assert (out["ok"], out["code"], out["req"]) == (0, "no_input", "staged.s1")
    assert pack.queue() == []
    assert "task" not in pack.server.storage("doom.schedule:in")
    assert list(staged(pack)) == ["s2"]


def test_a_bad_staged_request_is_refused_with_its_code_and_still_consumed(pack: Pack) -> None:
    stage(pack, "s1", req="r1", run="say x", time=-1, id="bad")
    assert not pack.call("submit_staged", {"key": "s1"}).success
    assert (pack.out()["req"], pack.out()["code"]) == ("r1", "bad_time")
    assert staged(pack) == {}
    assert pack.queue() == []


def test_store_success_of_the_call_marks_only_an_accepted_request(pack: Pack) -> None:
    stage(pack, "ok", req=1, run="say x", time=5, id="a")
    stage(pack, "bad", req=2, run="say x", time=5, id="a/b")
    for key in ("ok", "bad", "none"):
        pack.run(
            f"execute store success storage dstest:marks {key} byte 1 run "
            f'function doom.schedule:submit_staged {{key:"{key}"}}'
        )
    assert pack.server.storage("dstest:marks") == {"ok": 1, "bad": 0, "none": 0}
    assert [t["id"] for t in pack.queue()] == ["a"]


def test_a_staged_task_runs_in_the_context_of_the_call(pack: Pack) -> None:
    pack.server.join("Alex")
    stage(pack, "p", req=1, run='function dstest:where {id:"as_alex"}', time=0, id="as_alex")
    assert pack.call("submit_staged", {"key": "p"}, as_="Alex").success
    pack.step(1)
    [run] = pack.runs()
    assert (run.id, run.player) == ("as_alex", True)
