"""Commands the doom.schedule pack costs in mcsim, at 10, 1,000, 10,000 and 100,000 pending tasks.

Prints, per queue size: commands per idle tick (mean and max over 40 ticks, with two players
online and as many parked tasks as queued ones; the restore check is part of every tick), per
due task (the pack's own work, the task's one command excluded), and per enqueue (context
capture included) from the console and as a player, both when the new task goes last (O(1))
and at a random place (binary search). Goals: idle <= 5 and flat, due <= 25, enqueue
<= 200 at 100,000. The queue is written into the world's command storage before start-up.

Run: python bench/pack_ticks.py [sizes...]
"""

from __future__ import annotations

import logging
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere, no install

from mcsim.nbt import from_python
from mcsim.nbt.values import Compound
from mcsim.server import Server
from mcsim.world import save_storage

__all__ = ["main", "measure"]

log = logging.getLogger(__name__)

PACK = Path(__file__).resolve().parents[1] / "datapack"
SIZES = (10, 1_000, 10_000, 100_000)
START = 1_000  # first due tick of the pre-filled queue
DUE_BATCH = 20


def prefilled_world(folder: Path, pending: int, rng: random.Random) -> None:
    shutil.copytree(PACK, folder / "datapacks" / "doom.schedule")
    dues = sorted(rng.randrange(START, START + 10 * pending + 10) for _ in range(pending))
    queue = [
        {
            "id": f"p{i}",
            "run": "say pending",
            "n": i + 1,
            "due": due,
            "player": False,
            "dimension": "minecraft:overworld",
            "pos": [0.5, 64.0, 0.5],
            "rot": [0.0, 0.0],
            "retry": 0,
            "retry_left": 0,
            "retry_delay": 1,
            "interval": 0,
            "late": 0,
            "at": "in minecraft:overworld positioned 0.5 64.0 0.5 rotated 0.0 0.0",
        }
        for i, due in enumerate(dues)
    ]
    absent = "00000000-0000-0000-0000-0000000000ab"  # parked tasks of a player who stays away
    offline = [dict(t, id=f"o{t['n']}", executor=absent, player=True) for t in queue]
    for task in offline:
        del task["at"]
    data = from_python({"queue": queue, "offline": offline, "paused": []})
    assert isinstance(data, Compound)
    save_storage(folder / "data", {"doom.schedule:data": data})


def enqueue_cost(server: Server, time: int, *, as_player: bool) -> int:
    command = f'function doom.schedule:schedule {{run:"say x",time:{time},unit:"t",id:"bench"}}'
    if as_player:
        command = f"execute as Bench at @s run {command}"
    result = server.run(command)
    assert result.success, result
    return server.counters.last_call


def measure(pending: int, rng: random.Random) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="packticks"))
    try:
        prefilled_world(folder, pending, rng)
        server = Server(folder, frozen=True)
        server.start()
        try:
            server.run("scoreboard objectives add bench dummy")
            server.join("Idle1")
            server.join("Idle2")
            server.step(2)  # their joins are handled; from now on nothing is due or restored
            idle = []
            for _ in range(40):
                server.step(1)
                idle.append(server.counters.last_tick)
            quiet = sorted(idle)[len(idle) // 2]
            for _ in range(DUE_BATCH):
                command = 'run:"scoreboard players add #b bench 1",time:0,unit:"t",id:"due"'
                server.run(f"function doom.schedule:schedule {{{command}}}")
            server.step(1)
            assert server.score("#b", "bench") == DUE_BATCH
            due = (server.counters.last_tick - quiet) / DUE_BATCH - 1
            server.join("Bench")
            enqueue_cost(server, 10, as_player=True)  # first call converts and caches the UUID
            horizon = START + 10 * pending - server.game_time
            last = [enqueue_cost(server, horizon + 100 + k, as_player=False) for k in range(10)]
            spread = [
                enqueue_cost(server, rng.randrange(50, horizon), as_player=False) for _ in range(20)
            ]
            player = [
                enqueue_cost(server, rng.randrange(50, horizon), as_player=True) for _ in range(20)
            ]
            return {
                "idle": sum(idle) / len(idle),
                "idle_max": max(idle),
                "due": due,
                "enq_last": sum(last) / len(last),
                "enq_rand": sum(spread) / len(spread),
                "enq_rand_max": max(spread),
                "enq_player": sum(player) / len(player),
                "enq_player_max": max(player),
            }
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or list(SIZES)
    rng = random.Random(3)
    print(
        f"{'pending':>8} {'idle':>6} {'idle max':>8} {'due':>6} {'enq last':>8} "
        f"{'enq rand':>8} {'(max)':>6} {'enq player':>10} {'(max)':>6}"
    )
    for pending in sizes:
        m = measure(pending, rng)
        print(
            f"{pending:>8} {m['idle']:>6.2f} {m['idle_max']:>8} {m['due']:>6.1f} "
            f"{m['enq_last']:>8.1f} {m['enq_rand']:>8.1f} {m['enq_rand_max']:>6} "
            f"{m['enq_player']:>10.1f} {m['enq_player_max']:>6}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
