"""The world folder as vanilla lays it out: level.dat, data/*.dat, server.properties, logs/.

All NBT files are real gzipped big-endian NBT (mcsim.nbt's reader and writer), so a world written
by mcsim can be inspected with any NBT tool, and vice versa.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nbtlib.tag import Byte, Compound, Float, Int, IntArray, Long, String

from mcsim.nbt import NbtList, read_nbt_file, write_nbt_file
from mcsim.scoreboard import DATA_VERSION, Scoreboard
from mcsim.state import GAMERULE_DEFAULTS, gamerule_name

__all__ = [
    "DEFAULT_PROPERTIES",
    "GAME_VERSION",
    "LevelData",
    "load_scoreboard",
    "load_storage",
    "read_properties",
    "save_scoreboard",
    "save_storage",
    "write_properties",
]

log = logging.getLogger(__name__)

GAME_VERSION = "1.21.11"  # SharedConstants.getGameVersion().name()

DEFAULT_PROPERTIES: dict[str, str] = {
    "enable-rcon": "false",
    "rcon.port": "25575",
    "rcon.password": "",
    "broadcast-rcon-to-ops": "true",
    "broadcast-console-to-ops": "true",
    "function-permission-level": "2",
    "op-permission-level": "4",
    "level-name": "world",
    "gamemode": "survival",
    "server-port": "25565",
    "pause-when-empty-seconds": "60",
    "motd": "A Minecraft Server",
}


def read_properties(path: Path) -> dict[str, str]:
    """server.properties as vanilla's java.util.Properties reads the simple cases."""
    props = dict(DEFAULT_PROPERTIES)
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if not line or line.startswith(("#", "!")):
                continue
            key, sep, value = line.partition("=")
            if sep:
                props[key.strip()] = value.strip()
    return props


