"""The role boundary (bot.minecraft.command_rules): whatever the deny-list says, a scheduled
command may not touch the pack's or the bot's own state, nor leave behind something that runs a
command later; with DOOM_ALLOWED_COMMANDS only what it lists may run. Each refusal names its
rule."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bot.config import DEFAULT_DENY
from bot.errors import CommandRefused
from bot.minecraft.command_check import MAX_EXECUTE_STAGES, CommandChecker
from bot.minecraft.execute_chain import read_chain

CHECKER = CommandChecker(deny=DEFAULT_DENY)
NOTHING_DENIED = CommandChecker(deny=[])  # the rules hold without any deny-list

PACK_STORAGE = "touches the pack's own storage"
BOT_STORAGE = "touches the bot's own storage"
OBJECTIVE = "touches the pack's scoreboard objective"
FUNCTION = "calls the pack's own function"
TAG = "which runs the pack's own functions"
RUNNER = "which runs commands later, past this check"
COMMAND_NBT = "writes a command into NBT"
CLICK = "a sign runs it at permission level 2"
CLONE = "copies the blocks as they are, with what is stored in them"
PREFIX = "is named with the pack's prefix"

# (command, words the refusal must hold: the rule and the thing it names)
HOSTILE: list[tuple[str, tuple[str, ...]]] = [
    # the pack's and the bot's storages, read or written, by every argument that names one
    (
        "data modify storage doom.schedule:data queue set value []",
        (PACK_STORAGE, "doom.schedule:data"),
    ),
    ("data remove storage doom.schedule:data queue", (PACK_STORAGE, "doom.schedule:data")),
    ("data merge storage doom.schedule:in {op:{}}", (PACK_STORAGE, "doom.schedule:in")),
    ("data get storage doom.schedule:events", (PACK_STORAGE, "doom.schedule:events")),
    ("data modify storage mine:x y set from storage doom.schedule:data queue", (PACK_STORAGE,)),
    (
        "data modify storage mine:x y set string storage doom.schedule:const version",
        (PACK_STORAGE,),
    ),
    ("data remove storage doom.bot:wallclock done", (BOT_STORAGE, "doom.bot:wallclock")),
    ("data modify storage doom.bot:view t set value []", (BOT_STORAGE, "doom.bot:view")),
    (
        "execute store result storage doom.schedule:data dyn int 1 run time query gametime",
        (PACK_STORAGE,),
    ),
    ("execute if data storage doom.bot:wallclock done run say x", (BOT_STORAGE,)),
    ("function mine:f with storage doom.schedule:data cfg", (PACK_STORAGE,)),  # a macro's input
    ("function mine:f with storage doom.bot:wallclock done", (BOT_STORAGE,)),
    ('tellraw @a {"nbt":"queue","storage":"doom.schedule:data"}', (PACK_STORAGE,)),
    # the pack's objectives, wherever an objective is an argument
    ("scoreboard objectives remove doom.schedule", (OBJECTIVE, "doom.schedule")),
    ("scoreboard objectives remove doom.schedule.left", (OBJECTIVE, "doom.schedule.left")),
    ('scoreboard objectives modify doom.schedule displayname "x"', (OBJECTIVE,)),
    ("scoreboard players set #2 doom.schedule 3", (OBJECTIVE,)),
    ('scoreboard players set "#2" doom.schedule 3', (OBJECTIVE,)),
    ("scoreboard players reset * doom.schedule", (OBJECTIVE,)),
    ("scoreboard players operation @s mine = #256 doom.schedule", (OBJECTIVE,)),
    ("execute store result score #x.st doom.schedule run time query gametime", (OBJECTIVE,)),
    ("execute if score #2 doom.schedule matches 2 run say x", (OBJECTIVE,)),
    ("execute as @a[scores={doom.schedule.left=1..}] run say x", (OBJECTIVE,)),
    ('tellraw @a {"score":{"name":"#2","objective":"doom.schedule"}}', (OBJECTIVE,)),
    ("scoreboard players reset *", ("on every objective", "name the objective")),
    ("scoreboard players reset @a", ("on every objective",)),
    ("tag @a add doom.schedule.admin", ("own tag doom.schedule.admin",)),
    ('summon marker ~ ~ ~ {Tags:["doom.schedule.probe"]}', ("own tag doom.schedule.probe",)),
    ('data merge entity @p {Tags:["doom.schedule.admin"]}', ("own tag doom.schedule.admin",)),
    # the pack's functions and the tags that run them
    ("function doom.schedule:core/op/cancel_all", (FUNCTION, "doom.schedule:core/op/cancel_all")),
    ("function doom.schedule:clear", (FUNCTION, "doom.schedule:clear")),
    ("function #doom.schedule:clear", (TAG, "#doom.schedule:clear")),
    ("function #minecraft:tick", (TAG, "#minecraft:tick")),
    ("function #load", (TAG, "#minecraft:load")),
    ("execute if function doom.schedule:count run say x", (FUNCTION,)),
    ("schedule function doom.schedule:core/tick 1t", (FUNCTION,)),
    ("schedule clear doom.schedule:core/watch", (FUNCTION,)),
    ("function doom.schedule:core/op/clear with storage mine:args", (FUNCTION,)),
    # things that run a command later
    (
        'summon command_block_minecart ~ ~ ~ {Command:"op Steve"}',
        (RUNNER, "minecraft:command_block_minecart"),
    ),
    ("summon minecraft:command_block_minecart", (RUNNER,)),
    (
        'setblock ~ ~ ~ command_block{Command:"op Steve",auto:1b}',
        (RUNNER, "minecraft:command_block"),
    ),
    (
        "setblock ~ ~ ~ minecraft:repeating_command_block",
        (RUNNER, "minecraft:repeating_command_block"),
    ),
    ("fill ~ ~ ~ ~1 ~1 ~1 chain_command_block", (RUNNER, "minecraft:chain_command_block")),
    ("give @s command_block", (RUNNER,)),
    ("give @s minecraft:command_block_minecart", (RUNNER,)),
    ("item replace entity @s weapon.mainhand with repeating_command_block", (RUNNER,)),
    ("execute summon command_block_minecart run say x", (RUNNER,)),
    ("clone ~ ~ ~ ~1 ~1 ~1 ~5 ~ ~ filtered command_block", (RUNNER,)),
    ('summon armor_stand ~ ~ ~ {Passengers:[{id:"minecraft:command_block_minecart"}]}', (RUNNER,)),
    ('setblock ~ ~ ~ spawner{SpawnData:{entity:{id:"command_block_minecart"}}}', (RUNNER,)),
    ('give @s stone[minecraft:block_entity_data={id:"command_block",Command:"op x"}]', (RUNNER,)),
    ('give @s stone[block_entity_data={id:"mine:x","Command":"op x"}]', (COMMAND_NBT, "Command")),
    ('summon falling_block ~ ~ ~ {TileEntityData:{Command:"op x"}}', (COMMAND_NBT,)),
    ('data merge block ~ ~ ~ {Command:"op Steve"}', (COMMAND_NBT, "Command")),
    ('data merge entity @e[type=minecart,limit=1] {"Command":"op Steve"}', (COMMAND_NBT,)),
    ('data modify block ~ ~ ~ Command set value "op Steve"', (COMMAND_NBT, "Command")),
    # the game reads only `Command`; other spellings are refused too, so none is missed
    ('data merge block ~ ~ ~ {command:"op Steve"}', (COMMAND_NBT, "command")),
    ('data modify block ~ ~ ~ COMMAND set value "op Steve"', (COMMAND_NBT, "COMMAND")),
    ('data modify entity @e[limit=1] "Command" set value "op Steve"', (COMMAND_NBT,)),
    ("data modify block ~ ~ ~ Command set from block 0 0 0 Command", (COMMAND_NBT,)),
    ("data modify block ~ ~ ~ auto set value 1b", ("sets `auto`",)),
    ("execute store result block ~ ~ ~ auto byte 1 run time query daytime", ("sets `auto`",)),
    (
        """setblock ~ ~ ~ oak_sign{front_text:{messages:['{"text":"x","clickEvent":"""
        """{"action":"run_command","value":"/op Steve"}}','""','""','""']}}""",
        (CLICK,),
    ),
    (
        'setblock ~ ~ ~ oak_sign{front_text:{messages:[{text:"x",click_event:'
        '{action:"run_command",command:"/op Steve"}},"","",""]}}',
        (CLICK,),
    ),
    ('setblock ~ ~ ~ structure_block{mode:"LOAD",name:"mine:x"}', ("structure block",)),
    # a stored string can be copied into a block or an item id later, by a command naming no id
    ('data modify storage mine:x v set value "STRUCTURE_BLOCK"', ("structure block",)),
    ('data modify storage mine:x v set value "minecraft:command_block"', (RUNNER,)),
    ("place template minecraft:build", ("saved structure",)),
    ("place jigsaw minecraft:village/plains/town_centers minecraft:x 7", ("saved structure",)),
    # clone copies block entities: a command block (or a structure block) with its command
    ("clone ~ ~ ~ ~ ~ ~ ~1 ~ ~", (CLONE, "filtered")),
    ("clone ~ ~ ~ ~ ~ ~ ~1 ~ ~ replace", (CLONE,)),
    ("clone ~ ~ ~ ~ ~ ~ ~1 ~ ~ replace force", (CLONE,)),
    ("clone ~ ~ ~ ~ ~ ~ ~1 ~ ~ masked", (CLONE,)),
    ("clone ~ ~ ~ ~ ~ ~ ~1 ~ ~ masked move", (CLONE,)),
    ("clone ~ ~ ~ ~ ~ ~ ~1 ~ ~ strict", (CLONE,)),
    ("clone from minecraft:the_nether ~ ~ ~ ~ ~ ~ to minecraft:overworld ~1 ~ ~", (CLONE,)),
    ("clone from the_nether ~ ~ ~ ~ ~ ~ to overworld ~1 ~ ~ masked", (CLONE,)),
    # a block tag: a data pack may put command blocks in any tag, vanilla's too
    ("clone ~ ~ ~ ~1 ~1 ~1 ~5 ~ ~ filtered #minecraft:logs", (CLONE, "#minecraft:logs")),
    ("clone ~ ~ ~ ~1 ~1 ~1 ~5 ~ ~ filtered structure_block", ("structure block",)),
    ("clone ~ ~ ~ ~1 ~1 ~1 ~5 ~ ~ filtered repeating_command_block move", (RUNNER,)),
    # fill places the block it names, whatever its mask
    ("fill ~ ~ ~ ~1 ~1 ~1 command_block replace air", (RUNNER,)),
    ("fill ~ ~ ~ ~1 ~1 ~1 repeating_command_block{auto:1b} hollow", (RUNNER,)),
    ("fill ~ ~ ~ ~1 ~1 ~1 structure_block replace #minecraft:logs", ("structure block",)),
    ("fill ~ ~ ~ ~1 ~1 ~1 chain_command_block outline", (RUNNER,)),
    # a new objective in the pack's names: the pack's own (or a later version's) to make
    ("scoreboard objectives add doom.schedule.extra dummy", (PREFIX, "doom.schedule.extra")),
    ("scoreboard objectives add doom.schedule dummy", (PREFIX,)),
    ('scoreboard objectives add doom.schedule.left dummy "x"', (PREFIX,)),
    ("scoreboard objectives add doom.schedule.t trigger", (PREFIX,)),
    # the rest of the pack's objectives' family
    ("scoreboard objectives setdisplay sidebar doom.schedule", (OBJECTIVE,)),
    ("scoreboard players enable @a doom.schedule.left", (OBJECTIVE,)),
    ("trigger doom.schedule.left set 0", (OBJECTIVE,)),
    ("scoreboard players display name #2 doom.schedule x", (OBJECTIVE,)),
    ("scoreboard players operation #2 doom.schedule >< #x mine", (OBJECTIVE,)),
    ("scoreboard players add @a doom.schedule.left 1", (OBJECTIVE,)),
    ("tag @e[type=marker] remove doom.schedule.probe", ("own tag doom.schedule.probe",)),
    ("execute as @a run tag @s remove doom.schedule.admin", ("own tag doom.schedule.admin",)),
    ("data modify storage doom.schedule:ctx p set value {}", (PACK_STORAGE,)),
    ("data modify storage mine:x v set from storage doom.bot:view t", (BOT_STORAGE,)),
]

# what moderators use every day, and near misses of the rules above
ORDINARY = [
    "say hello",
    'tellraw @a {"text":"Event in 5 minutes","color":"gold"}',
    'tellraw @a {"text":"[spawn]","clickEvent":{"action":"run_command","value":"/trigger spawn"}}',
    "give @p diamond 64",
    "give @a minecraft:diamond_sword[minecraft:enchantments={levels:{sharpness:5}}]",
    'title @a title {"text":"Welcome"}',
    "effect give @a speed 30 1",
    "tp @a 0 64 0",
    "execute as @a at @s run particle flame ~ ~1 ~ 0.2 0.2 0.2 0 10",
    "execute as @a at @s run playsound entity.player.levelup master @s",
    "scoreboard players add @a kills 1",
    "scoreboard players reset @a kills",
    "scoreboard objectives add doom.other dummy",  # only the pack's own names are protected
    "data modify storage mypack:data x set value 1",
    "function mypack:start",
    "function #mypack:events",
    "execute if block ~ ~ ~ command_block run say there is one",  # a condition reads only
    "clear @a command_block",
    "place feature minecraft:oak",
    "tag @a add vip",
    'summon marker ~ ~ ~ {Tags:["mypack.probe"]}',
    'tellraw @a {"text":"doom.schedule.admin is the tag admins get"}',
    'summon zombie ~ ~ ~ {CustomName:"Bob"}',
    "say doom.schedule:data queue",  # words in a message are only words
    "clone ~ ~ ~ ~1 ~1 ~1 ~5 ~ ~ filtered stone",  # it names what it copies: no block entity
    "clone ~ ~ ~ ~1 ~1 ~1 ~5 ~ ~ filtered minecraft:oak_planks move",
    "clone from overworld ~ ~ ~ ~1 ~1 ~1 to the_nether ~ ~ ~ filtered glass",
    "fill ~ ~ ~ ~1 ~1 ~1 stone replace #minecraft:logs",
    "fill ~ ~ ~ ~1 ~1 ~1 air replace command_block",  # clears them: nothing runs
    "execute if blocks ~ ~ ~ ~1 ~1 ~1 ~5 ~ ~ all run say same",  # compares only
    "scoreboard objectives add doom.schedulex dummy",  # not the pack's prefix
    "scoreboard objectives add kills playerKillCount",
    "team add doom.schedule.red",  # the pack has no teams
    "kill @e[type=marker,tag=doom.schedule.probe]",  # the pack's probe lives inside one call
]


@pytest.mark.parametrize(("command", "words"), HOSTILE)
def test_refused_naming_the_rule(command: str, words: tuple[str, ...]) -> None:
    for checker in (CHECKER, NOTHING_DENIED):
        with pytest.raises(CommandRefused) as info:
            checker.check(command)
        for word in words:
            assert word in info.value.reason, (command, info.value.reason)


@pytest.mark.parametrize(("command", "words"), HOSTILE)
def test_refused_inside_nested_execute_chains(command: str, words: tuple[str, ...]) -> None:
    for wrapped in (
        f"execute as @a run {command}",
        f"execute as @a at @s run execute if entity @s run {command}",
        f"execute if entity @a run return run {command}",
    ):
        with pytest.raises(CommandRefused) as info:
            NOTHING_DENIED.check(wrapped)
        assert words[0] in info.value.reason, (wrapped, info.value.reason)


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_commands_pass(command: str) -> None:
    CHECKER.check(command)
    CHECKER.check(f"execute as @a at @s run {command}")


def test_a_relaxed_deny_list_still_keeps_the_pack_enabled() -> None:
    NOTHING_DENIED.check('datapack disable "file/mypack"')
    with pytest.raises(CommandRefused, match="only /setup installs, enables or updates it"):
        NOTHING_DENIED.check('datapack disable "file/doom.schedule"')


_STAGES = st.sampled_from(
    [
        "as @a",
        "at @s",
        "as @p at @s",
        "positioned ~ ~1 ~",
        "if entity @s",
        "unless entity @e[type=cow]",
        "in minecraft:overworld",
        "rotated ~ 0",
        "anchored eyes",
        "align xyz",
        "facing 0 64 0",
        "store result score @s mine",
        "on vehicle",
        "summon marker",
    ]
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hostile=st.sampled_from(HOSTILE),
    chain=st.lists(st.lists(_STAGES, min_size=0, max_size=2), min_size=1, max_size=3),
)
def test_any_execute_chain_around_a_hostile_command_is_refused(
    hostile: tuple[str, tuple[str, ...]], chain: list[list[str]]
) -> None:
    """Each `execute ... run` level takes 0-2 random stages; chains longer than the checker
    checks are refused for their length (test_command_check_chains), so are left out here."""
    command, words = hostile
    text = command
    for stages in reversed(chain):
        text = " ".join(["execute", *stages, "run", text])
    assume(read_chain(text).stages <= MAX_EXECUTE_STAGES)
    with pytest.raises(CommandRefused) as info:
        NOTHING_DENIED.check(text)
    assert words[0] in info.value.reason, (text, info.value.reason)


ALLOWED = CommandChecker(
    deny=DEFAULT_DENY, allowed=["say", "give", "tellraw", "TITLE", "tp", "function:myevents"]
)


@pytest.mark.parametrize(
    "command",
    [
        "say hi",
        "give @a diamond 3",
        'tellraw @a {"text":"hi"}',
        'title @a title {"text":"hi"}',
        "teleport @a 0 64 0",  # tp is teleport: listing either allows both spellings
        "execute as @a at @s run tp @s ~ ~1 ~",
        "execute as @a run execute at @s run give @s diamond",
        "function myevents:start",
        "function #myevents:all",
        "execute if function myevents:ready run say go",
        "execute if entity @a run return run say x",
    ],
)
def test_the_allow_list_accepts_what_it_lists(command: str) -> None:
    ALLOWED.check(command)


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (
            "effect give @a speed",
            ("`effect` is not on this server's allow-list", "function:myevents"),
        ),
        ("execute as @a run effect give @s speed", ("`effect` is not on",)),
        ("execute as @a run execute at @s run kill @s", ("`kill` is not on",)),
        ("execute if entity @a run return run kill @s", ("`kill` is not on",)),
        ("return 1", ("`return` is not on",)),
        ("function other:start", ("`other:start`", "only in these namespaces: myevents")),
        ("function #minecraft:my_tag", ("`#minecraft:my_tag`", "myevents")),
        ("execute if function other:x run say go", ("`other:x`",)),
        ("schedule function myevents:x 1t", ("`schedule` is not on",)),
    ],
)
def test_the_allow_list_refuses_the_rest_naming_it(command: str, words: tuple[str, ...]) -> None:
    with pytest.raises(CommandRefused) as info:
        ALLOWED.check(command)
    for word in words:
        assert word in info.value.reason, info.value.reason
    CHECKER.check(command)  # without the allow-list it passes: the list is what refused it


def test_the_allow_list_keeps_every_other_rule() -> None:
    loose = CommandChecker(deny=["give"], allowed=["give", "function", "data", "op"])
    with pytest.raises(CommandRefused, match="deny-list"):
        loose.check("give @a diamond")
    with pytest.raises(CommandRefused, match="needs permission level 3"):
        loose.check("op Steve")
    with pytest.raises(CommandRefused, match=FUNCTION):
        loose.check("function doom.schedule:clear")  # "function": any namespace but the pack's
    with pytest.raises(CommandRefused, match=PACK_STORAGE):
        loose.check("data remove storage doom.schedule:data queue")
    loose.check("function anything:at_all")
    nothing = CommandChecker(deny=[], allowed=[])
    with pytest.raises(CommandRefused, match=r"allow-list of commands tasks may run \(none\)"):
        nothing.check("say hi")
