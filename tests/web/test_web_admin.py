"""A server's administration page in Chromium: an admin runs the selftest and the setup (which
the selftest follows) and sees their reports; a moderator has no way there and is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.testkit.harness import ADMIN, MOD
from tests.web.test_web_browser import open_session
from tests.web.webclient import Client
from tests.web.webdash import Dash

pytestmark = pytest.mark.slow  # the selftest queues and waits on tasks in mcsim


async def test_an_admin_runs_the_selftest_and_the_setup(
    dash: Dash, browser: Any, shots: Path
) -> None:
    page = await open_session(browser, dash, ADMIN)
    await page.get_by_role("link", name="Setup and selftest").click()
    await page.get_by_role("heading", name="Administer main").wait_for()
    await page.get_by_role("button", name="Run the selftest").click()
    verdict = page.locator("#verdict")
    await verdict.wait_for()
    # mcsim's server.properties keep broadcast-rcon-to-ops on: the one check that fails here
    said = await verdict.inner_text()
    assert said.startswith("selftest of 'main' FAILED (1 check)"), said
    [failed] = await page.locator("tr.check-fail").all()
    cells = await failed.locator("td").all_inner_texts()
    assert cells[:2] == ["broadcast-rcon-to-ops", "FAIL"], cells
    assert "set broadcast-rcon-to-ops=false in server.properties" in cells[2], cells
    names = await page.locator("table td:first-child").all_inner_texts()
    assert {"rcon", "pack version", "marker task"} <= set(names), names
    passed = await page.locator("tr.check-pass td:first-child").all_inner_texts()
    assert {"rcon", "pack version", "function tags"} <= set(passed), passed
    await page.screenshot(path=shots / "selftest.png", full_page=True)
    await page.get_by_role("button", name="Install or update the pack").click()
    outcome = page.locator("#setup-outcome")
    await outcome.wait_for()
    assert "doom.schedule" in await outcome.inner_text()
    assert (await page.locator("#verdict").inner_text()).startswith("selftest of 'main' ")
    await page.screenshot(path=shots / "setup.png", full_page=True)
    actions = [r.action for r in await dash.harness.services.audit.mutations(server="main")]
    assert actions == ["selftest", "setup", "selftest"]  # newest first


async def test_a_moderator_has_no_admin_page(dash: Dash, browser: Any) -> None:
    page = await open_session(browser, dash, MOD)
    await page.get_by_role("heading", name="Servers").wait_for()
    assert await page.get_by_role("link", name="Setup and selftest").count() == 0
    refused = await page.goto(dash.url + "/servers/main/admin")
    assert refused is not None and refused.status == 403
    await page.get_by_text("You need the admin role to administer a server.").wait_for()
    me = await (await page.request.get(dash.url + "/api/me")).json()
    for what in ("setup", "selftest"):
        answer = await page.request.post(
            f"{dash.url}/servers/main/{what}", form={"csrf_token": me["csrf_token"]}
        )
        assert answer.status == 403, what
        assert "admin role" in await answer.text()
    assert await dash.harness.services.audit.mutations(server="main") == []
    # and the address of the form needs the token, for an admin too
    admin = await Client(dash).login(ADMIN)
    try:
        status, body = await admin.post("/servers/main/selftest", data={})
        assert status == 403 and "security token" in body
    finally:
        await admin.close()
    assert await dash.harness.services.audit.mutations(server="main") == []