def write_properties(path: Path, props: dict[str, str]) -> None:
    lines = ["#Minecraft server properties"]
    lines += [f"{k}={v}" for k, v in sorted(props.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@dataclass
class LevelData:
    """The parts of level.dat mcsim uses, written in 1.21.11's layout (LevelProperties).

    1.21.11 writes `spawn: {dimension, pos: [I; x, y, z], yaw, pitch}` and `game_rules` with typed
    values under `minecraft:` ids; older files (`SpawnX`/`SpawnY`/`SpawnZ`, `GameRules` strings)
    are still read.
    """

    time: int = 0
    day_time: int = 0
    gamerules: dict[str, int | bool] = field(default_factory=dict)
    enabled_packs: list[str] = field(default_factory=lambda: ["vanilla"])
    disabled_packs: list[str] = field(default_factory=list)
    level_name: str = "world"
    schedules: list[Any] = field(default_factory=list)  # ScheduledEvent, in order
    spawn: tuple[int, int, int] = (0, 0, 0)  # SpawnPoint.DEFAULT until the world is initialized
    spawn_dimension: str = "minecraft:overworld"
    spawn_rot: tuple[float, float] = (0.0, 0.0)  # yaw, pitch
    initialized: bool = False  # a new world: vanilla sets it once the spawn is chosen
    game_type: int = 0  # GameMode index; the dedicated server sets it from server.properties
    raw: Compound = field(default_factory=Compound)  # everything else, kept as read

    @classmethod
    def load(cls, path: Path) -> LevelData | None:
        if not path.exists():
            return None
        root = read_nbt_file(path)
        data = root.get("Data", Compound())
        rules: dict[str, int | bool] = {}
        for key, value in data.get("GameRules", Compound()).items():  # before 1.21.11
            name = gamerule_name(str(key))
            text = str(value)
            default = GAMERULE_DEFAULTS.get(name)
            if text in ("true", "false"):
                rules[name] = text == "true"
            elif re.fullmatch(r"-?\d+", text):
                rules[name] = int(text)
            elif default is not None:
                rules[name] = default
        for key, value in data.get("game_rules", Compound()).items():
            name = gamerule_name(str(key).removeprefix("minecraft:"))
            if isinstance(value, Byte):
                rules[name] = bool(int(value))
            elif isinstance(value, Int):
                rules[name] = int(value)
        packs = data.get("DataPacks", Compound())
        from mcsim.commands.schedule import ScheduledEvent

        schedules = []
        for ev in data.get("ScheduledEvents", []):
            cb = ev.get("Callback", Compound())
            is_tag = str(cb.get("Type", "")) == "function_tag"
            name = str(cb.get("Name", ev.get("Name", "")))
            schedules.append(
                ScheduledEvent(("#" if is_tag else "") + name, int(ev["TriggerTime"]), is_tag)
            )
        spawn, dimension, rot = (0, 0, 0), "minecraft:overworld", (0.0, 0.0)
        sp = data.get("spawn")
        if isinstance(sp, Compound) and isinstance(sp.get("pos"), IntArray):
            x, y, z = (int(v) for v in sp["pos"])
            spawn = (x, y, z)
            dimension = str(sp.get("dimension", dimension))
            rot = (float(sp.get("yaw", 0.0)), float(sp.get("pitch", 0.0)))
        elif "SpawnX" in data:
            spawn = (int(data["SpawnX"]), int(data.get("SpawnY", 0)), int(data.get("SpawnZ", 0)))
            rot = (float(data.get("SpawnAngle", 0.0)), 0.0)
        return cls(
            schedules=schedules,
            time=int(data.get("Time", 0)),
            day_time=int(data.get("DayTime", data.get("Time", 0))),
            gamerules=rules,
            enabled_packs=[str(p) for p in packs.get("Enabled", ["vanilla"])],
            disabled_packs=[str(p) for p in packs.get("Disabled", [])],
            level_name=str(data.get("LevelName", "world")),
            spawn=spawn,
            spawn_dimension=dimension,
            spawn_rot=rot,
            # LevelProperties.readProperties: a file without the key counts as initialized.
            initialized=bool(int(data.get("initialized", 1))),
            game_type=int(data.get("GameType", 0)),
            raw=data,
        )

    def save(self, path: Path) -> None:
        data = Compound(self.raw)
        data.pop("GameRules", None)  # pre-1.21.11 key; game_rules replaces it
        for old in ("SpawnX", "SpawnY", "SpawnZ", "SpawnAngle"):
            data.pop(old, None)
        data.setdefault("ServerBrands", NbtList([String("vanilla")]))
        data.setdefault("WasModded", Byte(0))
        data["Version"] = Compound(
            {
                "Name": String(GAME_VERSION),
                "Id": Int(DATA_VERSION),
                "Snapshot": Byte(0),
                "Series": String("main"),
            }
        )
        data["DataVersion"] = Int(DATA_VERSION)
        data["GameType"] = Int(self.game_type)
        data["spawn"] = Compound(
            {
                "dimension": String(self.spawn_dimension),
                "pos": IntArray(list(self.spawn)),
                "yaw": Float(self.spawn_rot[0]),
                "pitch": Float(self.spawn_rot[1]),
            }
        )
        data["Time"] = Long(self.time)
        data["DayTime"] = Long(self.day_time)
        data["LastPlayed"] = Long(int(time.time() * 1000))
        data["LevelName"] = String(self.level_name)
        data["version"] = Int(19133)
        data["initialized"] = Byte(1 if self.initialized else 0)
        rules = dict(GAMERULE_DEFAULTS)
        rules.update(self.gamerules)
        data["game_rules"] = Compound(
            {
                f"minecraft:{k}": Byte(1 if v else 0) if isinstance(v, bool) else Int(v)
                for k, v in rules.items()
            }
        )
        data["DataPacks"] = Compound(
            {
                "Enabled": NbtList([String(p) for p in self.enabled_packs]),
                "Disabled": NbtList([String(p) for p in self.disabled_packs]),
            }
        )
        data["ScheduledEvents"] = NbtList(
            [
                Compound(
                    {
                        "Name": String(e.name),
                        "TriggerTime": Long(e.due),
                        "Callback": Compound(
                            {
                                "Type": String("function_tag" if e.is_tag else "function"),
                                "Name": String(e.name[1:] if e.is_tag else e.name),
                            }
                        ),
                    }
                )
                for e in self.schedules
            ]
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name("level.dat_new")
        write_nbt_file(tmp, Compound({"Data": data}))
        if path.exists():
            path.replace(path.with_name("level.dat_old"))
        tmp.replace(path)


def _storage_file(data_dir: Path, namespace: str) -> Path:
    return data_dir / f"command_storage_{namespace}.dat"


def load_storage(data_dir: Path) -> dict[str, Compound]:
    """Every command storage: data/command_storage_<ns>.dat holds {data: {contents: {path: {}}}}."""
    out: dict[str, Compound] = {}
    if not data_dir.is_dir():
        return out
    for f in sorted(data_dir.glob("command_storage_*.dat")):
        ns = f.name[len("command_storage_") : -len(".dat")]
        root = read_nbt_file(f)
        contents = root.get("data", Compound()).get("contents", Compound())
        for key, value in contents.items():
            if isinstance(value, Compound):
                out[f"{ns}:{key}"] = value
    return out


def save_storage(data_dir: Path, storage: dict[str, Compound]) -> None:
    by_ns: dict[str, Compound] = {}
    for sid, value in storage.items():
        ns, _, path = sid.partition(":")
        by_ns.setdefault(ns, Compound())[path] = value
    data_dir.mkdir(parents=True, exist_ok=True)
    for ns, contents in by_ns.items():
        root = Compound(
            {"data": Compound({"contents": contents}), "DataVersion": Int(DATA_VERSION)}
        )
        write_nbt_file(_storage_file(data_dir, ns), root)


def save_scoreboard(data_dir: Path, board: Scoreboard) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    write_nbt_file(data_dir / "scoreboard.dat", board.to_nbt())


def load_scoreboard(data_dir: Path) -> Scoreboard:
    board = Scoreboard()
    path = data_dir / "scoreboard.dat"
    if path.exists():
        board.load_nbt(read_nbt_file(path))
    return board
