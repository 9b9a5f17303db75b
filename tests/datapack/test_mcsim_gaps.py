"""Vanilla behaviour the pack relies on that mcsim does not model yet (reported to the lead).
These fail until mcsim catches up; the pack is written for vanilla, not around the gap."""

from __future__ import annotations

from tests.datapack.dpharness import Pack


def test_tag_command_adds_a_tag(pack: Pack) -> None:
    # core/restore/mark tags joining players doom.schedule.seen; without `tag` every player looks
    # new at each restore check (harmless, but the check is no longer O(1)).
    pack.run('summon minecraft:marker 0 64 0 {Tags:["a"]}')
    assert pack.run("tag @e[tag=a,limit=1] add b").success
    assert pack.run("execute if entity @e[tag=b]").result == 1
