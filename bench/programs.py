"""Program figures: `--programs` runs of one five-step program on one mcsim server.

    python bench/programs.py [--programs 1000] [--spread 240] [--lead 60]

One `python -m bot serve` (SQLite, the default store) and one mcsim world, each its own process,
as a rented server's bot would be. The program (bench/programs.py PROGRAM) is saved through the
API, then started `--programs` times through the API (`POST /api/operations/program/start`, many
tokens: the API takes 60 writes a minute from each), the starts spread evenly over `--spread`
seconds beginning `--lead` seconds after the last start was made. Its five steps run at 0, +10 s,
+20 s, +30 s (after step 2 ran) and +40 s from each start. Prints:

- how long the starts took to make through the API;
- the bot's CPU time (/proc/<pid>/stat) while every run was waiting for its first step (the
  program runner looks at every running program each second), as cores;
- hand-over latency p50/p99/max over every step: due -> handed over (the lateness column of the
  step rows' runs), and how many steps ran;
- the bot's CPU while the steps came due, as cores, and per step.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: bot, tests
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/fleet.py's pieces

import aiohttp
from fleet import Run, _pct, cpu_seconds, worlds
from sqlalchemy import func, select

from bot.store.db import Database
from bot.store.tables import schedule_runs, schedules

__all__ = ["main"]

NAME = "evening"
STEPS = 5
PROGRAM = """\
- run: say countdown
  at: 0
- run: say start
  at: +10s
- run: say round two
  at: +20s
- run: say reward
  at: +30s
  after: 2
- run: say clean-up
  at: +40s
"""
PER_TOKEN = 50  # starts made with one token (its limit is 60 writes a minute)
LAST_STEP = 40  # seconds from a start to its last step


async def _post(
    http: aiohttp.ClientSession, base: str, token: str, path: str, body: dict[str, object]
) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    async with http.post(f"{base}/api/operations/{path}", json=body, headers=auth) as reply:
        text = await reply.text()
        assert reply.status == 200, (reply.status, text)


async def _ran(db_url: str) -> tuple[int, list[float]]:
    """The steps' runs recorded `ran`, and every step run's lateness (due -> handed over)."""
    db = Database(db_url)
    try:
        async with db.connect() as conn:
            joined = schedule_runs.join(schedules, schedules.c.id == schedule_runs.c.schedule_id)
            ran = (
                await conn.execute(
                    select(func.count())
                    .select_from(joined)
                    .where(schedules.c.task_id.like(f"{NAME}.%"), schedule_runs.c.outcome == "ran")
                )
            ).scalar_one()
            found = await conn.execute(
                select(schedule_runs.c.lateness)
                .select_from(joined)
                .where(schedules.c.task_id.like(f"{NAME}.%"), schedule_runs.c.lateness.is_not(None))
            )
            late: list[float | None] = list(found.scalars())
            return int(ran), [float(x) for x in late if x is not None]
    finally:
        await db.close()


async def bench(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="doom-programs-bench-") as folder:
        tmp = Path(folder)
        async with worlds(tmp, 1, 1) as ports:
            run = Run(tmp, "sqlite", ports, None, ttl=10.0)
            await run.start_bot()
            try:
                await run.make_tokens(math.ceil(args.programs / PER_TOKEN) + 1)
                base, server = run.bases[0], next(iter(ports))
                timeout = aiohttp.ClientTimeout(total=120)
                async with aiohttp.ClientSession(timeout=timeout) as http:
                    await _post(
                        http, base, run.tokens[-1], "program/save", {"name": NAME, "steps": PROGRAM}
                    )
                    began = time.monotonic()
                    first_due = time.time() + args.lead + args.programs * 0.05
                    gate = asyncio.Semaphore(8)

                    async def start(i: int) -> None:
                        at = first_due + i * args.spread / args.programs
                        async with gate:
                            delay = max(1, round(at - time.time()))
                            await _post(
                                http,
                                base,
                                run.tokens[i // PER_TOKEN],
                                "program/start",
                                {"name": NAME, "server": server, "when": f"in {delay}s"},
                            )

                    await asyncio.gather(*(start(i) for i in range(args.programs)))
                made = time.monotonic() - began
                print(f"{args.programs} program starts made through the API in {made:.1f} s")
                # every run waits for its first step: what the runner's looks cost meanwhile
                quiet = max(5.0, min(30.0, first_due - time.time() - 3))
                cpu0, t0 = cpu_seconds(run.pids), time.monotonic()
                await asyncio.sleep(quiet)
                waiting = (cpu_seconds(run.pids) - cpu0) / (time.monotonic() - t0)
                print(
                    f"bot CPU while {args.programs} runs wait for their first step: "
                    f"{waiting:.3f} cores (over {quiet:.0f} s)"
                )
                expected = args.programs * STEPS
                cpu1, t1 = cpu_seconds(run.pids), time.monotonic()
                deadline = first_due + args.spread + LAST_STEP + args.wait
                ran = 0
                while time.time() < deadline:
                    await asyncio.sleep(5)
                    ran, _late = await _ran(run.db_url())
                    if ran >= expected:
                        break
                busy = cpu_seconds(run.pids) - cpu1
                span = time.monotonic() - t1
                ran, late = await _ran(run.db_url())
                print(f"steps run: {ran}/{expected}")
                p50, p99 = _pct(late, 0.5) * 1000, _pct(late, 0.99) * 1000
                top = max(late, default=0) * 1000
                print(
                    f"hand-over latency over {len(late)} steps: p50 {p50:.0f} ms,"
                    f" p99 {p99:.0f} ms, max {top:.0f} ms"
                )
                print(
                    f"bot CPU while the steps came due: {busy / span:.3f} cores over {span:.0f} s,"
                    f" {busy / max(ran, 1) * 1000:.1f} ms a step"
                )
            finally:
                for bot in run.bots:
                    await bot.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=1000)
    parser.add_argument("--spread", type=float, default=240.0, help="seconds the starts span")
    parser.add_argument("--lead", type=float, default=60.0, help="seconds before the first")
    parser.add_argument("--wait", type=float, default=60.0, help="seconds allowed past the last")
    asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    main()
