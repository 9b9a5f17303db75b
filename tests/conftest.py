"""The shared fixtures of every test folder (tests/fixtures.py), loaded as a plugin."""

pytest_plugins = ["tests.fixtures"]
