"""Scoreboard objectives and scores, saved as vanilla's data/scoreboard.dat."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from nbtlib.tag import Byte, Compound, Int, String

from mcsim.nbt import NbtList, read_nbt_file, write_nbt_file

__all__ = ["Objective", "Scoreboard"]

log = logging.getLogger(__name__)

# Vanilla writes a DataVersion next to `data`; 4671 is 1.21.11's (informational only here).
DATA_VERSION = 4671


@dataclass(slots=True)
class Objective:
    name: str
    criteria: str
    display_name: str


class Scoreboard:
    """Objectives plus one score table per objective (holder name -> int)."""

    def __init__(self) -> None:
        self.objectives: dict[str, Objective] = {}
        self.scores: dict[str, dict[str, int]] = {}

    def add_objective(
        self, name: str, criteria: str = "dummy", display: str | None = None
    ) -> Objective:
        obj = Objective(name, criteria, display if display is not None else name)
        self.objectives[name] = obj
        self.scores.setdefault(name, {})
        return obj

    def remove_objective(self, name: str) -> None:
        self.objectives.pop(name, None)
        self.scores.pop(name, None)

    def get(self, holder: str, objective: str) -> int | None:
        table = self.scores.get(objective)
        return None if table is None else table.get(holder)

    def set(self, holder: str, objective: str, value: int) -> None:
        self.scores[objective][holder] = value

    def reset(self, holder: str, objective: str | None = None) -> None:
        if objective is None:
            for table in self.scores.values():
                table.pop(holder, None)
        else:
            self.scores.get(objective, {}).pop(holder, None)

    def holders(self) -> list[str]:
        """Every holder with at least one score, in first-seen order."""
        seen: dict[str, None] = {}
        for table in self.scores.values():
            for holder in table:
                seen[holder] = None
        return list(seen)

    def bump_criteria(self, criteria: str, holder: str, delta: int = 1) -> None:
        """Add `delta` to every objective with this criteria (statistics such as leave_game)."""
        for obj in self.objectives.values():
            if obj.criteria == criteria:
                table = self.scores[obj.name]
                table[holder] = _wrap(table.get(holder, 0) + delta)

    # -- persistence -------------------------------------------------------------------------

    def to_nbt(self) -> Compound:
        objectives = NbtList(
            [
                Compound(
                    {
                        "Name": String(o.name),
                        "CriteriaName": String(o.criteria),
                        "DisplayName": String(json.dumps({"text": o.display_name})),
                        "RenderType": String("integer"),
                        "display_auto_update": Byte(0),
                    }
                )
                for o in self.objectives.values()
            ]
        )
        scores = NbtList(
            [
                Compound(
                    {
                        "Name": String(holder),
                        "Objective": String(obj),
                        "Score": Int(value),
                        "Locked": Byte(0),
                    }
                )
                for obj, table in self.scores.items()
                for holder, value in table.items()
            ]
        )
        data = Compound(
            {
                "Objectives": objectives,
                "PlayerScores": scores,
                "Teams": NbtList(),
                "DisplaySlots": Compound(),
            }
        )
        return Compound({"data": data, "DataVersion": Int(DATA_VERSION)})

    def load_nbt(self, root: Compound) -> None:
        data = root.get("data", Compound())
        for o in data.get("Objectives", []):
            display = str(o.get("DisplayName", o["Name"]))
            try:
                parsed = json.loads(display)
                if isinstance(parsed, dict) and isinstance(parsed.get("text"), str):
                    display = parsed["text"]
                elif isinstance(parsed, str):
                    display = parsed
            except ValueError:
                pass
            self.add_objective(str(o["Name"]), str(o.get("CriteriaName", "dummy")), display)
        for s in data.get("PlayerScores", []):
            obj = str(s["Objective"])
            if obj in self.scores:
                self.scores[obj][str(s["Name"])] = int(s["Score"])

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_nbt_file(path, self.to_nbt())

    @classmethod
    def load(cls, path: Path) -> Scoreboard:
        board = cls()
        if path.exists():
            board.load_nbt(read_nbt_file(path))
        return board


def _wrap(value: int) -> int:
    """Java int overflow."""
    return (value + 0x80000000) % 0x100000000 - 0x80000000
