"""The role boundary through the faces: a moderator's `/schedule` (through discord.py's
CommandTree, to the real pack on mcsim over RCON) cannot touch the pack's or the bot's own state
nor leave behind something that runs a command later; each refusal names its rule and changes
nothing; with DOOM_ALLOWED_COMMANDS only what it lists is scheduled."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator

import discord
import pytest

from bot.config import ServerConfig
from bot.minecraft.pack_input import snbt_string
from bot.services import build_services
from bot.testkit.harness import ADMIN, MOD, Harness, make_settings
from console.session import run_console
from mcsim.server import Server
from tests.console.typed import typed_by
from tests.e2e.conftest import PASSWORD, following
from tests.fixtures import sent_to

# what an attacker tried, each with the sentence it is refused with
ATTACKS = [
    (
        "data modify storage doom.schedule:data queue set value []",
        "Refused: This command touches the pack's own storage doom.schedule:data: only the bot's "
        "own commands may change it.",
    ),
    (
        "scoreboard objectives remove doom.schedule",
        "Refused: This command touches the pack's scoreboard objective doom.schedule: every task "
        "depends on it, so only the pack may change it.",
    ),
    (
        "function doom.schedule:core/op/cancel_all",
        "Refused: This command calls the pack's own function doom.schedule:core/op/cancel_all: "
        "use the bot's commands (/schedule, /cancel, /pause, ...) instead.",
    ),
    (
        "data remove storage doom.bot:wallclock done",
        "Refused: This command touches the bot's own storage doom.bot:wallclock (its never-twice "
        "marks and what it reads the pack with): only the bot itself may change it.",
    ),
    (
        'summon command_block_minecart ~ ~ ~ {Command:"op Steve"}',
        "Refused: This command makes a minecraft:command_block_minecart, which runs commands "
        "later, past this check: scheduled tasks may not make command blocks.",
    ),
    (
        'setblock ~ ~ ~ command_block{Command:"op Steve",auto:1b}',
        "Refused: This command makes a minecraft:command_block, which runs commands later, past "
        "this check: scheduled tasks may not make command blocks.",
    ),
    (
        "clone ~ ~ ~ ~ ~ ~ ~1 ~ ~",
        "Refused: This command clones every block of a region, and clone copies the blocks as "
        "they are, with what is stored in them: a command block or a structure block there "
        "would be copied with its command, past this check. Clone with `filtered <block>`, "
        "naming the block to copy.",
    ),
    (
        "scoreboard objectives add doom.schedule.extra dummy",
        "Refused: This command makes the objective doom.schedule.extra, which is named with the "
        "pack's prefix doom.schedule: those names belong to the pack. Choose another name.",
    ),
]
VARIANTS = [
    "execute as @a run {c}",
    "execute as @a at @s if entity @s run execute positioned ~ ~1 ~ run {c}",
    "execute if entity @a run return run {c}",
]
SPELLINGS = [  # the same attacks written otherwise
    "data modify storage doom.schedule:data queue set value [ ]",
    'scoreboard players set "#2" doom.schedule 0',
    "function #doom.schedule:cancel_all",
    'summon minecraft:command_block_minecart ~ ~ ~ {"Command":"op Steve"}',
    'setblock ~ ~ ~ minecraft:command_block{Command:"op Steve",auto:1b}',
    'setblock ~ ~ ~ minecraft:stone{"command":"op Steve"}',
    "function mine:f with storage doom.bot:wallclock done",  # a macro's arguments
    'give @s stone[minecraft:block_entity_data={id:"minecraft:command_block",Command:"op x"}]',
    "clone ~ ~ ~ ~ ~ ~ ~1 ~ ~ masked",
    "clone ~ ~ ~ ~1 ~1 ~1 ~5 ~ ~ filtered #minecraft:logs move",
    "clone from the_nether ~ ~ ~ ~ ~ ~ to overworld ~1 ~ ~ replace",
    "fill ~ ~ ~ ~1 ~1 ~1 repeating_command_block{auto:1b} replace air",
    'scoreboard objectives add doom.schedule dummy "x"',
]


def _state(mc: Server) -> tuple[object, object, list[str]]:
    return (
        mc.storage("doom.schedule:data"),
        mc.storage("doom.bot:wallclock"),
        mc.run("scoreboard objectives list").feedback,
    )


def carrying(sent: list[str], texts: list[str]) -> list[str]:
    """The commands among `sent` that hand the pack a request (its input storage) or carry one of
    `texts`, as a request's `run` or as a command of their own."""
    quoted = [f"run:{snbt_string(text)}" for text in texts]
    return [t for t in sent if "doom.schedule:in" in t or t in texts or any(q in t for q in quoted)]


