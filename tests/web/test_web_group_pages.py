"""The dashboard's pages on a group of servers (/groups/<group>/...), as `server: <group>` in
Discord: three mcsims over TCP RCON in the group `lobbies`, the dashboard served on 127.0.0.1,
and Debian's chromium under Playwright (one browser for the module). Scheduled from the page on
the group, a task runs once on each server; with one server stopped the page names it and the
two others run. The group's lists, task, history and time pages; their buttons act on the
group; a moderator cannot clear a group; the forms' refusals change nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.testkit.harness import ADMIN, MOD, User, make_settings
from mcsim.server import Server
from tests.fixtures import server_config
from tests.web.webclient import Client
from tests.web.webdash import (
    BOT_TOKEN,
    CHROMIUM,
    CHROMIUM_ARGS,
    PASSWORD,
    Dash,
    dash_on,
)

# every test of the module runs in one event loop, so that one browser serves them all
pytestmark = pytest.mark.asyncio(loop_scope="module")

TIMEOUT = 20_000  # ms: generous, the machine is shared
NAMES = ("main", "north", "south")
GROUP = "lobbies"
LABEL = "group: lobbies (3 servers)"


@dataclass
class Trio:
    dash: Dash
    servers: dict[str, Server]

    def ids(self, name: str, which: str = "queue") -> list[str]:
        data = self.servers[name].storage("doom.schedule:data")
        return [str(t["id"]) for t in data.get(which, [])]  # type: ignore[union-attr]

    def every(self, which: str = "queue") -> list[list[str]]:
        return [self.ids(n, which) for n in NAMES]

    async def step(self, ticks: int, names: tuple[str, ...] = NAMES) -> None:
        for name in names:
            await asyncio.to_thread(self.servers[name].step, ticks)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Any]:
    """One chromium for the module's tests (each opens a context of its own)."""
    from playwright.async_api import async_playwright

    if not CHROMIUM.exists():
        pytest.fail(
            "Debian's chromium is not installed at /usr/bin/chromium: install it with "
            "`apt-get update && apt-get install -y chromium`."
        )
    async with async_playwright() as pw:
        found = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield found
        finally:
            await found.close()


@pytest_asyncio.fixture(loop_scope="module")
async def trio(mcsim: Callable[..., Server], tmp_path: Path) -> AsyncIterator[Trio]:
    servers = {n: mcsim(password=PASSWORD, name=n) for n in NAMES}
    configs = [server_config(s, PASSWORD, name=n) for n, s in servers.items()]
    settings = make_settings(
        tmp_path,
        configs,
        discord_token=BOT_TOKEN,
        web_port=0,
        rcon_timeout=2.0,
        server_groups={GROUP: list(NAMES)},
    )
    async with dash_on(settings, servers["main"]) as dash:
        yield Trio(dash, servers)


async def open_session(browser: Any, trio: Trio, user: User = MOD) -> Any:
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(TIMEOUT)
    page = await ctx.new_page()
    await page.goto(await trio.dash.link(user))
    await page.get_by_role("button", name="Log in").click()
    await page.wait_for_url("**/servers")
    return page


async def flashed(page: Any) -> str:
    flash = page.locator(".flash").last
    await flash.wait_for()
    text: str = await flash.inner_text()
    return text


# -- in the browser ---------------------------------------------------------------------------


