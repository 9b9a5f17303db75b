"""Conditions checked by the pack when a task is due (storage input `cond`): players online,
an empty server, a named player online; skipped at once, or waited for up to `wait` ticks and
then run or skipped; events skipped and waited with their reason; bad conditions refused."""

from __future__ import annotations

import pytest
from tests.datapack.dpharness import Pack, mark

BAD_COND = "bad_cond"


def types(pack: Pack) -> list[str]:
    return [e["type"] for e in pack.events()]


def test_players_at_least_two_skips_with_one_and_runs_with_two(pack: Pack) -> None:
    pack.server.join("Ann")
    pack.submit(req=1, run=mark("one"), time=2, id="one", key="one", cond={"min": 2})
    pack.step(3)
    assert pack.ran() == [] and pack.queue() == []
    skipped = pack.events()[-1]
    assert skipped["type"] == "skipped" and skipped["id"] == "one"
    assert skipped["why"] == "too_few" and skipped["players"] == 1
    line = pack.log_events()[-1]
    assert line["event"] == "skipped" and line["why"] == "too_few" and line["players"] == "1"
    assert line["k"] == "one"
    pack.server.join("Bob")
    pack.submit(req=2, run=mark("two"), time=2, id="two", key="two", cond={"min": 2})
    pack.step(3)
    assert pack.ran() == ["two"]
    assert types(pack)[-1] == "ran"  # no skip: it ran, said as every keyed task is


def test_empty_with_a_wait_runs_when_the_last_player_leaves(pack: Pack) -> None:
    pack.server.join("Ann")
    cond = {"max": 0, "wait": 12000, "then": "skip"}  # empty, wait up to 10 minutes
    pack.submit(req=1, run=mark("restart"), time=1, id="restart", cond=cond)
    pack.step(100)
    assert pack.ran() == []
    [waiting] = pack.queue()
    assert waiting["cond"]["until"] == 12001  # first checked at tick 1
    assert waiting["due"] - pack.time <= 20  # checked again within a second
    pack.server.leave("Ann")
    left = pack.time
    pack.step(21)
    [run] = pack.runs()
    assert left < run.tick <= left + 21
    assert pack.queue() == [] and "skipped" not in types(pack) and "waited" not in types(pack)


@pytest.mark.parametrize(("then", "ran"), [("run", ["late"]), ("skip", [])])
def test_a_wait_that_runs_out_runs_or_skips(pack: Pack, then: str, ran: list[str]) -> None:
    pack.server.join("Ann")
    cond = {"max": 0, "wait": 50, "then": then}
    pack.submit(req=1, run=mark("late"), time=1, id="late", cond=cond)
    pack.step(50)
    assert pack.ran() == [] and types(pack) == []
    pack.step(1)
    assert pack.ran() == ran and pack.queue() == []
    waited = pack.events()[-1]
    assert (waited["type"], waited["why"], waited["players"], waited["then"]) == (
        "waited",
        "too_many",
        1,
        then,
    )
    assert pack.log_events()[-1]["then"] == then


def test_online_player(pack: Pack) -> None:
    pack.submit(req=1, run=mark("a"), time=1, id="a", cond={"online": "Bob"})
    pack.step(2)
    assert pack.ran() == [] and pack.events()[-1]["why"] == "not_online"
    pack.server.join("Bob")
    pack.submit(req=2, run=mark("b"), time=1, id="b", cond={"online": "Bob"})
    pack.step(2)
    assert pack.ran() == ["b"]


def test_a_skipped_interval_task_keeps_its_grid(pack: Pack) -> None:
    pack.submit(req=1, run=mark("i"), interval=10, id="i", cond={"min": 1})
    pack.step(10)
    assert pack.ran() == [] and [t["due"] for t in pack.queue()] == [20]
    pack.server.join("Ann")
    pack.step(10)
    assert pack.ran() == ["i"] and [t["due"] for t in pack.queue()] == [30]


@pytest.mark.parametrize(
    "cond",
    [
        5,
        {"min": 3, "max": 1},
        {"min": -1},
        {"max": "2"},
        {"wait": -1},
        {"wait": 5, "then": "maybe"},
        {"online": "two words"},
        {"online": "a_name_of_17_char"},
        {"online": 7},
    ],
)
def test_bad_conditions_are_refused_and_nothing_is_queued(pack: Pack, cond: object) -> None:
    out = pack.submit(req=9, run=mark("x"), time=1, id="x", cond=cond)
    assert (out["ok"], out["code"], out["req"]) == (0, BAD_COND, 9)
    assert pack.queue() == []


def test_defaults_are_filled_in(pack: Pack) -> None:
    pack.submit(req=1, run=mark("x"), time=5, id="x", cond={"online": "Ann_1"})
    assert pack.queue()[0]["cond"] == {
        "min": 0,
        "max": 2147483647,
        "wait": 0,
        "then": "skip",
        "online": "Ann_1",
    }
