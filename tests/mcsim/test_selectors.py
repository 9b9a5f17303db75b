"""Selectors resolved as vanilla's EntitySelector (1.21.11) does, on the real mecha parse."""

from __future__ import annotations

import random

import pytest
from nbtlib.tag import Compound, Int

from mcsim.context import Source, server_source
from mcsim.entities import Entities, Entity, offline_uuid, random_uuid
from mcsim.errors import CommandError, UnsupportedCommand
from mcsim.scoreboard import Scoreboard
from mcsim.selectors import (
    ENTITY_NOT_FOUND,
    NOT_ALLOWED,
    PLAYER_NOT_FOUND,
    TOO_MANY_ENTITIES,
    resolve_targets,
    select_one_entity,
    select_one_player,
    select_players,
)
from mcsim.textcomponents import parse_selector_text

OW, NETHER = "minecraft:overworld", "minecraft:the_nether"


def player(name: str, pos: tuple[float, float, float], dim: str = OW) -> Entity:
    return Entity(offline_uuid(name), "minecraft:player", name, pos, (0.0, 0.0), dim)


def marker(n: int, pos: tuple[float, float, float], dim: str = OW, **kw: object) -> Entity:
    e = Entity.from_summon("minecraft:marker", random_uuid(random.Random(n)), pos, dim)
    for k, v in kw.items():
        setattr(e, k, v)
    return e


@pytest.fixture
def world() -> tuple[Entities, dict[str, Entity]]:
    ents = Entities()
    named = {
        "nether_m": marker(1, (0, 0, 0), NETHER, name="NetherMarker"),
        "Steve": player("Steve", (10, 0, 0)),
        "far_m": marker(2, (100, 0, 0), name="Far", tags={"x"}),
        "Alex": player("Alex", (2, 0, 0), NETHER),
        "near_m": marker(3, (1, 0, 0), name="Near", tags={"x", "y"}),
        "Zed": Entity.from_summon("minecraft:zombie", random_uuid(random.Random(4)), (3, 0, 0), OW),
    }
    for e in named.values():
        ents.add(e)
    return ents, named


def names(text: str, ents: Entities, source: Source | None = None, **kw: object) -> list[str]:
    src = source or server_source()
    found = resolve_targets(parse_selector_text(text), src, ents, random.Random(0), **kw)  # type: ignore[arg-type]
    return [e.name for e in found]


def test_all_players_in_join_order_across_dimensions(world: tuple[Entities, dict]) -> None:
    ents, _ = world
    assert names("@a", ents) == ["Steve", "Alex"]


def test_all_entities_world_by_world_then_load_order(world: tuple[Entities, dict]) -> None:
    ents, _ = world
    # server.getWorlds(): overworld, the_nether, the_end; inside a world, load order.
    assert names("@e", ents) == ["Steve", "Far", "Near", "Zombie", "NetherMarker", "Alex"]


def test_position_arguments_restrict_to_the_source_dimension(world: tuple[Entities, dict]) -> None:
    ents, _ = world
    assert names("@e[distance=..5]", ents) == ["Near", "Zombie"]
    in_nether = server_source().with_(dimension=NETHER)
    assert names("@e[distance=..5]", ents, in_nether) == ["NetherMarker", "Alex"]
    assert names("@a[x=0]", ents, in_nether) == ["Alex"]


def test_nearest_player_and_entity_and_furthest(world: tuple[Entities, dict]) -> None:
    ents, _ = world
    assert names("@p", ents) == ["Alex"]  # @p spans dimensions without position arguments
    assert names("@p[distance=0..]", ents) == ["Steve"]
    assert names("@n", ents) == ["NetherMarker"]  # ties keep world order (stable sort)
    assert names("@n[type=minecraft:marker,distance=0..]", ents) == ["Near"]
    assert names("@e[sort=furthest,limit=2]", ents) == ["Far", "Steve"]


def test_type_name_and_tag_filters(world: tuple[Entities, dict]) -> None:
    ents, _ = world
    assert names("@e[type=minecraft:zombie]", ents) == ["Zombie"]
    assert names("@e[type=!player,type=!marker]", ents) == ["Zombie"]
    assert names("@e[type=player]", ents) == ["Steve", "Alex"]
    assert names("@e[name=Far]", ents) == ["Far"]
    assert names('@e[name=!Far,name=!"Zombie",type=!player]', ents) == ["Near", "NetherMarker"]
    assert names("@e[tag=x]", ents) == ["Far", "Near"]
    assert names("@e[tag=x,tag=!y]", ents) == ["Far"]
    assert names("@e[tag=]", ents) == ["Steve", "Zombie", "NetherMarker", "Alex"]
    assert names("@e[tag=!]", ents) == ["Far", "Near"]


