"""10,000 queued tasks survive a server restart (command storage saved and loaded) and run at
their ticks, 100 per tick under the default cap."""

from __future__ import annotations

import pytest

from pathlib import Path

from tests.datapack.dpharness import Pack

from mcsim.server import Server

# Schedules 250 tasks per call (inside the command budget: ~130 commands per goes-last enqueue)
# through the storage input, task i due (#i / 100) + 10 ticks from now, in ascending due order.
BULK = """\
scoreboard players operation #d dstest = #i dstest
scoreboard players operation #d dstest /= #100 dstest
scoreboard players add #d dstest 10
execute store result storage doom.schedule:in task.time int 1 run scoreboard players get #d dstest
data modify storage doom.schedule:in task.run set value "scoreboard players add #ran dstest 1"
data modify storage doom.schedule:in task.id set value "bulk"
function doom.schedule:submit
scoreboard players add #i dstest 1
scoreboard players remove #left dstest 1
execute if score #left dstest matches 1.. run function dstest:bulk
"""


@pytest.mark.slow
def test_ten_thousand_tasks_survive_a_restart_and_run_at_their_ticks(world: Path) -> None:
    (
        world / "datapacks" / "dstest" / "data" / "dstest" / "function" / "bulk.mcfunction"
    ).write_text(BULK)
    server = Server(world, frozen=True)
    server.start()
    pack = Pack(server)
    pack.run("scoreboard objectives add dstest dummy")
    pack.run("scoreboard players set #100 dstest 100")
    pack.run("scoreboard players set #i dstest 0")
    pack.run("scoreboard players set #ran dstest 0")
    for _ in range(40):
        pack.run("scoreboard players set #left dstest 250")
        pack.run("function dstest:bulk")
    queue = pack.queue()
    assert len(queue) == 10_000
    assert [t["due"] for t in queue[::1000]] == [10 + 10 * k for k in range(10)]
    start = pack.time
    server.stop()

    again = Server(world, frozen=True)
    again.start()
    try:
        pack = Pack(again)
        assert pack.time == start
        assert len(pack.queue()) == 10_000
        pack.step(9)
        assert again.score("#ran", "dstest") == 0
        for tick in range(100):
            pack.step(1)
            assert again.score("#ran", "dstest") == 100 * (tick + 1)
        assert pack.queue() == [] and pack.events() == []
    finally:
        again.stop()
