"""What the other pack tests leave open: the id rules at their
edges through the pack itself, and refusals told to the caller only."""

from __future__ import annotations

import pytest
from tests.datapack.dpharness import Pack, mark

__all__: list[str] = []

ID_CHARS = "ABCXYZabcxyz0189_.+-"


@pytest.mark.parametrize("task_id", ["x" * 64, ID_CHARS, "a", "-", "9.+_"])
def test_ids_of_the_allowed_charset_up_to_64_characters_are_accepted(
    pack: Pack, task_id: str
) -> None:
    out = pack.submit(run=mark(task_id), time=1, id=task_id, req=5)
    assert (out["ok"], out["code"]) == (1, "ok")
    assert [t["id"] for t in pack.queue()] == [task_id]
    pack.step(1)
    assert pack.ran() == [task_id]


@pytest.mark.parametrize("bad", ["x" * 65, "a/b", "a:b", "a#b", "a,b", "a=b", "ä", "a\tb"])
def test_ids_outside_the_charset_or_too_long_are_refused(pack: Pack, bad: str) -> None:
    out = pack.submit(run="say x", time=1, id=bad, req=6)
    assert (out["req"], out["ok"], out["code"]) == (6, 0, "bad_id")
    assert pack.queue() == []


def test_a_refusal_is_told_to_the_calling_player_only(pack: Pack) -> None:
    pack.server.join("Alex")
    pack.server.join("Bob")
    before_bob = list(pack.server.chat("Bob"))
    args = {"run": "say x", "time": 5, "unit": "fortnight", "id": "a"}
    result = pack.call("schedule", args, as_="Alex")
    assert not result.success
    message = pack.out()["message"]
    assert message
    told = [line for line in pack.server.chat("Alex") if "[doom.schedule]" in line]
    assert told == [f"[doom.schedule] {message}"]
    assert pack.server.chat("Bob") == before_bob
    log = pack.server.log_path.read_text(encoding="utf-8")
    assert message not in log
    assert pack.queue() == []
