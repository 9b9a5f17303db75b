"""Random crash trials: mcsim as its own process, the bot's real services, SIGKILL and restart
around saves (save-all, the 6000-tick autosave, none), due ticks and wall-clock hand-overs
(tests/chaos/rig.py). Prints, for N trials, how many tasks were lost, how many ran twice, how
many rollbacks needed a repair and how many alerts were posted (one per repaired rollback is
right), and the time taken.

Run: python bench/chaos.py [N] [--seed S]   (N defaults to 20)
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere, no install

from tests.chaos.rig import Trial, run_trial

__all__ = ["main", "random_trial"]


def random_trial(rng: random.Random) -> Trial:
    save = rng.choice(["save-all", "save-all", "autosave", "none"])
    return Trial(
        game=rng.choice([10, 20]),
        due_from=rng.randint(150, 250),
        due_step=rng.randint(5, 15),
        wall=rng.choice([0, 0, 6, 12]),
        wall_from=rng.uniform(0.5, 2.0),
        wall_step=rng.uniform(0.05, 0.3),
        save=save,  # type: ignore[arg-type]
        save_at=rng.randint(100, 400),
        kill_at=rng.randint(120, 600),
        down=rng.uniform(0.0, 1.0),
    )


async def trials(n: int, seed: int) -> None:
    rng = random.Random(seed)
    lost = twice = repairs = alerts = wrong_alerts = tasks = errors = 0
    began = time.monotonic()
    for i in range(n):
        trial = random_trial(rng)
        with tempfile.TemporaryDirectory() as tmp:
            try:
                outcome = await run_trial(Path(tmp), trial)
            except Exception as e:  # a trial that could not finish is counted and shown
                errors += 1
                print(f"trial {i}: {trial}: did not finish: {e!r}", flush=True)
                continue
        tasks += len(outcome.runs)
        lost += len(outcome.lost)
        twice += len(outcome.twice)
        need = bool(outcome.needs_repair())
        repairs += need
        alerts += len(outcome.alerts)
        wrong_alerts += (need and len(outcome.alerts) != 1) or len(outcome.alerts) > 1
        if outcome.lost or outcome.twice or (need and len(outcome.alerts) != 1):
            print(f"trial {i}: {trial}: lost {outcome.lost} twice {outcome.twice} "
                  f"alerts {len(outcome.alerts)}; wall-clock runs {outcome.notes}",
                  flush=True)  # fmt: skip
    took = time.monotonic() - began
    print(f"trials {n} (seed {seed}), tasks {tasks}: lost {lost}, twice {twice}; "
          f"rollbacks repaired {repairs}, alerts {alerts}, trials with a wrong alert count "
          f"{wrong_alerts}, trials that did not finish {errors}; {took:.1f} s "
          f"({took / max(n, 1):.1f} s a trial)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    asyncio.run(trials(args.n, args.seed))


if __name__ == "__main__":
    main()
