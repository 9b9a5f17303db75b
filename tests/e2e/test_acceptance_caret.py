"""A moderator's typo in /schedule is answered, before
anything reaches the queue, with the command and a caret under the fault, ephemeral; a deny-listed
command hidden in an execute chain is refused the same way. The queue is read back over RCON."""

from __future__ import annotations

import io

import pytest

from bot.testkit.harness import MOD, Harness
from console.session import run_console
from mcsim.server import Server
from tests.console.typed import typed_by

__all__: list[str] = []


async def queue_ids(live: Harness) -> list[str]:
    pack = live.services.servers["main"].pack
    tasks, total = await pack.list_tasks("queue", limit=50)
    assert total == len(tasks)
    return [t.id for t in tasks]


@pytest.mark.parametrize(
    ("command", "column"),
    [
        ("tp @s ~ ~ ~x", 11),
        ("sya hello", 1),
        ("scoreboard players add x y -1", 28),
        ("give @a diamond_swordd 1", 9),  # an id the server's release does not have
    ],
)
async def test_a_typo_shows_the_caret_under_the_fault_and_queues_nothing(
    live: Harness, mc: Server, command: str, column: int
) -> None:
    assert (
        "Scheduled `keep`"
        in (await live.run("schedule", MOD, run="say k", time=900, unit="tick", id="keep")).text
    )
    before = await queue_ids(live)
    reply = await live.run("schedule", MOD, run=command, time=5, unit="tick", id="typo")
    assert reply.ephemeral
    lines = reply.text.splitlines()
    # the command as typed, then a caret under the column the parser stopped at
    at = lines.index(command) if command in lines else -1
    assert at >= 0, reply.text
    assert lines[at + 1].rstrip() == " " * (column - 1) + "^", reply.text
    assert await queue_ids(live) == before == ["keep"]
    assert "typo" not in mc.log_path.read_text(encoding="utf-8")


async def test_a_denied_command_inside_execute_is_refused_and_queues_nothing(
    live: Harness, mc: Server
) -> None:
    reply = await live.run(
        "schedule",
        MOD,
        run="execute as @a run execute if entity @s run op @s",
        time=5,
        unit="tick",
        id="sneaky",
    )
    assert reply.ephemeral
    assert "`op` is on this server's deny-list" in reply.text
    assert await queue_ids(live) == []


async def test_the_console_shows_an_unknown_id_under_a_caret_with_the_id_meant(
    live: Harness, mc: Server
) -> None:
    out = io.StringIO()
    line = "/schedule run:give @a diamond_swordd 1 time:5 unit:tick id:typo\n"
    await run_console(live.bot.ops, io.StringIO(line), out, typed_by(MOD))
    text = out.getvalue()
    lines = [row.strip("\n") for row in text.splitlines()]
    at = next(i for i, row in enumerate(lines) if row.strip() == "give @a diamond_swordd 1")
    indent = lines[at].index("give")
    assert lines[at + 1].rstrip() == " " * (indent + 8) + "^", text
    assert "Minecraft 1.21.11 has no item minecraft:diamond_swordd" in text, text
    assert "did you mean minecraft:diamond_sword?" in text, text
    assert await queue_ids(live) == []
