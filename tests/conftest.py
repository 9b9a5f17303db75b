"""The shared fixtures of every test folder (tests/fixtures.py), loaded as a plugin; and the
order the parallel workers take the tests in."""

from __future__ import annotations

import pytest

pytest_plugins = ["tests.fixtures"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, so that no worker starts a 30 s test when the others are done."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
