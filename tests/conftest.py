"""The shared fixtures of every test folder (tests/fixtures.py), loaded as a plugin; and how the
suite is spread over parallel workers."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["tests.fixtures"]

# `-n auto` starts this many workers a core. Two a core measured slower on 2 cores (a fresh
# clone: 791 s of pytest against ~500 s with one a core): each test's servers and browsers are
# processes of their own, so more workers oversubscribe the cores.
WORKERS_PER_CORE = 1


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: WORKERS_PER_CORE a core (PYTEST_XDIST_AUTO_NUM_WORKERS still wins)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return max(1, (len(os.sched_getaffinity(0)) or 1) * WORKERS_PER_CORE)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, so that no worker starts a 30 s test when the others are done."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