async def test_every_attack_is_refused_naming_its_rule_and_nothing_changes(
    live: Harness, mc: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    await live.run("schedule", MOD, run="say keep", time=1000, unit="tick", id="keep")
    before = _state(mc)
    sent = sent_to(live, monkeypatch)
    tried: list[str] = []
    for attack, sentence in ATTACKS:
        for text in [attack, *(v.format(c=attack) for v in VARIANTS)]:
            tried.append(text)
            reply = await live.run("schedule", MOD, run=text, time=5, unit="tick", id="bad")
            [response] = reply.messages
            assert reply.ephemeral
            assert response.data["content"] == sentence, text
    for text in SPELLINGS:
        tried.append(text)
        reply = await live.run("schedule", MOD, run=text, time=5, unit="tick", id="bad")
        assert reply.ephemeral and reply.text.startswith("Refused: This command "), text
    assert carrying(sent, tried) == []  # refused before any of it reached the server
    await asyncio.to_thread(mc.step, 10)
    after = _state(mc)
    assert after == before and "doom.schedule" in after[2][0]


async def test_no_rank_lifts_the_rules(live: Harness, mc: Server) -> None:
    """An admin's scheduled command passes the same check: what these rules refuse, an admin
    does by hand, once, where it is seen."""
    for attack, sentence in ATTACKS[-2:]:
        reply = await live.run("schedule", ADMIN, run=attack, time=5, unit="tick", id="bad")
        assert reply.messages[0].data["content"] == sentence
    reply = await live.run(
        "schedule",
        ADMIN,
        run="clone ~ ~ ~ ~1 ~1 ~1 ~5 ~ ~ filtered stone",
        time=5,
        unit="tick",
        id="copy",
    )
    assert "Scheduled `copy`" in reply.text, reply.text
    queue = mc.storage("doom.schedule:data")["queue"]  # type: ignore[index]
    assert [str(t["id"]) for t in queue] == ["copy"]


async def test_ordinary_moderator_commands_still_run(live: Harness, mc: Server) -> None:
    for i, run in enumerate(
        [
            "say hello",
            'tellraw @a {"text":"Event soon","color":"gold"}',
            "give @a diamond 3",
            'title @a title {"text":"Welcome"}',
            "effect give @a speed 30 1",
            "tp @a 0 64 0",
            "execute as @a at @s run particle flame ~ ~1 ~ 0.2 0.2 0.2 0 10",
        ]
    ):
        reply = await live.run("schedule", MOD, run=run, time=100, unit="tick", id=f"ok{i}")
        assert f"Scheduled `ok{i}`" in reply.text, reply.text


@pytest.fixture
async def allow_listed(mc: Server, tmp_path: object) -> AsyncIterator[Harness]:
    """The bot on ``mc`` with DOOM_ALLOWED_COMMANDS=say,give,function:myevents."""
    assert mc.rcon_port is not None
    config = ServerConfig(
        name="main",
        rcon_port=mc.rcon_port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=mc.world,
        log_path=mc.log_path,
        event_source="log",
    )
    settings = make_settings(
        tmp_path,  # type: ignore[arg-type]
        [config],
        log_poll_interval=0.02,
        allowed_commands=["say", "give", "function:myevents"],
    )
    harness = await Harness(settings, await build_services(settings)).start()
    await following(harness, mc)
    try:
        yield harness
    finally:
        await harness.close()


async def test_the_allow_list_schedules_what_it_lists_and_refuses_the_rest(
    allow_listed: Harness, mc: Server
) -> None:
    for i, run in enumerate(
        ["say hi", "execute as @a at @s run give @s diamond", "function myevents:start"]
    ):
        reply = await allow_listed.run("schedule", MOD, run=run, time=100, unit="tick", id=f"ok{i}")
        assert f"Scheduled `ok{i}`" in reply.text, reply.text
    queue = mc.storage("doom.schedule:data")["queue"]  # type: ignore[index]
    assert sorted(str(t["id"]) for t in queue) == ["ok0", "ok1", "ok2"]
    for run, sentence in [
        (
            "execute as @a run tp @s 0 64 0",
            "Refused: `teleport` is not on this server's allow-list of commands tasks may run "
            "(give, say, function:myevents).",
        ),
        (
            "function other:start",
            "Refused: `other:start`: this server's allow-list lets tasks call functions only in "
            "these namespaces: myevents.",
        ),
    ]:
        reply = await allow_listed.run("schedule", MOD, run=run, time=5, unit="tick", id="bad")
        assert reply.ephemeral and reply.messages[0].data["content"] == sentence
    assert len(mc.storage("doom.schedule:data")["queue"]) == 3  # type: ignore[index, arg-type]


async def test_the_console_shows_the_same_refusal(live: Harness, mc: Server) -> None:
    stdin = io.StringIO(
        "/schedule run:execute as @a run data remove storage doom.bot:wallclock done time:5 "
        "unit:tick id:bad\nquit\n"
    )
    out = io.StringIO()
    await run_console(live.bot.ops, stdin, out, typed_by(MOD))
    assert (
        "Refused: This command touches the bot's own storage doom.bot:wallclock" in out.getvalue()
    )
    assert mc.storage("doom.schedule:data")["queue"] == []


@pytest.mark.slow
async def test_status_finds_a_damaged_pack_and_setup_repairs_it(live: Harness, mc: Server) -> None:
    """What the attacks above did to the pack before they were refused: /status names it and
    says to run /setup; after /setup it is whole again."""
    status = await live.run("status", ADMIN)
    [embed] = status.embeds
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["pack state"] == "ok (objectives and storages in place)"
    mc.run("scoreboard objectives remove doom.schedule")
    mc.run("data remove storage doom.schedule:data queue")
    status = await live.run("status", ADMIN)
    [embed] = status.embeds
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["pack state"] == (
        "damaged: the scoreboard objective doom.schedule is missing; doom.schedule:data queue is "
        "missing. Run /setup (or `python -m bot install-datapack`): the pack's #load recreates "
        "what is missing."
    )
    assert embed["color"] == discord.Colour.orange().value
    setup = await live.run("setup", ADMIN)
    assert "Not verified" not in setup.text
    assert "PASS pack state: objectives and storages in place" in setup.text
    status = await live.run("status", ADMIN)
    fields = {f["name"]: f["value"] for f in status.embeds[0]["fields"]}
    assert fields["pack state"] == "ok (objectives and storages in place)"
    assert mc.storage("doom.schedule:data")["queue"] == []