@pytest.mark.slow
async def test_scheduled_on_a_group_from_the_page_it_runs_once_on_each(
    trio: Trio, browser: Any, shots: Path
) -> None:
    for server in trio.servers.values():
        server.run("scoreboard objectives add web dummy")
    page = await open_session(browser, trio)
    # the servers page offers the group, labelled as one
    await page.get_by_role("link", name=LABEL).click()
    await page.wait_for_url(f"**/groups/{GROUP}")
    await page.get_by_role("link", name="queue", exact=True).click()
    await page.wait_for_url(f"**/groups/{GROUP}/queue")
    assert await page.locator("form.schedule select[name=target]").input_value() == GROUP
    await page.get_by_label("Command", exact=True).fill("scoreboard players add #n web 1")
    await page.get_by_label("Delay").fill("20")
    await page.locator("select[name=unit]").select_option("tick")
    await page.get_by_label("Id (optional)").fill("tick")
    await page.get_by_role("button", name="Schedule", exact=True).click()
    await page.wait_for_url(f"**/groups/{GROUP}/queue")
    said = await flashed(page)
    assert said.startswith("lobbies: done on 3 of 3 servers."), said
    for name in NAMES:
        assert f"{name}: Scheduled tick on {name}." in said, said
    assert trio.every() == [["tick"]] * 3
    # each server's section lists its own task
    for name in NAMES:
        part = page.locator("section.part").filter(has=page.get_by_role("heading", name=name))
        assert "scoreboard players add #n web 1" in await part.inner_text()
    await trio.step(40)
    assert [s.score("#n", "web") for s in trio.servers.values()] == [1, 1, 1]
    await trio.step(200)
    assert [s.score("#n", "web") for s in trio.servers.values()] == [1, 1, 1]  # once

    # one server down: the page names it, the two others run
    await asyncio.to_thread(trio.servers["south"].stop)
    await page.get_by_label("Command", exact=True).fill("scoreboard players add #n web 1")
    await page.get_by_label("Delay").fill("20")
    await page.locator("select[name=unit]").select_option("tick")
    await page.get_by_label("Id (optional)").fill("again")
    await page.get_by_role("button", name="Schedule", exact=True).click()
    said = await flashed(page)
    assert said.startswith("lobbies: done on 2 of 3 servers."), said
    assert "main: Scheduled again on main." in said and "north: Scheduled again on north." in said
    [south] = [line for line in said.splitlines() if line.startswith("- south: ")]
    assert south.startswith("- south: not done: ") and "'south'" in south, said
    await page.screenshot(path=shots / "one-down.png", full_page=True)
    await trio.step(40, ("main", "north"))
    assert [trio.servers[n].score("#n", "web") for n in NAMES] == [2, 2, 1]
    # the group's list names the server that is down, with why, and lists the others
    await page.goto(f"{trio.dash.url}/groups/{GROUP}/queue")
    head = await page.locator("#group-head").inner_text()
    assert head == "lobbies: read on 2 of 3 servers.", head
    part = page.locator("section.part").filter(has=page.get_by_role("heading", name="south"))
    assert "- south: unavailable: Cannot reach server 'south'" in await part.inner_text()
    assert await part.locator("table").count() == 0
    # the time page too: the two others' game time, the third named as unreadable
    await page.goto(f"{trio.dash.url}/groups/{GROUP}")
    head = await page.locator("#group-head").inner_text()
    lines = [line for line in head.splitlines() if line]
    assert lines[0] == "lobbies: read on 2 of 3 servers.", head
    assert lines[1].startswith("- south: unavailable: Cannot reach server 'south'"), head
    assert await page.locator(".card").count() == 3
    assert await page.locator(".card dt", has_text="Game time").count() == 2
    await page.screenshot(path=shots / "time.png", full_page=True)
    await page.context.close()


