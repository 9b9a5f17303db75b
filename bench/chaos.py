"""Random crash trials: mcsim as its own process and the bot's real services, with one kind of
fault a trial: `server`: SIGKILL and restart of the server around saves (save-all, the
6000-tick autosave, none), due ticks and wall-clock hand-overs (tests/chaos/rig.py); `bot`:
SIGKILL of the bot process (`--layout`: the console, or `serve` with the tasks posted to its
API) at a random moment or right after a hand-over's
submit ran, restarted on the same data dir (tests/chaos/bot_rig.py); `rcon`: the RCON
connection cut at seeded random moments while /schedule is used (tests/chaos/rcon_rig.py);
`mixed`: each trial one of the three at random; `failover`: two `serve` processes on one
PostgreSQL sharing two mcsim servers by leases, the holder of one SIGKILLed (`--signal`) at a
random point among six rows due 1-6 s apart, the next trial starting it again
(tests/fleet/failover.py; the database, the servers and the living bot reused). Prints, for N
trials, how many tasks were lost, how many ran twice, how many rollbacks needed a repair and
how many alerts were posted (one per repaired rollback is right), and the time taken; for bot
and rcon trials also how many rows were missed (each must be alerted) and how many /schedule
replies said "may or may not".

Server trials read the pack's events from `--source`: the log on the bot's machine (`log`),
the log over SFTP (`sftp`), or the ring buffer over RCON (`rcon`: a run in the last poll
interval before the kill is in doubt, counted apart; its default policy skips it).

Failover trials print lost and twice, the rows not run as planned (their outcome not `ran`),
how late the rows were handed over (all, and those of the dead process's servers due after
the kill) and the takeover time (kill -> the survivor holds the dead one's servers), with
`--ttl` the lease's TTL (DOOM_LEASE_TTL; 3 s, the least, keeps the trials short).

Run: python bench/chaos.py [N] [--seed S] [--fault server|bot|rcon|mixed|failover]
                           [--source log|sftp|rcon] [--layout console|serve]
                           [--signal kill|term] [--ttl SECONDS]
                           (N defaults to 20)
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere, no install

from bot.background.crash_guard import ALERT_TYPE
from tests.chaos.bot_rig import KillTrial, Layout, run_kill_trial
from tests.chaos.rcon_rig import CutTrial, run_cut_trial
from tests.chaos.rig import SOURCES, Source, Trial, run_trial
from tests.fleet.failover import FailoverOutcome, FailoverTrial, run_failover_trial
from tests.fleet.processes import fleet

__all__ = [
    "main",
    "random_cut_trial",
    "random_failover_trial",
    "random_kill_trial",
    "random_trial",
]

FAULTS = ("server", "bot", "rcon")


def random_trial(rng: random.Random, source: Source = "log") -> Trial:
    save = rng.choice(["save-all", "save-all", "autosave", "none"])
    return Trial(
        source=source,
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


def random_kill_trial(rng: random.Random, layout: Layout = "console") -> KillTrial:
    # one in four killed right after a hand-over's submit ran (kill_at None)
    kill_at = None if rng.random() < 0.25 else rng.uniform(0.3, 8.0)
    return KillTrial(
        kill_at=kill_at,
        down=rng.uniform(0.0, 6.0),
        max_late=rng.choice([3.0, 60.0]),
        layout=layout,
    )


def random_cut_trial(rng: random.Random) -> CutTrial:
    return CutTrial(
        seed=rng.randrange(1 << 30), due_step=rng.randint(2, 6), wall_step=rng.uniform(0.1, 0.3)
    )


def random_failover_trial(rng: random.Random, sig: signal.Signals) -> FailoverTrial:
    # rows due 1-6 s after they are made: the kill falls before, among or after them
    return FailoverTrial(kill_at=rng.uniform(0.3, 6.5), server=rng.choice("ab"), signal=sig)


@dataclass
class Tally:
    tasks: int = 0
    lost: int = 0
    twice: int = 0
    repairs: int = 0
    alerts: int = 0
    wrong_alerts: int = 0
    missed: int = 0
    unalerted: int = 0
    unknown: int = 0
    errors: int = 0
    doubt: int = 0  # tasks in doubt (the rcon source: a run in the last poll interval)


async def _server(i: int, rng: random.Random, tmp: Path, t: Tally, source: Source) -> None:
    trial = random_trial(rng, source)
    outcome = await run_trial(tmp, trial)
    t.tasks += len(outcome.runs)
    t.lost += len(outcome.lost)
    t.twice += len(outcome.twice)
    t.doubt += len(outcome.doubted)
    repair = outcome.needs_repair()
    restored = [a for a in outcome.alerts if a.type == ALERT_TYPE]  # in-doubt alerts apart
    t.repairs += bool(repair)
    t.alerts += len(restored)
    # the rcon source: a repair whose every task was in doubt (run in the last poll interval,
    # its events lost) is said by the in-doubt alert alone, which names them
    said = len(restored) == 1 or (not restored and set(repair) <= set(outcome.doubted))
    wrong = (bool(repair) and not said) or len(restored) > 1
    t.wrong_alerts += wrong
    if outcome.lost or outcome.twice or wrong:
        print(
            f"trial {i}: {trial}: lost {outcome.lost} twice {outcome.twice} "
            f"alerts {len(outcome.alerts)}; wall-clock runs {outcome.notes}",
            flush=True,
        )


async def _bot(i: int, rng: random.Random, tmp: Path, t: Tally, layout: Layout) -> None:
    trial = random_kill_trial(rng, layout)
    outcome = await run_kill_trial(tmp, trial)
    missed = {w for w, o in outcome.wall_outcomes.items() if "missed" in o}
    unasked = [
        n
        for n, k in outcome.runs.items()
        if k and n not in outcome.acknowledged | outcome.in_flight
    ]
    t.tasks += len(outcome.acknowledged)
    t.lost += len(outcome.lost) + len(unasked)
    t.twice += len(outcome.twice)
    t.missed += len(missed)
    t.alerts += len(outcome.alerted)
    t.unalerted += len(missed - outcome.alerted)
    if outcome.lost or outcome.twice or unasked or missed - outcome.alerted:
        print(
            f"trial {i}: {trial}: lost {outcome.lost} twice {outcome.twice} ran unasked "
            f"{unasked} not alerted {sorted(missed - outcome.alerted)}; killed after "
            f"{outcome.killed_after:.2f} s; wall-clock runs {outcome.notes}",
            flush=True,
        )


async def _rcon(i: int, rng: random.Random, tmp: Path, t: Tally) -> None:
    trial = random_cut_trial(rng)
    outcome = await run_cut_trial(tmp, trial)
    t.tasks += len(outcome.acknowledged)
    t.lost += len(outcome.lost) + len(outcome.unasked)
    t.twice += len(outcome.twice)
    t.unknown += len(outcome.unknown)
    missed = [w for w, o in outcome.wall_outcomes.items() if "missed" in o]
    t.missed += len(missed)
    if outcome.lost or outcome.twice or outcome.unknown or outcome.unasked:
        print(
            f"trial {i}: {trial}: lost {outcome.lost} twice {outcome.twice} ran unasked "
            f"{outcome.unasked} may-or-may-not {outcome.unknown}; {outcome.cuts} cuts; "
            f"wall-clock runs {outcome.notes}",
            flush=True,
        )


async def trials(
    n: int, seed: int, fault: str, source: Source = "log", layout: Layout = "console"
) -> None:
    rng = random.Random(seed)
    t = Tally()

    async def server(i: int, rng: random.Random, tmp: Path, t: Tally) -> None:
        await _server(i, rng, tmp, t, source)

    async def bot(i: int, rng: random.Random, tmp: Path, t: Tally) -> None:
        await _bot(i, rng, tmp, t, layout)

    kinds = {"server": server, "bot": bot, "rcon": _rcon}
    began = time.monotonic()
    for i in range(n):
        kind = rng.choice(FAULTS) if fault == "mixed" else fault
        with tempfile.TemporaryDirectory() as tmp:
            try:
                await kinds[kind](i, rng, Path(tmp), t)
            except Exception as e:  # a trial that could not finish is counted and shown
                t.errors += 1
                print(f"trial {i} ({kind}): did not finish: {e!r}", flush=True)
    took = time.monotonic() - began
    print(
        f"trials {n} (seed {seed}), tasks {t.tasks}: lost {t.lost}, twice {t.twice}; "
        f"rollbacks repaired {t.repairs}, alerts {t.alerts}, trials with a wrong alert count "
        f"{t.wrong_alerts}, trials that did not finish {t.errors}; {took:.1f} s "
        f"({took / max(n, 1):.1f} s a trial); events from {source}, tasks in doubt {t.doubt}"
    )
    if fault != "server":
        print(
            f"fault {fault} (bot trials: {layout}): wall-clock runs missed {t.missed} "
            f'(not alerted {t.unalerted}), /schedule replies "may or may not" {t.unknown}'
        )


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p * len(ordered)) - 1))]


def _spread(values: list[float]) -> str:
    return (
        f"p50 {_pct(values, 0.5):.2f} s, p99 {_pct(values, 0.99):.2f} s, "
        f"max {max(values, default=float('nan')):.2f} s (n={len(values)})"
    )


async def failover_trials(n: int, seed: int, sig: signal.Signals, ttl: float) -> None:
    from tests.fixtures import postgres_server  # starts PostgreSQL; removed at exit

    rng = random.Random(seed)
    t = Tally()
    takeovers: list[float] = []
    late_all: list[float] = []
    late_around: list[float] = []  # the dead one's servers' rows due after the kill
    not_ran: Counter[str] = Counter()  # outcome -> rows whose run was recorded so
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        async with fleet(Path(tmp), postgres_server(), ttl=ttl) as group:
            for i in range(n):
                trial = random_failover_trial(rng, sig)
                logged = {id(bot): len(bot.process.err) for bot in group.bots}
                try:
                    outcome: FailoverOutcome = await run_failover_trial(group, trial)
                except Exception as e:  # a trial that could not finish is counted and shown
                    t.errors += 1
                    print(f"trial {i} (failover): did not finish: {e!r}", flush=True)
                    continue
                t.tasks += len(outcome.runs)
                t.lost += len(outcome.lost)
                t.twice += len(outcome.twice)
                takeovers.append(outcome.takeover)
                late_all += outcome.lateness.values()
                late_around += (
                    outcome.lateness[m] for m in outcome.after_kill if m in outcome.lateness
                )
                not_ran.update(o for o in outcome.outcomes.values() if o != "ran")
                not_ran.update("no run row" for m in outcome.runs if m not in outcome.outcomes)
                odd = [m for m, o in outcome.outcomes.items() if o != "ran"]
                if outcome.lost or outcome.twice or odd:
                    print(
                        f"trial {i}: {trial}: lost {outcome.lost} twice {outcome.twice}; "
                        f"killed after {outcome.killed_after:.2f} s; outcomes {outcome.outcomes}",
                        flush=True,
                    )
                    # what each bot logged of them in the trial (a retried hand-over says why
                    # it waits), and every warning and error (a failed run does not name it)
                    for b, bot in enumerate(group.bots):
                        since = bot.process.err[logged.get(id(bot), 0) :]
                        for line in since.splitlines():
                            loud = " WARNING " in line or " ERROR " in line or line[:1].isspace()
                            held = "s for the crash guard" in line
                            if loud or held or "Traceback" in line or any(m in line for m in odd):
                                print(f"  bot{b}: {line}", flush=True)
    took = time.monotonic() - began
    name = sig.name
    print(
        f"failover trials {n} (seed {seed}, {name}, lease TTL {ttl:g} s), rows {t.tasks}: "
        f"lost {t.lost}, twice {t.twice}, run rows not 'ran' {dict(not_ran)}, trials that did not "
        f"finish {t.errors}; {took:.1f} s ({took / max(n, 1):.1f} s a trial)"
    )
    print(f"  takeover (kill -> held by the survivor): {_spread(takeovers)}")
    print(f"  lateness, due -> handed over, every row: {_spread(late_all)}")
    print(f"  lateness, the dead one's rows due after the kill: {_spread(late_around)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fault", choices=[*FAULTS, "mixed", "failover"], default="server")
    # where the bot reads the pack's events in server trials (tests/chaos/rig.py)
    ap.add_argument("--source", choices=SOURCES, default="log")
    # the bot's process layout in bot trials (tests/chaos/bot_rig.py)
    ap.add_argument("--layout", choices=("console", "serve"), default="console")
    # failover trials: the signal the holder gets, and the lease's TTL
    ap.add_argument("--signal", choices=("kill", "term"), default="kill")
    ap.add_argument("--ttl", type=float, default=3.0)
    args = ap.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    if args.fault == "failover":
        sig = signal.SIGKILL if args.signal == "kill" else signal.SIGTERM
        asyncio.run(failover_trials(args.n, args.seed, sig, args.ttl))
        return
    asyncio.run(trials(args.n, args.seed, args.fault, args.source, args.layout))


if __name__ == "__main__":
    main()
