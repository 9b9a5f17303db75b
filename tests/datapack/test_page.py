"""doom.schedule:page (macro form) and `call` op "page" (storage form): a slice of a list with its
total, the index to ask from next, the size cap on `run` text, and refusals."""

from __future__ import annotations

from typing import Any

import pytest
from tests.datapack.dpharness import Pack, snbt


def fill(pack: Pack, count: int, *, run_len: int = 0, prefix: str = "t") -> None:
    for i in range(count):
        run = "say " + ("x" * run_len if run_len else f"{prefix}{i}")
        out = pack.submit(run=run, time=100 + i, id=f"{prefix}{i}")
        assert out["ok"] == 1, out


def page_ids(out: dict[str, Any]) -> list[str]:
    return [t["id"] for t in out["page"]]


def test_the_macro_form_copies_a_slice_with_total_and_next(pack: Pack) -> None:
    fill(pack, 45)
    result = pack.call("page", {"list": "queue", "from": 0, "count": 20})
    out = pack.out()
    assert (result.success, result.result) == (True, 1)
    assert page_ids(out) == [f"t{i}" for i in range(20)]
    assert (out["total"], out["next"], out["count"], out["list"]) == (45, 20, 20, "queue")
    assert out["page"][3] == pack.queue()[3]  # whole tasks, every field
    assert pack.call("page", {"list": "queue", "from": 40, "count": 20}).success
    out = pack.out()
    assert page_ids(out) == [f"t{i}" for i in range(40, 45)]
    assert (out["total"], out["next"], out["count"]) == (45, 45, 5)
    assert pack.call("page", {"list": "queue", "from": 45, "count": 20}).success
    assert (pack.out()["page"], pack.out()["next"]) == ([], 45)


def test_the_storage_form_echoes_req_and_reads_offline_and_paused(pack: Pack) -> None:
    fill(pack, 3)
    assert pack.call("pause", {"id": "t1"}).success
    result, out = pack.op("page", req=9)
    assert not result.success and out["code"] == "bad_list"  # no list given
    pack.run(
        "data modify storage doom.schedule:in op set value "
        + snbt({"req": 10, "op": "page", "list": "paused", "from": 0, "count": 5})
    )
    assert pack.call("call").success
    out = pack.out()
    assert (out["req"], out["ok"], out["op"]) == (10, 1, "page")
    assert page_ids(out) == ["t1"] and out["page"][0]["remaining"] > 0
    assert (out["total"], out["next"]) == (1, 1)
    pack.run(
        "data modify storage doom.schedule:in op set value "
        + snbt({"req": 11, "op": "page", "list": "offline", "from": 0, "count": 5})
    )
    assert pack.call("call").success
    assert (pack.out()["req"], pack.out()["page"], pack.out()["total"]) == (11, [], 0)


def test_long_run_texts_end_the_page_early_but_never_before_one_task(pack: Pack) -> None:
    fill(pack, 6, run_len=3000)
    assert pack.call("page", {"list": "queue", "from": 0, "count": 20}).success
    out = pack.out()
    assert page_ids(out) == ["t0", "t1", "t2"]  # 9000 characters of run text: stop
    assert (out["next"], out["total"]) == (3, 6)
    pack.run("data modify storage doom.schedule:data queue[4].run set value " + snbt("x" * 20000))
    assert pack.call("page", {"list": "queue", "from": 4, "count": 20}).success
    assert page_ids(pack.out()) == ["t4"] and pack.out()["next"] == 5


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"list": "queues", "from": 0, "count": 5}, "bad_list"),
        ({"list": "queue", "from": -1, "count": 5}, "bad_page"),
        ({"list": "queue", "from": 0, "count": 0}, "bad_page"),
        ({"list": "queue", "from": 0, "count": 101}, "bad_page"),
        ({"list": "queue", "from": "0", "count": 5}, "bad_page"),
        ({"list": "queue", "from": 0, "count": 2.5}, "bad_page"),
    ],
)
def test_bad_requests_fail_with_a_code(pack: Pack, args: dict[str, Any], code: str) -> None:
    fill(pack, 2)
    pack.run(
        "data modify storage doom.schedule:in op set value "
        + snbt({"req": 3, "op": "page", **args})
    )
    assert not pack.call("call").success
    out = pack.out()
    assert (out["req"], out["ok"], out["code"], out["page"]) == (3, 0, code, [])


def test_macro_arguments_only_ever_make_a_checked_request(pack: Pack) -> None:
    fill(pack, 2)
    # a quote in `list` can only add keys to the request compound, which is then checked
    assert pack.run("function doom.schedule:page {list:'queue\",count:1,x:\"',from:0,count:5}")
    assert page_ids(pack.out()) == ["t0", "t1"]
    escape = "function doom.schedule:page {list:'queue\"} run say hi',from:0,count:5}"
    assert not pack.run(escape).success  # text after the compound: fails to instantiate
    assert "[Server] hi" not in pack.server.log_path.read_text()
    # keys injected through `list` come before the template's own from and count, which win
    assert pack.run("function doom.schedule:page {list:'queue\",count:500,x:\"',from:1,count:5}")
    assert page_ids(pack.out()) == ["t1"]


def test_a_page_costs_the_same_at_the_end_of_a_long_list(pack: Pack) -> None:
    fill(pack, 300)
    costs = []
    for start in (0, 280):
        assert pack.call("page", {"list": "queue", "from": start, "count": 20}).success
        costs.append(pack.server.counters.last_call)
        assert len(pack.out()["page"]) == 20
    assert costs[0] == costs[1]
