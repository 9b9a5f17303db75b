"""/dashboard without a running dashboard, and who may ask for a link; the cog without one
imports no web framework."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.testkit.harness import MOD, NOBODY, Harness

ROOT = Path(__file__).resolve().parents[2]


async def test_dashboard_says_how_to_enable_it(bare: Harness) -> None:
    reply = await bare.run("dashboard", MOD)
    assert reply.ephemeral
    assert "not enabled" in reply.text and "DOOM_WEB_PORT" in reply.text


async def test_dashboard_links_are_for_moderators_only(bare: Harness) -> None:
    reply = await bare.run("dashboard", NOBODY)
    assert reply.ephemeral
    assert "You need the moderator role to use /dashboard." in reply.text
    assert "http" not in reply.text


# a process of its own: whether loading the cog imported Quart, then whether its page is there
WITHOUT_DASHBOARD = """
import sys
from cogs.dashboard import DashboardCog
cog = DashboardCog(None)
print("quart" in sys.modules, type(cog.web_blueprint).__name__, "quart" in sys.modules)
"""


def test_the_cog_imports_quart_only_when_the_dashboard_asks_for_its_page() -> None:
    """A bot without the dashboard (the console, `run` without DOOM_WEB_PORT) starts without
    importing Quart (~1 s of every start); the page is made when the dashboard mounts it."""
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_DASHBOARD],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "Blueprint", "True"]
