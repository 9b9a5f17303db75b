"""The shared fixtures of every test folder (tests/fixtures.py), loaded as a plugin; the order
the parallel workers take the tests in and how many there are; byte-code caches on; the cyclic
collector's settings in each worker."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Generator

import pytest

# Byte-code caches for this run's processes (the workers and every process a test starts), even
# where the environment turns them off (PYTHONDONTWRITEBYTECODE=1): without them each of them
# compiles the project anew, about 6 s of each worker's collection and 0.2 s of each bot started.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# The console serves the dashboard by default (Quart's import and start, about 0.5 s of CPU for
# each of the suite's many console starts); the tests of that default start theirs without any
# DOOM_ setting (tests/console/test_console_dashboard_pty.py).
os.environ.setdefault("DOOM_CONSOLE_DASHBOARD", "false")

pytest_plugins = ["tests.fixtures"]


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    """Python's cyclic collector, off while the tests are collected (importing every module of
    the bot, its libraries and the tests), then on with all of that frozen, and young objects
    collected every 7,000 allocations instead of 700. A worker's full collections walked that
    heap again and again for nothing to free (15% of a worker's CPU in tests/web), and a test
    allocates millions of objects; the web tests' CPU went from ~68 s to ~60 s."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.freeze()
        gc.set_threshold(7000, 10, 10)
        gc.enable()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, so that no worker starts a 30 s test when the others are done."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers a core. Most tests wait (on game ticks, a process, a browser) as
    much as they compute, so one a core leaves the cores idle for much of the run: on 2 cores,
    2 workers took 530 s, 3 took 437 s and 4 took 354 s."""
    return 2 * (os.cpu_count() or 1)
