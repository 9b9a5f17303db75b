"""Prints what the command check costs: microseconds per check, cold (first parse of a text,
mecha's work) and cached (the same text again), over a mix of command families.

    python bench/check_cost.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from bot.config import DEFAULT_DENY
from bot.minecraft.command_check import MAX_EXECUTE_STAGES, CommandChecker

__all__ = ["main"]

TEMPLATES = [
    "say restart in {n} minutes",
    'tellraw @a {{"text": "backup {n} done", "color": "gold"}}',
    "execute as @a[tag=afk{n}] at @s run tp @s ~ ~{n} ~",
    "scoreboard players add @a kills {n}",
    "data modify storage mypack:in x{n} set value {{a: {n}, b: [1, 2]}}",
    "execute store result storage a:b v{n} int 1 run time query gametime",
    "give @p minecraft:diamond {n}",
    "return run function mypack:step{n}",
    "execute as @a run op p{n}",  # refused: the walk still runs
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    start = time.perf_counter()
    checker = CommandChecker(deny=DEFAULT_DENY)
    setup_ms = (time.perf_counter() - start) * 1e3
    texts = [t.format(n=n) for n in range(args.rounds) for t in TEMPLATES]
    cold: list[float] = []
    for text in texts:
        t0 = time.perf_counter()
        try:
            checker.check(text)
        except Exception:  # refusals are part of the mix
            pass
        cold.append((time.perf_counter() - t0) * 1e6)
    cached: list[float] = []
    for text in texts:
        t0 = time.perf_counter()
        try:
            checker.check(text)
        except Exception:
            pass
        cached.append((time.perf_counter() - t0) * 1e6)
    print(f"checker set-up (mecha tree load): {setup_ms:.1f} ms")
    for name, xs in (("cold", cold), ("cached", cached)):
        xs.sort()
        p99 = xs[int(len(xs) * 0.99) - 1]
        print(
            f"{name:>6}: {len(xs)} checks, mean {statistics.fmean(xs):.1f} us, "
            f"p50 {statistics.median(xs):.1f} us, p99 {p99:.1f} us per check"
        )
    chains(checker)


def chains(checker: CommandChecker) -> None:
    """A refused `execute` chain (bot.minecraft.execute_chain): a typo in the run tail, and one
    in the last stage, after n stages (a plain parse of the first took ~2.3x longer per stage:
    10 stages, 8 s)."""
    for n in range(2, MAX_EXECUTE_STAGES + 1, 2):
        for where, text in (
            ("tail", "execute " + f"if entity @s[tag=c{n}] " * n + "run sya hi"),
            ("stage", "execute " + f"if entity @s[tag=s{n}] " * (n - 1) + "if entitty @s run say"),
        ):
            t0 = time.perf_counter()
            try:
                checker.check(text)
            except Exception:
                pass
            ms = (time.perf_counter() - t0) * 1e3
            print(f"{n} stages, typo in the {where}: refused in {ms:.1f} ms")


if __name__ == "__main__":
    main()
