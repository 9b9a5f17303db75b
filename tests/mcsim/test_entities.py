"""Entities: UUIDs as vanilla makes and stores them, entity NBT, the loaded-entity list."""

from __future__ import annotations

import random
import uuid as uuidlib

from hypothesis import given
from hypothesis import strategies as st
from nbtlib.tag import Compound, Int, IntArray, String

from mcsim.entities import (
    Entities,
    Entity,
    int_array_to_uuid,
    offline_uuid,
    random_uuid,
    uuid_to_int_array,
)
from mcsim.nbt import NbtList, format_snbt


def test_offline_uuid_matches_vanilla_nameuuidfrombytes() -> None:
    # Known offline-mode UUIDs (UUID.nameUUIDFromBytes("OfflinePlayer:<name>")).
    assert offline_uuid("Notch") == "b50ad385-829d-3141-a216-7e7d7539ba7f"
    u = uuidlib.UUID(offline_uuid("Steve"))
    assert u.version == 3
    assert u.variant == uuidlib.RFC_4122


def test_offline_uuid_is_case_sensitive_like_vanilla() -> None:
    assert offline_uuid("steve") != offline_uuid("Steve")


def test_uuid_int_array_is_four_signed_ints_most_significant_first() -> None:
    arr = uuid_to_int_array("00000001-0000-0002-ffff-ffff00000003")
    assert isinstance(arr, IntArray)
    assert [int(v) for v in arr] == [1, 2, -1, 3]


@given(st.integers(min_value=0, max_value=2**128 - 1))
def test_uuid_int_array_round_trips(n: int) -> None:
    text = str(uuidlib.UUID(int=n))
    assert int_array_to_uuid([int(v) for v in uuid_to_int_array(text)]) == text


def test_random_uuid_comes_from_the_sim_rng() -> None:
    assert random_uuid(random.Random(7)) == random_uuid(random.Random(7))
    assert uuidlib.UUID(random_uuid(random.Random(7))).version == 4


def _player(name: str = "Steve", dim: str = "minecraft:overworld") -> Entity:
    return Entity(offline_uuid(name), "minecraft:player", name, (0.5, 64.0, -2.5), (90.0, 0.0), dim)


def test_player_nbt_has_dimension_uuid_array_pos_and_tags() -> None:
    p = _player(dim="minecraft:the_nether")
    p.tags = {"b", "a"}
    nbt = p.to_nbt()
    assert nbt["Dimension"] == String("minecraft:the_nether")
    assert [int(v) for v in nbt["UUID"]] == [int(v) for v in uuid_to_int_array(p.uuid)]
    assert isinstance(nbt["UUID"], IntArray)
    assert [float(c) for c in nbt["Pos"]] == [0.5, 64.0, -2.5]
    assert sorted(str(t) for t in nbt["Tags"]) == ["a", "b"]
    assert "UUID: [I; " in format_snbt(nbt)


def test_non_player_nbt_has_no_dimension_and_keeps_custom_name() -> None:
    nbt = Compound({"Tags": NbtList([String("t")]), "CustomName": String("Bob"), "foo": Int(3)})
    m = Entity.from_summon(
        "minecraft:marker", random_uuid(random.Random(1)), (1, 2, 3), "minecraft:the_end", nbt
    )
    out = m.to_nbt()
    assert "Dimension" not in out
    assert m.name == "Bob"
    assert m.tags == {"t"}
    assert out["CustomName"] == String("Bob")
    assert int(out["foo"]) == 3
    assert m.dimension == "minecraft:the_end"


def test_summon_without_name_uses_the_type_display_name() -> None:
    z = Entity.from_summon(
        "minecraft:zombie", random_uuid(random.Random(2)), (0, 0, 0), "minecraft:overworld"
    )
    assert z.name == "Zombie"
    assert "Tags" not in z.to_nbt()  # vanilla omits an empty Tags list


def test_summon_nbt_uuid_is_used() -> None:
    wanted = "00000001-0000-0002-0000-000300000004"
    nbt = Compound({"UUID": uuid_to_int_array(wanted)})
    m = Entity.from_summon(
        "minecraft:marker", random_uuid(random.Random(3)), (0, 0, 0), "minecraft:overworld", nbt
    )
    assert m.uuid == wanted


def test_apply_nbt_round_trips_fields_and_free_data() -> None:
    m = Entity.from_summon(
        "minecraft:marker", random_uuid(random.Random(4)), (0, 0, 0), "minecraft:overworld"
    )
    nbt = m.to_nbt()
    nbt["Tags"] = NbtList([String("x")])
    nbt["data"] = Compound({"k": Int(1)})
    m.apply_nbt(nbt)
    assert m.tags == {"x"}
    assert int(m.to_nbt()["data"]["k"]) == 1


def test_entities_keep_load_order_and_find_players_case_insensitively() -> None:
    ents = Entities()
    a, b = _player("Alex"), _player("Steve")
    m = Entity.from_summon(
        "minecraft:marker", random_uuid(random.Random(5)), (0, 0, 0), "minecraft:overworld"
    )
    for e in (a, m, b):
        ents.add(e)
    assert ents.all() == [a, m, b]
    assert ents.players() == [a, b]
    assert ents.player("steve") is b
    assert ents.by_uuid(m.uuid.upper()) is m
    assert [e.entity_id for e in (a, m, b)] == [1, 2, 3]
    ents.remove(m)
    assert ents.by_uuid(m.uuid) is None
    assert ents.all() == [a, b]
