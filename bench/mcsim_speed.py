"""How fast mcsim runs commands: prints commands per second for a plain and a macro workload.

    python bench/mcsim_speed.py [--lines 1000] [--rounds 50] [--depth 400000]

Plain: a function of `scoreboard players add` / `data modify storage` / `execute if score` lines.
Macro-heavy: a caller running `function b:m {n: k}` with k cycling over 6 values (expansions
cached) and a variant with 20 values (cache misses re-parse). Figures are budget units (commands)
per second of wall time on one core; the goal for the plain workload is 50,000/s.
Recursion: a function calling itself `--depth` levels deep (budget 2 units a level, as vanilla
allows with maxCommandChainLength = 2 x depth): the depth reached, time and peak memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

from mcsim.server import Server

META = {
    "pack": {
        "description": "bench",
        "pack_format": 48,
        "supported_formats": [48, 94],
        "min_format": 48,
        "max_format": 94,
    }
}


def write_pack(world: Path, lines: int) -> None:
    root = world / "datapacks" / "bench"
    fdir = root / "data" / "b" / "function"
    fdir.mkdir(parents=True)
    (root / "pack.mcmeta").write_text(json.dumps(META))
    plain = []
    for i in range(lines):
        plain.append(
            [
                f"scoreboard players add #p{i % 50} o 1",
                f"data modify storage b:s v{i % 20} set value {i}",
                f"execute if score #p{i % 50} o matches 1.. run scoreboard players add #hit o 1",
                "scoreboard players operation #acc o += #p1 o",
            ][i % 4]
        )
    (fdir / "plain.mcfunction").write_text("\n".join(plain))
    (fdir / "deep.mcfunction").write_text(
        "scoreboard players add #depth o 1\n"
        "execute if score #depth o < #target o run function b:deep\n"
    )
    (fdir / "m.mcfunction").write_text(
        "$scoreboard players add #m$(n) o 1\n$data modify storage b:s m$(n) set value $(n)\n"
    )
    (fdir / "macro6.mcfunction").write_text(
        "\n".join(f"function b:m {{n: {i % 6}}}" for i in range(lines))
    )
    (fdir / "macro20.mcfunction").write_text(
        "\n".join(f"function b:m {{n: {i % 20}}}" for i in range(lines))
    )


def measure(srv: Server, function: str, rounds: int) -> tuple[float, int]:
    srv.run(f"function {function}")  # warm the parse caches
    executed = 0
    began = time.perf_counter()
    for _ in range(rounds):
        srv.run(f"function {function}")
        executed += srv.counters.last_call
    return executed / (time.perf_counter() - began), executed


def measure_recursion(srv: Server, depth: int) -> None:
    # entry, add and the `if score` stage: 3 a level (the stage costs even where it stops)
    srv.run(f"gamerule max_command_sequence_length {3 * depth}")
    srv.run(f"scoreboard players set #target o {depth}")
    srv.run("scoreboard players set #depth o 0")
    began = time.perf_counter()
    result = srv.run("function b:deep")
    took = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"recursion {srv.score('#depth', 'o'):,} of {depth:,} levels in {took:.2f} s "
        f"(success {result.success}, peak RSS {peak:,.0f} MB)"
    )
    srv.run("gamerule max_command_sequence_length 2000000000")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--depth", type=int, default=400_000, help="recursion depth (0: skip)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        world = Path(tmp) / "world"
        write_pack(world, args.lines)
        with Server(world, frozen=True) as srv:
            srv.run("gamerule max_command_sequence_length 2000000000")
            srv.run("scoreboard objectives add o dummy")
            for name in ("plain", "macro6", "macro20"):
                rate, executed = measure(srv, f"b:{name}", args.rounds)
                print(f"{name:8s} {rate:12,.0f} commands/s  ({executed:,} commands)")
            if args.depth:
                measure_recursion(srv, args.depth)


if __name__ == "__main__":
    main()
