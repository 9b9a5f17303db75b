"""Prints the latency from a pack line written to latest.log (by mcsim's ServerLog) to the Event
the LogTailer hands out, at a given poll interval, with the log rolled now and then.

    python bench/log_latency.py [--events 200] [--interval 0.5] [--rotate-every 50]

The tailer polls, so the expected figure is about half the interval on average and up to one
interval at worst; the rest is reading and parsing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from contextlib import aclosing, suppress
from pathlib import Path

from bot.events.log_tail import LogTailer
from mcsim.log import ServerLog

__all__ = ["main", "measure"]


async def run(events: int, interval: float, rotate_every: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp, ServerLog(Path(tmp)) as slog:
        tailer = LogTailer(slog.path, "bench", None, poll_interval=interval)
        written: dict[int, float] = {}
        latencies: list[float] = []
        async with aclosing(tailer.events()) as stream:
            pending = asyncio.ensure_future(anext(stream))
            await asyncio.sleep(interval * 2)  # the tailer has opened the file
            for seq in range(1, events + 1):
                if seq % rotate_every == 0:
                    slog.rotate()
                written[seq] = time.perf_counter()
                slog.info(
                    f"[Not Secure] [Server] [doom.schedule] event=retry id=b{seq} seq={seq} t={seq}"
                )
                ev = await asyncio.wait_for(pending, interval * 4 + 5)
                latencies.append(time.perf_counter() - written[ev.seq])
                pending = asyncio.ensure_future(anext(stream))
                # writes land at random points of the poll cycle
                await asyncio.sleep(interval * ((seq * 7919) % 100) / 100)
            pending.cancel()
            with suppress(asyncio.CancelledError, StopAsyncIteration):
                await pending  # the generator must be idle before it is closed
        return latencies


async def measure(events: int, interval: float, rotate_every: int) -> str:
    """One line of figures (bench/bot_rcon.py prints it too)."""
    ms = sorted(x * 1e3 for x in await run(events, interval, rotate_every))
    return (
        f"log line -> Event, poll interval {interval * 1e3:.0f} ms, {len(ms)} events "
        f"(log rolled every {rotate_every}): mean {statistics.fmean(ms):.1f} ms, "
        f"p50 {statistics.median(ms):.1f} ms, p99 {ms[int(len(ms) * 0.99) - 1]:.1f} ms, "
        f"max {ms[-1]:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--rotate-every", type=int, default=50)
    args = parser.parse_args()
    print(asyncio.run(measure(args.events, args.interval, args.rotate_every)))


if __name__ == "__main__":
    main()
