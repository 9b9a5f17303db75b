"""The command checker: a table of commands across families, plus policy knobs."""

from __future__ import annotations

import logging

import pytest

from bot.config import DEFAULT_DENY
from bot.errors import CommandParseError, CommandRefused
from bot.minecraft.command_check import (
    NODE_LEVEL,
    REQUIRED_LEVEL,
    CommandChecker,
    required_level,
    tree_for_version,
)

CHECKER = CommandChecker(deny=DEFAULT_DENY)

VALID = [
    "say hello world",
    "say hi ",  # a message keeps its trailing space
    "me waves",
    'tellraw @a {"text": "a b", "color": "gold"}',
    'title @a title {"text": "Restart soon"}',
    "msg Steve hi there",
    "tp @s ~ ~1 ~",
    "teleport @a[limit=1,sort=nearest] 0 64 0",
    "give @p minecraft:diamond 3",
    "give @s diamond_sword[enchantments={levels:{sharpness:5}}] 1",
    "clear @a minecraft:dirt",
    "effect give @a minecraft:speed 30 1 true",
    "xp add @a 5 levels",
    "scoreboard players add @a kills 1",
    "scoreboard players set @e[type = cow] obj 1",
    "scoreboard objectives add deaths deathCount",
    "data modify storage mypack:in x set value {a: 1, b: [1, 2]}",
    "data get storage mypack:data queue",
    "execute as @a at @s run particle minecraft:flame ~ ~1 ~ 0 0 0 0 1",
    "execute store result storage a:b x int 1 run time query gametime",
    "execute if entity @a[tag=afk] run say someone is afk",
    "execute if score @s kills matches 10.. run say ten",
    "return run say done",
    "function mypack:api/list",
    "function #minecraft:my_tag",
    "schedule function mypack:later 10s",
    "time set day",
    "time query gametime",
    "weather clear 600",
    "difficulty peaceful",
    "difficulty normal",
    "summon minecraft:zombie ~ ~ ~ {NoAI:1b}",
    "setblock 0 64 0 minecraft:stone",
    "fill 0 64 0 2 66 2 minecraft:air replace",
    "kill @e[type=minecraft:item]",
    'bossbar add doom:b "Restart"',
    "worldborder set 1000",
    "tag @a add seen",
    "team add red",
    "playsound minecraft:block.note_block.bell master @a",
    "spreadplayers 0 0 10 100 false @a",
    "forceload add 0 0",
]

# (command, column of the fault)
TYPOS = [
    ("tp @s ~ ~ ~x", 11),
    ("gamemode creativ @a", 10),
    ("scoreboard players add x y -1", 28),
    ("sya hello", 1),
    ("give @p minecraft:diamond three", 27),
    ("data merge storage a:b {a:1", 28),
    ("execute as @a run", 18),
    ("stop now", 6),
    ("time  query gametime", 6),  # brigadier wants one space between arguments
    ("time query gametime ", 20),
    ("/say hi", 1),
    ("say a\nop b", 6),
    ("", 1),
]


@pytest.mark.parametrize("command", VALID)
def test_valid_commands_pass(command: str) -> None:
    CHECKER.check(command)


@pytest.mark.parametrize(("command", "column"), TYPOS)
def test_typos_are_refused_with_the_column(command: str, column: int) -> None:
    with pytest.raises(CommandParseError) as info:
        CHECKER.check(command)
    err = info.value
    assert (err.command, err.column) == (command, column)
    assert err.message
    caret = err.caret().split("\n")
    assert caret[-1] == " " * (column - 1) + "^"


DENIED = [
    "op",
    "deop",
    "stop",
    "ban",
    "ban-ip",
    "pardon",
    "pardon-ip",
    "whitelist",
    "kick",
    "save-off",
    "reload",
    "datapack",
    "debug",
    "perf",
]
_DENIED_FORMS = {
    "op": "op Steve",
    "deop": "deop Steve",
    "stop": "stop",
    "ban": "ban Griefer",
    "ban-ip": "ban-ip 1.2.3.4",
    "pardon": "pardon Griefer",
    "pardon-ip": "pardon-ip 1.2.3.4",
    "whitelist": "whitelist off",
    "kick": "kick Steve bye",
    "save-off": "save-off",
    "reload": "reload",
    "datapack": 'datapack disable "file/doom.schedule"',
    "debug": "debug start",
    "perf": "perf start",
}


def _wrappings(inner: str) -> list[str]:
    return [
        inner,
        f"execute as @a run {inner}",
        f"execute as @a at @s run execute if entity @s[tag=x] run {inner}",
        f"return run {inner}",
    ]


@pytest.mark.parametrize("root", DENIED)
def test_deny_list_applies_to_every_command_in_the_chain(root: str) -> None:
    for command in _wrappings(_DENIED_FORMS[root]):
        with pytest.raises(CommandRefused) as info:
            CHECKER.check(command)
        assert f"`{root}` is on this server's deny-list" in info.value.reason


@pytest.mark.parametrize(
    ("command", "level"),
    [
        ("save-all", 4),
        ("save-on", 4),
        ("jfr start", 4),
        ("op Steve", 3),
        ("banlist", 3),
        ("setidletimeout 5", 3),
        ("transfer example.org", 3),
        ("execute run save-all flush", 4),
    ],
)
def test_commands_above_the_function_level_are_refused(command: str, level: int) -> None:
    lenient = CommandChecker(deny=[])  # nothing denied: the level alone refuses
    with pytest.raises(CommandRefused) as info:
        lenient.check(command)
    assert f"needs permission level {level}" in info.value.reason
    assert "function-permission-level" in info.value.reason
    CommandChecker(deny=[], function_permission_level=4).check(command)


