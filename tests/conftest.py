"""The shared fixtures of every test folder (tests/fixtures.py), loaded as a plugin; and how the
suite is spread over parallel workers."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["tests.fixtures"]

# Most tests wait (on a server's ticks, an RCON answer, a browser) more than they compute: on
# 2 cores the suite keeps only about one busy. `-n auto` starts this many workers a core.
WORKERS_PER_CORE = 2


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: WORKERS_PER_CORE a core (PYTEST_XDIST_AUTO_NUM_WORKERS still wins)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return max(1, (len(os.sched_getaffinity(0)) or 1) * WORKERS_PER_CORE)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, so that no worker starts a 30 s test when the others are done."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
