"""Registry ids in a task's command, checked at submit against the server's release
(bot.minecraft.registries): a typo of an item, block, entity type, effect, enchantment, sound,
particle or biome is refused with a caret under it and the id it nearly is; a tag, another
namespace (a mod's, a data pack's) or a server whose version the bot does not know is let by."""

from __future__ import annotations

import pytest

from bot.config import DEFAULT_DENY
from bot.errors import CommandParseError
from bot.minecraft.command_check import CommandChecker
from bot.minecraft.registries import ids_for_version

CHECKER = CommandChecker(deny=DEFAULT_DENY, ids_version="1.21.11")


@pytest.mark.parametrize(
    ("command", "column", "said"),
    [
        (
            "give @a diamond_swordd 1",
            9,
            "Minecraft 1.21.11 has no item `minecraft:diamond_swordd`: "
            "did you mean `minecraft:diamond_sword`?",
        ),
        (
            "clear @a diamondd",
            10,
            "no item `minecraft:diamondd`: did you mean `minecraft:diamond`?",
        ),
        (
            "setblock ~ ~ ~ stonee",
            16,
            "no block `minecraft:stonee`: did you mean `minecraft:stone`?",
        ),
        ("summon zombiee ~ ~ ~", 8, "no entity type `minecraft:zombiee`: did you mean"),
        (
            "effect give @a speedd 30",
            16,
            "no effect `minecraft:speedd`: did you mean `minecraft:speed`",
        ),
        ("enchant @a sharpnesss", 12, "no enchantment `minecraft:sharpnesss`"),
        (
            "particle flamee ~ ~ ~",
            10,
            "no particle `minecraft:flamee`: did you mean `minecraft:flame`",
        ),
        (
            "playsound minecraft:entity.pigg.ambient master @a",
            11,
            "no sound `minecraft:entity.pigg.ambient`: did you mean `minecraft:entity.pig.ambient`",
        ),
        (
            "locate biome plainss",
            14,
            "no biome `minecraft:plainss`: did you mean `minecraft:plains`",
        ),
        # inside an execute chain, the caret is under the id in the whole command
        ("execute as @a at @s run give @s dirtt", 33, "no item `minecraft:dirtt`"),
        ("execute if block ~ ~ ~ stonee run say x", 24, "no block `minecraft:stonee`"),
        ("give @a qwertyuiop 1", 9, "has no item `minecraft:qwertyuiop`."),
    ],
)
def test_a_mistyped_id_is_refused_with_a_caret_and_the_id_meant(
    command: str, column: int, said: str
) -> None:
    with pytest.raises(CommandParseError) as raised:
        CHECKER.check(command)
    assert raised.value.column == column, raised.value.caret
    assert said in str(raised.value), str(raised.value)
    assert "did you mean" not in said or str(raised.value).count("did you mean") == 1


@pytest.mark.parametrize(
    "command",
    [
        "give @a diamond_sword 1",
        "give @a minecraft:diamond_sword[minecraft:damage=3] 1",
        "execute if block ~ ~ ~ #minecraft:logs run say x",  # a tag
        "give @a mymod:ruby 1",  # a mod's item
        "enchant @a mypack:lifesteal",  # a data pack's enchantment
        "summon minecraft:creeper ~ ~ ~",
        "effect give @a minecraft:unluck 10",  # the effect whose display name differs
        "say diamond_swordd",  # a message is no id
    ],
)
def test_known_ids_tags_and_other_namespaces_are_let_by(command: str) -> None:
    CHECKER.check(command)


def test_an_id_new_in_a_release_counts_only_from_that_release() -> None:
    # resin came with 1.21.4
    CommandChecker(deny=DEFAULT_DENY, ids_version="1.21.4").check("give @a resin_clump 1")
    with pytest.raises(CommandParseError, match=r"1\.21\.3 has no item `minecraft:resin_"):
        CommandChecker(deny=DEFAULT_DENY, ids_version="1.21.3").check("give @a resin_clump 1")


def test_a_version_the_data_lacks_is_checked_by_the_next_hotfix_or_not_at_all() -> None:
    hotfix = ids_for_version("1.21.7")
    assert hotfix is not None and hotfix.release == "1.21.8" and hotfix.version == "1.21.7"
    # newer than the data: a new item would be refused wrongly, so nothing is checked
    assert ids_for_version("1.21.99") is None and ids_for_version("1.22") is None
    assert ids_for_version(None) is None and ids_for_version("25w14a") is None
    CommandChecker(deny=DEFAULT_DENY, ids_version="1.21.99").check("give @a diamond_swordd 1")
    CommandChecker(deny=DEFAULT_DENY).check("give @a diamond_swordd 1")
