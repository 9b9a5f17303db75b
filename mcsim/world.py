"""The world folder as vanilla lays it out: level.dat, data/*.dat, server.properties, logs/.

All NBT files are real gzipped big-endian NBT (mcsim.nbt's reader and writer), so a world written
by mcsim can be inspected with any NBT tool, and vice versa.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nbtlib.tag import Compound, Int, Long, String

from mcsim.nbt import NbtList, read_nbt_file, write_nbt_file
from mcsim.scoreboard import DATA_VERSION, Scoreboard
from mcsim.state import GAMERULE_DEFAULTS, gamerule_name

__all__ = [
    "DEFAULT_PROPERTIES",
    "LevelData",
    "load_scoreboard",
    "load_storage",
    "read_properties",
    "save_scoreboard",
    "save_storage",
    "write_properties",
]

log = logging.getLogger(__name__)

DEFAULT_PROPERTIES: dict[str, str] = {
    "enable-rcon": "false",
    "rcon.port": "25575",
    "rcon.password": "",
    "broadcast-rcon-to-ops": "true",
    "broadcast-console-to-ops": "true",
    "function-permission-level": "2",
    "op-permission-level": "4",
    "level-name": "world",
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
    """The parts of level.dat mcsim uses."""

    time: int = 0
    day_time: int = 0
    gamerules: dict[str, int | bool] = field(default_factory=dict)
    enabled_packs: list[str] = field(default_factory=lambda: ["vanilla"])
    disabled_packs: list[str] = field(default_factory=list)
    level_name: str = "world"
    schedules: list[Any] = field(default_factory=list)  # ScheduledEvent, in order
    raw: Compound = field(default_factory=Compound)  # everything else, kept as read

    @classmethod
    def load(cls, path: Path) -> LevelData | None:
        if not path.exists():
            return None
        root = read_nbt_file(path)
        data = root.get("Data", Compound())
        rules: dict[str, int | bool] = {}
        for key, value in data.get("GameRules", Compound()).items():
            name = gamerule_name(str(key))
            text = str(value)
            default = GAMERULE_DEFAULTS.get(name)
            if text in ("true", "false"):
                rules[name] = text == "true"
            elif re.fullmatch(r"-?\d+", text):
                rules[name] = int(text)
            elif default is not None:
                rules[name] = default
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
        return cls(
            schedules=schedules,
            time=int(data.get("Time", 0)),
            day_time=int(data.get("DayTime", 0)),
            gamerules=rules,
            enabled_packs=[str(p) for p in packs.get("Enabled", ["vanilla"])],
            disabled_packs=[str(p) for p in packs.get("Disabled", [])],
            level_name=str(data.get("LevelName", "world")),
            raw=data,
        )

    def save(self, path: Path) -> None:
        data = Compound(self.raw)
        data["Time"] = Long(self.time)
        data["DayTime"] = Long(self.day_time)
        data["LevelName"] = String(self.level_name)
        data["DataVersion"] = Int(DATA_VERSION)
        data["version"] = Int(19133)
        data["GameRules"] = Compound(
            {
                k: String(("true" if v else "false") if isinstance(v, bool) else str(v))
                for k, v in self.gamerules.items()
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
