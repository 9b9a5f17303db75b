"""Registry ids as vanilla 1.21.11 parses them (mcsim.ids): an unknown item, block, entity type,
effect, enchantment or particle refuses the line with vanilla's message and cursor, in a
function too (the function fails to load); a sound is anything, as playsound takes any id."""

from __future__ import annotations

from mcsim.server import Server
from tests.mcsim.conftest import WritePack


def test_an_unknown_id_is_refused_as_vanilla_refuses_it(server: Server) -> None:
    cases = {
        "give @a diamond_swordd 1": [
            "Unknown item 'minecraft:diamond_swordd'",
            "give @a diamond_swordd 1<--[HERE]",
        ],
        "clear @a mymod:ruby": ["Unknown item 'mymod:ruby'", "clear @a mymod:ruby<--[HERE]"],
        "setblock 0 0 0 stonee": [
            "Unknown block type 'minecraft:stonee'",
            "...ock 0 0 0 stonee<--[HERE]",
        ],
        "summon zombiee": [
            "Can't find element 'minecraft:zombiee' of type 'minecraft:entity_type'",
            "...on zombiee<--[HERE]",
        ],
        "effect give @a speedd": [
            "Can't find element 'minecraft:speedd' of type 'minecraft:mob_effect'",
            "... @a speedd<--[HERE]",
        ],
        "particle flamee": ["Unknown particle: minecraft:flamee", "...cle flamee<--[HERE]"],
    }
    for command, said in cases.items():
        out = server.run(command)
        assert not out.success and out.feedback == said, (command, out.feedback)


def test_known_ids_and_any_sound_pass_the_parse(server: Server) -> None:
    # these commands are not modelled: reaching that refusal means the ids parsed
    for command in (
        "give @a minecraft:diamond_sword 1",
        "playsound minecraft:entity.pigg.ambient master @a",
        "enchant @a mypack:lifesteal",
    ):
        out = server.run(command)
        assert out.feedback[0].startswith("mcsim does not model this command yet"), out.feedback


def test_a_function_with_an_unknown_item_fails_to_load(server: Server, pack: WritePack) -> None:
    pack({"t:bad": "say before\ngive @a diamond_swordd 1", "t:good": "say fine"})
    server.run("reload")
    assert not server.run("function t:bad").success
    assert server.run("function t:good").success
