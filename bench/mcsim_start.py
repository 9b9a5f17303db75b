"""How long mcsim takes to start with the doom.schedule pack: cold (first start in a process) and
warm (each later start on a fresh world), and the same for a `reload` of a started server.

mecha parses each distinct function line once per process and keeps it, so the cold start pays
for parsing the pack and every later start, in any world, reuses it. The pack's lines are kept on
disk too (mcsim.parse_cache): the cold start is measured twice, in new processes, without that
file (MCSIM_PARSE_CACHE=off) and with it.

Run: python bench/mcsim_start.py [warm_runs]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere, no install

from mcsim.server import Server

__all__ = ["main", "start_once"]

PACK = Path(__file__).resolve().parents[1] / "datapack"


def start_once(folder: Path) -> tuple[float, float]:
    """Seconds to start a server on a fresh world with the pack, and to `reload` it once."""
    world = folder / "world"
    shutil.copytree(PACK, world / "datapacks" / "doom.schedule")
    server = Server(world, frozen=True)
    began = time.perf_counter()
    server.start()
    started = time.perf_counter() - began
    began = time.perf_counter()
    server.run("reload")
    reloaded = time.perf_counter() - began
    server.stop()
    return started, reloaded


def cold_in_a_new_process(folder: Path, cache: str) -> float:
    """Seconds of a new process's first start, with the parse cache in `cache` (or off)."""
    code = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2]);"
        "from bench.mcsim_start import start_once; print(start_once(Path(sys.argv[1]))[0])"
    )
    root = str(Path(__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", code, str(folder), root],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "MCSIM_PARSE_CACHE": cache},
    )
    return float(done.stdout.split()[-1])


def main(argv: list[str]) -> None:
    runs = int(argv[0]) if argv else 10
    with tempfile.TemporaryDirectory() as tmp:
        off = cold_in_a_new_process(Path(tmp) / "off", "off")
        cache = str(Path(tmp) / "cache")
        cold_in_a_new_process(Path(tmp) / "fill", cache)  # writes the file
        kept = cold_in_a_new_process(Path(tmp) / "kept", cache)
        cold, cold_reload = start_once(Path(tmp) / "cold")
        warm = [start_once(Path(tmp) / f"warm{i}") for i in range(runs)]
    starts = [w[0] for w in warm]
    reloads = [w[1] for w in warm]
    print(f"cold start, new process, no file:   {off * 1000:8.1f} ms")
    print(f"cold start, new process, file kept: {kept * 1000:8.1f} ms")
    print(f"cold start (first in this process): {cold * 1000:8.1f} ms")
    print(f"warm start, median of {runs}:         {statistics.median(starts) * 1000:8.1f} ms")
    print(f"warm start, max of {runs}:            {max(starts) * 1000:8.1f} ms")
    print(f"reload after the cold start:        {cold_reload * 1000:8.1f} ms")
    print(f"reload after a warm start, median:  {statistics.median(reloads) * 1000:8.1f} ms")


if __name__ == "__main__":
    main(sys.argv[1:])
