"""Drives the doom.schedule pack inside mcsim for the tests: world set-up (the pack plus a small
test pack that records runs), macro and storage calls, and readers for the pack's storages, its
events in latest.log and the recorded runs."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcsim.nbt import format_snbt, from_python
from mcsim.server import CommandResult, Server
from tests.fixtures import PACK_DIR, install_pack

__all__ = ["PACK_DIR", "Pack", "Run", "install", "snbt"]

EVENT_LINE = re.compile(r"\]: \[Not Secure\] \[(?P<who>[^\]]+)\] \[doom\.schedule\] (?P<body>.*)$")

# dstest:mark {id} records (id, game time of the tick) in storage dstest:log runs; the run happens
# inside #tick, before the tick's increment, so the tick it belongs to is the recorded time + 1.
TEST_FUNCTIONS = {
    "mark": '$data modify storage dstest:log runs append value {id:"$(id)"}\n'
    "execute store result storage dstest:log runs[-1].t int 1 run time query gametime\n",
    "fail": "return fail\n",
    "where": '$data modify storage dstest:log runs append value {id:"$(id)"}\n'
    "execute store result storage dstest:log runs[-1].t int 1 run time query gametime\n"
    "execute if dimension minecraft:the_nether run "
    'data modify storage dstest:log runs[-1].dim set value "nether"\n'
    "execute if entity @s[type=minecraft:player] run "
    "data modify storage dstest:log runs[-1].player set value 1b\n",
}


def snbt(value: Any) -> str:
    return format_snbt(from_python(value))


def install(world: Path) -> None:
    """Copies the pack (and the test pack) into a world folder, as an admin would."""
    target = world / "datapacks" / "doom.schedule"
    if target.exists():
        shutil.rmtree(target)
    install_pack(world)
    test = world / "datapacks" / "dstest"
    (test / "data" / "dstest" / "function").mkdir(parents=True, exist_ok=True)
    (test / "pack.mcmeta").write_text(
        '{"pack":{"description":"t","pack_format":48,"supported_formats":[48,94],'
        '"min_format":48,"max_format":94}}'
    )
    for name, body in TEST_FUNCTIONS.items():
        (test / "data" / "dstest" / "function" / f"{name}.mcfunction").write_text(body)


@dataclass(frozen=True)
class Run:
    id: str
    tick: int  # the game time the tick that ran it advanced to
    dim: str | None = None
    player: bool = False


def mark(task_id: str) -> str:
    return f'function dstest:mark {{id:"{task_id}"}}'


class Pack:
    """The pack in a started, frozen mcsim server."""

    def __init__(self, server: Server) -> None:
        self.server = server

    # calls
    def run(self, command: str, *, as_player: str | None = None) -> CommandResult:
        return self.server.run(command, as_player=as_player)

    def call(
        self, function: str, args: dict[str, Any] | None = None, *, as_: str | None = None
    ) -> CommandResult:
        command = f"function doom.schedule:{function}" + (f" {snbt(args)}" if args else "")
        if as_ is not None:
            command = f"execute as {as_} at @s run {command}"
        return self.run(command)

    def schedule(
        self, run: str, time: int, unit: str = "t", id: str = "x", *, as_: str | None = None
    ) -> CommandResult:
        return self.call("schedule", {"run": run, "time": time, "unit": unit, "id": id}, as_=as_)

    def submit(self, *, as_: str | None = None, **task: Any) -> dict[str, Any]:
        self.run(f"data modify storage doom.schedule:in task set value {snbt(task)}")
        result = self.call("submit", as_=as_)
        out = self.out()
        assert bool(out["ok"]) == result.success, (result, out)
        return out

    def op(
        self, op: str, id: str | None = None, req: int = 1
    ) -> tuple[CommandResult, dict[str, Any]]:
        request: dict[str, Any] = {"req": req, "op": op}
        if id is not None:
            request["id"] = id
        self.run(f"data modify storage doom.schedule:in op set value {snbt(request)}")
        return self.call("call"), self.out()

    def step(self, ticks: int = 1) -> None:
        self.server.step(ticks)

    # readers
    @property
    def time(self) -> int:
        return self.server.game_time

    def out(self) -> dict[str, Any]:
        return self.server.storage("doom.schedule:out")

    def data(self) -> dict[str, Any]:
        return self.server.storage("doom.schedule:data")

    def queue(self) -> list[dict[str, Any]]:
        return list(self.data().get("queue", []))

    def offline(self) -> list[dict[str, Any]]:
        return list(self.data().get("offline", []))

    def paused(self) -> list[dict[str, Any]]:
        return list(self.data().get("paused", []))

    def events(self) -> list[dict[str, Any]]:
        return list(self.server.storage("doom.schedule:events").get("entries", []))  # type: ignore[call-overload]

    def log_events(self) -> list[dict[str, str]]:
        """Every event line in latest.log (said by the server) as its key=value fields."""
        found = []
        for line in self.server.log_path.read_text(encoding="utf-8").splitlines():
            m = EVENT_LINE.search(line)
            if m:
                assert m.group("who") == "Server", line
                found.append(dict(part.split("=", 1) for part in m.group("body").split(" ")))
        return found

    def runs(self) -> list[Run]:
        raw = self.server.storage("dstest:log").get("runs", [])
        return [
            Run(r["id"], r["t"] + 1, r.get("dim"), bool(r.get("player", 0)))
            for r in raw  # type: ignore[attr-defined]
        ]

    def ran(self) -> list[str]:
        return [r.id for r in self.runs()]
