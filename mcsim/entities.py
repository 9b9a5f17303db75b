"""Loaded entities: online players, markers and one mob type (zombie).

Vanilla keeps entities per world; mcsim keeps one list in load order (vanilla's "arbitrary" order
for @e/@a is the order entities were added) and a `dimension` on each entity.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
import uuid as uuidlib
from dataclasses import dataclass, field

from nbtlib.tag import Compound, Double, Float, IntArray, String

from mcsim.nbt import NbtList

__all__ = [
    "DISPLAY_NAMES",
    "SUMMONABLE",
    "Entities",
    "Entity",
    "int_array_to_uuid",
    "offline_uuid",
    "random_uuid",
    "uuid_to_int_array",
    "wrap_degrees",
]

log = logging.getLogger(__name__)

# The types mcsim models; `summon` of any other valid type fails as "not modelled".
DISPLAY_NAMES: dict[str, str] = {
    "minecraft:player": "Player",
    "minecraft:marker": "Marker",
    "minecraft:zombie": "Zombie",
}
SUMMONABLE = frozenset({"minecraft:marker", "minecraft:zombie"})

# Keys that to_nbt() synthesizes from the dataclass fields; they never live in `data`.
_SYNTHESIZED = frozenset({"UUID", "Pos", "Rotation", "Tags", "Dimension", "CustomName", "id"})


def offline_uuid(name: str) -> str:
    """Vanilla's offline-mode UUID: `UUID.nameUUIDFromBytes("OfflinePlayer:" + name)` (v3, MD5)."""
    digest = bytearray(hashlib.md5(f"OfflinePlayer:{name}".encode()).digest())
    digest[6] = (digest[6] & 0x0F) | 0x30  # version 3
    digest[8] = (digest[8] & 0x3F) | 0x80  # IETF variant
    return str(uuidlib.UUID(bytes=bytes(digest)))


def random_uuid(rng: random.Random) -> str:
    """A v4 UUID drawn from the sim's rng, so a seeded sim is reproducible."""
    return str(uuidlib.UUID(int=rng.getrandbits(128), version=4))


