"""The run history through its faces: /history in Discord (paged), the JSON API (in the OpenAPI
document with its summary), doom_run_lateness_seconds on /metrics, and the history page in a
real Chromium; all on the bot's services over TCP RCON to mcsim, the scheduler on a manual
clock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.testkit.harness import MOD, NOBODY
from tests.web.test_web_browser import TIMEOUT, open_session
from tests.web.webclient import Client
from tests.web.webdash import Dash
from web.metrics import Metrics

ADD = "scoreboard players add #n hist 1"


async def minutely(dash: Dash, runs: int, late: float = 0.0) -> None:
    """A row `m` every minute that ran `runs` times, each `late` seconds late, then once more
    run now."""
    dash.mc.run("scoreboard objectives add hist dummy")
    reply = await dash.harness.run("schedule", MOD, run=ADD, id="m", repeat="1m")
    assert "Planned `m`" in reply.text, reply.text
    scheduler = dash.harness.services.scheduler
    assert scheduler is not None
    for _ in range(runs):
        dash.wall.advance(60 + late)
        await scheduler.settled()
        dash.wall.advance(-late)
    assert dash.mc.score("#n", "hist") == runs
    assert "Ran `m` on main now" in (await dash.harness.run("run_now", MOD, id="m")).text


def samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    return [
        (s.name, s.labels, s.value) for f in text_string_to_metric_families(text) for s in f.samples
    ]


@pytest.mark.slow
async def test_history_in_discord_the_api_and_metrics(dash: Dash, mod: Client) -> None:
    await minutely(dash, 11, late=2.0)
    h = dash.harness
    shown = await h.run("history", MOD, id="m")
    embed = shown.embeds[0]
    assert embed["title"] == "History of `m` on main"
    lines = embed["description"].split("\n")
    assert len(lines) == 10 and "run now by" in lines[0] and "run now by" not in lines[1]
    assert " · ran · 2.0 s late · 1 attempt" in lines[1]
    assert embed["footer"]["text"] == "page 1 of 2; 12 run(s) in the last 30 days"
    message_id = shown.messages[-1].message_id
    assert message_id is not None
    await h.press(message_id, "Next", MOD)
    assert len(h.message(message_id)["embeds"][0]["description"].split("\n")) == 2
    assert "moderator" in (await h.run("history", NOBODY, id="m")).text
    # the API: a page, then the last page for one past the end
    status, body = await mod.get("/api/servers/main/history/m")
    assert status == 200, body
    found = json.loads(body)
    assert (found["total"], found["pages"], len(found["runs"])) == (12, 2, 10)
    newest, scheduled = found["runs"][0], found["runs"][1]
    assert newest["triggered_by"] is not None and newest["kind"] == "planned"
    assert scheduled["triggered_by"] is None and scheduled["lateness"] == pytest.approx(2.0)
    assert scheduled["outcome"] == "ran" and scheduled["attempts"] == 1
    assert scheduled["due"] < scheduled["handed_over"]
    status, body = await mod.get("/api/servers/main/history/m?page=9")
    assert json.loads(body)["page"] == 2 and len(json.loads(body)["runs"]) == 2
    status, body = await mod.get("/api/servers/main/history/m?page=0")
    assert status == 400
    status, body = await mod.get("/api/servers/main/history/" + "x" * 65)  # too long for an id
    assert status == 400, body
    assert json.loads(body) == {
        "error": "A task id is 1 to 64 characters long.",
        "field": "task_id",
    }
    status, html = await mod.get("/servers/main/history/" + "x" * 65)
    assert status == 400 and "A task id is 1 to 64 characters long." in html
    csrf = await mod.csrf()
    status, body = await mod.post(
        "/api/servers/main/tasks/" + "x" * 65 + "/run_now", headers={"X-CSRF-Token": csrf}
    )
    assert status == 400 and json.loads(body)["field"] == "task_id", body
    status, body = await mod.get("/api/openapi.json")
    route = json.loads(body)["paths"]["/api/servers/{name}/history/{task_id}"]["get"]
    assert route["summary"].startswith("The runs of a task id, newest first")
    # /metrics: every run once, by kind, across scrapes
    status, text = await mod.get("/metrics")
    count = [(lab, v) for n, lab, v in samples(text) if n == "doom_run_lateness_seconds_count"]
    assert count == [({"server": "main", "kind": "planned"}, 12.0)]
    total = [v for n, _, v in samples(text) if n == "doom_run_lateness_seconds_sum"]
    assert total == [pytest.approx(22.0, abs=0.5)]  # 11 runs 2 s late, run now on time
    assert "#n hist" not in text and "`m`" not in text and "mod#" not in text
    await h.run("run_now", MOD, id="m")
    status, text = await mod.get("/metrics")
    again = [v for n, _, v in samples(text) if n == "doom_run_lateness_seconds_count"]
    assert again == [13.0]
    # a restarted dashboard counts from its start, not the stored history again
    fresh = Metrics(h.services)
    await fresh.refresh()
    restarted = [
        v for n, _, v in samples(fresh.text().decode()) if n == "doom_run_lateness_seconds_count"
    ]
    assert restarted == []


# how much wider than the window the page is, and the times broken over two lines
PHONE_FITS = """() => ({
  wide: Math.max(0, document.documentElement.scrollWidth - window.innerWidth),
  broken: [...document.querySelectorAll("main time")]
    .filter((t) => t.getClientRects().length > 1).map((t) => t.textContent),
})"""


@pytest.mark.slow
async def test_the_history_page_in_a_browser(dash: Dash, browser: Any, shots: Path) -> None:
    await minutely(dash, 11)
    page = await open_session(browser, dash)
    await page.goto(f"{dash.url}/servers/main/planned")
    # the page's Run now: a double click sends it once
    await page.get_by_role("button", name="Run now m").dblclick()
    # the page is at that address already: wait for the answer the POST came back with
    await page.get_by_text("Ran m on main now").wait_for(timeout=TIMEOUT)
    assert dash.mc.score("#n", "hist") == 13  # 11 on schedule, 1 by /run_now, 1 here
    await page.get_by_role("link", name="History of m").click()
    await page.wait_for_url("**/servers/main/history/m")
    rows = page.locator("table.history tbody tr")
    await rows.first.wait_for(timeout=TIMEOUT)
    assert await rows.count() == 10
    assert "run now by" in await rows.nth(0).inner_text()  # the page's, then /run_now's
    assert "run now by" in await rows.nth(1).inner_text()
    assert "its schedule" in await rows.nth(2).inner_text()
    assert await rows.nth(2).get_attribute("data-outcome") == "ran"
    await page.screenshot(path=str(shots / "history-1.png"), full_page=True)
    await page.get_by_role("link", name="Next").click()
    await page.wait_for_url("**/history/m?page=2")
    assert await rows.count() == 3
    assert "page 2 of 2" in await page.locator("caption").inner_text()
    await page.screenshot(path=str(shots / "history-2.png"), full_page=True)
    # a phone, in both languages: the history, the planned rows and the audit log fit its width,
    # and every time reads on one line
    for locale in ("en-US", "zh-CN"):
        ctx = await browser.new_context(locale=locale, viewport={"width": 390, "height": 844})
        ctx.set_default_timeout(TIMEOUT)
        phone = await ctx.new_page()
        await phone.goto(await dash.link(MOD))
        await phone.locator("main form button[type=submit]").click()  # "Log in" / "登录"
        await phone.wait_for_url("**/servers")
        for path, name in (
            ("/servers/main/history/m", "history"),
            ("/servers/main/planned", "planned"),
            ("/audit", "audit"),
        ):
            await phone.goto(f"{dash.url}{path}")
            await phone.locator("main time").first.wait_for(timeout=TIMEOUT)
            fits = await phone.evaluate(PHONE_FITS)
            assert fits == {"wide": 0, "broken": []}, (locale, path, fits)
            await phone.screenshot(path=str(shots / f"{locale}-390-{name}.png"), full_page=True)
        await ctx.close()
