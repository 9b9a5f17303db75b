"""The idle tick's cost: at most 5 commands on every tick (the restore check included), whatever
the number of queued and parked tasks and of online players who need nothing restored."""

from __future__ import annotations

from tests.datapack.dpharness import Pack, mark, snbt

IDLE_MAX = 5


def parked(count: int, executor: str) -> list[dict[str, object]]:
    return [
        {"id": f"p{i}", "run": mark(f"p{i}"), "n": i + 1, "due": 5, "executor": executor,
         "player": 1, "dimension": "minecraft:overworld", "pos": [0.0, 64.0, 0.0],
         "rot": [0.0, 0.0], "retry": 0, "retry_left": 0, "retry_delay": 1, "interval": 0,
         "late": 0}
        for i in range(count)
    ]


def idle_costs(pack: Pack, ticks: int) -> list[int]:
    costs = []
    for _ in range(ticks):
        pack.step(1)
        costs.append(pack.server.counters.last_tick)
    return costs


def test_every_idle_tick_costs_at_most_5_with_players_online_and_tasks_parked(pack: Pack) -> None:
    far = pack.submit(run="say later", time=100_000, id="far")
    assert far["ok"] == 1
    absent = "00000000-0000-0000-0000-00000000abcd"  # a player who never comes back
    pack.run(
        f"data modify storage doom.schedule:data offline set value {snbt(parked(500, absent))}"
    )
    for name in ("Ann", "Ben", "Cid"):
        pack.server.join(name)
    pack.step(2)  # the first tick after a join restores (nothing here); then they count as seen
    costs = idle_costs(pack, 45)
    assert max(costs) <= IDLE_MAX, costs
    assert len(set(costs)) == 1, costs  # flat: no tick pays for a periodic check
    assert len(pack.offline()) == 500 and pack.ran() == []


def test_a_join_is_restored_on_the_next_tick_and_idle_cost_returns(pack: Pack) -> None:
    pack.run("player Bot spawn")
    pack.submit(run=mark("b"), time=3, id="b", as_="Bot")
    pack.run("player Bot kill")
    pack.step(3)
    assert [t["id"] for t in pack.offline()] == ["b"]
    quiet = idle_costs(pack, 30)
    assert max(quiet) <= IDLE_MAX and pack.ran() == []
    pack.run("player Bot spawn")
    pack.step(1)
    assert pack.offline() == [] and [t["id"] for t in pack.queue()] == ["b"]
    assert pack.server.counters.last_tick > IDLE_MAX  # this tick did the restoring
    pack.step(1)
    assert pack.ran() == ["b"]
    assert max(idle_costs(pack, 25)) <= IDLE_MAX