def test_deny_list_extends_and_relaxes_per_server() -> None:
    base = [d for d in DEFAULT_DENY if d != "gamerule"]
    strict = CommandChecker(deny=[*base, "summon", "gamerule max_command_sequence_length"])
    with pytest.raises(CommandRefused):
        strict.check("execute at @p run summon minecraft:tnt")
    with pytest.raises(CommandRefused):
        strict.check("gamerule max_command_sequence_length 1")
    strict.check("gamerule keep_inventory true")
    relaxed = CommandChecker(deny=[d for d in DEFAULT_DENY if d != "reload"])
    relaxed.check("reload")
    aliases = CommandChecker(deny=["teleport"])
    with pytest.raises(CommandRefused):
        aliases.check("execute as @a run tp @s 0 0 0")


@pytest.mark.parametrize(
    "command",
    [
        "function other:thing",
        "function #minecraft:my_tag",
        "function plain",  # the minecraft namespace
        "execute if function other:f run say a",
        "execute unless function other:f run say a",
        "schedule function other:f 1t",
        "execute as @a run return run function other:f",
    ],
)
def test_function_namespaces_enforced_when_configured(command: str) -> None:
    limited = CommandChecker(deny=DEFAULT_DENY, function_namespaces=["mypack", "other2"])
    with pytest.raises(CommandRefused) as info:
        limited.check(command)
    assert "mypack" in info.value.reason
    limited.check("function mypack:go")
    limited.check("execute if function mypack:f run function other2:x")
    CHECKER.check(command)  # default: any namespace


def test_version_trees_and_fallback(caplog: pytest.LogCaptureFixture) -> None:
    assert tree_for_version("1.21.4") == ("1.21", None)
    assert tree_for_version("1.20.6")[0] == "1.20"
    with caplog.at_level(logging.WARNING):
        future = CommandChecker(deny=[], version="26.1")
    assert future.fell_back and future.tree == "1.21"
    assert "newest" in (future.fallback_reason or "") and "26.1" in caplog.text
    old = CommandChecker(deny=[], version="1.20.4")
    assert not old.fell_back
    with pytest.raises(CommandParseError):
        old.check("rotate @s 90 0")  # 1.21.2+ only
    CHECKER.check("rotate @s 90 0")


# (root, level) read from the 1.21.11 decompile's requires(...) (server/command/*Command.java,
# server/dedicated/command/*Command.java); no requires() is 0, GAMEMASTERS_CHECK 2
VANILLA_LEVELS = [
    ("help", 0),
    ("list", 0),
    ("me", 0),
    ("msg", 0),
    ("tell", 0),
    ("w", 0),
    ("teammsg", 0),
    ("tm", 0),
    ("trigger", 0),
    ("random", 0),
    ("say", 2),
    ("tp", 2),
    ("teleport", 2),
    ("function", 2),
    ("schedule", 2),
    ("execute", 2),
    ("data", 2),
    ("scoreboard", 2),
    ("reload", 2),
    ("gamerule", 2),
    ("tellraw", 2),
    ("tick", 3),
    ("debug", 3),
    ("kick", 3),
    ("ban", 3),
    ("ban-ip", 3),
    ("banlist", 3),
    ("deop", 3),
    ("op", 3),
    ("pardon", 3),
    ("pardon-ip", 3),
    ("setidletimeout", 3),
    ("transfer", 3),
    ("whitelist", 3),
    ("stop", 4),
    ("save-all", 4),
    ("save-off", 4),
    ("save-on", 4),
    ("perf", 4),
    ("jfr", 4),
    ("publish", 4),
]


@pytest.mark.parametrize(("root", "level"), VANILLA_LEVELS)
def test_levels_table_matches_vanilla(root: str, level: int) -> None:
    assert required_level(root) == level


def test_levels_table_matches_mcsims() -> None:
    """The checker refuses exactly what mcsim (the stand-in server) would fail to run."""
    from mcsim.permissions import DEFAULT_LEVEL, NODE_LEVELS, ROOT_LEVELS

    assert required_level("say") == DEFAULT_LEVEL
    for root, level in ROOT_LEVELS.items():
        assert required_level(root) == level, root
    for root in REQUIRED_LEVEL:
        assert ROOT_LEVELS.get(root, DEFAULT_LEVEL) == REQUIRED_LEVEL[root], root
    assert NODE_LEVEL == NODE_LEVELS


@pytest.mark.parametrize(
    ("command", "level", "refused"),
    [
        ("tick freeze", 2, "`tick` needs permission level 3"),
        ("execute as @a run tick rate 20", 2, "`tick` needs permission level 3"),
        ("random reset *", 1, "`random reset` needs permission level 2"),
        (
            "random value 1..6 minecraft:dice",
            1,
            "`random value <range> <sequence>` needs permission level 2",
        ),
        ("execute run random roll 1..6 minecraft:dice", 1, "`execute` needs permission level 2"),
    ],
)
def test_gated_commands_pass_from_their_level(command: str, level: int, refused: str) -> None:
    with pytest.raises(CommandRefused) as info:
        CommandChecker(deny=[], function_permission_level=level).check(command)
    assert refused in info.value.reason
    CommandChecker(deny=[], function_permission_level=level + 1).check(command)


@pytest.mark.parametrize("command", ["random value 1..6", "random roll 1..20", "tell Steve hi"])
def test_ungated_commands_pass_at_level_one(command: str) -> None:
    CommandChecker(deny=[], function_permission_level=1).check(command)


def test_results_are_cached_by_text() -> None:
    checker = CommandChecker(deny=DEFAULT_DENY)
    checker.check("say cached once")
    before = checker._parser.parses
    for _ in range(5):
        checker.check("say cached once")
        with pytest.raises(CommandRefused):
            checker.check("op cached")
    assert checker._parser.parses - before == 1  # only "op cached" was parsed
