# ruff: noqa: RUF001, RUF003  (Chinese text uses full-width punctuation on purpose)
"""Languages on the dashboard: each page in the reader's language. A real chromium whose locale
is zh-CN gets the pages in Simplified Chinese (headings, table headers, buttons, refusals and the
services' errors, dates by Babel and by the page's script); en-US and a language without a
catalog get English; DOOM_LOCALE applies when the browser asks for nothing the bot has."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.testkit.harness import ADMIN, MOD, User
from tests.web.webclient import Client
from tests.web.webdash import Dash

# every test here takes seconds (a real browser, a server at 20 TPS, processes)
pytestmark = pytest.mark.slow

TIMEOUT = 20_000  # ms: generous, the machine is shared


async def logged_in(browser: Any, dash: Dash, locale: str, button: str, user: User = MOD) -> Any:
    """A page of a browser context speaking `locale`, logged in with the login button `button`
    (itself in that language)."""
    ctx = await browser.new_context(locale=locale)
    ctx.set_default_timeout(TIMEOUT)
    page = await ctx.new_page()
    await page.goto(await dash.link(user))
    await page.get_by_role("button", name=button, exact=True).click()
    await page.wait_for_url("**/servers")
    return page


async def lang(page: Any) -> str:
    found: str = await page.evaluate("document.documentElement.lang")
    return found


async def test_a_chinese_browser_gets_the_dashboard_in_chinese(
    dash: Dash, browser: Any, shots: Path
) -> None:

    h = dash.harness
    await h.run("schedule", MOD, run="say hello", time=900, unit="tick", id="greet")
    await h.run("schedule", MOD, run="say hourly", id="hourly", repeat="0 * * * *", timezone="UTC")
    page = await logged_in(browser, dash, "zh-CN", "登录", ADMIN)
    assert await lang(page) == "zh-CN"
    await page.get_by_role("heading", name="服务器", exact=True).wait_for()
    assert "队列 1" in " ".join((await page.locator(".lists").inner_text()).split())
    assert await page.get_by_role("link", name="审计日志").count() == 1
    await page.screenshot(path=shots / "servers-zh.png", full_page=True)

    # the queue: list tab, table headers, form labels, buttons; the due time by Babel and then
    # by the page's script, both in Chinese
    await page.get_by_role("link", name="队列 1").click()
    await page.get_by_role("heading", name="计划一条命令").wait_for()
    assert await page.get_by_role("columnheader", name="编号", exact=True).count() == 1
    assert await page.get_by_role("columnheader", name="到期", exact=True).count() == 1
    assert await page.get_by_role("button", name="清空所有任务…").count() == 0  # a link
    assert await page.get_by_role("link", name="清空所有任务…").count() == 1
    row = page.get_by_role("row").filter(has_text="greet")
    assert "年" in await row.locator("time").inner_text()
    assert "秒钟后" in await row.inner_text() or "分钟后" in await row.inner_text()
    assert "1 个任务" in await page.locator("caption").inner_text()
    await page.screenshot(path=shots / "queue-zh.png", full_page=True)

    # a typo: the command check's sentence in Chinese, with its caret; nothing queued
    await page.get_by_label("命令", exact=True).fill("sya hello")
    await page.get_by_label("延迟").fill("5")
    await page.locator("select[name=unit]").select_option("tick")
    await page.get_by_role("button", name="计划", exact=True).click()
    error = page.locator("#schedule-error")
    await error.wait_for()
    assert "列）：sya hello" in await error.inner_text()  # "{message}（第 {column} 列）：…"
    await page.screenshot(path=shots / "typo-zh.png", full_page=True)

    # a stale button: the scheduler refuses (the planned schedule was paused from Discord
    # meanwhile) and its error is flashed in Chinese
    await page.goto(dash.url + "/servers/main/planned")
    pause = page.get_by_role("button", name="暂停 hourly")
    await pause.wait_for()
    await h.run("pause", MOD, id="hourly")
    await pause.click()
    flash = page.locator(".flash.error")
    await flash.wait_for()
    assert "计划 hourly 当前为已暂停：无法暂停" in await flash.inner_text()
    await page.screenshot(path=shots / "refused-zh.png", full_page=True)

    # the clear confirmation and its outcome
    await page.goto(dash.url + "/servers/main/clear")
    await page.get_by_role("heading", name="清空 main？").wait_for()
    await page.get_by_role("button", name="是，移除所有任务").click()
    await page.get_by_text("已从 main 移除 1 个任务。").wait_for()

    # an error page, and the JSON API's refusal, in the reader's language
    reply = await page.goto(dash.url + "/servers/nope/queue")
    assert reply is not None and reply.status == 404
    await page.get_by_role("heading", name="未找到").wait_for()
    assert "没有名为 'nope' 的服务器" in await page.get_by_role("alert").inner_text()
    # (Playwright's request API sends no Accept-Language of its own: a script's would)
    api = await page.request.get(
        dash.url + "/api/servers/nope/lists/queue", headers={"Accept-Language": "zh-CN"}
    )
    assert api.status == 404 and "没有名为 'nope' 的服务器" in (await api.json())["error"]

    # the live feed's status line comes from the page, translated
    await page.goto(dash.url + "/events")
    await page.get_by_text("实时：新事件会出现在最上方。").wait_for()
    # a planned run missed while the bot was down: titled and detailed as the alert says it
    scheduler = h.services.scheduler
    assert scheduler is not None
    await h.run("schedule", MOD, run="say late", id="latecomer", when="in 1m")
    await scheduler.stop()
    dash.wall.advance(60 + 601)  # past max_late
    await scheduler.start()
    await scheduler.settled()
    missed = page.locator("#feed tr.fresh.ev-wallclock_missed")
    await missed.wait_for()
    text = await missed.inner_text()
    assert "计划任务错过了运行时间" in text and "原因=" in text, text
    await page.reload()  # and so in the page as served, from the history
    kept = page.locator("#feed tr.ev-wallclock_missed")
    assert "计划任务错过了运行时间" in await kept.inner_text()
    await page.goto(dash.url + "/audit")
    assert await page.get_by_role("columnheader", name="操作人").count() == 1
    await page.screenshot(path=shots / "audit-zh.png", full_page=True)

    # the rate limiter refuses before the views run: its page is in Chinese too (10 tries a
    # minute with text that is no login link, from one address)
    for _ in range(11):
        refused = await page.request.post(
            dash.url + "/login", form={"t": "bad"}, headers={"Accept-Language": "zh-CN"}
        )
    assert refused.status == 429
    assert "短时间内尝试次数过多" in await refused.text()


@pytest.mark.parametrize("locale", ["en-US", "xx"])
async def test_english_and_unknown_browsers_get_english(
    dash: Dash, browser: Any, locale: str
) -> None:
    page = await logged_in(browser, dash, locale, "Log in")
    assert await lang(page) == "en"
    await page.get_by_role("heading", name="Servers", exact=True).wait_for()
    await page.goto(dash.url + "/servers/main/queue")
    assert await page.get_by_role("columnheader", name="Id", exact=True).count() == 1
    assert await page.get_by_role("button", name="Schedule", exact=True).count() == 1
    reply = await page.goto(dash.url + "/servers/nope/queue")
    assert reply is not None and reply.status == 404
    await page.get_by_role("heading", name="Not found").wait_for()
    await page.get_by_text("There is no server called 'nope'").wait_for()


@pytest.mark.parametrize("dash_locale", ["zh_CN"])
async def test_doom_locale_applies_when_the_browser_asks_for_nothing_we_have(
    dash: Dash, browser: Any
) -> None:
    # a browser asking for a language without a catalog: DOOM_LOCALE's Chinese
    page = await logged_in(browser, dash, "xx", "登录")
    assert await lang(page) == "zh-CN"
    await page.get_by_role("heading", name="服务器", exact=True).wait_for()
    # one asking for English still gets English
    english = await logged_in(browser, dash, "en-US", "Log in")
    await english.get_by_role("heading", name="Servers", exact=True).wait_for()

    # the header as werkzeug parses it: q=0 refuses a language, the best quality comes first
    # whatever the order, and no header at all is "nothing we have"
    client = await Client(dash).login(MOD)
    try:
        for header, heading in [
            ("en;q=0, fr", "<h1>服务器</h1>"),  # English refused, French has no catalog
            ("zh-CN;q=0, en;q=0.5", "<h1>Servers</h1>"),
            ("fr, en-GB;q=0.8, zh;q=0.9", "<h1>服务器</h1>"),
            (None, "<h1>服务器</h1>"),
        ]:
            headers = {} if header is None else {"Accept-Language": header}
            status, html = await client.get("/servers", headers=headers)
            assert status == 200 and heading in html, header
            # a filtered constant is translated at each render, not once when compiled
            planned = "计划" if "服务器" in heading else "planned"
            assert f'href="/servers/main/planned">{planned} <strong>0</strong></a>' in html, header
    finally:
        await client.close()
