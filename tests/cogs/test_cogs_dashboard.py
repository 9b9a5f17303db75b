"""/dashboard without a running dashboard, and who may ask for a link."""

from __future__ import annotations

from tests.cogs.harness import MOD, NOBODY, Harness


async def test_dashboard_says_how_to_enable_it(bare: Harness) -> None:
    reply = await bare.run("dashboard", MOD)
    assert reply.ephemeral
    assert "not enabled" in reply.text and "DOOM_WEB_PORT" in reply.text


async def test_dashboard_links_are_for_moderators_only(bare: Harness) -> None:
    reply = await bare.run("dashboard", NOBODY)
    assert reply.ephemeral
    assert "You need the moderator role to use /dashboard." in reply.text
    assert "http" not in reply.text
