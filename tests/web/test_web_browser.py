"""The dashboard in a real browser: Debian's chromium under Playwright, against the
dashboard served by Hypercorn, on the bot's services over TCP RCON to mcsim, with the Discord
side on the local Discord. Screenshots of each page go to test-artifacts/web/<test>/."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import pytest

from bot.testkit.harness import ADMIN, MOD
from tests.web.webdash import Dash, queue_ids
from web.auth import LINK_TTL

# every test here takes seconds (a real browser, a server at 20 TPS, processes)
pytestmark = pytest.mark.slow

TIMEOUT = 20_000  # ms: generous, the machine is shared


async def open_session(browser: Any, dash: Dash, user: Any = MOD, **context: Any) -> Any:
    """A browser page logged in through a one-time link from /dashboard."""
    ctx = await browser.new_context(**context)
    ctx.set_default_timeout(TIMEOUT)
    page = await ctx.new_page()
    await page.goto(await dash.link(user))
    await page.get_by_role("button", name="Log in").click()
    await page.wait_for_url("**/servers")
    return page


async def test_moderator_sees_cancels_typos_and_follows_events(
    dash: Dash, browser: Any, shots: Path
) -> None:

    reply = await dash.harness.run(
        "schedule", MOD, run="say hello", time=900, unit="tick", id="greet"
    )
    assert "Scheduled `greet`" in reply.text
    assert queue_ids(dash) == ["greet"]

    ctx = await browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(TIMEOUT)
    page = await ctx.new_page()
    link = await dash.link(MOD)
    await page.goto(link)
    await page.screenshot(path=shots / "login.png", full_page=True)
    await page.get_by_role("button", name="Log in").click()
    await page.wait_for_url("**/servers")
    await page.get_by_role("heading", name="Servers").wait_for()
    assert "queue 1" in " ".join((await page.locator(".lists").inner_text()).split())
    await page.screenshot(path=shots / "servers.png", full_page=True)

    # the task scheduled from Discord is on the queue page, due in the reader's time zone
    await page.get_by_role("link", name="queue 1").click()
    row = page.get_by_role("row").filter(has_text="greet")
    await row.wait_for()
    assert "say hello" in await row.inner_text()
    await page.screenshot(path=shots / "queue.png", full_page=True)

    # a moderator has no clear button, and the API refuses them even with a good CSRF token
    assert await page.locator("#clear").count() == 0
    me = await (await page.request.get(dash.url + "/api/me")).json()
    assert me["rank"] == "moderator"
    refused = await page.request.post(
        dash.url + "/api/servers/main/clear",
        data={"confirm": True},
        headers={"X-CSRF-Token": me["csrf_token"]},
    )
    assert refused.status == 403
    assert "admin role" in (await refused.json())["error"]
    assert queue_ids(dash) == ["greet"]

    # one task's page
    await page.get_by_role("link", name="greet").click()
    await page.get_by_role("heading", name="Task greet on main").wait_for()
    await page.screenshot(path=shots / "task.png", full_page=True)

    # cancel in the page: gone from mcsim's queue
    await page.get_by_role("button", name="Cancel").click()
    await page.get_by_text("Cancelled greet.").wait_for()  # the id shown as code
    assert queue_ids(dash) == []
    await page.screenshot(path=shots / "cancelled.png", full_page=True)

    # a typo: the caret message, nothing queued
    await page.get_by_label("Command", exact=True).fill("sya hello")
    await page.get_by_label("Delay").fill("5")
    await page.locator("select[name=unit]").select_option("tick")
    await page.get_by_role("button", name="Schedule").click()
    caret = page.locator("pre.caret")
    await caret.wait_for()
    assert (await caret.inner_text()).splitlines() == ["sya hello", "^"]
    assert (
        await page.get_by_label("Command", exact=True).input_value() == "sya hello"
    )  # the form is kept
    assert queue_ids(dash) == []
    await page.screenshot(path=shots / "typo.png", full_page=True)

    # the live feed: an event logged by the pack appears without reloading
    await page.goto(dash.url + "/events")
    await page.get_by_text("Live: new events appear at the top.").wait_for()
    done = await dash.harness.run(
        "schedule",
        MOD,
        run="execute if entity @e[type=minecraft:pig]",
        time=1,
        unit="tick",
        retry=1,
        retry_delay=1,
        id="nopig",
    )
    assert "Scheduled `nopig`" in done.text
    await asyncio.to_thread(dash.mc.step, 10)
    fresh = (
        page.locator("#feed tr.fresh").filter(has_text="nopig").filter(has_text="retry_exhausted")
    )
    await fresh.first.wait_for()
    cells = await fresh.first.locator("td").all_inner_texts()
    assert cells[1] == "Task failed: no retries left retry_exhausted"
    assert cells[3].isdigit()  # a pack event has its game time

    # the bot's own alert joins the same feed: a planned run missed while the bot was down
    scheduler = dash.harness.services.scheduler
    assert scheduler is not None
    await dash.harness.run("schedule", MOD, run="say late", id="latecomer", when="in 1m")
    await scheduler.stop()
    dash.wall.advance(60 + 601)  # past max_late (10 minutes)
    await scheduler.start()
    await scheduler.settled()
    missed = page.locator("#feed tr.fresh.ev-wallclock_missed").filter(has_text="latecomer")
    await missed.wait_for()
    cells = await missed.locator("td").all_inner_texts()
    # titled as the alert channel titles it; no game time
    assert cells[:4] == ["main", "Planned task missed wallclock_missed", "latecomer", "\u2013"]
    assert "<t:" not in cells[4] and "UTC" in cells[4]  # the due time, shown as a time
    assert "reason=" in cells[4] and "not running" in cells[4]
    await page.screenshot(path=shots / "events.png", full_page=True)
    # and on the page as loaded, from the bus's history
    await page.reload()
    kept = page.locator("#feed tr.ev-wallclock_missed").filter(has_text="latecomer")
    assert "\u2013" in await kept.locator("td").nth(3).inner_text()

    for name in ("audit", "extensions"):
        await page.goto(f"{dash.url}/{name}")
        await page.screenshot(path=shots / f"{name}.png", full_page=True)
    await page.goto(dash.url + "/audit")
    audit_text = await page.locator("table").inner_text()
    assert "Cancelled greet." in audit_text and "user7002" in audit_text
    await ctx.close()


async def test_admin_clears_after_confirming_dark_and_narrow(
    dash: Dash, browser: Any, shots: Path
) -> None:
    for i in range(3):
        await dash.harness.run("schedule", MOD, run=f"say {i}", time=900, unit="tick", id=f"t{i}")
    assert queue_ids(dash) == ["t0", "t1", "t2"]
    await dash.harness.run("schedule", MOD, run="say raid night", id="raid", when="fri 20:00")
    await dash.harness.run("schedule", MOD, run="say hourly", id="hourly", repeat="0 * * * *")
    page = await open_session(
        browser, dash, ADMIN, color_scheme="dark", viewport={"width": 390, "height": 844}
    )
    await page.screenshot(path=shots / "servers-dark-narrow.png", full_page=True)
    await page.goto(dash.url + "/servers/main/queue")
    await page.screenshot(path=shots / "queue-dark-narrow.png", full_page=True)
    await page.get_by_role("link", name="Clear every task…").click()
    await page.get_by_text("(3 now)").wait_for()
    await page.screenshot(path=shots / "clear-confirm-dark.png", full_page=True)
    assert queue_ids(dash) == ["t0", "t1", "t2"]  # asking changed nothing
    await page.get_by_role("button", name="Yes, remove every task").click()
    await page.get_by_text("Removed 3 task(s) from main.").wait_for()
    assert queue_ids(dash) == []
    # the planned (wall-clock) list, due times in the reader's zone; clear left it alone
    await page.goto(dash.url + "/servers/main/planned")
    await page.get_by_role("row").filter(has_text="say raid night").wait_for()
    await page.get_by_role("button", name="pause hourly").click()
    await page.get_by_text("Paused planned hourly on main.").wait_for()
    await page.screenshot(path=shots / "planned-dark-narrow.png", full_page=True)
    # keyboard: the skip link is the first stop and lands on the content
    await page.keyboard.press("Tab")
    focused = await page.evaluate("document.activeElement.textContent")
    assert focused == "Skip to content"


async def test_a_reused_or_expired_link_is_refused(dash: Dash, browser: Any, shots: Path) -> None:
    ctx = await browser.new_context()
    ctx.set_default_timeout(TIMEOUT)
    page = await ctx.new_page()
    link = await dash.link(MOD)
    await page.goto(link)
    await page.get_by_role("button", name="Log in").click()
    await page.wait_for_url("**/servers")

    other = await (await browser.new_context()).new_page()
    reply = await other.goto(link)
    assert reply is not None and reply.status == 403
    await other.get_by_text("This login link was already used").wait_for()
    await other.screenshot(path=shots / "reused.png", full_page=True)

    late = await dash.link(MOD)
    dash.clock.advance(LINK_TTL + 1)
    reply = await other.goto(late)
    assert reply is not None and reply.status == 403
    await other.get_by_text("This login link has expired").wait_for()
    await other.screenshot(path=shots / "expired.png", full_page=True)
    # and an expired link cannot be pressed through either
    status = await other.request.post(dash.url + "/login", form={"t": late.split("t=")[1]})
    assert status.status == 403
    assert (await other.request.get(dash.url + "/servers")).status == 401
    await ctx.close()


async def test_a_long_outcome_is_shown_whole_and_the_session_survives_it(
    dash: Dash, browser: Any, shots: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a reload that fails with a long error: its outcome is far over the 4,096 bytes a browser
    # keeps of one cookie, so it must not travel in the session cookie
    monkeypatch.syspath_prepend(str(tmp_path))
    cog = tmp_path / "doom_test_long_cog.py"
    cog.write_text("async def setup(bot):\n    pass\n")
    await dash.harness.bot.load_extension("doom_test_long_cog")
    # ~8,000 characters that do not compress (the session cookie is zlib-compressed)
    words = " ".join(f"field{i}={secrets.token_hex(6)} is not valid;" for i in range(300))
    cog.write_text(f"async def setup(bot):\n    raise ValueError({words!r})\n")
    page = await open_session(browser, dash, ADMIN)
    await page.goto(dash.url + "/extensions")
    await page.get_by_role("button", name="Reload doom_test_long_cog").click()
    await page.wait_for_url("**/extensions")
    shown = page.locator(".flash")
    await shown.wait_for()
    text = await shown.inner_text()
    assert text.startswith("Reloading doom_test_long_cog failed: field0="), text[:200]
    assert text.endswith("is not valid;") and "field299=" in text, text[-200:]
    cookies = await page.context.cookies()
    assert all(len(c["value"]) < 1000 for c in cookies), [len(c["value"]) for c in cookies]
    await page.screenshot(path=shots / "long-outcome.png", full_page=True)
    # shown once; the session is still the admin's
    await page.goto(dash.url + "/extensions")
    assert await page.locator(".flash").count() == 0
    assert await page.get_by_role("button", name="Reload doom_test_long_cog").count() == 1