@pytest.mark.slow
async def test_the_group_list_its_task_history_and_buttons(
    trio: Trio, browser: Any, shots: Path
) -> None:
    reply = await trio.dash.harness.run(
        "schedule", MOD, run="say hi", time=900, unit="tick", id="hi", server=GROUP
    )
    assert reply.text.startswith("lobbies: done on 3 of 3 servers."), reply.text
    await trio.dash.harness.run(
        "schedule", MOD, run="say mine", time=900, unit="tick", id="mine", server="north"
    )
    page = await open_session(browser, trio)
    # the picker of a server's list offers the group, and opens the same list of it
    await page.goto(trio.dash.url + "/servers/main/queue")
    picker = page.locator("form.picker")
    await picker.get_by_label("Server or group").select_option(label=LABEL)
    await picker.get_by_role("button", name="Open").click()
    await page.wait_for_url(f"**/groups/{GROUP}/queue")
    parts = page.locator("section.part")
    assert await parts.count() == 3
    assert "say mine" in await parts.nth(1).inner_text()
    assert "say mine" not in await parts.nth(0).inner_text()
    # a button acts on the id on every server of the group
    await page.get_by_role("button", name=f"Pause hi on {GROUP}").first.click()
    said = await flashed(page)
    assert said.startswith("lobbies: done on 3 of 3 servers."), said
    assert trio.every("paused") == [["hi"]] * 3 and trio.ids("north") == ["mine"]
    await page.get_by_role("link", name="paused", exact=True).click()
    await page.get_by_role("button", name=f"Resume hi on {GROUP}").first.click()
    said = await flashed(page)
    assert said.startswith("lobbies: done on 3 of 3 servers."), said
    assert trio.every() == [["hi"], ["mine", "hi"], ["hi"]]
    # the task's page: each server's task of that id; one without it says so
    await page.get_by_role("link", name="queue", exact=True).click()
    await page.get_by_role("link", name="mine").click()
    await page.wait_for_url(f"**/groups/{GROUP}/tasks/mine")
    main = page.locator("section.part").filter(has=page.get_by_role("heading", name="main"))
    assert "No task mine on main." in await main.inner_text()
    north = page.locator("section.part").filter(has=page.get_by_role("heading", name="north"))
    assert "say mine" in await north.inner_text()
    await page.screenshot(path=shots / "task.png", full_page=True)
    # cancel from it: done where it was, "not done" where it was not
    await page.get_by_role("button", name=f"Cancel mine on {GROUP}").click()
    said = await flashed(page)
    assert said.startswith("lobbies: done on 1 of 3 servers."), said
    assert trio.every() == [["hi"]] * 3
    # run now, then the history of each server
    await page.goto(f"{trio.dash.url}/groups/{GROUP}/tasks/hi")
    await page.get_by_role("button", name=f"Run now hi on {GROUP}").click()
    said = await flashed(page)
    assert said.startswith("lobbies: done on 3 of 3 servers."), said
    await trio.step(5)
    await page.goto(f"{trio.dash.url}/groups/{GROUP}/tasks/hi")
    await page.get_by_role("link", name="History of hi").click()
    await page.wait_for_url(f"**/groups/{GROUP}/history/hi")
    await page.get_by_role("heading", name=f"History of hi on {LABEL}").wait_for()
    for name in NAMES:
        part = page.locator("section.part").filter(has=page.get_by_role("heading", name=name))
        assert f"Runs of hi on {name}: 1 in the last" in await part.inner_text()
        assert await part.locator("tr[data-outcome]").count() == 1
    await page.screenshot(path=shots / "history.png", full_page=True)
    # every task of the id, after its question
    await trio.dash.harness.run(
        "schedule", MOD, run="say hi", time=900, unit="tick", id="hi", server="south"
    )
    await page.goto(f"{trio.dash.url}/groups/{GROUP}/tasks/hi")
    await page.get_by_role("link", name="Cancel every task with this id…").click()
    question = await page.locator("main .warning").inner_text()
    assert question.startswith("Cancel every task hi on lobbies?"), question
    assert "- south: 2 task(s)" in question and "- main: 1 task(s)" in question, question
    assert trio.ids("south") == ["hi", "hi"]  # asking changed nothing
    await page.get_by_role("button", name="Yes, cancel them").click()
    said = await flashed(page)
    assert said.startswith("lobbies: done on 3 of 3 servers."), said
    assert trio.every() == [[], [], []]
    await page.context.close()


@pytest.mark.slow
async def test_a_moderator_cannot_clear_a_group_an_admin_can(trio: Trio, browser: Any) -> None:
    await trio.dash.harness.run(
        "schedule", MOD, run="say x", time=900, unit="tick", id="x", server=GROUP
    )
    page = await open_session(browser, trio, MOD)
    await page.goto(f"{trio.dash.url}/groups/{GROUP}/queue")
    assert await page.locator("#clear").count() == 0
    refused = await page.goto(f"{trio.dash.url}/groups/{GROUP}/clear")
    assert refused is not None and refused.status == 403
    assert "You need the admin role to clear the queue." in await page.inner_text("main")
    me = await (await page.request.get(trio.dash.url + "/api/me")).json()
    form = {"csrf_token": me["csrf_token"], "confirm": "yes"}
    posted = await page.request.post(f"{trio.dash.url}/groups/{GROUP}/clear", form=form)
    assert posted.status == 403 and trio.every() == [["x"]] * 3
    await page.context.close()
    page = await open_session(browser, trio, ADMIN)
    await page.goto(f"{trio.dash.url}/groups/{GROUP}/queue")
    await page.get_by_role("link", name="Clear every task…").click()
    await page.get_by_text("Remove every scheduled task on main, north, south?").wait_for()
    assert trio.every() == [["x"]] * 3  # asking changed nothing
    await page.get_by_role("button", name="Yes, remove every task").click()
    said = await flashed(page)
    assert said.startswith("lobbies: done on 3 of 3 servers."), said
    assert "main: Removed 1 task(s) from main." in said, said
    assert trio.every() == [[], [], []]
    await page.context.close()


# -- over HTTP ---------------------------------------------------------------------------------