def test_dead_entities_are_skipped_by_at_e_but_players_by_at_a_are_not(
    world: tuple[Entities, dict],
) -> None:
    ents, named = world
    named["Steve"].alive = False
    assert "Steve" not in names("@e", ents)
    assert names("@a", ents) == ["Steve", "Alex"]


def test_scores_argument(world: tuple[Entities, dict]) -> None:
    ents, named = world
    board = Scoreboard()
    board.add_objective("o")
    board.set("Steve", "o", 3)
    board.set(named["near_m"].uuid, "o", 9)  # non-players hold scores by UUID
    assert names("@e[scores={o=1..5}]", ents, scoreboard=board) == ["Steve"]
    assert names("@e[scores={o=5..}]", ents, scoreboard=board) == ["Near"]
    assert names("@e[scores={missing=0..}]", ents, scoreboard=board) == []


def test_volume_dx_and_limit(world: tuple[Entities, dict]) -> None:
    ents, _ = world
    assert names("@e[x=0,y=-0.5,z=-0.5,dx=1,dy=0,dz=0]", ents) == ["Near"]
    # Box.intersects is strict: a marker (a point) on the volume's floor is outside it,
    # while a zombie's 0.6-wide box reaching into the volume is inside.
    assert names("@e[x=0,y=0,z=0,dx=9.8,dy=1,dz=0]", ents) == ["Steve", "Zombie"]
    assert names("@e[limit=2]", ents) == ["Steve", "Far"]


def test_random_player_uses_the_given_rng(world: tuple[Entities, dict]) -> None:
    ents, _ = world
    seen = set()
    for seed in range(20):
        found = resolve_targets(
            parse_selector_text("@r"), server_source(), ents, random.Random(seed)
        )
        assert len(found) == 1
        seen.add(found[0].name)
    assert seen == {"Steve", "Alex"}


def test_self_without_an_entity_selects_nothing(world: tuple[Entities, dict]) -> None:
    ents, named = world
    assert names("@s", ents) == []
    as_steve = server_source().with_(entity=named["Steve"])
    assert names("@s", ents, as_steve) == ["Steve"]
    assert names("@s[tag=x]", ents, as_steve) == []


def test_names_and_uuids_as_targets(world: tuple[Entities, dict]) -> None:
    ents, named = world
    assert names("steve", ents) == ["Steve"]  # PlayerManager.getPlayer ignores case
    assert names("Nobody", ents) == []
    assert names(named["far_m"].uuid, ents) == ["Far"]
    with pytest.raises(CommandError, match=PLAYER_NOT_FOUND):
        select_players(
            parse_selector_text(named["far_m"].uuid), server_source(), ents, random.Random(0)
        )


def test_single_target_errors(world: tuple[Entities, dict]) -> None:
    ents, _ = world
    rng = random.Random(0)
    with pytest.raises(CommandError, match=ENTITY_NOT_FOUND):
        select_one_entity(parse_selector_text("@e[tag=nope]"), server_source(), ents, rng)
    with pytest.raises(CommandError) as err:
        select_one_entity(parse_selector_text("@e[tag=x]"), server_source(), ents, rng)
    assert err.value.message == TOO_MANY_ENTITIES
    with pytest.raises(CommandError, match=PLAYER_NOT_FOUND):
        select_one_player(parse_selector_text("Nobody"), server_source(), ents, rng)


def test_selectors_need_permission_level_two(world: tuple[Entities, dict]) -> None:
    ents, _ = world
    with pytest.raises(CommandError, match=NOT_ALLOWED):
        names("@a", ents, server_source().with_(level=1))
    assert names("Steve", ents, server_source().with_(level=0)) == ["Steve"]


def test_nbt_argument(world: tuple[Entities, dict]) -> None:
    ents, named = world
    named["far_m"].data["data"] = Compound({"k": Int(1)})
    assert names("@e[nbt={data:{k:1}}]", ents) == ["Far"]
    assert "Far" not in names("@e[nbt=!{data:{k:1}}]", ents)


def test_unmodelled_arguments_fail_loudly(world: tuple[Entities, dict]) -> None:
    ents, _ = world
    with pytest.raises(UnsupportedCommand):
        names("@e[predicate=foo:bar]", ents)
