"""Prints what the role boundary costs: the rule walk over a parsed command (bot.minecraft.
command_rules) in microseconds, for everyday commands and for refused ones, next to a whole cold
check; and the pack-state check of /status and the selftest (bot.minecraft.pack_health) on mcsim
over real RCON: commands sent and milliseconds, on a whole pack and a damaged one.

    python bench/role_boundary.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bot.config import DEFAULT_DENY
from bot.minecraft.command_check import CommandChecker, _parser
from bot.minecraft.command_rules import AllowList, refusal
from bot.minecraft.pack_health import pack_damage
from bot.minecraft.rcon import RconClient

__all__ = ["main"]

ROOT = Path(__file__).resolve().parent.parent
ORDINARY = [
    "say restart in {n} minutes",
    'tellraw @a {{"text": "backup {n} done", "color": "gold"}}',
    "execute as @a[tag=afk{n}] at @s run tp @s ~ ~{n} ~",
    "give @p minecraft:diamond {n}1",
    "execute as @a at @s run particle flame ~ ~1 ~ 0.2 0.2 0.2 0 {n}1",
    'summon zombie ~ ~ ~ {{CustomName:"\\"z{n}\\"",Health:{n}f}}',
]
HOSTILE = [
    "data modify storage doom.schedule:data q{n} set value []",
    "execute as @a run execute at @s run scoreboard players set #x{n} doom.schedule 1",
    'summon armor_stand ~ ~ ~ {{Passengers:[{{id:"command_block_minecart",Tags:["t{n}"]}}]}}',
    'setblock ~ ~{n} ~ oak_sign{{front_text:{{messages:[{{text:"x",click_event:'
    '{{action:"run_command",command:"/op p{n}"}}}},"","",""]}}}}',
    "clone ~ ~ ~ ~ ~ ~ ~{n} ~ ~",
    "execute as @a run clone ~ ~ ~ ~ ~ ~ ~{n} ~ ~ masked move",
    "clone ~ ~ ~ ~1 ~1 ~1 ~{n} ~ ~ filtered #minecraft:logs",
    "fill ~ ~ ~ ~1 ~1 ~{n} repeating_command_block{{auto:1b}} replace air",
    "scoreboard objectives add doom.schedule.x{n} dummy",
]


def _percentiles(xs: list[float]) -> str:
    xs = sorted(xs)
    p99 = xs[max(int(len(xs) * 0.99) - 1, 0)]
    return (
        f"mean {statistics.fmean(xs):.1f} us, p50 {statistics.median(xs):.1f} us, p99 {p99:.1f} us"
    )


def rules(rounds: int) -> None:
    parser = _parser("1.21")
    tree = parser.mecha.spec.tree
    allow = AllowList(["say", "tellraw", "tp", "give", "particle", "summon"], {"tp": "teleport"})
    for name, templates in (("ordinary", ORDINARY), ("refused", HOSTILE)):
        parsed = [parser.parse(t.format(n=n)) for n in range(rounds) for t in templates]
        walk: list[float] = []
        listed: list[float] = []
        for node in parsed:
            t0 = time.perf_counter()
            refusal(tree, node)  # type: ignore[arg-type]
            walk.append((time.perf_counter() - t0) * 1e6)
            t0 = time.perf_counter()
            allow.refusal(tree, [node])  # type: ignore[list-item]
            listed.append((time.perf_counter() - t0) * 1e6)
        refused = sum(refusal(tree, node) is not None for node in parsed)  # type: ignore[arg-type]
        print(f"rule walk, {name:>8}: {len(walk)} commands, {_percentiles(walk)}")
        print(f"rule walk, {name:>8}: {refused} of {len(parsed)} refused")
        print(f"allow-list, {name:>7}: {len(listed)} commands, {_percentiles(listed)}")
    cold: list[float] = []
    checker = CommandChecker(deny=DEFAULT_DENY)
    for n in range(rounds):
        for t in ORDINARY:
            text = t.format(n=n + 10**6)  # texts not parsed above: mecha's work included
            t0 = time.perf_counter()
            checker.check(text)
            cold.append((time.perf_counter() - t0) * 1e6)
    print(f"whole cold check, ordinary: {len(cold)} commands, {_percentiles(cold)}")


async def health() -> None:
    from mcsim.server import Server

    with tempfile.TemporaryDirectory() as tmp:
        world = Path(tmp) / "world"
        (world / "datapacks").mkdir(parents=True)
        shutil.copytree(ROOT / "datapack", world / "datapacks" / "doom.schedule")
        server = Server(world, rcon_port=0, rcon_password="bench-pw")
        server.start()
        try:
            assert server.rcon_port is not None
            client = RconClient("127.0.0.1", server.rcon_port, "bench-pw", timeout=10.0)
            await client.connect()
            try:
                for label, damage in (
                    ("whole pack", None),
                    ("objective removed", "scoreboard objectives remove doom.schedule"),
                ):
                    if damage is not None:
                        server.run(damage)
                    times: list[float] = []
                    for _ in range(20):
                        before = client.round_trips
                        t0 = time.perf_counter()
                        found = await pack_damage(client)
                        times.append((time.perf_counter() - t0) * 1e3)
                        sent = client.round_trips - before
                    print(
                        f"pack state, {label}: {sent} RCON commands, "
                        f"p50 {statistics.median(times):.1f} ms, max {max(times):.1f} ms "
                        f"({len(found)} problem(s))"
                    )
            finally:
                await client.close()
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    rules(args.rounds)
    asyncio.run(health())


if __name__ == "__main__":
    main()