async def test_the_group_form_a_new_unique_id_a_preview_and_its_refusals(trio: Trio) -> None:
    mod = await Client(trio.dash).login(MOD)
    try:
        csrf = await mod.csrf()
        base = {
            "csrf_token": csrf,
            "run": "say d",
            "time": "900",
            "unit": "tick",
            "retry": "0",
            "retry_delay": "1",
            "timezone": "UTC",
            "target": GROUP,
            "if_not": "skip",
            "after_wait": "skip",
        }
        status, _ = await mod.post(f"/groups/{GROUP}/queue", data={**base, "prefix": "raid-"})
        assert status == 303
        made = trio.every()
        assert all(len(ids) == 1 and ids[0].startswith("raid-") for ids in made), made
        status, html = await mod.get(f"/groups/{GROUP}/queue")
        assert "lobbies: done on 3 of 3 servers." in html, html[:2000]
        # from a server's page, a group as the form's target
        status, _ = await mod.post("/servers/main/queue", data={**base, "id": "from-main"})
        assert status == 303 and all("from-main" in ids for ids in trio.every())
        # a preview: the next runs, nothing saved
        wall = {**base, "time": "", "when": "in 10m", "id": "later", "preview": "1"}
        status, html = await mod.post(f"/groups/{GROUP}/queue", data=wall)
        assert status == 200 and 'id="preview"' in html and "the next run, in UTC" in html
        scheduler = trio.dash.harness.services.scheduler
        assert scheduler is not None and (await scheduler.planned("main"))[1] == 0
        before = trio.every()
        # a typo: each server refuses it, and says so; the form stays, filled in
        status, html = await mod.post(f"/groups/{GROUP}/queue", data={**base, "run": "sya x"})
        assert status == 400, html[:500]
        error = html.split('id="schedule-error">', 1)[1].split("</div>", 1)[0]
        assert error.startswith("<p>lobbies: done on 0 of 3 servers.<br"), error
        for name in NAMES:
            assert f"<strong>{name}</strong>: not done: " in error, error
        assert (
            error.count("Unknown command <code>sya</code>: did you mean <code>say</code>?") == 3
        ), error
        assert 'value="sya x"' in html
        # refused, the field named, nothing sent to any server
        for changes, field, said in [
            ({"target": "nope"}, "target", "&#39;nope&#39; is not a server group"),
            ({"target": "main"}, "target", "&#39;main&#39; is not a server group"),
            ({"prefix": "p-", "id": "mine"}, "id", "An id prefix makes a new"),
        ]:
            status, html = await mod.post(f"/groups/{GROUP}/queue", data={**base, **changes})
            assert status == 400, (changes, html[:500])
            error = html.split('id="schedule-error"', 1)[1].split("</div>", 1)[0]
            assert f"<code>{field}</code>:" in error and said in error, error
        assert trio.every() == before
        # no CSRF token, an unknown group, a verb no task has
        status, body = await mod.post(f"/groups/{GROUP}/queue", data={"run": "say x"})
        assert status == 403 and "security token" in body
        status, body = await mod.get("/groups/nope/queue")
        assert status == 404 and "&#39;nope&#39; is not a server group." in body
        status, _ = await mod.post(f"/groups/{GROUP}/tasks/x/explode", data={"csrf_token": csrf})
        assert status == 404
        status, _ = await mod.post(
            f"/groups/{GROUP}/tasks/{'x' * 65}/cancel", data={"csrf_token": csrf}
        )
        assert status == 400 and trio.every() == before
    finally:
        await mod.close()


async def test_the_picker_opens_the_same_view_of_a_server_or_a_group(trio: Trio) -> None:
    mod = await Client(trio.dash).login(MOD)
    try:
        for query, where in [
            (f"target={GROUP}&view=paused", f"/groups/{GROUP}/paused"),
            ("target=north&view=tasks/a%20b", "/servers/north/tasks/a%20b"),
            (f"target={GROUP}&view=history/x", f"/groups/{GROUP}/history/x"),
        ]:
            status, _ = await mod.get(f"/pick?{query}")
            assert status == 303, query
            async with mod.http.get(f"/pick?{query}", allow_redirects=False) as answer:
                assert answer.headers["Location"] == where
        for query in (
            "target=nope&view=queue",
            "target=main&view=//evil.example",
            "target=main&view=tasks/",
        ):
            status, _ = await mod.get(f"/pick?{query}")
            assert status == 404, query
        # the servers page and every list page offer each server and the group, as a group
        for path in ("/servers/main/queue", f"/groups/{GROUP}/planned"):
            status, html = await mod.get(path)
            assert f'<option value="{GROUP}"' in html and LABEL in html, path
            assert '<option value="north"' in html
        status, html = await mod.get("/servers")
        assert f'href="/groups/{GROUP}">{LABEL}</a>' in html
        assert 'href="/groups/all">group: all (3 servers)</a>' in html
    finally:
        await mod.close()