def _signed32(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value


def uuid_to_int_array(text: str) -> IntArray:
    """`[I; a, b, c, d]`: the 128 bits as four signed ints, most significant first."""
    n = uuidlib.UUID(text).int
    return IntArray([_signed32((n >> shift) & 0xFFFFFFFF) for shift in (96, 64, 32, 0)])


def int_array_to_uuid(values: list[int]) -> str:
    n = 0
    for v in values:
        n = (n << 32) | (int(v) & 0xFFFFFFFF)
    return str(uuidlib.UUID(int=n))


def _text_of_component(tag: object) -> str:
    """Plain text of a CustomName (a string, or a compound with `text`)."""
    if isinstance(tag, Compound):
        text = tag.get("text")
        return str(text) if text is not None else ""
    return str(tag)


@dataclass(eq=False, slots=True)
class Entity:
    uuid: str
    type: str
    name: str
    pos: tuple[float, float, float]
    rot: tuple[float, float]
    dimension: str
    tags: set[str] = field(default_factory=set)
    data: Compound = field(default_factory=Compound)
    alive: bool = True
    custom_name: object | None = None  # the CustomName tag as given (string or compound)
    entity_id: int = 0  # vanilla's network id (the `logged in with entity id N` number)
    fake: bool = False  # a Carpet fake player (/player ... spawn)

    def is_player(self) -> bool:
        return self.type == "minecraft:player"

    def to_nbt(self) -> Compound:
        """Entity NBT as `data get entity` shows it (no `id`; Dimension only for players)."""
        out = Compound()
        for key, value in self.data.items():
            out[key] = value
        out["Pos"] = NbtList([Double(c) for c in self.pos])
        out["Rotation"] = NbtList([Float(self.rot[0]), Float(self.rot[1])])
        out["UUID"] = uuid_to_int_array(self.uuid)
        if self.tags:
            out["Tags"] = NbtList([String(t) for t in sorted(self.tags)])
        if self.custom_name is not None and not self.is_player():
            out["CustomName"] = self.custom_name
        if self.is_player():
            out["Dimension"] = String(self.dimension)
        return out

    def apply_nbt(self, nbt: Compound) -> None:
        """Take a full compound back (after `data merge/modify entity`): the inverse of to_nbt.

        UUID changes are ignored; Pos/Rotation/Tags/CustomName update the fields, the rest is
        kept in `data`.
        """
        pos = nbt.get("Pos")
        if isinstance(pos, list) and len(pos) == 3:
            self.pos = (float(pos[0]), float(pos[1]), float(pos[2]))
        rot = nbt.get("Rotation")
        if isinstance(rot, list) and len(rot) == 2:
            self.rot = (float(rot[0]), float(rot[1]))
        tags = nbt.get("Tags")
        self.tags = {str(t) for t in tags} if isinstance(tags, list) else set()
        if not self.is_player():
            name = nbt.get("CustomName")
            self.custom_name = name
            self.name = _text_of_component(name) if name is not None else DISPLAY_NAMES[self.type]
        self.data = Compound({k: v for k, v in nbt.items() if k not in _SYNTHESIZED})

    @classmethod
    def from_summon(
        cls,
        type_: str,
        uuid: str,
        pos: tuple[float, float, float],
        dimension: str,
        nbt: Compound | None = None,
    ) -> Entity:
        """A summoned entity; `nbt` may carry Tags, CustomName, Rotation, UUID and free data."""
        nbt = nbt or Compound()
        uuid_tag = nbt.get("UUID")
        if isinstance(uuid_tag, IntArray) and len(uuid_tag) == 4:
            uuid = int_array_to_uuid(list(uuid_tag))
        entity = cls(uuid, type_, DISPLAY_NAMES[type_], pos, (0.0, 0.0), dimension)
        full = Compound(nbt)
        full["Pos"] = NbtList([Double(c) for c in pos])  # the summon position wins over nbt Pos
        entity.apply_nbt(full)
        if type_ == "minecraft:zombie" and "Health" not in entity.data:
            entity.data["Health"] = Float(20.0)
        return entity


class Entities:
    """Every loaded entity, in load order; players are the online players only."""

    def __init__(self) -> None:
        self._all: list[Entity] = []
        self._by_uuid: dict[str, Entity] = {}
        self._players: dict[str, Entity] = {}  # lower-case name -> player
        self._next_id = 1

    def add(self, e: Entity) -> None:
        if e.uuid in self._by_uuid:
            raise ValueError(f"duplicate entity UUID {e.uuid}")
        if e.entity_id == 0:
            e.entity_id = self._next_id
        self._next_id = max(self._next_id, e.entity_id) + 1
        self._all.append(e)
        self._by_uuid[e.uuid] = e
        if e.is_player():
            self._players[e.name.lower()] = e

    def remove(self, e: Entity) -> None:
        if self._by_uuid.get(e.uuid) is not e:
            return
        self._all.remove(e)
        del self._by_uuid[e.uuid]
        if e.is_player() and self._players.get(e.name.lower()) is e:
            del self._players[e.name.lower()]

    def by_uuid(self, uuid: str) -> Entity | None:
        return self._by_uuid.get(uuid.lower())

    def player(self, name: str) -> Entity | None:
        """Online player by name, case-insensitive as vanilla's PlayerManager.getPlayer."""
        return self._players.get(name.lower())

    def players(self) -> list[Entity]:
        return [e for e in self._all if e.is_player()]

    def all(self) -> list[Entity]:
        return list(self._all)

    def __len__(self) -> int:
        return len(self._all)


def wrap_degrees(v: float) -> float:
    """Vanilla's MathHelper.wrapDegrees: an angle in [-180, 180)."""
    v = math.fmod(v, 360.0)
    if v >= 180.0:
        v -= 360.0
    if v < -180.0:
        v += 360.0
    return v
